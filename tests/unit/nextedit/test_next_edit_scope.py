"""Next-edit candidates follow scope: a renamed local or parameter is its own function's."""

from __future__ import annotations

from tests.unit.nextedit.nextedit_session import Session

PYTHON = '''def connect(user):
    key = AWS_ACCESS
    return open_client(user, key, HOST)

def open_client(user, key, host):
    token = "..."
    return (user, key, host, token)
'''

TYPESCRIPT = '''function connect(user: string) {
  const key = AWS_ACCESS;
  return openClient(user, key, HOST);
}

function openClient(user: string, key: string, host: string) {
  const token = "...";
  return [user, key, host, token];
}
'''

GO = '''package client

func connect(user string) Client {
	key := AWS_ACCESS
	return openClient(user, key, HOST)
}

func openClient(user string, key string, host string) Client {
	token := "..."
	return Client{user, key, host, token}
}
'''

METHODS = '''class Store:
    def load(self):
        path = self.root
        return read(path)

    def save(self, data):
        path = self.root
        write(path, data)
'''

MODULE_FUNCTION = '''def fetch(url):
    return url

def first():
    return fetch("a")

def second(fetcher):
    return fetch("b")
'''


def test_python_local_renamed_offers_only_its_own_functions_use():
    """A Python local renamed in connect: its use there, nothing in open_client."""
    s = Session(PYTHON, "file:///w/client.py", "python")
    s.rename_on(1, "key", "k")
    assert s.candidates() == [(2, 2, "use of key (now k)")]


def test_typescript_local_renamed_offers_only_its_own_functions_use():
    """A TypeScript `const` renamed in connect: its use there, nothing in openClient."""
    s = Session(TYPESCRIPT, "file:///w/client.ts", "typescript")
    s.rename_on(1, "key", "k")
    assert s.candidates() == [(2, 2, "use of key (now k)")]


def test_go_local_renamed_offers_only_its_own_functions_use():
    """A Go `:=` local renamed in connect: its use there, nothing in openClient."""
    s = Session(GO, "file:///w/client.go", "go")
    s.rename_on(3, "key", "k")
    assert s.candidates() == [(4, 4, "use of key (now k)")]


def test_a_local_renamed_in_a_method_is_not_looked_for_in_a_sibling_method():
    """`path` renamed in load: load's use only, not save's own `path`."""
    s = Session(METHODS, "file:///w/store.py", "python")
    s.rename_on(2, "path", "where")
    assert s.candidates() == [(3, 3, "use of path (now where)")]


def test_a_renamed_module_function_offers_its_uses_in_other_functions():
    """A top-level function renamed at its definition: its calls in every function."""
    s = Session(MODULE_FUNCTION, "file:///w/fetch.py", "python")
    s.rename_on(0, "fetch", "get")
    assert s.candidates() == [(4, 4, "use of fetch (now get)"), (7, 7, "use of fetch (now get)")]


def test_a_local_whose_uses_are_all_renamed_offers_nothing():
    """key renamed to k at the assignment and the use: open_client's own key is no candidate."""
    s = Session(PYTHON, "file:///w/client.py", "python")
    s.rename_on(1, "key", "k")
    s.rename_on(2, "key", "k")
    assert s.candidates() == []


def test_a_renamed_module_constant_skips_a_function_with_its_own_local_of_that_name():
    """LIMIT renamed at the top: f's use is offered, g's own local LIMIT is not."""
    text = "LIMIT = 3\n\ndef f():\n    return LIMIT\n\ndef g():\n    LIMIT = 5\n    return LIMIT\n"
    s = Session(text, "file:///w/limits.py", "python")
    s.rename_on(0, "LIMIT", "CAP")
    assert s.candidates() == [(3, 3, "use of LIMIT (now CAP)")]
