"""The workspace symbol index: every definition in the workspace, by name, in SQLite.

`SymbolIndex.build` walks the files that may be sent (`exclusions.iter_files`, so
ignored and secret files are never read), parses those with a grammar, and keeps
their symbols (`symbols.extract_symbols`) in a SQLite file under the user's cache
folder (`default_db_path`). A file whose (mtime_ns, size) the database already holds
is not read again, so a restart on a warm index costs a walk and a `stat` per file.
`update_file` reindexes one file (from an open buffer's text, or from disk) and
`lookup` finds definitions by exact name, through an index on the name.

- Files larger than `MAX_FILE_BYTES` (1 MB: generated or vendored code, mostly) are
  recorded without symbols and not parsed.
- The schema carries `SCHEMA_VERSION` in `PRAGMA user_version`; a database of another
  version (or not a database at all) is emptied and rebuilt: it is a cache. The rows
  also carry a fingerprint of the extraction rules (the `symbols.scm` queries and
  `symbols.py`): when those change, every file is parsed again.
- A file indexed from a buffer is recorded with `mtime_ns = -1`, so the next `build`
  reads it from disk again: the disk is the truth between buffers.
- Threads: one connection, opened with `check_same_thread=False`, every use of it
  under one lock held for a single statement or transaction (a batch of files), never
  for a whole build; so the server may run `build` with `asyncio.to_thread` while
  `lookup` runs elsewhere, waiting at most one batch. Two builds do not overlap.

Knows nothing of LSP; what to index is `exclusions.PathFilter`'s decision.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path, PurePosixPath

from tree_sitter import Parser

from sparkls.context import symbols as symbols_module
from sparkls.context.exclusions import PathFilter, iter_files
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.documents.languages import grammar_record, language_id_for, new_parser
from sparkls.documents.positions import tree_bytes, tree_source

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 1_000_000
BATCH_FILES = 200  # files written per transaction during a build
FROM_BUFFER = -1  # mtime_ns of a file indexed from an editor's buffer

_SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE files (
    path TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    language TEXT NOT NULL
);
CREATE TABLE symbols (
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature_end_line INTEGER NOT NULL,
    doc_end_line INTEGER NOT NULL,
    container TEXT
);
CREATE INDEX symbols_by_name ON symbols (name);
CREATE INDEX symbols_by_path ON symbols (path);
"""
_SYMBOL_COLUMNS = "name, kind, start_line, end_line, signature_end_line, doc_end_line, container"

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class BuildStats:
    """What one `build` did."""

    scanned: int  # files with a grammar that may be sent
    parsed: int  # of which new or changed, read and parsed
    removed: int  # files gone (deleted, or now excluded) whose symbols were dropped
    skipped: int  # too big (recorded without symbols) or unreadable
    symbols: int  # symbols written for the parsed files
    seconds: float


@dataclass(frozen=True, slots=True)
class _Indexed:
    """One file, ready to be written."""

    path: str
    mtime_ns: int
    size: int
    language_id: str
    symbols: list[Symbol]


@cache
def extractor_fingerprint() -> str:
    """A hash of what decides a file's symbols: every `symbols.scm`, `attributes.scm`
    and `symbols.py`."""
    digest = hashlib.sha256(Path(symbols_module.__file__).read_bytes())
    queries = resources.files("sparkls") / "queries"
    for folder in sorted(queries.iterdir(), key=lambda entry: entry.name):
        for name in ("symbols.scm", "attributes.scm"):
            source = folder / name
            if source.is_file():
                digest.update(f"{folder.name}/{name}".encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def default_db_path(root: Path) -> Path:
    """The index file for the workspace `root`, under the user's cache folder."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # unset, empty or relative: XDG says to ignore it
            base = str(Path.home() / ".cache")
    digest = hashlib.sha256(str(Path(root).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return Path(base) / "sparkls" / f"index-{digest}.sqlite3"


@cache
def _language_of_suffix(suffix: str) -> str | None:
    language_id = language_id_for(f"file{suffix}")
    return language_id if grammar_record(language_id) is not None else None


def _language_of(rel_path: str) -> str | None:
    """The language id of a path whose language has a grammar, else None."""
    return _language_of_suffix(os.path.splitext(rel_path)[1])


class SymbolIndex:
    """The symbols of the workspace at `root`, kept in the SQLite file `db_path`."""

    def __init__(self, root: Path, db_path: Path, *, path_filter: PathFilter | None = None) -> None:
        self.root = Path(root).absolute()
        self.db_path = Path(db_path)
        # What may be indexed: the filter of the last build, else read from the root
        # when `update_file` first needs it.
        self._filter = path_filter
        self._lock = threading.Lock()  # guards self._db
        self._build_lock = threading.Lock()
        self._db: sqlite3.Connection | None = self._open()

    # -- the database ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._prepare(self._connect())
        except sqlite3.DatabaseError as exc:  # not a database: start again
            log.warning("symbol index %s is unreadable (%s); rebuilding it", self.db_path, exc)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.db_path}{suffix}").unlink(missing_ok=True)
            return self._prepare(self._connect())

    def _connect(self) -> sqlite3.Connection:
        # Autocommit mode: transactions are explicit (`_transaction`).
        return sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None, timeout=10)

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # a cache: a lost last commit is fine
            if not self._is_current(db):
                db.execute("BEGIN IMMEDIATE")
                try:
                    if not self._is_current(db):  # another process may have just done it
                        self._reset(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _is_current(db: sqlite3.Connection) -> bool:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:
            return False
        row = db.execute("SELECT value FROM meta WHERE key = 'extractor'").fetchone()
        return row is not None and row[0] == extractor_fingerprint()

    @staticmethod
    def _reset(db: sqlite3.Connection) -> None:
        """Drop everything and create the current schema, empty."""
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:  # same tables, other extraction rules: empty them
            for table in ("symbols", "files", "meta"):
                db.execute(f"DELETE FROM {table}")
        else:
            for kind, name in db.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"
            ).fetchall():
                db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("INSERT INTO meta (key, value) VALUES ('extractor', ?)", (extractor_fingerprint(),))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the symbol index is closed")
        return self._db

    def _write(self, db: sqlite3.Connection, indexed: Sequence[_Indexed]) -> None:
        db.executemany("DELETE FROM symbols WHERE path = ?", [(item.path,) for item in indexed])
        db.executemany(
            "INSERT OR REPLACE INTO files (path, mtime_ns, size, language) VALUES (?, ?, ?, ?)",
            [(item.path, item.mtime_ns, item.size, item.language_id) for item in indexed],
        )
        db.executemany(
            f"INSERT INTO symbols (path, {_SYMBOL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (item.path, s.name, s.kind, s.start_line, s.end_line, s.signature_end_line, s.doc_end_line, s.container)
                for item in indexed
                for s in item.symbols
            ],
        )

    @staticmethod
    def _delete(db: sqlite3.Connection, paths: Sequence[str]) -> None:
        rows = [(path,) for path in paths]
        db.executemany("DELETE FROM symbols WHERE path = ?", rows)
        db.executemany("DELETE FROM files WHERE path = ?", rows)

    # -- indexing ---------------------------------------------------------------------

    def build(self, path_filter: PathFilter, *, progress: Progress | None = None) -> BuildStats:
        """Bring the index up to date with the files below the root that may be sent.

        `progress(done, total)` counts the files to (re)parse: it is called once
        before the first and after each batch, and last with done == total.
        """
        with self._build_lock:
            started = time.perf_counter()
            self._filter = path_filter
            on_disk: dict[str, tuple[int, int, str]] = {}  # path -> (mtime_ns, size, language)
            prefix = len(os.path.join(self.root, ""))  # iter_files yields root / relative path
            for path in iter_files(self.root, path_filter):
                name = str(path)
                language_id = _language_of(name)
                if language_id is None:
                    continue
                try:
                    stat = os.stat(name)
                except OSError:
                    continue  # gone since the walk
                on_disk[name[prefix:].replace(os.sep, "/")] = (stat.st_mtime_ns, stat.st_size, language_id)
            with self._lock:
                known = {
                    path: (mtime_ns, size)
                    for path, mtime_ns, size in self._connection().execute("SELECT path, mtime_ns, size FROM files")
                }
            changed = [rel for rel, (mtime_ns, size, _) in on_disk.items() if known.get(rel) != (mtime_ns, size)]
            gone = [rel for rel in known if rel not in on_disk]
            if gone:
                with self._transaction() as db:
                    self._delete(db, gone)

            total, parsed, skipped, symbols = len(changed), 0, 0, 0
            if progress is not None:
                progress(0, total)
            parsers: dict[str, Parser | None] = {}
            batch: list[_Indexed] = []
            for done, rel in enumerate(changed, 1):
                mtime_ns, size, language_id = on_disk[rel]
                if language_id not in parsers:
                    parsers[language_id] = new_parser(language_id)
                item = self._read(rel, mtime_ns, size, language_id, parsers[language_id])
                if item is None or size > MAX_FILE_BYTES:
                    skipped += 1
                else:
                    parsed += 1
                if item is not None:
                    batch.append(item)
                    symbols += len(item.symbols)
                if len(batch) >= BATCH_FILES or done == total:
                    if batch:
                        with self._transaction() as db:
                            self._write(db, batch)
                        batch = []
                    if progress is not None:
                        progress(done, total)
            return BuildStats(len(on_disk), parsed, len(gone), skipped, symbols, time.perf_counter() - started)

    def _read(self, rel: str, mtime_ns: int, size: int, language_id: str, parser: Parser | None) -> _Indexed | None:
        """The file `rel` parsed into symbols, or None when it cannot be read. A file
        bigger than MAX_FILE_BYTES is recorded without symbols, unread."""
        if parser is None:  # the grammar's package is missing: try again next time
            return None
        if size > MAX_FILE_BYTES:
            return _Indexed(rel, mtime_ns, size, language_id, [])
        try:
            source = (self.root / rel).read_bytes()
        except OSError as exc:
            log.debug("cannot read %s: %s", rel, exc)
            return None
        tree = parser.parse(tree_source(source))  # rows as the editor counts lines
        return _Indexed(rel, mtime_ns, size, language_id, extract_symbols(language_id, tree, source))

    def _path_filter(self) -> PathFilter:
        if self._filter is None:
            self._filter = PathFilter.from_root(self.root)
        return self._filter

    def update_file(self, rel_path: str, text: str | None = None) -> None:
        """Reindex one file: from `text` (an open buffer) when given, else from disk.

        A file missing from disk is removed; a file that may not be sent, or has no
        grammar, is not indexed (and removed if it was). What may be sent is decided by
        the filter of the last build (or of the constructor), else by the root's
        ignore files and the default excludes.
        """
        rel = PurePosixPath(rel_path).as_posix()
        language_id = _language_of(rel)
        if language_id is None or self._path_filter().is_excluded(rel):
            self.remove_file(rel)
            return
        parser = new_parser(language_id)
        if parser is None:
            return
        if text is not None:
            source = tree_bytes(text)
            too_big = len(source) > MAX_FILE_BYTES
            symbols = [] if too_big else extract_symbols(language_id, parser.parse(source), source)
            item = _Indexed(rel, FROM_BUFFER, len(source), language_id, symbols)
        else:
            try:
                stat = (self.root / rel).stat()
            except FileNotFoundError:
                self.remove_file(rel)
                return
            item = self._read(rel, stat.st_mtime_ns, stat.st_size, language_id, parser)
            if item is None:
                return  # unreadable: keep what the index had
        with self._transaction() as db:
            self._write(db, [item])

    def remove_file(self, rel_path: str) -> None:
        """Forget one file and its symbols."""
        with self._transaction() as db:
            self._delete(db, [PurePosixPath(rel_path).as_posix()])

    # -- reading ------------------------------------------------------------------------

    def lookup(self, name: str, *, limit: int = 10) -> list[tuple[str, Symbol]]:
        """Definitions named exactly `name`, as (workspace-relative path, symbol):
        variables last, then by path and line."""
        with self._lock:
            rows = self._connection().execute(
                f"SELECT path, {_SYMBOL_COLUMNS} FROM symbols WHERE name = ? "
                "ORDER BY kind = 'variable', path, start_line LIMIT ?",
                (name, limit),
            ).fetchall()
        return [(path, Symbol(*fields)) for path, *fields in rows]

    def member(self, path: str, container: str, name: str) -> Symbol | None:
        """The definition `name` inside `container` in the file `path` (a class's
        constructor), if the index has one."""
        with self._lock:
            row = self._connection().execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE name = ? AND path = ? AND container = ? LIMIT 1",
                (name, path, container),
            ).fetchone()
        return Symbol(*row) if row is not None else None

    def counts(self) -> tuple[int, int]:
        """(files, symbols) in the index."""
        with self._lock:
            db = self._connection()
            (files,) = db.execute("SELECT count(*) FROM files").fetchone()
            (symbols,) = db.execute("SELECT count(*) FROM symbols").fetchone()
        return files, symbols

    def close(self) -> None:
        """Close the database; idempotent."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> SymbolIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
