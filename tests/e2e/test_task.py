"""`sparkls.task`: multi-file tasks on the deep tier, applied as one WorkspaceEdit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start, wait_emulator

DEEP_MODEL = "gpt-5.3-codex"
FAST_MODEL = "gpt-5.3-codex-spark"
SHAPES = "def area(r):\n    return 3.14159 * r * r\n"
REPORT = "from shapes import area\n\n\ndef report(r):\n    return f'{area(r):.2f}'\n"
PLOT = "import shapes\n\n\ndef plot(n):\n    return [shapes.area(x) for x in range(n)]\n"
UNRELATED = "def other():\n    return 1\n"
UNITS = "def to_cm(inches):\n    return inches * 2.54\n"
RENAME = r'Rename it: REPLACE area WITH circle_area and CREATE units.py WITH "def to_cm(inches):\n    return inches * 2.54\n"'


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for name, text in {"shapes.py": SHAPES, "report.py": REPORT, "plot.py": PLOT, "unrelated.py": UNRELATED}.items():
        (root / name).write_text(text)
    return root


def _deep(emulator, **more) -> dict:
    return {"deep": {"baseUrl": emulator.url, "apiKey": emulator.api_key, "transport": "http", **more}}


async def _task(client, instruction: str, uris: list[str], *, msg_id: str | None = None) -> dict:
    params = types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": instruction, "uris": uris}])
    if msg_id is None:
        return await client.workspace_execute_command_async(params)
    return await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id)


async def _open_shapes(client, emulator, workspace, **deep) -> str:
    await start(client, emulator, workspace, options=_deep(emulator, **deep))
    uri = (workspace / "shapes.py").as_uri()
    client.editor.open(uri, SHAPES)
    return uri


def _renamed(workspace: Path, client, shapes: str) -> None:
    assert client.editor.text(shapes) == SHAPES.replace("area", "circle_area")
    assert (workspace / "report.py").read_text() == REPORT.replace("area", "circle_area")
    assert (workspace / "plot.py").read_text() == PLOT.replace("area", "circle_area")
    assert (workspace / "units.py").read_text() == UNITS
    assert (workspace / "unrelated.py").read_text() == UNRELATED


def _unchanged(workspace: Path) -> None:
    for name, text in {"report.py": REPORT, "plot.py": PLOT, "unrelated.py": UNRELATED}.items():
        assert (workspace / name).read_text() == text
    assert not (workspace / "units.py").exists()


async def test_a_rename_across_three_files_and_a_new_file(client, emulator, workspace):
    """The named file, the files that mention its symbol, and a new one: one versioned, annotated WorkspaceEdit."""
    shapes = await _open_shapes(client, emulator, workspace)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is True, result
    _renamed(workspace, client, shapes)
    assert result["tier"] == "deep" and result["mode"] == "deep"
    assert result["route"] == "served by the deep tier: you asked for the deep tier"
    assert {f["path"]: f["why"] for f in result["files_shown"]} == {
        "shapes.py": "named", "plot.py": "mentions area (1)", "report.py": "mentions area (2)",
    }
    assert sorted((f["path"], f["created"]) for f in result["files"]) == [
        ("plot.py", False), ("report.py", False), ("shapes.py", False), ("units.py", True),
    ]
    [edit] = client.editor.applied
    changes = edit.document_changes
    versions = {c.text_document.uri: c.text_document.version for c in changes if isinstance(c, types.TextDocumentEdit)}
    assert versions[shapes] == 1 and versions[(workspace / "report.py").as_uri()] is None
    assert [c.uri for c in changes if isinstance(c, types.CreateFile)] == [(workspace / "units.py").as_uri()]
    assert len(edit.change_annotations) == 4
    assert all(a.needs_confirmation for a in edit.change_annotations.values())
    assert emulator.stats()["by_model"] == {DEEP_MODEL: {"http": 1}}


async def test_a_path_outside_the_workspace_is_refused(client, emulator, workspace):
    """A reply naming ../outside.py is refused and reported; nothing is written anywhere."""
    shapes = await _open_shapes(client, emulator, workspace)
    result = await _task(client, r'REPLACE area WITH circle_area and CREATE ../outside.py WITH "x = 1\n"', [shapes])
    assert result["applied"] is False and result["error"]["code"] == "path_refused"
    assert "../outside.py" in result["error"]["message"]
    assert not (workspace.parent / "outside.py").exists()
    assert client.editor.text(shapes) == SHAPES and client.editor.applied == []
    _unchanged(workspace)
    assert any("../outside.py" in m.message for m in client.messages)


async def test_an_ambiguous_search_block_is_reported(client, emulator, workspace):
    """A SEARCH matching two places is reported with its file and block; nothing changes."""
    (workspace / "twice.py").write_text("print(1)\nx = 1\nprint(1)\n")
    await start(client, emulator, workspace, options=_deep(emulator))
    result = await _task(client, 'AMBIGUOUS "print(1)" WITH "print(2)"', [(workspace / "twice.py").as_uri()])
    error = result["error"]
    assert result["applied"] is False and error["code"] == "search_ambiguous"
    assert error["path"] == "twice.py" and error["block"] == 1
    assert "lines 1, 3" in error["message"]
    assert (workspace / "twice.py").read_text() == "print(1)\nx = 1\nprint(1)\n"
    assert any("twice.py" in m.message for m in client.messages)


async def _progress_message(client, contains: str) -> str:
    """The first task progress report whose message holds `contains` (polled, bounded)."""
    for _ in range(2000):
        for reports in client.progress_reports.values():
            for report in reports:
                if isinstance(report, types.WorkDoneProgressReport) and contains in (report.message or ""):
                    return report.message
        await asyncio.sleep(0.01)
    raise AssertionError(f"no progress report with {contains!r}: {client.progress_reports}")


async def test_a_task_cancelled_mid_stream_applies_nothing(client, emulator, workspace):
    """$/cancelRequest while the deep tier streams: the task stops, nothing is applied."""
    shapes = await _open_shapes(client, emulator, workspace)
    emulator.set_faults(tokens_per_second=20, count=1)
    pending = asyncio.ensure_future(_task(client, RENAME, [shapes], msg_id="task-1"))
    message = await _progress_message(client, "writing the edit on the deep tier (3 files shown)")
    assert " tokens received · " in message
    await wait_emulator(emulator, lambda s: s["deltas"] > 0)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="task-1"))
    with pytest.raises(Exception, match="cancel"):
        await pending
    assert client.editor.applied == [] and client.editor.text(shapes) == SHAPES
    _unchanged(workspace)


async def test_plan_then_delegate(client, emulator, workspace):
    """deep.delegate: one deep request for the plan, one fast request per file over the WebSocket pool."""
    shapes = await _open_shapes(client, emulator, workspace, delegate=True)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is True, result
    _renamed(workspace, client, shapes)
    assert result["mode"] == "delegate" and result["fast_model"] == FAST_MODEL
    assert [(s["path"], s["new"]) for s in result["plan"]] == [
        ("plot.py", False), ("report.py", False), ("shapes.py", False), ("units.py", True),
    ]
    assert {"plan", "steps"} <= result["timings_ms"].keys()
    stats = await wait_emulator(emulator, lambda s: FAST_MODEL in s["by_model"])
    assert stats["by_model"] == {DEEP_MODEL: {"http": 1}, FAST_MODEL: {"websocket": 4}}
    assert any("plan" in m.message and "fast-tier steps" in m.message for m in client.messages)


async def test_the_deep_tier_over_chat_completions(client, emulator, workspace):
    """api = "chat" for the deep tier: the same task, over Chat Completions."""
    shapes = await _open_shapes(client, emulator, workspace, api="chat")
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is True, result
    _renamed(workspace, client, shapes)
    assert emulator.stats()["by_model"] == {DEEP_MODEL: {"chat": 1}}


async def test_an_editor_that_rejects_the_edit(client, emulator, workspace):
    """The editor declines the WorkspaceEdit: the user is told, and no file changes."""
    shapes = await _open_shapes(client, emulator, workspace)
    client.editor.reject_reason = "the user declined the change"
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is False and result["error"]["code"] == "edit_rejected"
    assert "the user declined the change" in result["error"]["message"]
    assert client.editor.text(shapes) == SHAPES
    _unchanged(workspace)
    assert any("declined" in m.message for m in client.messages)


async def test_without_a_deep_key_the_user_is_told_how_to_configure_it(client, emulator, workspace, monkeypatch):
    """No key for the deep tier: a message naming the variable to set, and nothing sent."""
    await start(client, emulator, workspace, options={"deep": {"baseUrl": emulator.url, "apiKeyEnv": "NO_SUCH_KEY_VAR"}})
    result = await _task(client, RENAME, [(workspace / "shapes.py").as_uri()])
    assert result["applied"] is False and result["error"]["code"] == "missing_api_key"
    assert "NO_SUCH_KEY_VAR" in result["error"]["message"]
    assert emulator.stats()["responses"] == 0


async def test_files_that_may_never_be_sent_are_not_shown(client, emulator, workspace):
    """A named .env and a git-ignored file that mentions the symbol stay on the machine."""
    (workspace / ".gitignore").write_text("private.py\n")
    (workspace / "private.py").write_text("from shapes import area\n")
    (workspace / ".env").write_text("API_TOKEN=abc123abc123\n")
    shapes = await _open_shapes(client, emulator, workspace)
    result = await _task(client, RENAME, [shapes, (workspace / ".env").as_uri()])
    assert result["applied"] is True, result
    assert [f["path"] for f in result["files_shown"]] == ["shapes.py", "report.py", "plot.py"]
    assert any(".env" in w and "not sent" in w for w in result["warnings"])
    assert (workspace / "private.py").read_text() == "from shapes import area\n"
