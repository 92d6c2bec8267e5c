"""lsprotocol objects for a MultiFileEdit, what the client can take, and whether
the files it was computed from are still as they were.

A deep task's handler and the next edit's other-files handler call `client_edit_support` once, then
per edit `unsupported_reason`, `moved_file` right before sending, and
`lsp_workspace_edit`. Two forms:

- **documentChanges** (the client declares `workspaceEdit.documentChanges`): each
  file's edit carries the version it was computed for (the editor refuses a stale
  one), files can be created (`resourceOperations: create`), and change annotations
  go to clients that support them;
- **changes** (Neovim 0.7 and other clients without documentChanges): plain text edits
  per URI, with no version in them and no file creation. The versions sparkls holds
  guard them instead: `moved_file` finds a file that changed since the edit was
  computed, and then nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from sparkls.edits.workspace import MultiFileEdit, DocumentEdit, FileCreate, TextChange


@dataclass(frozen=True, slots=True)
class EditSupport:
    document_changes: bool
    create_files: bool
    change_annotations: bool
    transactional: bool  # the client applies all of a WorkspaceEdit or none of it


def client_edit_support(caps: types.ClientCapabilities) -> EditSupport:
    edit = caps.workspace.workspace_edit if caps.workspace else None
    if edit is None:
        return EditSupport(False, False, False, False)
    return EditSupport(
        document_changes=bool(edit.document_changes),
        create_files=types.ResourceOperationKind.Create in (edit.resource_operations or []),
        change_annotations=edit.change_annotation_support is not None,
        transactional=edit.failure_handling == types.FailureHandlingKind.Transactional,
    )


def unsupported_reason(edit: MultiFileEdit, support: EditSupport) -> str | None:
    """Why this client cannot take `edit` as one WorkspaceEdit, or None when it can."""
    if edit.creates_files and not (support.document_changes and support.create_files):
        created = ", ".join(f.path for f in edit.files if f.created)
        return f"this editor cannot create files through the language server (needed for {created})"
    return None


# An open document now: (version, text); None when it is not open.
OpenDocument = Callable[[str], tuple[int, str] | None]


def moved_file(edit: MultiFileEdit, open_document: OpenDocument, disk_text: Callable[[str], str | None]) -> str | None:
    """The path of the first file `edit` changes that is no longer what the edit was
    computed from, or None. An open document must be at the edit's version with the
    edit's text (a document closed and opened again starts its versions over); any
    other file must hold the same text on disk (`disk_text`: None when unreadable)."""
    for op in edit.operations:
        if not isinstance(op, DocumentEdit) or op.base_text is None:
            continue  # a new file: the editor refuses to create one that exists
        now = open_document(op.uri)
        if now is not None:
            version, text = now
            moved = (op.version is not None and version != op.version) or text != op.base_text
        else:
            moved = disk_text(op.uri) != op.base_text
        if moved:
            return next((f.path for f in edit.files if f.uri == op.uri), op.uri)
    return None


def _range(change: TextChange) -> types.Range:
    return types.Range(
        start=types.Position(line=change.start.line, character=change.start.character),
        end=types.Position(line=change.end.line, character=change.end.character),
    )


def lsp_workspace_edit(
    edit: MultiFileEdit, *, annotations: bool = True, document_changes: bool = True
) -> types.WorkspaceEdit:
    """`edit` as a WorkspaceEdit with documentChanges (and changeAnnotations if asked),
    or, with `document_changes=False`, as plain `changes` (unsupported_reason has
    refused an edit that creates files)."""
    if not document_changes:
        plain: dict[str, list[types.TextEdit]] = {}
        for op in edit.operations:
            if isinstance(op, DocumentEdit):
                plain.setdefault(op.uri, []).extend(types.TextEdit(range=_range(c), new_text=c.text) for c in op.changes)
        return types.WorkspaceEdit(changes=plain)
    operations: list[types.TextDocumentEdit | types.CreateFile] = []
    for op in edit.operations:
        annotation_id = op.annotation_id if annotations else None
        if isinstance(op, FileCreate):
            options = types.CreateFileOptions(overwrite=False, ignore_if_exists=False)
            operations.append(types.CreateFile(uri=op.uri, options=options, annotation_id=annotation_id))
            continue
        text_edits: list[types.TextEdit | types.AnnotatedTextEdit] = [
            types.AnnotatedTextEdit(annotation_id=annotation_id, range=_range(c), new_text=c.text)
            if annotation_id
            else types.TextEdit(range=_range(c), new_text=c.text)
            for c in op.changes
        ]
        document = types.OptionalVersionedTextDocumentIdentifier(uri=op.uri, version=op.version)
        operations.append(types.TextDocumentEdit(text_document=document, edits=text_edits))
    change_annotations = None
    if annotations and edit.annotations:
        change_annotations = {
            a.id: types.ChangeAnnotation(label=a.label, needs_confirmation=a.needs_confirmation, description=a.description)
            for a in edit.annotations
        }
    return types.WorkspaceEdit(document_changes=operations, change_annotations=change_annotations)
