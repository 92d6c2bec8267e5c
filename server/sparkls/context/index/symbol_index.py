"""`SymbolIndex`: the workspace's definitions by name, kept in the SQLite file of database.py.

`build` walks the files that may be sent (`exclusions.iter_files`, so ignored and
secret files are never read), parses those with a grammar, and keeps their symbols
(`symbols.extract_symbols`). A file whose (mtime_ns, size) the database already holds
is not read again, so a restart on a warm index costs a walk and a `stat` per file.
`update_file` reindexes one file from disk; `store_symbols` records the symbols of an
editor's buffer as the caller hands them over (the document already has them), with
no parse; `lookup` finds definitions by exact name, through an index on the name;
`files_using` finds the files whose text holds a word (an identifier), through the
FTS5 index of the words (or, where SQLite lacks FTS5, by reading each file's words).

- Files larger than `MAX_FILE_BYTES` (2 MB: generated or vendored code, mostly) are
  recorded without symbols and not parsed.
- A file is read only when its real path is inside the workspace (guard/confine.py).
- A file indexed from a buffer is recorded with `mtime_ns = FROM_BUFFER` and which
  buffer (`files.buffer`), so the next `build` reads it from disk again: the disk is
  the truth between buffers; `sources` tells a reader what each file's rows came from.

Where it runs: `build` and `update_file` parse, and tree-sitter holds the GIL while it
parses, so the server never calls them: they run in the index worker process
(worker.py). The server's own `SymbolIndex` reads, stores the symbols it is handed and
forgets files. Reads and writes go through two connections, each under its own lock
held for one statement or transaction: a read never waits behind a write (WAL mode),
in this process or another. Two builds do not overlap. A write that finds the
database locked is retried (health.py); while open, the index holds its liveness mark
(`health.LiveMark`), and `replaced()`/`reopen()` follow a file deleted or replaced.

Knows nothing of LSP; what to index is `exclusions.PathFilter`'s decision.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from tree_sitter import Parser

from sparkls.guard.confine import Confinement
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.context.index.database import (
    SYMBOL_COLUMNS,
    BuildStats,
    IndexedFile,
    connect,
    delete_files,
    identifiers,
    language_of,
    make_folder,
    open_database,
    transaction,
    unpack_words,
    words_mode,
    words_query,
    write_files,
)
from sparkls.context.index.health import LiveMark, file_identity, retry_busy
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.documents.languages import new_parser
from sparkls.documents.positions import tree_source

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 2_000_000  # as context.max_file_bytes: a bundle of 1-2 MB (rollup's) is indexed too
BATCH_FILES = 200  # files written per transaction during a build
FROM_BUFFER = -1  # mtime_ns of a file indexed from an editor's buffer
READ_BUSY_MS = 500  # the most a read waits on a lock (only a reset or a recovery takes one)
MAX_WORDS_PER_QUERY = 500  # `files_using` asks in chunks: SQLite caps a statement's parameters

Progress = Callable[[int, int], None]


class SymbolIndex:
    """The symbols of the workspace at `root`, kept in the SQLite file `db_path`."""

    def __init__(self, root: Path, db_path: Path, *, path_filter: PathFilter | None = None,
                 busy_timeout: float = 10.0, busy_patience: float = 0.0) -> None:  # fmt: skip
        self.root = Path(root).absolute()
        self.db_path = Path(db_path)
        self.confinement = Confinement([self.root])
        # What may be indexed: the filter of the last build (or the one given), else
        # read from the root when `update_file` or `store_symbols` first needs it.
        self.path_filter = path_filter
        # A write finding the database locked waits `busy_timeout` seconds (SQLite's
        # own wait), then tries again with backoff for up to `busy_patience` seconds
        # in all before it raises (the worker is patient; the server retries later).
        self.busy_timeout = busy_timeout
        self.busy_patience = busy_patience
        self.sleep: Callable[[float], None] = time.sleep
        self._build_lock = threading.Lock()
        self._read_lock = threading.Lock()  # guards self._reader
        self._write_lock = threading.Lock()  # guards self._writer
        make_folder(self.db_path)  # before the mark, or a first run has none; raises as opening would
        self._mark = LiveMark(self.db_path)  # held while open: pruning leaves the file alone
        self._mark.hold()
        self._reader: sqlite3.Connection | None = None
        self._writer: sqlite3.Connection | None = None  # opened on the first write
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file opened
        self._closed = False
        try:
            self._open_reader()
        except BaseException:
            self._mark.release()
            raise

    # -- the connections ------------------------------------------------------------------

    def _open_reader(self) -> None:
        self._reader = open_database(self.db_path)
        self._reader.execute(f"PRAGMA busy_timeout = {READ_BUSY_MS}")  # a read on the request path never waits long
        self._identity = file_identity(self.db_path)

    def _read(self) -> sqlite3.Connection:
        if self._reader is None:
            raise RuntimeError("the symbol index is closed")
        return self._reader

    def replaced(self) -> bool:
        """Whether the file at `db_path` is no longer the one open (deleted, or replaced
        by another process's reset or a prune): a `stat`."""
        return self._identity is not None and file_identity(self.db_path) != self._identity

    def reopen(self) -> None:
        """Close both connections and open the file at `db_path` again (made anew if it
        is gone). Raises OSError or sqlite3.Error as opening does."""
        with self._write_lock, self._read_lock:
            if self._closed:
                raise RuntimeError("the symbol index is closed")
            for db in (self._writer, self._reader):
                if db is not None:
                    db.close()
            self._writer = self._reader = None
            self._mark.release()
            self._mark.hold()
            self._open_reader()
        log.info("symbol index %s was replaced or deleted: reopened", self.db_path)

    def _write(self, indexed: Sequence[IndexedFile] = (), gone: Sequence[str] = (), *, with_contents: bool = False) -> None:
        """One transaction: forget `gone`, then write `indexed`; retried while the
        database is locked, for up to `busy_patience` seconds."""
        write = lambda: self._write_once(indexed, gone, with_contents=with_contents)  # noqa: E731
        retry_busy(write, patience=self.busy_patience, sleep=self.sleep, what=str(self.db_path))

    def _write_once(self, indexed: Sequence[IndexedFile], gone: Sequence[str], *, with_contents: bool) -> None:
        with self._write_lock:
            if self._closed:
                raise RuntimeError("the symbol index is closed")
            if self._writer is None:
                self._writer = connect(self.db_path)
                self._writer.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            with transaction(self._writer) as db:
                if gone:
                    delete_files(db, gone, with_contents=with_contents)
                if indexed:
                    write_files(db, indexed)

    def _filter(self) -> PathFilter:
        if self.path_filter is None:
            self.path_filter = PathFilter.from_root(self.root)
        return self.path_filter

    # -- indexing (parses: the index worker process only) ---------------------------------

    def build(self, path_filter: PathFilter, *, progress: Progress | None = None) -> BuildStats:
        """Bring the index up to date with the files below the root that may be sent.

        `progress(done, total)` counts the files to (re)parse: it is called once
        before the first and after each batch, and last with done == total.
        """
        with self._build_lock:
            started = time.perf_counter()
            self.path_filter = path_filter
            on_disk: dict[str, tuple[int, int, str]] = {}  # path -> (mtime_ns, size, language)
            prefix = len(os.path.join(self.root, ""))  # iter_files yields root / relative path
            for path in iter_files(self.root, path_filter):
                name = str(path)
                language_id = language_of(name)
                if language_id is None:
                    continue
                try:
                    stat = os.stat(name)
                except OSError:
                    continue  # gone since the walk
                on_disk[name[prefix:].replace(os.sep, "/")] = (stat.st_mtime_ns, stat.st_size, language_id)
            with self._read_lock:
                known = {
                    path: (mtime_ns, size)
                    for path, mtime_ns, size in self._read().execute("SELECT path, mtime_ns, size FROM files")
                }
            changed = [rel for rel, (mtime_ns, size, _) in on_disk.items() if known.get(rel) != (mtime_ns, size)]
            gone = [rel for rel in known if rel not in on_disk]
            if gone:
                self._write(gone=gone)

            total, parsed, skipped, symbols = len(changed), 0, 0, 0
            if progress is not None:
                progress(0, total)
            parsers: dict[str, Parser | None] = {}
            batch: list[IndexedFile] = []
            for done, rel in enumerate(changed, 1):
                mtime_ns, size, language_id = on_disk[rel]
                if language_id not in parsers:
                    parsers[language_id] = new_parser(language_id)
                item = self._parse_file(rel, mtime_ns, size, language_id, parsers[language_id])
                if item is None or size > MAX_FILE_BYTES:
                    skipped += 1
                else:
                    parsed += 1
                if item is not None:
                    batch.append(item)
                    symbols += len(item.symbols)
                if len(batch) >= BATCH_FILES or done == total:
                    if batch:
                        self._write(batch)
                        batch = []
                    if progress is not None:
                        progress(done, total)
            return BuildStats(len(on_disk), parsed, len(gone), skipped, symbols, time.perf_counter() - started)

    def _parse_file(
        self, rel: str, mtime_ns: int, size: int, language_id: str, parser: Parser | None
    ) -> IndexedFile | None:
        """The file `rel` parsed into symbols, with its words, or None when it cannot be
        read. A file bigger than MAX_FILE_BYTES is recorded without symbols or words, unread."""
        if parser is None:  # the grammar's package is missing: try again next time
            return None
        if size > MAX_FILE_BYTES:
            return IndexedFile(rel, mtime_ns, size, language_id, [], [])
        try:
            source = (self.root / rel).read_bytes()
        except OSError as exc:
            log.debug("cannot read %s: %s", rel, exc)
            return None
        tree = parser.parse(tree_source(source))  # rows as the editor counts lines
        symbols = extract_symbols(language_id, tree, source)
        return IndexedFile(rel, mtime_ns, size, language_id, symbols, identifiers(source.decode("utf-8", "replace")))

    def _indexable(self, rel: str) -> str | None:
        """The language to index `rel` in, or None when it may not be indexed (no
        grammar, excluded from what may be sent)."""
        language_id = language_of(rel)
        if language_id is None or self._filter().is_excluded(rel):
            return None
        return language_id

    def update_file(self, rel_path: str) -> None:
        """Reindex one file from disk.

        A file missing from disk, or whose real path is now outside the workspace, is
        removed; a file that may not be sent, or has no grammar, is not indexed (and
        removed if it was). What may be sent is decided by the filter of the last build
        (or of the constructor), else by the root's ignore files and the default excludes.
        """
        rel = PurePosixPath(rel_path).as_posix()
        language_id = self._indexable(rel)
        path = self.root / rel
        if language_id is None or not self.confinement.contains(path):
            self.remove_file(rel)
            return
        try:
            stat = path.stat()
        except FileNotFoundError:
            self.remove_file(rel)
            return
        except OSError:
            return  # unreadable: keep what the index had
        item = self._parse_file(rel, stat.st_mtime_ns, stat.st_size, language_id, new_parser(language_id))
        if item is not None:
            self._write([item])

    # -- what the server process writes (no parsing) --------------------------------------

    def store_symbols(self, rel_path: str, symbols: Sequence[Symbol], *, size: int, buffer: str | None = None) -> bool:
        """Record the symbols of an open buffer of `rel_path`, as extracted by the caller
        from the document's own tree; `size` is the buffer's length (pass no symbols
        for a buffer over MAX_FILE_BYTES). Returns whether the file may be indexed (if
        not, it is removed instead). The file's words stay as the disk gave them (none
        for a file new since): whoever asks `files_using` reads open buffers itself.
        `buffer` names the buffer and its version (`<server>:<version>`), kept with the rows."""
        rel = PurePosixPath(rel_path).as_posix()
        language_id = self._indexable(rel)
        if language_id is None:
            self.remove_file(rel)
            return False
        self._write([IndexedFile(rel, FROM_BUFFER, size, language_id, list(symbols), buffer=buffer)])
        return True

    def remove_file(self, rel_path: str) -> None:
        """Forget one file (or a folder's files) and their symbols."""
        self._write(gone=[PurePosixPath(rel_path).as_posix()], with_contents=True)

    # -- reading --------------------------------------------------------------------------

    def lookup(self, name: str, *, limit: int = 10) -> list[tuple[str, Symbol]]:
        """Definitions named exactly `name`, as (workspace-relative path, symbol):
        variables last, then by path and line."""
        with self._read_lock:
            rows = self._read().execute(
                f"SELECT path, {SYMBOL_COLUMNS} FROM symbols WHERE name = ? "
                "ORDER BY kind = 'variable', path, start_line LIMIT ?",
                (name, limit),
            ).fetchall()
        return [(path, Symbol(*fields)) for path, *fields in rows]

    def sources(self, paths: Sequence[str]) -> dict[str, tuple[int, int, str | None]]:
        """What each file's rows were built from: (mtime_ns, size, buffer) (context/index/sources.py)."""
        marks = ",".join("?" * len(paths))
        with self._read_lock:
            rows = self._read().execute(
                f"SELECT path, mtime_ns, size, buffer FROM files WHERE path IN ({marks})", list(paths)
            ).fetchall()
        return {path: (mtime_ns, size, buffer) for path, mtime_ns, size, buffer in rows}

    def members(self, path: str, container: str, name: str, *, limit: int = 8) -> list[Symbol]:
        """The definitions `name` inside `container` in the file `path` (a class's
        constructor and its overloads, an interface's call signatures), in file order."""
        with self._read_lock:
            rows = self._read().execute(
                f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE name = ? AND path = ? AND container = ? "
                "ORDER BY start_line LIMIT ?",
                (name, path, container, limit),
            ).fetchall()
        return [Symbol(*row) for row in rows]

    def files_using(self, words: Sequence[str], *, limit: int = 200) -> list[str]:
        """The workspace-relative paths of the files that use any of `words` (an
        identifier anywhere in the file as last read from disk, comments and strings
        included), sorted, at most `limit`."""
        unique = sorted(set(words))
        if not unique or limit <= 0:
            return []
        with self._read_lock:
            mode = words_mode(self._read())
        if mode != "fts5":
            return self._scan_files_using(set(unique), limit)
        found: set[str] = set()
        for start in range(0, len(unique), MAX_WORDS_PER_QUERY):
            query = words_query(unique[start : start + MAX_WORDS_PER_QUERY])
            if query is None:
                continue
            with self._read_lock:
                rows = self._read().execute(
                    "SELECT path FROM files WHERE id IN (SELECT rowid FROM words WHERE words MATCH ?) ORDER BY path LIMIT ?",
                    (query, limit),
                ).fetchall()
            found.update(path for (path,) in rows)  # the first `limit` of the union are among these
        return sorted(found)[:limit]

    def _scan_files_using(self, words: set[str], limit: int) -> list[str]:
        """`files_using` without FTS5: every file's words read, in path order, until `limit`."""
        found: list[str] = []
        with self._read_lock:
            rows = self._read().execute(
                "SELECT files.path, file_words.words FROM file_words JOIN files ON files.id = file_words.file "
                "ORDER BY files.path"
            )
            for path, blob in rows:
                if not words.isdisjoint(unpack_words(blob).split()):
                    found.append(path)
                    if len(found) >= limit:
                        break
        return found

    def counts(self) -> tuple[int, int]:
        """(files, symbols) in the index."""
        with self._read_lock:
            db = self._read()
            (files,) = db.execute("SELECT count(*) FROM files").fetchone()
            (symbols,) = db.execute("SELECT count(*) FROM symbols").fetchone()
        return files, symbols

    def close(self) -> None:
        """Close the database; idempotent."""
        with self._write_lock:
            self._closed = True
            if self._writer is not None:
                self._writer.close()
                self._writer = None
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        self._mark.release()

    def __enter__(self) -> SymbolIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
