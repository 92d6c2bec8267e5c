"""A complete deep-tier reply to one WorkspaceEdit's data, in one call.

parse the blocks -> resolve their paths in the workspace -> read each file once (an
open document's text and version, else the disk, else missing) -> apply all blocks ->
check the changes (syntax, secrets: deep/checks.py) -> the edit. Any failure raises a `DeepEditError` before anything is produced, so the
handler either has the whole edit or a message. Reading is a seam (`read_file`), so
this stays free of the document store and of the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sparkls.deep.apply import FileChange, apply_blocks
from sparkls.deep.blocks import parse_blocks
from sparkls.edits.workspace import MultiFileEdit, FileSource, build_workspace_edit
from sparkls.deep.paths import OS_FILESYSTEM, FileSystem, ResolvedPath, resolve_blocks
from sparkls.documents.positions import Encoding


@dataclass(frozen=True, slots=True)
class FileState:
    """A file as the reply will be applied to it."""

    text: str | None  # None: the file does not exist
    version: int | None = None  # an open document's version; None: read from disk
    uri: str | None = None  # the editor's spelling of an open document's URI, if it differs


def edit_from_reply(
    reply: str,
    folders: Sequence[str],
    read_file: Callable[[ResolvedPath], FileState],
    *,
    encoding: Encoding = "utf-16",
    needs_confirmation: bool = False,
    fs: FileSystem = OS_FILESYSTEM,
    check: Callable[[list[FileChange]], None] | None = None,
    shown_paths: Sequence[str] = (),
) -> MultiFileEdit:
    """The WorkspaceEdit data for a complete reply; raises DeepEditError subclasses
    (`read_file` may refuse a file by raising one), or whatever `check` raises about
    the changes before any edit is built. `shown_paths` are the files the model was
    shown: when it was shown one, a block without a path line edits that one."""
    resolved = resolve_blocks(parse_blocks(reply, shown_paths), folders, fs)
    states = {name: read_file(path) for name, path in resolved.files.items()}
    changes = apply_blocks(resolved.blocks, {name: state.text for name, state in states.items()})
    if check is not None:
        check(changes)
    sources = {
        name: FileSource(states[name].uri or resolved.files[name].uri, states[name].version) for name in states
    }
    return build_workspace_edit(changes, sources, encoding=encoding, needs_confirmation=needs_confirmation)
