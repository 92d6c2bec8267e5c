"""The document store: incremental changes keep text and tree in step."""

import pytest

from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
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
