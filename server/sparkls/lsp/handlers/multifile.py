"""Sending one multi-file edit (`edits/workspace.MultiFileEdit`) to the editor.

Shared by a deep task (`task.py`) and the next edit's other-files follow-ups
(`followups.py`). The edit goes out only when this editor can take it whole
(`unsupported_reason`) and when every file it changes is still what it was computed
from: an open document at its version and text, any other file with the same text on
disk (`moved_file`). Then it is one `workspace/applyEdit`: `documentChanges` with
versions (and change annotations where the editor has them), or plain `changes` for
an editor without documentChanges. Anything else is an `EditRejected` naming the
file, and nothing is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

from sparkls.errors import EditRejected
from sparkls.lsp.handlers.commands import apply_edit
from sparkls.lsp.server import SparkServer
from sparkls.lsp.writes import checked_edit
from sparkls.lsp.workspace_edit import client_edit_support, lsp_workspace_edit, moved_file, unsupported_reason

if TYPE_CHECKING:
    from sparkls.edits.workspace import MultiFileEdit


async def send_multi_file_edit(
    ls: SparkServer, edit: MultiFileEdit, label: str, *, what: str, during: str, again: str
) -> None:
    """Apply `edit` whole, or raise EditRejected ("<path> changed {during}; nothing was
    applied; {again}.")."""
    support = client_edit_support(ls.client_capabilities)
    if (reason := unsupported_reason(edit, support)) is not None:
        raise EditRejected(f"{what[0].upper()}{what[1:]} was not sent: {reason}. Nothing was changed.")
    lsp_edit = lsp_workspace_edit(edit, annotations=support.change_annotations, document_changes=support.document_changes)
    # What it writes is checked (and a protected file asked for) first: a file may
    # change while the user reads the question, so what moved is checked after it.
    lsp_edit = await checked_edit(ls, lsp_edit, what=what)
    if (moved := moved_file(edit, lambda uri: open_document(ls, uri), disk_text)) is not None:
        raise EditRejected(f"{moved} changed {during}; nothing was applied; {again}.")
    await apply_edit(ls, lsp_edit, label, what=what, checked=True)


def open_document(ls: SparkServer, uri: str) -> tuple[int, str] | None:
    """(version, text) of the open document `uri`, or None when it is not open."""
    if not ls.documents.has(uri):
        return None
    doc = ls.documents.get(uri)
    return doc.version, doc.text


def disk_text(uri: str) -> str | None:
    """A file's text as a multi-file edit reads it (UTF-8, line breaks kept), or None."""
    try:
        with open(to_fs_path(uri) or "", encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None
