"""The workspace symbol index as one editor session keeps it: built after
`initialized` in the index worker process (with progress the editor can show),
rebuilt when a .gitignore changes, and each open buffer reindexed from its own
symbols once its typing pauses. The index never stops the session: opened off the
event loop, it is tried again with backoff while its file cannot be opened; each
fault of the file (unusable, disk full, locked) is said once, and again only after
it passed and came back; edits go on without the index meanwhile. One object per session, the server's `indexing`; its
refresh timers are per-document state, dropped on `didClose`.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from sparkls.errors import DocumentClosed
from sparkls.lsp.timers import DocumentTimers

if TYPE_CHECKING:
    from sparkls.context.index import BuildStats
    from sparkls.context.lookup import Lookup
    from sparkls.context.index.workspace import WorkspaceIndex
    from sparkls.lsp.server import SparkServer

INDEX_DELAY = 1.0  # seconds of quiet after a change before the buffer is reindexed
OPEN_FIRST, OPEN_CAP = 1.0, 60.0  # seconds between two tries to open or build an index the file refused
CLOSE_WAIT = 5.0  # seconds the cancelled index work gets to unwind at shutdown
MAX_BUILD_FAILURES = 5  # builds failed for no fault of the file (a bug) before giving up


class IndexKeeper:
    def __init__(self, server: SparkServer) -> None:
        self._server = server
        self.index: WorkspaceIndex | None = None
        self._timers = DocumentTimers()
        self._refreshes: weakref.WeakSet[asyncio.Task[None]] = weakref.WeakSet()  # buffer refreshes running
        self._closing = False
        self._starting: asyncio.Task[None] | None = None
        self._building: asyncio.Task[None] | None = None
        self._told: set[str] = set()  # the faults of the index file the user was told of, until they pass
        self._waiting: dict[str, Path] = {}  # buffers changed before the index was ready: stored after the build

    def start(self) -> None:
        """Open the workspace's index and bring it up to date, in the background: a
        file that cannot be opened is said once and tried again with backoff."""
        server = self._server
        if server.root is not None and server.settings.context.index and self.index is None and self._starting is None:
            self._starting = server.spawn(self._open(server.root), "opening the workspace index")

    async def _open(self, root: Path) -> None:
        import sqlite3

        from sparkls.context.index import default_db_path
        from sparkls.context.index.health import UNUSABLE, backoff, classify
        from sparkls.context.index.workspace import WorkspaceIndex

        delays = backoff(OPEN_FIRST, OPEN_CAP)
        while not self._closing:
            try:
                index = await asyncio.to_thread(WorkspaceIndex, root)  # it may wait on another's lock
            except (OSError, sqlite3.Error) as exc:
                self.fault(classify(exc) or UNUSABLE, exc, default_db_path(root))
                await asyncio.sleep(next(delays))
                continue
            if self._closing:
                index.close()
                return
            index.on_fault = lambda condition, error: self.fault(condition, error, index.index.db_path)
            index.on_replaced = lambda: self._rebuild("the index file was replaced: reindexing")
            self.index = index
            self.fault(None, None, index.index.db_path)
            self._rebuild()
            return

    def _rebuild(self, why: str | None = None) -> None:
        if self.index is not None and not self._closing and (self._building is None or self._building.done()):
            if why:
                self._server.log(f"workspace index: {why}")
            self._building = self._server.spawn(self.build(self.index), "indexing the workspace")

    def fault(self, condition: str | None, error: BaseException | str | None, db_path: Path) -> None:
        """A fault of the index file (`condition`: health.classify's) is said once;
        None: it worked, so every fault said has passed (said too, in the log)."""
        from sparkls.context.index.health import BUSY, describe

        if condition is None:
            if self._told:
                self._server.log(f"workspace index: working again ({', '.join(sorted(self._told))} is over)")
                self._told.clear()
            return
        if condition in self._told:
            return
        self._told.add(condition)
        message = describe(condition, db_path, error or "")
        if condition == BUSY:  # passing by itself: the log only
            self._server.log(message, types.MessageType.Info)
        else:
            self._server.notify_user(message, types.MessageType.Warning)

    async def build(self, index: WorkspaceIndex) -> None:
        """Index the workspace in the index worker process, with progress the editor
        can show; a fault of the index file is said once and the build tried again
        with backoff."""
        from sparkls.context.index.health import backoff
        from sparkls.context.index.process import IndexClosed, IndexWorkerFailed

        delays, failures = backoff(OPEN_FIRST, OPEN_CAP), 0
        while True:
            try:
                stats = await self._build_once(index)
                break
            except IndexClosed:
                return  # shutting down
            except IndexWorkerFailed as exc:
                if exc.condition is None:  # not the file's fault: a few tries, then it is a bug
                    failures += 1
                    if failures >= MAX_BUILD_FAILURES:
                        raise
                else:
                    self.fault(exc.condition, str(exc), index.index.db_path)
            if self._closing:
                return
            await asyncio.sleep(next(delays))
        self.fault(None, None, index.index.db_path)
        self._server.log(f"workspace index: {stats.scanned} files, {stats.parsed} parsed, {stats.symbols} symbols")
        waiting, self._waiting = self._waiting, {}
        for uri, path in waiting.items():
            self.schedule_refresh(uri, path, delay=0)

    async def _build_once(self, index: WorkspaceIndex) -> BuildStats:
        token = None
        window = self._server.client_capabilities.window
        if window and window.work_done_progress:
            token = "sparkls-index"
            await self._server.work_done_progress.create_async(token)
            self._server.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title="Spark: indexing the workspace", percentage=0)
            )

        def progress(done: int, total: int) -> None:
            if token is not None and total:
                self._server.work_done_progress.report(
                    token, types.WorkDoneProgressReport(message=f"{done}/{total} files", percentage=done * 100 // total)
                )

        try:
            return await index.build(self._server.settings.context.exclude, progress)
        finally:
            if token is not None:
                self._server.work_done_progress.end(token, types.WorkDoneProgressEnd())

    def rules_changed(self) -> None:
        """A .gitignore changed: rebuild the path filter, then bring the index in line."""
        self._server.forget_path_filter()
        if self.index is not None:
            self._building = self._server.spawn(self.build(self.index), "reindexing the workspace")

    def lookup(self) -> Lookup | None:
        """Definitions from other files, once the workspace index is built."""
        index = self.index
        return index if index is not None and index.ready else None

    def schedule_refresh(self, uri: str, path: Path, *, delay: float = INDEX_DELAY) -> None:
        """Reindex an open buffer from its document's own symbols (no parse of its
        text for the index) once it has been quiet for `delay` seconds."""
        index = self.index
        if index is None or not index.ready:
            if not self._closing:
                self._waiting[uri] = path  # stored once the index is built
            return

        async def refresh() -> None:
            try:
                doc = await self._server.ready(uri)  # a big text is parsed off the loop first
            except DocumentClosed:
                return
            rules = await self._server.path_filter()
            if self._closing:
                return  # shutting down: the index is closed or about to be
            await index.store_buffer(path, doc, rules)

        def run() -> None:
            if self._server.documents.has(uri) and not self._closing:
                self._refreshes.add(self._server.spawn(refresh(), "indexing a buffer"))

        self._timers.schedule(uri, delay, run)

    def held(self) -> int:
        return self._timers.held()

    def forget(self, uri: str) -> None:
        """The document closed: its pending refresh is not wanted, and its file's rows
        are shown from the disk from now on (context/index/sources.py)."""
        from pygls.uris import to_fs_path

        self._timers.forget(uri)
        self._waiting.pop(uri, None)
        if self.index is not None and (fs_path := to_fs_path(uri)) is not None:
            self.index.forget_buffer(Path(fs_path))

    async def close(self) -> None:
        """Shut down: no refresh starts from now on, the ones running are cancelled
        (not failed against a closed index), then the index closes."""
        self._closing = True
        self._timers.cancel_all()
        tasks = [t for t in (self._starting, self._building, *self._refreshes) if t is not None and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:  # let them unwind: one cut short while it started the worker kills and reaps it
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        if self.index is not None:
            self.index.close()  # ends the index worker, mid-build or not
            await self.index.wait_closed()
