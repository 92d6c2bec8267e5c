"""`sparkls.task` for an editor without `workspaceEdit.documentChanges` (Neovim 0.7):
the edit goes as plain `changes`, guarded by the versions and texts sparkls holds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path

from tests.e2e.conftest import start
from tests.e2e.editor import _edited

NEOVIM_07 = "neovim@v0.7.0"  # workspaceEdit: resourceOperations, no documentChanges
SHAPES = "def area(r):\n    return 3.14159 * r * r\n"
REPORT = "from shapes import area\n\n\ndef report(r):\n    return f'{area(r):.2f}'\n"
RENAME = "REPLACE area WITH circle_area"
FAST_MODEL = "gpt-5.3-codex-spark"


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "shapes.py").write_text(SHAPES)
    (root / "report.py").write_text(REPORT)
    return root


def _as_neovim_07(client) -> list[types.WorkspaceEdit]:
    """Apply `workspace/applyEdit` as Neovim 0.7 does with `changes`: no version check;
    an open buffer is edited (and didChange sent), a file that is not open is loaded,
    edited and (here) written. Returns the list the edits received are added to."""
    editor, received = client.editor, []

    def apply(edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        received.append(edit)
        for uri, edits in (edit.changes or {}).items():
            if uri in editor.buffers:
                editor._apply_edits(uri, list(edits))
            else:
                path = Path(to_fs_path(uri))
                path.write_text(_edited(path.read_text(), list(edits), editor.encoding))
        return types.ApplyWorkspaceEditResult(applied=True)

    editor.apply_workspace_edit = apply
    return received


async def _start(client, emulator, workspace, **deep) -> str:
    deep_settings = {"baseUrl": emulator.url, "apiKey": emulator.api_key, "transport": "http", **deep}
    await start(client, emulator, workspace, editor=NEOVIM_07, options={"deep": deep_settings})
    uri = (workspace / "shapes.py").as_uri()
    client.editor.open(uri, SHAPES)
    return uri


async def _task(client, uri: str) -> dict:
    params = types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": RENAME, "uris": [uri]}])
    return await client.workspace_execute_command_async(params)


async def test_a_task_applies_across_an_open_and_an_unopened_file_as_changes(client, emulator, workspace):
    """One `changes` edit for both files (no documentChanges sent): the open buffer and the file on disk change."""
    shapes = await _start(client, emulator, workspace)
    received = _as_neovim_07(client)
    result = await _task(client, shapes)
    assert result["applied"] is True, result
    (edit,) = received
    assert edit.document_changes is None and edit.change_annotations is None
    assert set(edit.changes) == {shapes, (workspace / "report.py").as_uri()}
    assert client.editor.text(shapes) == SHAPES.replace("area", "circle_area")
    assert (workspace / "report.py").read_text() == REPORT.replace("area", "circle_area")


async def _phase_reported(client, text: str) -> None:
    """Wait for a progress report whose message holds `text` (event driven, bounded)."""
    def reported() -> bool:
        return any(
            isinstance(r, types.WorkDoneProgressReport) and text in (r.message or "")
            for reports in client.progress_reports.values() for r in reports
        )

    async with asyncio.timeout(30):
        while not reported():
            await client.wait_for_notification(types.PROGRESS)


async def test_a_document_changed_while_the_task_ran_refuses_the_whole_edit(client, emulator, workspace):
    """A keystroke in the open file after the task read it: nothing is sent, the user is told which file."""
    # Delegate: the files are read before the fast-tier steps, which stream slowly here:
    # the keystroke lands between the reading and the edit.
    shapes = await _start(client, emulator, workspace, delegate=True)
    received = _as_neovim_07(client)
    emulator.set_faults(models={FAST_MODEL: {"tokens_per_second": 8}})
    pending = asyncio.ensure_future(_task(client, shapes))
    await _phase_reported(client, "fast tier: 0/2 steps")
    client.editor.type_text(shapes, 2, 0, "# typed meanwhile\n")
    result = await pending
    assert result["applied"] is False and result["error"]["code"] == "edit_rejected"
    message = result["error"]["message"]
    assert message == "shapes.py changed while the task ran; nothing was applied; run the task again."
    assert received == []
    assert client.editor.text(shapes) == SHAPES + "# typed meanwhile\n"
    assert (workspace / "report.py").read_text() == REPORT
    assert any(message in m.message for m in client.messages)
