"""Documents are indexed, parsed and warmed off the event loop.

`Preparer.schedule(doc)` — after didOpen, and when changes pause — builds what a
request reads of a document in a worker thread, on a detached snapshot, handing the
GIL back as it goes: the line index (a big document's), the tree, and its facts
(imports, symbols: `warm`, given by the server), extracted from the whole text. The
document adopts the result if its text has not changed meanwhile (a tree is brought
forward through the changes, else the next pause tries again). Between two such
passes a request carries the last facts forward through the line changes since
(`Document.fact`): the whole-file work never runs on the event loop per keystroke.

A document of `BACKGROUND_PARSE_BYTES` characters or more is never parsed on the event
loop at all: a request on it first `await`s `ready(doc)`, until its lines are indexed
and it has a tree (edited forward since its last parse). A request on any other
document never waits for any of it. A small document's tree is still reparsed on
demand when a request needs it: that costs less than waiting for the thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sparkls.documents.store import Document

logger = logging.getLogger(__name__)


def _work(snapshot: Document, warm: Callable[[Document], None] | None) -> Document:
    """In a worker thread: line index, parse (yielding the GIL), then warm."""
    snapshot.prepare(warm)
    return snapshot


class Preparer:
    """One background job per document at a time."""

    def __init__(self, warm: Callable[[Document], None] | None = None) -> None:
        self._warm = warm
        self._jobs: dict[str, tuple[Document, int, asyncio.Task[bool]]] = {}

    def schedule(self, doc: Document) -> asyncio.Task[bool] | None:
        """Start (or join) the job for the document's current text; None when it has none to do."""
        if doc.lines_ready and (not doc.parses or (doc.tree_current or doc.is_big) and doc.facts_fresh):
            return None
        job = self._jobs.get(doc.uri)
        if job is not None and job[0] is doc and job[1] == doc.version and not job[2].done():
            return job[2]
        task = asyncio.ensure_future(self._run(doc))
        self._jobs[doc.uri] = (doc, doc.version, task)
        task.add_done_callback(lambda t, uri=doc.uri: self._finished(uri, t))
        return task

    async def _run(self, doc: Document) -> bool:
        done = await asyncio.to_thread(_work, doc.snapshot(), self._warm)
        return doc.adopt(done)

    def _finished(self, uri: str, task: asyncio.Task[bool]) -> None:
        job = self._jobs.get(uri)
        if job is not None and job[2] is task:
            del self._jobs[uri]
        if not task.cancelled() and task.exception() is not None:
            logger.warning("preparing %s failed: %s", uri, task.exception())

    async def ready(self, doc: Document) -> None:
        """Return once `doc` has a tree to read, or to reparse from incrementally."""
        if not doc.is_big:
            return
        while not (doc.lines_ready and doc.tree_is_cheap):  # never waits once it has a tree
            task = self.schedule(doc)
            if task is None:
                return
            await asyncio.shield(task)

    def held(self) -> int:
        return len(self._jobs)

    def forget(self, uri: str) -> None:
        """The document closed: its job's result is not wanted."""
        job = self._jobs.pop(uri, None)
        if job is not None:
            job[2].cancel()
