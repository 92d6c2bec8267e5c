"""The document store: incremental changes keep text and tree in step."""

import pytest

from sparkls.documents.positions import Position
from sparkls.documents.store import BACKGROUND_PARSE_BYTES, DocumentStore, TextChange
from sparkls.errors import DocumentClosed

SOURCE = 'import os\n\ndef greet(name):\n    return "hi " + name  # 😀\n'


def _fresh_sexp(text: str) -> str:
    store = DocumentStore()
    return str(store.open("file:///fresh.py", text, 0).tree.root_node)


def test_incremental_changes_match_a_fresh_parse():
    """After edits (one after an emoji), the kept tree equals a from-scratch parse."""
    store = DocumentStore()
    doc = store.open("file:///a.py", SOURCE, 1)
    assert doc.tree is not None  # parse once so later changes edit the tree
    store.change(
        "file:///a.py",
        [
            TextChange("person", (Position(2, 10), Position(2, 14))),
            TextChange("\n    x = 1", (Position(3, 33), Position(3, 33))),
        ],
        2,
    )
    assert doc.version == 2
    assert doc.text == 'import os\n\ndef greet(person):\n    return "hi " + name  # 😀\n    x = 1\n'
    assert str(doc.tree.root_node) == _fresh_sexp(doc.text)


def test_full_text_change_replaces_everything():
    """A change without a range replaces the document."""
    store = DocumentStore()
    doc = store.open("file:///a.py", SOURCE, 1)
    store.change("file:///a.py", [TextChange("x = 1\n")], 2)
    assert doc.text == "x = 1\n"
    assert str(doc.tree.root_node) == _fresh_sexp("x = 1\n")


def test_closed_document_is_an_error():
    """Reading a closed document raises DocumentClosed."""
    store = DocumentStore()
    store.open("file:///a.py", SOURCE, 1)
    store.close("file:///a.py")
    with pytest.raises(DocumentClosed):
        store.get("file:///a.py")


def test_unknown_language_has_no_tree():
    """Languages without a grammar are kept as text only."""
    store = DocumentStore()
    doc = store.open("file:///notes.txt", "hello", 1)
    assert doc.language_id == "plaintext" and doc.tree is None


def _large_python(functions: int = 9000) -> str:
    return "".join(f"def f{k}(x):\n    return x + {k}\n\n\n" for k in range(functions))


def _prepared(doc):
    snapshot = doc.snapshot()
    snapshot.prepare()
    return snapshot


def _names(tree):
    return [c.child_by_field_name("name").text for c in tree.root_node.children if c.type == "function_definition"]


def test_a_large_document_keeps_an_outline_not_a_tree():
    """Over 256 K characters: a snapshot parses the whole text in the worker; the document
    takes the outline of its top-level statements and lets the tree go."""
    text = _large_python()
    assert len(text) > BACKGROUND_PARSE_BYTES
    doc = DocumentStore().open("file:///w/big.py", text, 1)
    assert doc.is_big and not doc.tree_is_cheap
    assert doc.adopt(_prepared(doc)) and doc.has_fact("outline") and doc._tree is None


def test_a_large_document_is_read_through_windows():
    """A request's tree is the window of top-level statements around its range: nodes at
    the document's own positions, the same as a whole-file parse's there."""
    from sparkls.documents.languages import new_parser
    from sparkls.documents.positions import tree_bytes

    text = _large_python()
    doc = DocumentStore().open("file:///w/big.py", text, 1)
    doc.adopt(_prepared(doc))
    row = 4 * 5000 + 1  # in f5000
    at = doc.offset(Position(row, 4))
    window = doc.tree_around(at, at)
    whole = new_parser("python").parse(tree_bytes(text))

    def holding(tree):
        return next(c for c in tree.root_node.children if c.start_point.row <= row <= c.end_point.row)

    assert str(holding(window)) == str(holding(whole)) and holding(window).start_point == holding(whole).start_point
    assert len(window.root_node.children) < 10


def test_windows_follow_changes_made_after_the_outline():
    """Lines typed since the last background pass: the window still finds the right code."""
    doc = DocumentStore().open("file:///w/big.py", _large_python(), 1)
    doc.adopt(_prepared(doc))
    doc.apply([TextChange("def g():\n    pass\n", (Position(0, 0), Position(0, 0)))], 2)
    doc.apply([TextChange("h", (Position(0, 4), Position(0, 5)))], 3)
    assert _names(doc.tree_around(0, 0))[0] == b"h"
    at = doc.offset(Position(2 + 4 * 7000 + 1, 4))
    window = doc.tree_around(at, at)
    assert b"f7000" in _names(window) and not doc.tree_current


def test_a_snapshot_of_an_older_text_is_carried_forward():
    """A snapshot of a text that changed while it parsed: its facts are carried through the
    changes, its outline too; the next pass makes them fresh."""
    doc = DocumentStore().open("file:///w/big.py", _large_python(), 1)
    snapshot = _prepared(doc)
    doc.apply([TextChange("def g():\n    pass\n", (Position(0, 0), Position(0, 0)))], 2)
    assert doc.adopt(snapshot) and doc.has_fact("outline") and not doc.facts_fresh
    assert _names(doc.tree_around(0, 0))[:2] == [b"g", b"f0"]
    assert doc.adopt(_prepared(doc)) and doc.facts_fresh


def test_a_document_over_the_limit_has_no_tree():
    """Over max_tree_bytes: no tree, a line window; growing past it drops the tree."""
    store = DocumentStore(max_tree_bytes=1000)
    big = store.open("file:///w/big.py", "x = 1\n" * 200, 1)
    assert big.too_big and big.tree is None and not big.parses
    small = store.open("file:///w/small.py", "x = 1\n", 1)
    assert small.tree is not None
    small.apply([TextChange("y = 2\n" * 200, (Position(1, 0), Position(1, 0)))], 2)
    assert small.too_big and small.tree is None


def test_a_small_document_needs_no_background_parse():
    """Below the threshold the tree is parsed in place, on demand."""
    doc = DocumentStore().open("file:///w/small.py", "x = 1\n", 1)
    assert not doc.is_big and doc.tree_is_cheap


def test_a_whole_text_change_is_the_keystroke_it_stands_for():
    """A full-sync didChange becomes the minimal ranged change: the tree is edited, not
    dropped, and the history holds the replacement, so an edit can be rebased."""
    from sparkls.edits.diff import Replacement

    text = "def f(x):\n    return x\n\n\ndef g():\n    pass\n"
    doc = DocumentStore().open("file:///w/a.py", text, 1)
    old_tree = doc.tree
    doc.apply([TextChange(text.replace("return x", "return x + 1"))], 2)
    at = text.index("return x") + len("return x")
    assert doc.changes_since(1) == [Replacement(at, at, " + 1")]
    assert doc.has_old_tree and doc.tree is not old_tree
    assert str(doc.tree.root_node) == str(DocumentStore().open("file:///w/b.py", doc.text, 1).tree.root_node)


def test_facts_are_carried_forward_through_line_changes():
    """After a change, the last symbols are read at the new text's lines without being
    extracted again; a background pass makes them fresh (and exact) again."""
    from sparkls.context.definitions import symbol_table

    text = "def f():\n    pass\n\n\ndef g():\n    return 1\n"
    doc = DocumentStore().open("file:///w/a.py", text, 1)
    [g] = symbol_table(doc).named("g")
    assert (g.start_line, g.end_line) == (4, 5) and doc.facts_fresh
    doc.apply([TextChange("import os\n\n", (Position(0, 0), Position(0, 0)))], 2)
    doc.apply([TextChange("\n        x = 2", (Position(7, 16), Position(7, 16)))], 3)
    [g] = symbol_table(doc).named("g")
    assert (g.start_line, g.end_line) == (6, 8) and not doc.facts_fresh
    snapshot = doc.snapshot()
    snapshot.prepare(lambda d: symbol_table(d))
    assert doc.adopt(snapshot) and doc.facts_fresh
    [g] = symbol_table(doc).named("g")
    assert (g.start_line, g.end_line) == (6, 8)


def test_the_tree_around_a_range_is_reparsed_only_when_a_change_came_near():
    """A change far from the range: the last parse, edited forward, serves (no reparse);
    a change within a few lines of it: a fresh parse."""
    text = "".join(f"def f{k}():\n    return {k}\n\n\n" for k in range(40))
    doc = DocumentStore().open("file:///w/a.py", text, 1)
    parsed = doc.tree
    doc.apply([TextChange("x", (Position(0, 5), Position(0, 5)))], 2)  # in f0
    far = doc.offset(Position(120, 4))  # in f30
    assert doc.tree_around(far, far) is parsed and not doc.tree_current
    near = doc.offset(Position(1, 4))
    fresh = doc.tree_around(near, near)
    assert fresh is not parsed and doc.tree_current
    assert doc.node_text(fresh.root_node.children[0].child_by_field_name("name")) == "fx0"
