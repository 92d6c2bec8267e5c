"""What goes wrong with the index's file, and how the index lives through it.

- `classify(error)`: a failure of the index's file as one condition: `busy` (another
  process holds the write lock: try again soon), `full` (no space left on the disk),
  `unusable` (the cache folder or the file cannot be opened or written: read-only, a
  folder in the file's place, no permission), or None (not a fault of the file: a bug,
  not ours to hide). Takes an exception or the text of one (the worker's `error`).
- `backoff()`: the delays between two tries, jittered, doubling up to a cap.
- `Notices`: each condition said once, and again only after it went away and came back.
- `describe()`: what the user is told: which path, what to do.
- `LiveMark`: the liveness mark of an index: the file `<index>-live`, held with a shared
  `flock` by every process that has the index open (the server and its worker alike);
  `prune_indexes` deletes an index only when it can take that lock exclusively, so an
  index another live server uses is never deleted, idle worker or not. Where `flock`
  does not exist (Windows) or the mark cannot be made (a read-only folder), there is no
  mark and pruning keeps to its time rule. The mark is 0600, as every file of the
  cache folder (`sparkls.private`).

Knows nothing of LSP or asyncio.
"""

from __future__ import annotations

import errno
import logging
import os
import random
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from sparkls.private import open_private

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)
T = TypeVar("T")

BUSY, FULL, UNUSABLE = "busy", "full", "unusable"
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_FULL = 5, 6, 13
_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_BUSY_WORDS = ("database is locked", "database table is locked", "database is busy")
_FULL_WORDS = ("database or disk is full", "no space left", "disk quota exceeded")
LIVE_SUFFIX = "-live"


def classify(error: BaseException | str) -> str | None:
    """`busy`, `full`, `unusable`, or None for an error that is no fault of the file."""
    if isinstance(error, str):
        text = error.lower()
        if any(word in text for word in _BUSY_WORDS):
            return BUSY
        if any(word in text for word in _FULL_WORDS):
            return FULL
        kind = text.split(":", 1)[0]
        return UNUSABLE if kind in {"operationalerror", "databaseerror", "oserror", "permissionerror",
                                    "isadirectoryerror", "notadirectoryerror", "filenotfounderror"} else None  # fmt: skip
    if isinstance(error, OSError):
        return FULL if error.errno in _FULL_ERRNOS else UNUSABLE
    if isinstance(error, sqlite3.OperationalError) or type(error) is sqlite3.DatabaseError:  # not a misuse
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        text = str(error).lower()
        if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or any(word in text for word in _BUSY_WORDS):
            return BUSY
        if code == _SQLITE_FULL or any(word in text for word in _FULL_WORDS):
            return FULL
        return UNUSABLE
    return None


def backoff(first: float = 0.5, cap: float = 30.0, *, jitter: Callable[[], float] = random.random) -> Iterator[float]:
    """Delays in seconds: `first`, doubling up to `cap`, each within ±20%."""
    delay = first
    while True:
        yield delay * (0.8 + 0.4 * jitter())
        delay = min(cap, delay * 2)


def retry_busy(call: Callable[[], T], *, patience: float, sleep: Callable[[float], None], what: str) -> T:
    """`call()`, tried again with backoff while it finds the database locked, for up
    to `patience` seconds in all; then the error is raised."""
    delays = backoff(0.2, 5.0)
    deadline = time.monotonic() + patience
    while True:
        try:
            return call()
        except sqlite3.OperationalError as exc:
            delay = next(delays)
            if classify(exc) != BUSY or time.monotonic() + delay > deadline:
                raise
            log.info("%s is locked; trying again in %.1f s", what, delay)
            sleep(delay)


class Notices:
    """Which conditions the user has been told of: `failed(c)` is True the first time
    (tell them), False while `c` lasts; `recovered()` ends conditions (all by default)
    and returns those that were on (say they are over)."""

    def __init__(self) -> None:
        self.active: set[str] = set()

    def failed(self, condition: str) -> bool:
        if condition in self.active:
            return False
        self.active.add(condition)
        return True

    def recovered(self, *conditions: str) -> set[str]:
        ended = self.active & set(conditions) if conditions else set(self.active)
        self.active -= ended
        return ended


def _cache_variable() -> str:
    return "LOCALAPPDATA" if sys.platform == "win32" else "XDG_CACHE_HOME"


def describe(condition: str, db_path: Path, error: BaseException | str) -> str:
    """What the user is told of `condition` on the index file `db_path`, in plain words."""
    folder = db_path.parent
    if condition == FULL:
        return (
            f"the workspace index cannot be written: the disk holding {folder} is full. "
            "Edits work without the newest index changes; free some space and the index catches up by itself."
        )
    if condition == BUSY:
        return f"the workspace index {db_path} is locked by another process; sparkls keeps trying, edits are not held up."
    in_the_way = " (a folder is in its place: remove it)" if db_path.is_dir() else ""
    return (
        f"the workspace index is off: {db_path} cannot be opened{in_the_way} ({error}). "
        f"Edits work without it. Make {folder} writable, or set {_cache_variable()} to a writable folder "
        "and restart; the index comes back by itself once the file can be opened."
    )


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None when there is none: a file
    replaced or deleted since it was opened has another."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class LiveMark:
    """The liveness mark of the index `db_path`, held (shared) from `hold()` to `release()`."""

    def __init__(self, db_path: Path) -> None:
        self.path = Path(f"{db_path}{LIVE_SUFFIX}")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def hold(self, *, attempts: int = 20, pause: float = 0.01) -> bool:
        """Take the mark; False where there can be none (no flock, a read-only folder)
        or while a prune holds it for longer than `attempts` pauses."""
        if fcntl is None or self._fd is not None:
            return self._fd is not None
        for _ in range(attempts):
            try:
                fd = open_private(self.path, os.O_RDWR)
            except OSError:
                return False
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:  # not deleted by a prune meanwhile
                    self._fd = fd
                    return True
            except OSError:
                pass
            os.close(fd)
            time.sleep(pause)
        return False

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def delete_if_unused(db_path: Path, suffixes: tuple[str, ...]) -> bool:
    """Delete `db_path` and its side files unless a live process holds its mark.
    Returns whether they were deleted; raises OSError when they cannot be."""
    mark = Path(f"{db_path}{LIVE_SUFFIX}")
    fd = None
    if fcntl is not None:
        try:
            fd = open_private(mark, os.O_RDWR)
        except OSError:
            fd = None  # a read-only folder: nothing can be deleted anyway
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # in use by a live process
        for suffix in suffixes:
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        if fd is not None:
            mark.unlink(missing_ok=True)  # while held: a process waiting for it sees it is gone
        return True
    finally:
        if fd is not None:
            os.close(fd)
