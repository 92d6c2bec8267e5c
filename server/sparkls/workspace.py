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
from collections.abc import Callable
from pathlib import Path

from sparkls.context.exclusions import PathFilter
from sparkls.context.index import BuildStats, SymbolIndex, default_db_path
from sparkls.context.symbols import Symbol

logger = logging.getLogger(__name__)

MAX_PER_NAME = 3  # definitions of one name taken from other files


class WorkspaceIndex:
    def __init__(self, root: Path, db_path: Path | None = None) -> None:
        self.root = root
        self.index = SymbolIndex(root, db_path or default_db_path(root))
        self.ready = False
        self.last_build: BuildStats | None = None

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

    def lookup(self, name: str) -> list[tuple[str, Symbol, list[str]]]:
        """Definitions of `name` in the workspace, with their file's lines."""
        found: list[tuple[str, Symbol, list[str]]] = []
        for rel, symbol in self.index.lookup(name, limit=MAX_PER_NAME):
            try:
                lines = (self.root / rel).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            if symbol.end_line < len(lines):
                found.append((rel, symbol, lines))
        return found

    def close(self) -> None:
        self.index.close()
