"""A change to several files as a plain description of one WorkspaceEdit. Pure, no LSP types.

What a deep task and the next edit's other-files follow-ups apply: all of it or none.

For each changed file, in order: an open document gets a versioned edit (its uri and
version, the smallest text edits between its text and the new one, in the client's
position encoding); a file on disk gets the same with version None; a new file gets a
`FileCreate` followed by an unversioned edit inserting its content. Every operation of
one file carries that file's change annotation, so the editor can show the change
file by file and, with `needs_confirmation`, ask before it lands.

lsp/workspace_edit.py turns this into lsprotocol objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sparkls.documents.positions import Encoding, LineIndex, Position
from sparkls.edits.diff import diff_replacements

ANNOTATION_PREFIX = "sparkls.deep:"


@dataclass(frozen=True, slots=True)
class FileChange:
    """The new text of one file; `old_text` is None when the blocks create it."""

    path: str
    old_text: str | None
    new_text: str
    blocks: tuple[int, ...]  # the numbers of the blocks that made it

    @property
    def created(self) -> bool:
        return self.old_text is None


@dataclass(frozen=True, slots=True)
class FileSource:
    """Where a file's old text came from: an open document (its version) or the disk."""

    uri: str
    version: int | None  # None: read from disk, or a file to create


@dataclass(frozen=True, slots=True)
class TextChange:
    start: Position
    end: Position
    text: str


@dataclass(frozen=True, slots=True)
class DocumentEdit:
    uri: str
    version: int | None
    changes: tuple[TextChange, ...]
    annotation_id: str
    base_text: str | None = None  # the text `changes` apply to, checked again before sending (lsp/workspace_edit.py)


@dataclass(frozen=True, slots=True)
class FileCreate:
    uri: str
    annotation_id: str


@dataclass(frozen=True, slots=True)
class ChangeAnnotation:
    id: str
    label: str
    description: str
    needs_confirmation: bool


@dataclass(frozen=True, slots=True)
class FileSummary:
    path: str
    uri: str
    created: bool
    edits: int
    blocks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MultiFileEdit:
    operations: tuple[DocumentEdit | FileCreate, ...]
    annotations: tuple[ChangeAnnotation, ...]
    files: tuple[FileSummary, ...]

    @property
    def creates_files(self) -> bool:
        return any(isinstance(op, FileCreate) for op in self.operations)

    def summary(self) -> list[dict[str, Any]]:
        """One JSON-ready record per file, for the command's result."""
        return [
            {"path": f.path, "uri": f.uri, "created": f.created, "edits": f.edits, "blocks": list(f.blocks)}
            for f in self.files
        ]


def text_changes(old: str, new: str, encoding: Encoding = "utf-16") -> tuple[TextChange, ...]:
    """The smallest edits from `old` to `new`, positioned in `old` in `encoding` units."""
    index = LineIndex(old)
    return tuple(
        TextChange(index.position(r.start, encoding), index.position(r.end, encoding), r.text)
        for r in diff_replacements(old, new)
    )


def build_workspace_edit(
    changes: Sequence[FileChange],
    sources: Mapping[str, FileSource],
    *,
    encoding: Encoding = "utf-16",
    needs_confirmation: bool = False,
    made_by: str = "the deep tier's block",
    prefix: str = ANNOTATION_PREFIX,
) -> MultiFileEdit:
    """One WorkspaceEdit's worth of operations for `changes` (keys: FileChange.path).

    `made_by` starts each annotation's account of where its change came from, before
    the numbers in `FileChange.blocks` ("the fast tier's plan step" when delegated);
    `prefix` starts each annotation's id.
    """
    operations: list[DocumentEdit | FileCreate] = []
    annotations = []
    files = []
    origin = Position(0, 0)
    for change in changes:
        source = sources[change.path]
        annotation_id = prefix + change.path
        blocks = ", ".join(map(str, change.blocks))
        if change.old_text is None:
            operations.append(FileCreate(source.uri, annotation_id))
            edits: tuple[TextChange, ...] = (TextChange(origin, origin, change.new_text),) if change.new_text else ()
            description = f"new file, from {made_by} {blocks}"
        else:
            edits = text_changes(change.old_text, change.new_text, encoding)
            plural = "s" if len(change.blocks) > 1 else ""
            description = f"{len(edits)} edit{'s' if len(edits) != 1 else ''} from {made_by}" + (f"{plural} {blocks}" if blocks else "")
        if edits:
            version = source.version if change.old_text is not None else None
            operations.append(DocumentEdit(source.uri, version, edits, annotation_id, change.old_text))
        annotations.append(ChangeAnnotation(annotation_id, change.path, description, needs_confirmation))
        files.append(FileSummary(change.path, source.uri, change.created, len(edits), change.blocks))
    return MultiFileEdit(tuple(operations), tuple(annotations), tuple(files))
