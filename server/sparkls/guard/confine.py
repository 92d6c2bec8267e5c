"""Where sparkls may read a file for a prompt: inside the workspace, by real path.

Every reader that puts a file's text into a prompt — task files, the reference
search, the workspace index and its definition snippets, `sparkls context` — asks
`Confinement.refusal` (or reads through `read_text`) first: the file's real location
(`os.path.realpath`: symlinks and `..` resolved) must lie inside the real location of a
workspace folder. A symlink out (to a file or through a folder), a `..` path, an
absolute path elsewhere and a URI that is not `file:` are refused, with a message
naming the file, before anything is read. A symlinked workspace root is fine: both
sides are compared by their real paths.

What may never be sent even inside the workspace (.gitignore, `context.exclude`, the
built-in secret list) is `exclusions.PathFilter`'s business, not this module's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from pygls.uris import to_fs_path


class Confinement:
    """The workspace folders, by real path; immutable once made."""

    __slots__ = ("folders", "_real")

    def __init__(self, folders: Sequence[str | Path]) -> None:
        self.folders = tuple(str(f) for f in folders)
        self._real = tuple(os.path.realpath(f) for f in self.folders)

    def contains(self, path: str | Path) -> bool:
        """Whether `path`, symlinks resolved, lies inside a workspace folder."""
        real = os.path.realpath(path)
        return any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in self._real)

    def refusal(self, path: str | Path, shown: str | None = None) -> str | None:
        """Why `path` may not be read for a prompt (a sentence naming it), or None."""
        if not self._real:
            return f"{shown or path} is not in a workspace folder (there is none); not read."
        if self.contains(path):
            return None
        real = os.path.realpath(path)
        where = "" if os.path.normpath(str(path)) == real else f" (it leads to {real})"
        return f"{shown or path} is outside the workspace{where}; not read."

    def refusal_for_uri(self, uri: str) -> str | None:
        """As `refusal`, for an editor's URI: only `file:` URIs can be inside."""
        if urlsplit(uri).scheme != "file":
            return f"{uri} is not a file on disk (scheme {urlsplit(uri).scheme or 'none'!r}); not read."
        fs_path = to_fs_path(uri)
        if not fs_path:
            return f"{uri} is not a file path; not read."
        return self.refusal(fs_path, shown=uri)

    def read_text(self, path: str | Path) -> str | None:
        """The file's text (UTF-8, line breaks kept) if it is inside and readable."""
        if not self.contains(path):
            return None
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError):
            return None
