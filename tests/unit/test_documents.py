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


def test_a_large_document_is_parsed_by_a_background_job():
    """Over 256 KiB, the stale tree comes from a job a worker thread runs; the same tree as a direct parse."""
    text = _large_python()
    assert len(text.encode()) > BACKGROUND_PARSE_BYTES
    doc = DocumentStore().open("file:///w/big.py", text, 1)
    version, job = doc.background_parse()
    tree = job()
    assert doc.install_tree(version, tree)
    assert doc.background_parse() is None  # the tree is current now
    assert str(doc.tree.root_node) == str(DocumentStore().open("file:///w/b.py", text, 1).tree.root_node)
    assert doc.tree.root_node.child_count == 9000


def test_a_background_parse_of_an_older_text_is_not_installed():
    """A change while the job ran makes its tree stale: it is dropped and the document parses the new text."""
    doc = DocumentStore().open("file:///w/big.py", _large_python(), 1)
    version, job = doc.background_parse()
    doc.apply([TextChange("def g():\n    pass\n", (Position(0, 0), Position(0, 0)))], 2)
    assert not doc.install_tree(version, job())
    assert doc.tree.root_node.children[0].child_by_field_name("name").text == b"g"


def test_a_small_document_needs_no_background_parse():
    """Below the threshold the tree is parsed in place, on demand."""
    assert DocumentStore().open("file:///w/small.py", "x = 1\n", 1).background_parse() is None
