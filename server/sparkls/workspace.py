"""The workspace symbol index as a service of one editor session.

Built in a worker thread after `initialized` with a cancellable-looking progress
(`window/workDoneProgress`) where the client supports it; kept fresh on `didSave`,
`workspace/didChangeWatchedFiles` and (debounced) `didChange`; asked on the request
path for the definitions of names a region uses that its own file does not define.
The SQLite file lives under the user's cache folder (`XDG_CACHE_HOME`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from sparkls.context.confine import Confinement
from sparkls.context.exclusions import PathFilter
from sparkls.context.index import BuildStats, SymbolIndex, default_db_path
from sparkls.context.symbols import Symbol

logger = logging.getLogger(__name__)

MAX_ROWS = 250  # index rows read per name; context.ranking keeps a few definers of them
MAX_CACHED_FILES = 256  # files whose lines are kept for definition snippets


class WorkspaceIndex:
    def __init__(self, root: Path, db_path: Path | None = None) -> None:
        self.root = root
        self.confinement = Confinement([root])
        self.index = SymbolIndex(root, db_path or default_db_path(root))
        self.ready = False
        self.last_build: BuildStats | None = None
        self._lines: OrderedDict[str, tuple[tuple[int, int], list[str]]] = OrderedDict()

    async def build(self, path_filter: PathFilter, progress: Callable[[int, int], None] | None = None) -> BuildStats:
        """Bring the index up to date in a worker thread; `progress(done, total)` is
        called on the event loop."""
        loop = asyncio.get_running_loop()

        def report(done: int, total: int) -> None:
            if progress is not None:
                loop.call_soon_threadsafe(progress, done, total)

        stats = await asyncio.to_thread(self.index.build, path_filter, progress=report)
        self.ready, self.last_build = True, stats
        logger.info("workspace index: %s", stats)
        return stats

    def relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    async def refresh_file(self, path: Path, text: str | None = None) -> None:
        """Reindex one file (from its buffer text when given, else from disk)."""
        rel = self.relative(path)
        if rel is not None:
            await asyncio.to_thread(self.index.update_file, rel, text)

    async def remove_file(self, path: Path) -> None:
        rel = self.relative(path)
        if rel is not None:
            await asyncio.to_thread(self.index.remove_file, rel)

    # -- context.definitions.Lookup ----------------------------------------------------

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        """Definitions named `name` in the workspace (at most MAX_ROWS)."""
        return self.index.lookup(name, limit=MAX_ROWS)

    def member(self, path: str, container: str, name: str) -> Symbol | None:
        """The definition `name` inside `container` in the file `path`."""
        return self.index.member(path, container, name)

    def file_lines(self, path: str) -> list[str] | None:
        """A workspace file's lines, read once per (mtime, size); None for a file that
        is gone, unreadable, or (now) a link out of the workspace."""
        file = self.root / path
        try:
            stat = file.stat()
            cached = self._lines.get(path)
            if cached is not None and cached[0] == (stat.st_mtime_ns, stat.st_size):
                self._lines.move_to_end(path)
                return cached[1]
            text = self.confinement.read_text(file)  # a file swapped for a link since indexing stays unread
            if text is None:
                return None
            lines = text.splitlines()
        except OSError:
            return None
        self._lines[path] = ((stat.st_mtime_ns, stat.st_size), lines)
        if len(self._lines) > MAX_CACHED_FILES:
            self._lines.popitem(last=False)
        return lines

    def close(self) -> None:
        self.index.close()
