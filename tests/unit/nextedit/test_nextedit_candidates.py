"""Next-edit candidates: a renamed parameter stays in its own function, words in
comments and strings are no candidates, and a method's calls are found through a
member access, in Python, JavaScript/TypeScript and Go."""

from __future__ import annotations

from tests.unit.nextedit.nextedit_session import Session


# -- a renamed parameter: its own function only ------------------------------------------

PY_PARAMETER = '''def mark(flags, name):
    return flags.get(name)

def mark_custom(flags, name, f):
    flags.set(name, f)
    return name
'''

TS_PARAMETER = '''function mark(flags: Flags, name: string) {
  return flags.get(name);
}

function markCustom(flags: Flags, name: string, f: string) {
  flags.set(name, f);
  return name;
}
'''

GO_PARAMETER = '''package flags

func Mark(flags *FlagSet, name string) error {
	return flags.Get(name)
}

func MarkCustom(flags *FlagSet, name string, f string) error {
	return flags.Set(name, f)
}
'''


def test_python_renamed_parameter_offers_no_other_function_with_that_parameter():
    s = Session(PY_PARAMETER, "file:///w/flags.py", "python")
    s.rename_on(0, "name", "key")
    assert s.candidates() == [(1, 1, "use of name (now key)")]


def test_typescript_renamed_parameter_offers_no_other_function_with_that_parameter():
    s = Session(TS_PARAMETER, "file:///w/flags.ts", "typescript")
    s.rename_on(0, "name", "key")
    assert s.candidates() == [(1, 1, "use of name (now key)")]


def test_go_renamed_parameter_offers_no_other_function_with_that_parameter():
    s = Session(GO_PARAMETER, "file:///w/flags.go", "go")
    s.rename_on(2, "name", "key")
    assert s.candidates() == [(3, 3, "use of name (now key)")]


# -- comments, docstrings and strings are not code ---------------------------------------

PY_TEXT = '''def every(interval):
    """Schedule a job that repeats every minute."""
    return Job(interval)

# call every(1) to repeat
def start():
    log("every job")
    log(f"{every(2)}")
    return every(3)
'''

JS_TEXT = '''function every(interval) {
  return new Job(interval);
}

// call every(1) to repeat
function start() {
  log("every job", /every/);
  log(`${every(2)} every`);
  return every(3);
}
'''

GO_TEXT = '''package sched

func Every(interval int) *Job {
	return NewJob(interval)
}

// Every returns a job; call Every(1) to repeat
func Start() *Job {
	log("Every job", `Every`)
	return Every(3)
}
'''


def test_python_words_in_a_docstring_a_comment_or_a_string_are_no_candidates():
    """Renaming `every`: the f-string's interpolation and the call are code; the
    docstring, the comment and the string are not."""
    s = Session(PY_TEXT, "file:///w/sched.py", "python")
    s.rename_on(0, "every", "each")
    assert s.candidates() == [(7, 8, "use of every (now each)")]


def test_javascript_words_in_a_comment_a_string_or_a_regex_are_no_candidates():
    """The template's `${every(2)}` is code; its text, the comment, the string and the regex are not."""
    s = Session(JS_TEXT, "file:///w/sched.js", "javascript")
    s.rename_on(0, "every", "each")
    assert s.candidates() == [(7, 8, "use of every (now each)")]


def test_go_words_in_a_comment_or_a_string_are_no_candidates():
    s = Session(GO_TEXT, "file:///w/sched.go", "go")
    s.rename_on(2, "Every", "Each")
    assert s.candidates() == [(9, 9, "use of Every (now Each)")]


def test_a_jsdoc_type_and_param_name_are_references_its_prose_is_not():
    """What the TypeScript checker reads in a `/** */` comment (`{Option}`, a `@param`'s
    name) is a use; the same word in its prose is not."""
    text = (
        "class Option {}\n\n/**\n * Add an Option to the list.\n * @param {Option} option\n"
        " * @returns {Option[]}\n */\nfunction add(option) {\n  return [new Option(), option];\n}\n"
    )
    s = Session(text, "file:///w/option.js", "javascript")
    s.rename_on(0, "Option", "Choice")
    assert [(c[0], c[1]) for c in s.candidates()] == [(4, 5), (8, 8)]


# -- a changed signature of a method: calls through a member access ----------------------

PY_METHOD = '''class Command:
    def find(self, args):
        return args

    def run(self, args):
        cmd = self.find(args)
        other = find(args)
        return other or cmd.root().find(
            args)
'''

JS_METHOD = '''class Command {
  find(args) {
    return args;
  }

  run(args) {
    const cmd = this.find(args);
    const other = find(args);
    return other || cmd.root()?.find(args);
  }
}
'''

GO_METHOD = '''package cmd

func (c *Command) Find(args []string) *Command {
	return c
}

func (c *Command) Run(args []string) {
	cmd := c.Root().Find(args)
	Find(args)
	cmd.Find(args)
}
'''


def test_python_method_signature_change_offers_its_calls_through_self_and_objects():
    """`self.find(` and `cmd.root().find(` (the whole call's lines) are calls of the
    method; a bare `find(` is another function's."""
    s = Session(PY_METHOD, "file:///w/cmd.py", "python")
    s.type_before(1, ")", ", extra")
    assert s.candidates() == [(5, 5, "call of find"), (7, 8, "call of find")]


def test_javascript_method_signature_change_offers_its_calls_through_this_and_objects():
    s = Session(JS_METHOD, "file:///w/cmd.js", "javascript")
    s.type_before(1, ")", ", extra")
    assert s.candidates() == [(6, 6, "call of find"), (8, 8, "call of find")]


def test_go_method_signature_change_offers_its_calls_through_receivers():
    s = Session(GO_METHOD, "file:///w/cmd.go", "go")
    s.type_before(2, ") *Command", ", extra string")
    assert s.candidates() == [(7, 7, "call of Find"), (9, 9, "call of Find")]


def test_a_function_signature_change_offers_bare_calls_not_a_method_of_that_name():
    """A module function's calls are `find(...)`; `obj.find(...)` is some method's."""
    text = "def find(args):\n    return args\n\n\ndef run(cmd):\n    cmd.find(1)\n    return find(2)\n"
    s = Session(text, "file:///w/find.py", "python")
    s.type_before(0, ")", ", extra")
    assert s.candidates() == [(6, 6, "call of find")]


# -- a parameter only renamed: the calls that pass it by name, no others -----------------

PY_RENAMED_PARAMETER = '''def area(raduis):
    return 3.14 * raduis ** 2


def report():
    small = area(2)
    big = area(raduis=10)
    return small, big
'''


def test_python_parameter_renamed_offers_only_the_calls_that_pass_it_by_name():
    """`area(2)` needs nothing after `raduis` -> `radius`; `area(raduis=10)` does."""
    s = Session(PY_RENAMED_PARAMETER, "file:///w/area.py", "python")
    s.rename_on(0, "raduis", "radius")
    assert s.candidates() == [(1, 1, "use of raduis (now radius)"), (6, 6, "call of area")]


def test_javascript_parameter_renamed_offers_no_call():
    """JavaScript passes no argument by name: a renamed parameter changes no call."""
    text = "function area(raduis) {\n  return 3.14 * raduis;\n}\n\nconst a = area(2);\n"
    s = Session(text, "file:///w/area.js", "javascript")
    s.rename_on(0, "raduis", "radius")
    assert s.candidates() == [(1, 1, "use of raduis (now radius)")]


def test_a_changed_default_still_offers_every_call():
    """Not a rename (a default changed): the calls are offered as for any signature change."""
    text = "def area(r, scale=1):\n    return r * scale\n\n\nx = area(2)\n"
    s = Session(text, "file:///w/area.py", "python")
    column = s.doc.lines.line_text(0).index("1")
    s.change(0, column, column + 1, "2")
    assert s.candidates() == [(4, 4, "call of area")]
