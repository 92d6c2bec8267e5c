"""The workspace symbol index as one editor session keeps it: built after
`initialized` in the index worker process (with progress the editor can show),
rebuilt when a .gitignore changes, and each open buffer reindexed from its own
symbols once its typing pauses. One object per session, the server's `indexing`; its
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
    from sparkls.context.lookup import Lookup
    from sparkls.context.index.workspace import WorkspaceIndex
    from sparkls.lsp.server import SparkServer

INDEX_DELAY = 1.0  # seconds of quiet after a change before the buffer is reindexed


class IndexKeeper:
    def __init__(self, server: SparkServer) -> None:
        self._server = server
        self.index: WorkspaceIndex | None = None
        self._timers = DocumentTimers()
        self._refreshes: weakref.WeakSet[asyncio.Task[None]] = weakref.WeakSet()  # buffer refreshes running
        self._closing = False

    def start(self) -> None:
        """Open the workspace's index and bring it up to date, in the background."""
        server = self._server
        if server.root is not None and server.settings.context.index and self.index is None:
            from sparkls.context.index.workspace import WorkspaceIndex

            self.index = WorkspaceIndex(server.root)
            server.spawn(self.build(self.index), "indexing the workspace")

    async def build(self, index: WorkspaceIndex) -> None:
        """Index the workspace in the index worker process, with progress the editor can show."""
        from sparkls.context.index.process import IndexClosed

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
            stats = await index.build(self._server.settings.context.exclude, progress)
        except IndexClosed:
            return  # shutting down
        finally:
            if token is not None:
                self._server.work_done_progress.end(token, types.WorkDoneProgressEnd())
        self._server.log(f"workspace index: {stats.scanned} files, {stats.parsed} parsed, {stats.symbols} symbols")

    def rules_changed(self) -> None:
        """A .gitignore changed: rebuild the path filter, then bring the index in line."""
        self._server.forget_path_filter()
        if self.index is not None:
            self._server.spawn(self.build(self.index), "reindexing the workspace")

    def lookup(self) -> Lookup | None:
        """Definitions from other files, once the workspace index is built."""
        index = self.index
        return index if index is not None and index.ready else None

    def schedule_refresh(self, uri: str, path: Path, *, delay: float = INDEX_DELAY) -> None:
        """Reindex an open buffer from its document's own symbols (no parse of its
        text for the index) once it has been quiet for `delay` seconds."""
        index = self.index
        if index is None or not index.ready:
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
        """The document closed: its pending refresh is not wanted."""
        self._timers.forget(uri)

    async def close(self) -> None:
        """Shut down: no refresh starts from now on, the ones running are cancelled
        (not failed against a closed index), then the index closes."""
        self._closing = True
        self._timers.cancel_all()
        for task in list(self._refreshes):
            task.cancel()
        if self.index is not None:
            self.index.close()  # ends the index worker, mid-build or not
            await self.index.wait_closed()
