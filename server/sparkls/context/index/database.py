"""The index's SQLite file: its schema, where it lives, and the rows of one file.

- The schema carries `SCHEMA_VERSION` in `PRAGMA user_version`; a database of another
  version (or not a database at all) is emptied and rebuilt: it is a cache. The meta
  table carries a fingerprint of the extraction rules (the `symbols.scm` queries and
  `symbols.py`): when those change, every row goes and every file is parsed again.
  (A change to the words rule, `identifiers`, bumps `SCHEMA_VERSION` instead.)
- Three tables of rows per file: `files` (what was read: mtime, size, language;
  its `id` is kept while the path is), `symbols` (what it defines, by name) and
  `words` (each distinct identifier it uses, by word and `files.id`: which files may
  use a name, a superset its reader checks on the file itself).
- WAL mode: the server's reads never wait for the worker process's writes, and a
  write transaction covers one batch of files, never a whole build.
- `synchronous = NORMAL`: a cache, so a lost last commit after a power cut is fine.
- One file per workspace piles up in the cache folder; `prune_indexes` keeps the
  folder to `MAX_INDEX_FILES` files and `MAX_INDEX_BYTES`, dropping the least recently
  used (newest modification time of the file and its `-wal`/`-shm`). An index used
  within `IN_USE_SECONDS` is never dropped: another editor's server may have it open.

Opened by every `SymbolIndex`, in the server process and in the index worker process
alike; the first to open a stale file resets it, under an immediate transaction.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from sparkls.context import symbols as symbols_module
from sparkls.context.symbols import Symbol

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # 2: the words table
MAX_INDEX_FILES = 20  # index databases kept in the cache folder...
MAX_INDEX_BYTES = 500 * 1024 * 1024  # ...and their size in all
IN_USE_SECONDS = 3600  # an index used this recently is kept whatever the limits
_SIDE_FILES = ("", "-wal", "-shm")

_SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
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
CREATE TABLE words (
    file INTEGER NOT NULL,  -- files.id: a path's text in each row would make the table 4 times bigger
    word TEXT NOT NULL,
    PRIMARY KEY (file, word)
) WITHOUT ROWID;
CREATE INDEX words_by_word ON words (word);
"""
SYMBOL_COLUMNS = "name, kind, start_line, end_line, signature_end_line, doc_end_line, container"
# An identifier in Python, TypeScript/JavaScript, Go and their kin, 2 characters or more
# (`$` for JavaScript): a letter, `_` or `$`, then letters, digits, `_` or `$`.
# Any non-ASCII character may start one: `[^\W\d]` would say it better, at twice the cost.
_IDENTIFIER = re.compile(r"[A-Za-z_$\u0080-\U0010ffff][\w$]+")


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """One file's row, symbols and words, ready to be written."""

    path: str  # workspace-relative, with "/"
    mtime_ns: int
    size: int
    language_id: str
    symbols: Sequence[Symbol]
    words: Sequence[str] | None = None  # None: keep the words the database has


def identifiers(text: str) -> list[str]:
    """The distinct identifiers of 2 characters or more in `text`, those in comments
    and strings included (a superset: whoever reads them checks the file itself)."""
    return sorted(set(_IDENTIFIER.findall(text)))


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


def prune_indexes(
    current: Path,
    *,
    max_files: int = MAX_INDEX_FILES,
    max_bytes: int = MAX_INDEX_BYTES,
    in_use_seconds: float = IN_USE_SECONDS,
) -> list[Path]:
    """Mark the index `current` as used now, and delete the least recently used index
    files beside it beyond `max_files` or `max_bytes` in all (never `current`, never
    one used within `in_use_seconds`). Returns the databases deleted. A few `stat`s:
    run it off the event loop all the same (deleting a big file takes a while)."""
    now = time.time()
    try:
        os.utime(current)
    except OSError:
        pass  # not created yet, or read-only: it is kept all the same
    found: list[tuple[float, int, Path]] = []
    for db in current.parent.glob("index-*.sqlite3"):
        stats = []
        for suffix in _SIDE_FILES:
            try:
                stats.append(os.stat(f"{db}{suffix}"))
            except OSError:
                pass
        if stats:
            found.append((max(st.st_mtime for st in stats), sum(st.st_size for st in stats), db))
    found.sort(key=lambda item: (item[2] != current, -item[0]))  # the current one, then newest first
    deleted: list[Path] = []
    count = total = 0
    for used, size, db in found:
        keep = db == current or now - used < in_use_seconds
        if keep or (count < max_files and total + size <= max_bytes):
            count, total = count + 1, total + size
            continue
        try:
            for suffix in _SIDE_FILES:
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        except OSError as exc:  # another process's, or the folder is read-only: left alone
            log.debug("cannot delete %s: %s", db, exc)
            continue
        deleted.append(db)
    if deleted:
        log.info("symbol index: %d unused index file(s) deleted from %s", len(deleted), current.parent)
    return deleted


def open_database(db_path: Path) -> sqlite3.Connection:
    """A connection to the current schema at `db_path`, made or reset as needed."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _prepare(connect(db_path))
    except sqlite3.DatabaseError as exc:  # not a database: start again
        log.warning("symbol index %s is unreadable (%s); rebuilding it", db_path, exc)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        return _prepare(connect(db_path))


def connect(db_path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit: `transaction`), for
    use from any thread under its owner's lock."""
    return sqlite3.connect(db_path, check_same_thread=False, isolation_level=None, timeout=10)


def _prepare(db: sqlite3.Connection) -> sqlite3.Connection:
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if not _is_current(db):
            with transaction(db):
                if not _is_current(db):  # another process may have just done it
                    _reset(db)
    except BaseException:
        db.close()
        raise
    return db


def _is_current(db: sqlite3.Connection) -> bool:
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version != SCHEMA_VERSION:
        return False
    row = db.execute("SELECT value FROM meta WHERE key = 'extractor'").fetchone()
    return row is not None and row[0] == extractor_fingerprint()


def _reset(db: sqlite3.Connection) -> None:
    """Drop everything and create the current schema, empty."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION:  # same tables, other extraction rules: empty them
        for table in ("words", "symbols", "files", "meta"):
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
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """An immediate write transaction: committed on success, rolled back on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def write_files(db: sqlite3.Connection, indexed: Sequence[IndexedFile]) -> None:
    """Replace the rows, symbols and words of each file (inside a transaction); a file
    whose `words` is None keeps the words it had."""
    paths = [(item.path,) for item in indexed]
    db.executemany("DELETE FROM symbols WHERE path = ?", paths)
    db.executemany(
        "DELETE FROM words WHERE file = (SELECT id FROM files WHERE path = ?)",
        [(item.path,) for item in indexed if item.words is not None],
    )
    db.executemany(
        "INSERT INTO files (path, mtime_ns, size, language) VALUES (?, ?, ?, ?) ON CONFLICT (path) DO UPDATE "
        "SET mtime_ns = excluded.mtime_ns, size = excluded.size, language = excluded.language",
        [(item.path, item.mtime_ns, item.size, item.language_id) for item in indexed],
    )
    db.executemany(
        f"INSERT INTO symbols (path, {SYMBOL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (item.path, s.name, s.kind, s.start_line, s.end_line, s.signature_end_line, s.doc_end_line, s.container)
            for item in indexed
            for s in item.symbols
        ],
    )
    for item in indexed:
        if item.words:
            (file_id,) = db.execute("SELECT id FROM files WHERE path = ?", (item.path,)).fetchone()
            db.executemany("INSERT INTO words (file, word) VALUES (?, ?)", [(file_id, word) for word in item.words])


def delete_files(db: sqlite3.Connection, paths: Sequence[str], *, with_contents: bool = False) -> None:
    """Forget files, their symbols and their words (inside a transaction). `with_contents`:
    a path may be a folder, whose files go too (by a range of the path index: "a/" <=
    path < "a0", "0" being the character after "/")."""
    exact = [(path,) for path in paths]
    within = [(path.rstrip("/") + "/", path.rstrip("/") + "0") for path in paths] if with_contents else []
    db.executemany("DELETE FROM words WHERE file = (SELECT id FROM files WHERE path = ?)", exact)
    db.executemany("DELETE FROM words WHERE file IN (SELECT id FROM files WHERE path >= ? AND path < ?)", within)
    for table in ("symbols", "files"):
        db.executemany(f"DELETE FROM {table} WHERE path = ?", exact)
        db.executemany(f"DELETE FROM {table} WHERE path >= ? AND path < ?", within)
