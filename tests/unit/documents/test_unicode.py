"""Lone UTF-16 surrogates: kept in the document, never sent, put back into replies."""

from __future__ import annotations

import json

import pytest

from bench.kit.sealing import wire
from sparkls.documents.positions import LineIndex, Position, tree_bytes
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.documents.unicode import for_the_wire, lone_surrogates, restore
from sparkls.edits.tail import with_surrogates
from sparkls.errors import NoUsableReply
from sparkls.models.events import chat_body, response_create

LONE = "\ud83d"


def test_the_wire_never_carries_a_surrogate():
    """A lone surrogate goes as U+FFFD; a pair split over two changes goes as its emoji."""
    assert for_the_wire(f"a{LONE}b") == "a\ufffdb"
    assert for_the_wire("\ud83d\ude00") == "\U0001F600"
    message = response_create("m", wire(f"i{LONE}", f"x = '{LONE}'"))
    body = chat_body("m", wire("i", f"x = '{LONE}'"))
    for payload in (message, body):
        json.dumps(payload, ensure_ascii=False).encode("utf-8")  # strict UTF-8: raises on a surrogate


def test_reply_gets_its_surrogates_back_in_order():
    """The i-th U+FFFD the model kept is the i-th lone surrogate of the region."""
    old = f"a = '{LONE}'\nb = '\udfff'\n"
    assert lone_surrogates(old) == [LONE, "\udfff"]
    assert restore(old, "a = '\ufffd'\nc = '\ufffd'\n") == f"a = '{LONE}'\nc = '\udfff'\n"


def test_reply_that_dropped_the_broken_characters_is_kept():
    """A rewrite without the broken characters is taken as it is."""
    assert restore(f"x = '{LONE}'\n", "x = ''\n") == "x = ''\n"


def test_reply_that_kept_some_of_them_is_refused():
    """Two broken characters, one U+FFFD kept: which one is unknowable, so refused."""
    with pytest.raises(NoUsableReply, match="broken character"):
        with_surrogates(f"'{LONE}' '{LONE}'\n", "'\ufffd'\n", "a.py")


def test_store_parses_and_positions_a_lone_surrogate():
    """A document holding a lone surrogate parses, and positions count it as one UTF-16 unit."""
    doc = DocumentStore().open("file:///a.py", f"s = '{LONE}'\ndef f():\n    pass\n", 1)
    assert doc.tree is not None and doc.offset(Position(0, 7)) == 7
    doc.apply([TextChange("x", (Position(0, 6), Position(0, 6)))], 2)
    assert doc.text.startswith(f"s = '{LONE}x'") and doc.tree is not None


def test_lone_cr_is_a_line_for_tree_sitter_too():
    """Rows of the tree are the document's lines when lines end with a lone \\r."""
    text = "def f():\r    return 1\r"
    assert tree_bytes(text) == b"def f():\n    return 1\n" and LineIndex(text).line_count == 3
    doc = DocumentStore().open("file:///a.py", text, 1)
    assert doc.tree.root_node.children[0].end_point.row == 1
