"""The index's SQLite file: its schema, where it lives, and the rows of one file.

- The schema carries `SCHEMA_VERSION` in `PRAGMA user_version`; a database of another
  version (or not a database at all) is emptied and rebuilt: it is a cache. The meta
  table carries a fingerprint of the extraction rules (the `symbols.scm` queries and
  the modules that read them, `symbols.py` and its helpers): when those change, every
  row goes and every file is parsed again.
  (A change to the words rule, `identifiers`, bumps `SCHEMA_VERSION` instead.)
- Three tables of rows per file: `files` (what was read: mtime, size, language, and
  for rows from an editor's buffer which buffer and version; its `id` is kept while
  the path is), `symbols` (what it defines, by name) and
  `file_words` (each distinct identifier it uses, as one zlib-compressed blob by
  `files.id`: which files may use a name, a superset its reader checks on the file
  itself; never a word of a secret: `identifiers`).
- The words are found by word through `words`, an FTS5 table (contentless, no
  positions: only which file holds which word). With `file_words`, which it needs to
  forget a file's words, about 9 bytes per file and word, against 35 for a table of
  (file, word) rows with an index on the word (schema 2), and half the writing time.
  Its `ascii` tokenizer folds case, so a capital is written `#` and the letter
  (`Circle` -> `#circle`, `_tokens`): every identifier is one token, case kept. Where
  SQLite lacks FTS5 (some Python builds), there is no `words` table and `files_using`
  reads every `file_words` blob instead; the meta table says which (`words`: `fts5`
  or `scan`), and a process without FTS5 resets an index made with it.
- WAL mode: the server's reads never wait for the worker process's writes, and a
  write transaction covers one batch of files, never a whole build.
- `synchronous = NORMAL`: a cache, so a lost last commit after a power cut is fine.
- Private (`sparkls.private`): the cache folder 0700, the file 0600 before SQLite
  opens it (its `-wal` and `-shm` take its mode), and what an older version left
  open to others tightened on every open.
- One file per workspace piles up in the cache folder; `prune_indexes` keeps the
  folder to `MAX_INDEX_FILES` files and `MAX_INDEX_BYTES`, dropping the least recently
  used (newest modification time of the file and its `-wal`/`-shm`). An index that a
  live process holds open (its liveness mark, `health.LiveMark`: `<file>-live` under a
  shared flock) is never dropped, nor one used within `IN_USE_SECONDS`.

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
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from sparkls.context import docmembers, matches, recovery
from sparkls.context import symbols as symbols_module
from sparkls.context.index.health import LIVE_SUFFIX, delete_if_unused
from sparkls.context.symbols import Symbol
from sparkls.documents.languages import grammar_record, language_id_for
from sparkls.guard import secret_shaped
from sparkls.private import private_file, private_folder, tighten

log = logging.getLogger(__name__)

SCHEMA_VERSION = 5  # 2: the words table; 3: words as an FTS5 index and a blob per file; 4: files.buffer; 5: no secret's words
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
    language TEXT NOT NULL,
    buffer TEXT  -- NULL: rows read from the disk, else the buffer they came from (`<server>:<version>`)
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
CREATE TABLE file_words (
    file INTEGER PRIMARY KEY,  -- files.id
    words BLOB NOT NULL  -- zlib of the file's distinct identifiers, sorted, joined by spaces
);
"""
# Which file holds which token (`_tokens`), and nothing else: no text, no positions, no sizes.
_WORDS_FTS = """CREATE VIRTUAL TABLE words USING fts5(
    tokens, content='', detail=none, columnsize=0, tokenize="ascii tokenchars '_$#'"
)"""
WORDS_COMPRESSION = 6  # zlib level: 1 makes the blobs 5% bigger and saves nothing measurable
SYMBOL_COLUMNS = "name, kind, start_line, end_line, signature_end_line, doc_end_line, container"
# An identifier in Python, TypeScript/JavaScript, Go and their kin, 2 characters or more
# (`$` for JavaScript): a letter, `_` or `$`, then letters, digits, `_` or `$`.
# Any non-ASCII character may start one: `[^\W\d]` would say it better, at twice the cost.
_IDENTIFIER = re.compile(r"[A-Za-z_$\u0080-\U0010ffff][\w$]+")
# No token a secret scanner knows is shorter (`xoxb-` and 10, `AKIA` and 16): shorter
# words and runs are not asked (`identifiers`), which keeps the words' cost near what
# it was without the question.
SHORTEST_TOKEN = 12
# A run of what known tokens are made of: letters, digits, `_`, `-`, `.`, and base64's
# `+`, `/` and `=`.
_TOKEN_RUN = re.compile(r"[\w$.+/=-]{%d,}" % SHORTEST_TOKEN)
_CAPITALS = str.maketrans({c: "#" + c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """One file's row, symbols and words, ready to be written."""

    path: str  # workspace-relative, with "/"
    mtime_ns: int
    size: int
    language_id: str
    symbols: Sequence[Symbol]
    words: Sequence[str] | None = None  # None: keep the words the database has
    buffer: str | None = None  # the editor buffer the symbols came from (`<server>:<version>`); None: the disk


@dataclass(frozen=True, slots=True)
class BuildStats:
    """What one `build` did."""

    scanned: int  # files with a grammar that may be sent
    parsed: int  # of which new or changed, read and parsed
    removed: int  # files gone (deleted, or now excluded) whose symbols were dropped
    skipped: int  # too big (recorded without symbols) or unreadable
    symbols: int  # symbols written for the parsed files
    seconds: float


@cache
def _language_of_suffix(suffix: str) -> str | None:
    language_id = language_id_for(f"file{suffix}")
    return language_id if grammar_record(language_id) is not None else None


def language_of(rel_path: str) -> str | None:
    """The language id of a path whose language has a grammar, else None."""
    return _language_of_suffix(os.path.splitext(rel_path)[1])


def identifiers(text: str) -> list[str]:
    """The distinct identifiers of 2 characters or more in `text`, those in comments
    and strings included (a superset: whoever reads them checks the file itself),
    less every word of a secret: the index is a file on disk, and no key goes into it.

    A token a secret scanner knows is often more than one identifier (`xoxb-1-2-AbCd`,
    a JWT's three parts, `AKIA...` beside its secret), so each run of the characters
    tokens are made of (`_TOKEN_RUN`) is asked whole (`guard.secret_shaped`) and its
    identifiers go with it; then each identifier is asked alone."""
    words = set(_IDENTIFIER.findall(text))
    for run in set(_TOKEN_RUN.findall(text)) if words else ():
        if secret_shaped(run):
            words.difference_update(_IDENTIFIER.findall(run))
    return sorted(word for word in words if len(word) < SHORTEST_TOKEN or not secret_shaped(word))


def _tokens(words: Sequence[str] | str) -> str:
    """`words` (or the text of a `file_words` blob) as the `words` table's text: the
    `ascii` tokenizer folds A-Z, so each capital becomes `#` and its lower case (`#`
    is in no identifier: no two words give one token). Most words have no capital:
    translating only the others takes a third of the time."""
    listed = words.split() if isinstance(words, str) else words
    return " ".join([word if word.islower() else word.translate(_CAPITALS) for word in listed])


def words_query(words: Sequence[str]) -> str | None:
    """An FTS5 query for the files holding any of `words`, or None when none of them
    is an identifier (nothing else is in the index: a space or a `"` would not parse)."""
    tokens = _tokens([word for word in words if _IDENTIFIER.fullmatch(word)]).split()
    return " OR ".join(f'"{token}"' for token in tokens) or None


def pack_words(words: Sequence[str]) -> bytes:
    return zlib.compress(" ".join(words).encode("utf-8", "surrogatepass"), WORDS_COMPRESSION)


def unpack_words(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8", "surrogatepass")


@cache
def fts5_available() -> bool:
    """Whether this process's SQLite has FTS5 (most builds do; some Python builds do not)."""
    try:
        with closing(sqlite3.connect(":memory:")) as db:
            db.execute(_WORDS_FTS)
        return True
    except sqlite3.OperationalError:
        return False


def words_mode(db: sqlite3.Connection) -> str:
    """How the database finds files by word: `fts5` (the `words` table) or `scan`."""
    row = db.execute("SELECT value FROM meta WHERE key = 'words'").fetchone()
    return row[0] if row is not None else "scan"


@cache
def extractor_fingerprint() -> str:
    """A hash of what decides a file's symbols: every `symbols.scm`, `attributes.scm`,
    and the modules that read their matches (`symbols.py`, `matches.py`, `docmembers.py`,
    `recovery.py`)."""
    digest = hashlib.sha256()
    for module in (symbols_module, matches, docmembers, recovery):
        digest.update(Path(module.__file__).read_bytes())
    queries = resources.files("sparkls") / "queries"
    for folder in sorted(queries.iterdir(), key=lambda entry: entry.name):
        for name in ("symbols.scm", "attributes.scm"):
            source = folder / name
            if source.is_file():
                digest.update(f"{folder.name}/{name}".encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def cache_folder() -> Path:
    """sparkls's folder in the user's cache folder: where the index files live."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # unset, empty or relative: XDG says to ignore it
            base = str(Path.home() / ".cache")
    return Path(base) / "sparkls"


def default_db_path(root: Path) -> Path:
    """The index file for the workspace `root`, in the cache folder."""
    digest = hashlib.sha256(str(Path(root).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cache_folder() / f"index-{digest}.sqlite3"


def prune_indexes(
    current: Path,
    *,
    max_files: int = MAX_INDEX_FILES,
    max_bytes: int = MAX_INDEX_BYTES,
    in_use_seconds: float = IN_USE_SECONDS,
) -> list[Path]:
    """Mark the index `current` as used now, and delete the least recently used index
    files beside it beyond `max_files` or `max_bytes` in all (never `current`, never
    one used within `in_use_seconds`, never one a live process holds open). Returns the databases deleted. A few `stat`s:
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
            if not delete_if_unused(db, _SIDE_FILES):
                continue  # a live process has it open (its liveness mark is held)
        except OSError as exc:  # another user's, or the folder is read-only: left alone
            log.debug("cannot delete %s: %s", db, exc)
            continue
        deleted.append(db)
    if deleted:
        log.info("symbol index: %d unused index file(s) deleted from %s", len(deleted), current.parent)
    return deleted


def make_folder(db_path: Path) -> None:
    """The folder of `db_path`, made 0700 (and the cache folder brought to it), and the
    index's files there private (0600), those an older version left open included."""
    private_folder(db_path.parent, ours=db_path.parent == cache_folder())
    for suffix in (*_SIDE_FILES, LIVE_SUFFIX):
        tighten(f"{db_path}{suffix}")


def open_database(db_path: Path) -> sqlite3.Connection:
    """A connection to the current schema at `db_path`, made or reset as needed."""
    make_folder(db_path)
    try:
        return _prepare(connect(db_path))
    except sqlite3.OperationalError:  # locked, read-only, full, a folder in the way: not the file's content
        raise
    except sqlite3.DatabaseError as exc:  # not a database: start again
        log.warning("symbol index %s is unreadable (%s); rebuilding it", db_path, exc)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        return _prepare(connect(db_path))


def connect(db_path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit: `transaction`), for
    use from any thread under its owner's lock."""
    with suppress(OSError):  # made 0600 first (its -wal, -shm take its mode); else SQLite says what is wrong
        private_file(db_path)
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
    if row is None or row[0] != extractor_fingerprint():
        return False
    return words_mode(db) == "scan" or fts5_available()  # made with FTS5, which this SQLite lacks: reset


def _reset(db: sqlite3.Connection) -> None:
    """Drop everything and create the current schema, empty."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION and (words_mode(db) == "scan") == (not fts5_available()):
        # same tables, other extraction rules: empty them
        if words_mode(db) == "fts5":
            db.execute("INSERT INTO words (words) VALUES ('delete-all')")
        for table in ("file_words", "symbols", "files", "meta"):
            db.execute(f"DELETE FROM {table}")
    else:
        for kind, name in db.execute(  # virtual tables first: dropping one drops its own tables
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
            "ORDER BY sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
        ).fetchall():
            db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
        for statement in filter(str.strip, _SCHEMA.split(";")):
            db.execute(statement)
        if fts5_available():
            db.execute(_WORDS_FTS)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.execute("INSERT INTO meta (key, value) VALUES ('extractor', ?)", (extractor_fingerprint(),))
    db.execute("INSERT INTO meta (key, value) VALUES ('words', ?)", ("fts5" if fts5_available() else "scan",))


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
    _forget_words(db, "SELECT id FROM files WHERE path = ?", [(item.path,) for item in indexed if item.words is not None])
    db.executemany(
        "INSERT INTO files (path, mtime_ns, size, language, buffer) VALUES (?, ?, ?, ?, ?) ON CONFLICT (path) "
        "DO UPDATE SET mtime_ns = excluded.mtime_ns, size = excluded.size, language = excluded.language, "
        "buffer = excluded.buffer",
        [(item.path, item.mtime_ns, item.size, item.language_id, item.buffer) for item in indexed],
    )
    db.executemany(
        f"INSERT INTO symbols (path, {SYMBOL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (item.path, s.name, s.kind, s.start_line, s.end_line, s.signature_end_line, s.doc_end_line, s.container)
            for item in indexed
            for s in item.symbols
        ],
    )
    fts = words_mode(db) == "fts5"
    for item in indexed:
        if item.words is None:
            continue
        (file_id,) = db.execute("SELECT id FROM files WHERE path = ?", (item.path,)).fetchone()
        if item.words:
            db.execute("INSERT INTO file_words (file, words) VALUES (?, ?)", (file_id, pack_words(item.words)))
            if fts:
                db.execute("INSERT INTO words (rowid, tokens) VALUES (?, ?)", (file_id, _tokens(item.words)))


def delete_files(db: sqlite3.Connection, paths: Sequence[str], *, with_contents: bool = False) -> None:
    """Forget files, their symbols and their words (inside a transaction). `with_contents`:
    a path may be a folder, whose files go too (by a range of the path index: "a/" <=
    path < "a0", "0" being the character after "/")."""
    exact = [(path,) for path in paths]
    within = [(path.rstrip("/") + "/", path.rstrip("/") + "0") for path in paths] if with_contents else []
    _forget_words(db, "SELECT id FROM files WHERE path = ?", exact)
    _forget_words(db, "SELECT id FROM files WHERE path >= ? AND path < ?", within)
    for table in ("symbols", "files"):
        db.executemany(f"DELETE FROM {table} WHERE path = ?", exact)
        db.executemany(f"DELETE FROM {table} WHERE path >= ? AND path < ?", within)


def _forget_words(db: sqlite3.Connection, ids: str, params: Sequence[tuple[str, ...]]) -> None:
    """Drop the words of the files whose ids the query `ids` selects, for each of
    `params`: a contentless FTS5 table forgets a row only when told its text again."""
    fts = words_mode(db) == "fts5"
    for args in params:
        query = f"SELECT file, words FROM file_words WHERE file IN ({ids})"
        for file_id, blob in db.execute(query, args).fetchall():
            if fts:
                db.execute(
                    "INSERT INTO words (words, rowid, tokens) VALUES ('delete', ?, ?)", (file_id, _tokens(unpack_words(blob)))
                )
            db.execute("DELETE FROM file_words WHERE file = ?", (file_id,))
