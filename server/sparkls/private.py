"""Files only the user can read: the folders sparkls makes (0700) and the files it
writes for itself or for the user (0600): the cache folder and the workspace index
with its `-wal`, `-shm` and `-live` files, the `--log-file`, the context view. The
index holds every word of every file, secrets included, and a DEBUG log whole
messages: nobody else on the machine may read them.

The modes are set outright (`fchmod`, `chmod`), never left to the umask, which can
only take bits away from what `open` asks for, and under which a umask of 000 makes
a file SQLite creates 0644 (its default), and one of 0277 makes a new file unwritable.
What is changed is only what sparkls makes or keeps:

- a folder it creates, and each missing parent on the way (as XDG asks for a cache
  folder's parents), is made 0700; an existing folder is brought to 0700 only when
  the caller says it is sparkls's own by name (the cache folder), never a parent or a
  folder the user named: an index path in a folder of the user's, say;
- a file it creates is 0600; an existing regular file of this user's that it opens
  to write its own records in (an index, a log file an older version made 0644)
  loses its group and other bits. A device (`--log-file /dev/stderr`), a pipe, or a
  file of another user's is left as it is.

On Windows POSIX modes do not apply (the per-user `%LOCALAPPDATA%` is private by its
ACL): folders and files are made, and no mode is changed.

Imports nothing of sparkls: logs.py, the index and the LSP edge all use it.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

FILE_MODE = 0o600
FOLDER_MODE = 0o700
_OTHERS = 0o077  # the group's and everyone else's bits
_POSIX = os.name == "posix"


def private_folder(folder: Path, *, ours: bool = False) -> None:
    """Make `folder` and its missing parents, each 0700. When `ours` (sparkls's own by
    name), an existing `folder` is brought to 0700 as well, and one that belongs to
    another user is refused: PermissionError. Raises OSError when it cannot be made."""
    missing: list[Path] = []
    path = Path(folder)
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for made in reversed(missing):
        try:
            os.mkdir(made, FOLDER_MODE)
        except FileExistsError:  # another process made it meanwhile: it is not this call's to change
            continue
        if _POSIX:
            os.chmod(made, FOLDER_MODE)  # the umask may have taken bits from the owner
    if ours and folder not in missing and _POSIX:
        info = os.stat(folder)
        if info.st_uid != os.geteuid():
            raise PermissionError(
                errno.EPERM,
                f"{folder} belongs to another user (uid {info.st_uid}); sparkls keeps its files only in a folder of yours",
            )
        if info.st_mode & _OTHERS:
            os.chmod(folder, stat.S_IMODE(info.st_mode) & FOLDER_MODE)


def open_private(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags | O_CREAT)`, the file private: made 0600 when it is new
    (empty), or without its group and other bits when it already holds something.
    Only a regular file of this user's is changed. Returns the descriptor."""
    fd = os.open(path, flags | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    if _POSIX:
        try:
            _make_private(fd)
        except OSError:
            os.close(fd)
            raise
    return fd


def private_file(path: str | os.PathLike[str]) -> None:
    """Make sure a private file is at `path`: created 0600, or made private (`open_private`)."""
    os.close(open_private(path, os.O_RDONLY))


def tighten(path: str | os.PathLike[str]) -> None:
    """Take the group and other bits off an existing file of this user's at `path`;
    nothing when there is none, it is another user's, or its mode cannot be changed
    (a read-only filesystem: then nothing can be written there either)."""
    if not _POSIX:
        return
    try:
        info = os.stat(path)
        if info.st_uid == os.geteuid() and info.st_mode & _OTHERS:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~_OTHERS)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.debug("cannot make %s private: %s", path, exc)


def _make_private(fd: int) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        return
    mode = stat.S_IMODE(info.st_mode)
    wanted = FILE_MODE if info.st_size == 0 else mode & ~_OTHERS
    if mode != wanted:
        os.fchmod(fd, wanted)
