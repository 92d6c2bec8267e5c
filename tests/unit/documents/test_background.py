"""Big documents are parsed and warmed in a worker thread (documents/background.py)."""

from __future__ import annotations

import asyncio
import threading

from sparkls.documents.background import Preparer
from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
from tests.unit.documents.test_documents import _large_python


async def test_open_parses_and_warms_off_the_event_loop():
    """The parse and `warm` run on another thread; the big document takes the facts and
    the outline, and keeps no whole-file tree."""
    threads = []

    def warm(doc):
        threads.append(threading.current_thread())
        doc.derived["warmed"] = len(doc.tree.root_node.children)

    doc = DocumentStore().open("file:///w/big.py", _large_python(), 1)
    preparer = Preparer(warm)
    await preparer.schedule(doc)
    assert doc.facts_fresh and doc.derived["warmed"] == 9000 and doc.has_fact("outline")
    assert doc._tree is None and doc.tree_is_cheap
    assert threads and threads[0] is not threading.main_thread()


async def test_ready_waits_for_a_tree_even_through_changes():
    """A request during the first parse waits for it, and changes meanwhile are carried over."""
    doc = DocumentStore().open("file:///w/big.py", _large_python(), 1)
    preparer = Preparer()
    preparer.schedule(doc)
    doc.apply([TextChange("def g():\n    pass\n", (Position(0, 0), Position(0, 0)))], 2)
    await preparer.ready(doc)
    assert doc.lines_ready and doc.tree_is_cheap
    window = doc.tree_around(0, 0)
    assert window.root_node.children[0].child_by_field_name("name").text == b"g"


async def test_a_small_document_is_warmed_off_the_loop_too_and_then_needs_nothing():
    """A small document's facts come from the worker as well; once fresh, nothing is scheduled."""
    small = DocumentStore().open("file:///w/s.py", "x = 1\n", 1)
    preparer = Preparer(lambda doc: doc.derived.setdefault("warmed", threading.current_thread()))
    await preparer.schedule(small)
    assert small.facts_fresh and small.derived["warmed"] is not threading.main_thread()
    assert preparer.schedule(small) is None


async def test_a_document_over_the_limit_only_gets_its_lines_indexed():
    """Over max_tree_bytes: the line index is built off the loop, and no tree ever."""
    huge = DocumentStore(max_tree_bytes=1000).open("file:///w/h.py", _large_python(), 1)
    preparer = Preparer(lambda doc: doc.derived.setdefault("warmed", True))
    await preparer.ready(huge)
    assert huge.lines_ready and huge.tree is None and "warmed" not in huge.derived
    assert preparer.schedule(huge) is None
