"""`commands.apply_edit`: however the editor refuses a WorkspaceEdit, the user gets one
plain message and nothing is half-applied (used by edits and multi-file tasks alike)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError

from sparkls.config import Settings
from sparkls.errors import EditRejected
from sparkls.lsp.handlers.commands import apply_edit

EDIT = types.WorkspaceEdit(changes={})


class _Editor:
    """What apply_edit uses of the server: `workspace_apply_edit_async`, answered as told
    (and, for the check of what the edit writes, no workspace folder and the defaults)."""

    settings = Settings()

    def __init__(self, answer) -> None:
        self.answer = answer
        self.sent: list[types.ApplyWorkspaceEditParams] = []

    def folders(self) -> list[str]:
        return []

    async def workspace_apply_edit_async(self, params):
        self.sent.append(params)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


async def test_an_applied_edit_returns_quietly():
    editor = _Editor(types.ApplyWorkspaceEditResult(applied=True))
    await apply_edit(editor, EDIT, "Spark task")  # type: ignore[arg-type]
    assert [p.label for p in editor.sent] == ["Spark task"]


async def test_a_refusal_by_result_names_the_reason():
    editor = _Editor(types.ApplyWorkspaceEditResult(applied=False, failure_reason="the user declined"))
    with pytest.raises(EditRejected, match=r"did not apply the task's edit \(the user declined\); nothing was changed"):
        await apply_edit(editor, EDIT, "Spark task", what="the task's edit")  # type: ignore[arg-type]


async def test_a_refusal_by_error_is_a_message_not_an_internal_error():
    """eglot answers a stale versioned edit with a JSON-RPC error: the same plain
    message (EditRejected), not an internal error with a traceback on stderr."""
    editor = _Editor(JsonRpcInternalError(message="Edits on `shapes.py' require version 7, you have 8"))
    with pytest.raises(EditRejected, match=r"did not apply the edit \(Edits on `shapes.py' require version 7"):
        await apply_edit(editor, EDIT, "Spark edit")  # type: ignore[arg-type]
