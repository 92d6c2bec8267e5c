"""Turn a path the deep tier wrote into a file inside the workspace, or refuse it.

Refused, with a `PathRefused` the user can read: empty paths, absolute paths (`/x`,
`C:\\x`, `~/x`), any `..` component, anything under `.git` (any case), and a path
whose real location (symlinks resolved with `os.path.realpath`) is not inside the
real location of some workspace folder or lies in its `.git`. Backslashes are read as
`/`. (Every edit is checked again, whole, at the LSP edge before it goes out:
lsp/writes.py, by guard/protected.py.)

With several workspace folders a path may start with a folder's name (that is how
`display_path` shows files to the model); otherwise it is looked up in each folder,
and a path naming existing files in two folders is refused as ambiguous.

Pure except for the filesystem seam (`FileSystem`: realpath, exists, isdir), which
tests replace or point at a tmp_path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from sparkls.deep.blocks import SearchReplaceBlock
from sparkls.errors import PathRefused

_DRIVE = re.compile(r"^[A-Za-z]:")


class FileSystem(Protocol):
    def realpath(self, path: str) -> str: ...

    def exists(self, path: str) -> bool: ...

    def isdir(self, path: str) -> bool: ...


class OsFileSystem:
    """The real filesystem."""

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path)


OS_FILESYSTEM = OsFileSystem()


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A file inside a workspace folder (it may not exist yet)."""

    written: str  # as the reply wrote it
    folder: str  # the workspace folder it lies in (absolute)
    relative: str  # posix path relative to `folder`
    absolute: str  # folder + relative, normalized; symlinks not resolved
    display: str  # how sparkls names it to the model and the user
    exists: bool

    @property
    def uri(self) -> str:
        return Path(self.absolute).as_uri()


def display_path(absolute: str, folders: Sequence[str]) -> str | None:
    """The workspace-relative name of a file, prefixed by its folder's name when there
    are several folders; None for a file outside them all."""
    for folder in folders:
        try:
            rel = Path(absolute).relative_to(folder).as_posix()
        except ValueError:
            continue
        return rel if len(folders) == 1 else f"{Path(folder).name}/{rel}"
    return None


def _refuse(written: str, why: str) -> PathRefused:
    return PathRefused(f"The deep tier named {written!r}, which was refused: {why}. Nothing was changed.", path=written)


def _relative_parts(written: str) -> list[str]:
    path = written.strip().replace("\\", "/")
    if not path:
        raise _refuse(written, "the path is empty")
    if "\0" in path:
        raise _refuse(written, "the path holds a NUL character")
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        raise _refuse(written, "absolute paths are not accepted; paths must be relative to the workspace")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise _refuse(written, "'..' could lead outside the workspace")
    if not parts:
        raise _refuse(written, "it names no file")
    if any(part.casefold() == ".git" for part in parts):
        raise _refuse(written, "files under .git are never edited")
    return parts


def _inside(real: str, real_folder: str) -> bool:
    return real == real_folder or real.startswith(real_folder.rstrip(os.sep) + os.sep)


def resolve_reply_path(written: str, folders: Sequence[str], fs: FileSystem = OS_FILESYSTEM) -> ResolvedPath:
    """The workspace file `written` names; raises PathRefused (see the module doc)."""
    if not folders:
        raise _refuse(written, "there is no workspace folder to resolve it in")
    parts = _relative_parts(written)
    folders = [os.path.normpath(f) for f in folders]
    named = [f for f in folders if len(folders) > 1 and len(parts) > 1 and Path(f).name == parts[0]]
    if named:
        candidates = [(named[0], parts[1:])]
    else:
        candidates = [(f, parts) for f in folders]
    existing = [(f, p) for f, p in candidates if fs.exists(os.path.join(f, *p))]
    if len(existing) > 1:
        raise _refuse(written, "it names a file in several workspace folders; prefix it with the folder's name")
    folder, rel_parts = existing[0] if existing else candidates[0]
    absolute = os.path.join(folder, *rel_parts)
    real = fs.realpath(absolute)
    real_folders = [fs.realpath(f) for f in folders]
    inside = next((rf for rf in real_folders if _inside(real, rf)), None)
    if inside is None:
        raise _refuse(written, f"it leads outside the workspace (to {real})")
    real_parts = os.path.relpath(real, inside).split(os.sep)
    if any(part.casefold() == ".git" for part in real_parts):
        raise _refuse(written, f"it leads into the git directory ({'/'.join(real_parts)}), which is never edited")
    if fs.isdir(absolute):
        raise _refuse(written, "it is a folder, not a file")
    relative = "/".join(rel_parts)
    return ResolvedPath(
        written=written,
        folder=folder,
        relative=relative,
        absolute=absolute,
        display=relative if len(folders) == 1 else f"{Path(folder).name}/{relative}",
        exists=bool(existing),
    )


@dataclass(frozen=True, slots=True)
class ResolvedBlocks:
    """Blocks whose `path` is the file's display name, and the file behind each name."""

    blocks: list[SearchReplaceBlock]
    files: dict[str, ResolvedPath]


def resolve_blocks(
    blocks: Sequence[SearchReplaceBlock], folders: Sequence[str], fs: FileSystem = OS_FILESYSTEM
) -> ResolvedBlocks:
    """Resolve every block's path; two spellings of one file become one name.

    Raises the first PathRefused, naming its block; nothing is resolved partly.
    """
    by_written: dict[str, ResolvedPath] = {}
    files: dict[str, ResolvedPath] = {}
    out = []
    for block in blocks:
        if block.path not in by_written:
            try:
                by_written[block.path] = resolve_reply_path(block.path, folders, fs)
            except PathRefused as exc:
                raise PathRefused(f"Block {block.number}: {exc}", path=block.path, block=block.number) from None
        resolved = by_written[block.path]
        files.setdefault(resolved.display, resolved)
        out.append(replace(block, path=resolved.display))
    return ResolvedBlocks(out, files)
