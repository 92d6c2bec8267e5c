"""lsprotocol objects for a DeepWorkspaceEdit, and what the client can take.

The only LSP-aware module of deep/: the handler calls `client_edit_support` once and
`lsp_workspace_edit` per task. Change annotations are sent only to clients that
support them; otherwise the edit is the same without them.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from sparkls.deep.edit import DeepWorkspaceEdit, FileCreate, TextChange


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


def unsupported_reason(edit: DeepWorkspaceEdit, support: EditSupport) -> str | None:
    """Why this client cannot take `edit` as one WorkspaceEdit, or None when it can."""
    if not support.document_changes:
        return "this editor does not accept versioned multi-file edits (workspaceEdit.documentChanges)"
    if edit.creates_files and not support.create_files:
        created = ", ".join(f.path for f in edit.files if f.created)
        return f"this editor cannot create files through the language server (needed for {created})"
    return None


def _range(change: TextChange) -> types.Range:
    return types.Range(
        start=types.Position(line=change.start.line, character=change.start.character),
        end=types.Position(line=change.end.line, character=change.end.character),
    )


def lsp_workspace_edit(edit: DeepWorkspaceEdit, *, annotations: bool = True) -> types.WorkspaceEdit:
    """`edit` as a WorkspaceEdit with documentChanges (and changeAnnotations if asked)."""
    document_changes: list[types.TextDocumentEdit | types.CreateFile] = []
    for op in edit.operations:
        annotation_id = op.annotation_id if annotations else None
        if isinstance(op, FileCreate):
            options = types.CreateFileOptions(overwrite=False, ignore_if_exists=False)
            document_changes.append(types.CreateFile(uri=op.uri, options=options, annotation_id=annotation_id))
            continue
        text_edits: list[types.TextEdit | types.AnnotatedTextEdit] = [
            types.AnnotatedTextEdit(annotation_id=annotation_id, range=_range(c), new_text=c.text)
            if annotation_id
            else types.TextEdit(range=_range(c), new_text=c.text)
            for c in op.changes
        ]
        document = types.OptionalVersionedTextDocumentIdentifier(uri=op.uri, version=op.version)
        document_changes.append(types.TextDocumentEdit(text_document=document, edits=text_edits))
    change_annotations = None
    if annotations and edit.annotations:
        change_annotations = {
            a.id: types.ChangeAnnotation(label=a.label, needs_confirmation=a.needs_confirmation, description=a.description)
            for a in edit.annotations
        }
    return types.WorkspaceEdit(document_changes=document_changes, change_annotations=change_annotations)
