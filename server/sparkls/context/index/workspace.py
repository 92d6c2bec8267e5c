"""The workspace symbol index as a service of one editor session.

Built after `initialized` in the index worker process (context/index/worker.py), with
the work-done progress its events drive; kept fresh on `didSave`,
`workspace/didChangeWatchedFiles` and (debounced) `didChange`; asked on the request
path for the definitions of names a region uses that its own file does not define,
and for the files that use a name (`files_using`).
The SQLite file lives under the user's cache folder (`XDG_CACHE_HOME`); the first build
of a session prunes that folder's other index files (`database.prune_indexes`, in a
thread).

What runs in the server process is small: reading the database (WAL: never behind a
write), writing the rows of an open buffer from the symbols its document already has
(`store_buffer`, no parse), and forgetting deleted files. Everything that parses — a
build, a file changed on disk — goes to the worker; files changed together go as one
batch. Writes happen one at a time (`_writing`), so a buffer's rows written during a
build are never overwritten by that build's older reading of the disk. A write the
file refuses (locked by another process, disk full) is kept and tried again with
backoff, never dropped; no request waits for it. A file deleted or replaced since it
was opened is reopened before the next write.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from sparkls.guard.confine import Confinement
from sparkls.context.definitions import file_symbols
from sparkls.guard.exclusions import PathFilter
from sparkls.context.index import MAX_FILE_BYTES, BuildStats, SymbolIndex, default_db_path, prune_indexes
from sparkls.context.index.health import UNUSABLE, backoff, classify
from sparkls.context.index.process import IndexClosed, IndexWorker, IndexWorkerFailed
from sparkls.context.index.sources import Sources
from sparkls.context.resolve import ModuleImports
from sparkls.context.symbols import Symbol
from sparkls.documents.store import Document, utf8_size_over

logger = logging.getLogger(__name__)

MAX_ROWS = 250  # index rows read per name; context.ranking keeps a few definers of them
WRITE_BUSY_SECONDS = 1.0  # a buffer's rows wait this long for a lock, then later, off any thread
RETRY_FIRST, RETRY_CAP = 0.5, 30.0  # seconds between two tries of a write the file refused


class WorkspaceIndex:
    def __init__(self, root: Path, db_path: Path | None = None) -> None:
        """Opens the index file (made if need be): raises OSError or sqlite3.Error when
        it cannot be (call it in a thread: it may wait on another process's lock)."""
        self.root = root
        self.confinement = Confinement([root])
        self.index = SymbolIndex(root, db_path or default_db_path(root), busy_timeout=WRITE_BUSY_SECONDS)
        self._prune = db_path is None  # the cache folder's other index files, at the first build
        self.worker = IndexWorker(root, self.index.db_path)
        self.ready = False
        self.last_build: BuildStats | None = None
        self._exclude: list[str] = []  # `context.exclude` of the last build
        self._writing = asyncio.Lock()
        self._stale: set[str] = set()  # files to reread from disk, in the next batch
        self._rereading: asyncio.Future[None] | None = None
        # Buffers' rows (symbols, size, filter) or a removal (None) not yet written: kept
        # while the file is locked or full, written when it is not (`_write_pending`).
        self._pending: dict[str, tuple[list[Symbol], PathFilter, int, str] | None] = {}
        self._retrying: asyncio.Task[None] | None = None
        # what each row is shown from (sources.py); this server's buffers are marked with its token
        self.sources = Sources(root, self.confinement, f"{os.getpid()}-{uuid.uuid4().hex[:8]}")
        # module files' imports as the context parsed them (by text: never stale), for the session
        self.module_imports = ModuleImports()
        # Told of each fault of the file (a condition of health.classify and the error),
        # of each success after one (None, None), and of a file found replaced (reopened:
        # it wants a build).
        self.on_fault: Callable[[str | None, BaseException | str | None], None] = lambda condition, error: None
        self.on_replaced: Callable[[], None] = lambda: None

    async def build(self, exclude: Sequence[str], progress: Callable[[int, int], None] | None = None) -> BuildStats:
        """Bring the index up to date in the worker process (what may be sent: the
        workspace's ignore files and `exclude`); `progress(done, total)` is called on
        the event loop as the worker reports. Raises IndexClosed on shutdown,
        IndexWorkerFailed (its `condition` says if the file is at fault)."""
        self._exclude = list(exclude)
        if self._prune:
            self._prune = False
            await asyncio.to_thread(prune_indexes, self.index.db_path)
        async with self._writing:
            await self._follow_file(announce=False)
            fields = await self.worker.run("build", {"exclude": self._exclude}, progress)
        stats = BuildStats(**fields)
        self.ready, self.last_build = True, stats
        logger.info("workspace index: %s", stats)
        return stats

    async def _follow_file(self, *, announce: bool = True) -> None:
        """Reopen the index file if it was deleted or replaced since it was opened
        (another server's prune or reset); `on_replaced` then asks for a build."""
        if self.worker.closed or not await asyncio.to_thread(self.index.replaced):
            return
        try:
            await asyncio.to_thread(self.index.reopen)
        except (OSError, sqlite3.Error) as exc:
            self.on_fault(classify(exc) or UNUSABLE, exc)
            return
        if announce:
            self.on_replaced()

    def relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    async def refresh_file(self, path: Path) -> None:
        """Reindex one file from disk, in the worker; returns once it is done (or
        queued again, while the file is locked or full). Files asked for while a
        batch runs go together in the next one."""
        rel = self.relative(path)
        if rel is None:
            return
        self._stale.add(rel)
        if self._rereading is None or self._rereading.done():
            self._rereading = asyncio.ensure_future(self._reread())
        await asyncio.shield(self._rereading)

    async def _reread(self) -> None:
        delays = backoff(RETRY_FIRST, RETRY_CAP)
        while self._stale:
            async with self._writing:
                await self._follow_file()
                batch, self._stale = sorted(self._stale), set()
                try:
                    await self.worker.run("refresh", {"paths": batch, "exclude": self._exclude})
                except IndexClosed:
                    return
                except IndexWorkerFailed as exc:
                    if exc.condition is None:
                        raise
                    self._stale.update(batch)  # nothing lost: the next try rereads them
                    self.on_fault(exc.condition, str(exc))
                else:
                    self.on_fault(None, None)
                    continue
            await asyncio.sleep(next(delays))

    async def store_buffer(self, path: Path, doc: Document, path_filter: PathFilter) -> None:
        """Index an open buffer from the symbols its document already has (a whole
        parse of it is never repeated here); `path_filter`: what may be sent. While
        the file is locked or full, the newest rows of each buffer wait and are
        written by themselves later."""
        rel = self.relative(path)
        if rel is None:
            return
        too_big = utf8_size_over(doc.text, MAX_FILE_BYTES)
        if not too_big and not doc.parses:
            return  # opened as a language without a grammar: keep what the disk gave
        symbols: list[Symbol] = [] if too_big else file_symbols(doc)
        self._pending[rel] = (symbols, path_filter, doc.version, doc.text)
        await self._write_pending()

    def forget_buffer(self, path: Path) -> None:
        """The buffer of `path` closed: its rows are shown from the disk from now on."""
        rel = self.relative(path)
        if rel is not None:
            self.sources.forget_buffer(rel)

    async def remove_file(self, path: Path) -> None:
        """Forget a deleted file (or folder)."""
        rel = self.relative(path)
        if rel is not None:
            self._pending[rel] = None
            await self._write_pending()

    async def _write_pending(self) -> None:
        """Write what waits, oldest first; on a fault of the file, keep it and try again later."""
        async with self._writing:
            await self._follow_file()
            while self._pending and not self.worker.closed:
                rel, entry = next(iter(self._pending.items()))
                try:
                    if entry is None:
                        await asyncio.to_thread(self.index.remove_file, rel)
                    else:
                        symbols, self.index.path_filter, version, text = entry
                        stored = await asyncio.to_thread(
                            self.index.store_symbols, rel, symbols, size=len(text), buffer=self.sources.mark(version)
                        )
                        if stored:  # from now on shown from this text, as these rows were built
                            self.sources.note_buffer(rel, version, text, symbols)
                        else:
                            self.sources.forget_buffer(rel)
                except (OSError, sqlite3.Error) as exc:
                    if (condition := classify(exc)) is None:
                        self._pending.pop(rel, None)
                        raise
                    self.on_fault(condition, exc)
                    if self._retrying is None or self._retrying.done():
                        self._retrying = asyncio.ensure_future(self._retry_pending())
                    return
                if self._pending.get(rel, entry) is entry:  # not replaced by a newer one meanwhile
                    self._pending.pop(rel, None)
                self.on_fault(None, None)

    async def _retry_pending(self) -> None:
        delays = backoff(RETRY_FIRST, RETRY_CAP)
        while self._pending and not self.worker.closed:
            await asyncio.sleep(next(delays))
            await self._write_pending()

    # -- context.definitions.Lookup ----------------------------------------------------

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        """Definitions named `name` in the workspace (at most MAX_ROWS of the database's),
        each as the text `file_lines` gives holds it (sources.py)."""
        return self.sources.definitions(name, self.index.lookup(name, limit=MAX_ROWS), self.index.sources)

    def members(self, path: str, container: str, name: str) -> list[Symbol]:
        """The definitions `name` inside `container` in the file `path`, in file order."""
        return self.sources.members(path, container, name, self.index.members(path, container, name), self.index.sources)

    def files_using(self, words: Sequence[str], *, limit: int = 200) -> list[str]:
        """The workspace-relative paths of the files whose text (as last read from
        disk) uses any of `words`, sorted, at most `limit`; [] until the index is
        built, and once it is closed. Safe from any thread."""
        if not self.ready:
            return []
        try:
            return self.index.files_using(words, limit=limit)
        except RuntimeError:  # closed meanwhile
            return []
        except sqlite3.Error as exc:  # a cache: reset under us by another server, say
            logger.warning("workspace index: cannot read which files use %s: %s", list(words)[:3], exc)
            return []

    def file_lines(self, path: str) -> list[str] | None:
        """The lines of a workspace file that its rows from `definitions` are shown
        from: this server's buffer as indexed, else the disk's (read once per mtime
        and size); None for a file that is gone, unreadable, or (now) a link out of
        the workspace."""
        return self.sources.lines(path)

    def close(self) -> None:
        """End the worker (a build under way stops), stop retrying, close the database; idempotent."""
        self.worker.close()
        if self._retrying is not None:
            self._retrying.cancel()
        self.index.close()

    async def wait_closed(self) -> None:
        """Wait until the worker process has exited."""
        await self.worker.wait_closed()
