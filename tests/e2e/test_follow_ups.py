"""Follow-ups in other files through a real LSP session: rename a definition that other
files use, and "Spark: update N uses of area in M files" updates them as one edit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start, wait_emulator, wait_status
from tests.e2e.test_context import _index_ready
from tests.e2e.test_next_edit import actions_at, offered

SHAPES = "def area(r):\n    return 3.14159 * r * r\n\n\ndef double_area(r):\n    return 2 * area(r)\n"
REPORT = (
    "from pkg.shapes import area\n\n\n"
    "def report(r):\n    # area of the circle\n    return f'{area(r):.2f}'\n\n\n"
    "def total(rs):\n    return sum(area(r) for r in rs)\n"
)
OTHER = "def scale(area):\n    return area * 2\n"  # its own `area`, and no import of shapes
APP = "import pkg.shapes as sh\n\nprint(sh.area(2))\n"
FAST = {"next_edit": {"debounce_ms": 50, "enabled": True}}


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(SHAPES)
    (root / "report.py").write_text(REPORT)
    (root / "other.py").write_text(OTHER)
    (root / "app.py").write_text(APP)
    return root


async def _session(client, emulator, workspace, *, editor: str = "visual_studio_code", options=FAST) -> tuple[str, str]:
    await start(client, emulator, workspace, editor=editor, options=options)
    await wait_status(client, lambda fast: fast["state"] == "ready")
    await _index_ready(client)
    shapes, app = (workspace / "pkg" / "shapes.py").as_uri(), (workspace / "app.py").as_uri()
    client.editor.open(app, APP)  # one follower open in the editor, the other on disk only
    client.editor.open(shapes, SHAPES)
    return shapes, app


def _rename_area(client, uri: str) -> None:
    """Select `area` in `def area(r):` and type `circle_area` over it, key by key."""
    client.editor.replace_text(uri, 0, 4, 8, "")
    for i, ch in enumerate("circle_area"):
        client.editor.type_text(uri, 0, 4 + i, ch)


async def _follow_up_action(client, uri: str) -> types.CodeAction:
    """The follow-ups action, once the edits have settled and the files were searched."""
    async with asyncio.timeout(30):
        while True:
            found = [a for a in await actions_at(client, uri, 4) if a.title.startswith("Spark: update")]
            if found:
                return found[0]
            await asyncio.sleep(0.05)


def _offers(client, uri: str) -> int:
    return sum(1 for note in client.editor.next_edits if note["uri"] == uri and note["suggestion"])


async def _offered_in(client, uri: str) -> dict:
    """The first suggestion offered in `uri` (`sparkls/nextEdit`)."""
    async with asyncio.timeout(30):
        while True:
            for note in client.editor.next_edits:
                if note["uri"] == uri and note["suggestion"]:
                    return note["suggestion"]
            await client.wait_for_notification("sparkls/nextEdit")


async def _run(client, action: types.CodeAction) -> dict:
    assert action.command is not None
    params = types.ExecuteCommandParams(command=action.command.command, arguments=action.command.arguments)
    return await client.workspace_execute_command_async(params)


async def test_a_renamed_function_updates_its_uses_in_other_files_as_one_edit(client, emulator, workspace):
    shapes, app = await _session(client, emulator, workspace)
    _rename_area(client, shapes)
    await _offered_in(client, shapes)  # this file's own use of area: found once the other files were searched
    await _offered_in(client, app)  # the open follower's own next edit
    action = await _follow_up_action(client, shapes)
    # report.py: the import and two calls (the comment is not code); app.py: `sh.area`.
    assert action.title == "Spark: update 4 uses of area in 2 files"
    assert action.kind == types.CodeActionKind.RefactorRewrite
    asked = emulator.stats()["responses"]
    result = await _run(client, action)
    assert result["applied"] is True, result
    assert result["model_calls"] == 2 and result["regions_rewritten"] == 4
    assert emulator.stats()["responses"] - asked == 2  # one question per file, none before it was picked
    (edit,) = client.editor.applied[-1:]
    versions = {c.text_document.uri: c.text_document.version for c in edit.document_changes}
    assert versions == {app: client.editor.buffers[app].version - 1, (workspace / "report.py").as_uri(): None}
    assert (workspace / "report.py").read_text() == REPORT.replace("import area", "import circle_area").replace(
        "{area(r)", "{circle_area(r)").replace("sum(area(", "sum(circle_area(")
    assert "# area of the circle" in (workspace / "report.py").read_text()
    assert client.editor.text(app) == APP.replace("sh.area", "sh.circle_area")
    assert (workspace / "other.py").read_text() == OTHER  # another variable named area
    assert [a for a in await actions_at(client, shapes, 4) if a.title.startswith("Spark: update")] == []


async def test_a_file_that_moved_meanwhile_refuses_the_whole_edit(client, emulator, workspace):
    shapes, app = await _session(client, emulator, workspace)
    _rename_area(client, shapes)
    action = await _follow_up_action(client, shapes)
    report = workspace / "report.py"
    report.write_text(REPORT + "\n# edited elsewhere\n")  # another tool changed it after it was read
    applied = len(client.editor.applied)
    result = await _run(client, action)
    assert result["applied"] is False
    assert result["error"]["message"].startswith("report.py changed while the follow-ups were asked for; nothing was applied")
    assert len(client.editor.applied) == applied and client.editor.text(app) == APP
    assert report.read_text() == REPORT + "\n# edited elsewhere\n"


async def test_a_changed_signature_offers_its_calls_for_an_editor_without_document_changes(client, emulator, workspace):
    """Neovim 0.7 takes plain `changes`; the calls of a function whose parameters changed are offered."""
    shapes, _ = await _session(client, emulator, workspace, editor="neovim@v0.7.0")
    for i, ch in enumerate(", unit"):
        client.editor.type_text(shapes, 0, 10 + i, ch)
    action = await _follow_up_action(client, shapes)
    assert action.title == "Spark: update 3 call sites in 2 files"


async def test_nothing_is_looked_for_when_the_setting_is_off(client, emulator, workspace):
    options = {"next_edit": {**FAST["next_edit"], "other_files": "off"}}
    shapes, _ = await _session(client, emulator, workspace, options=options)
    _rename_area(client, shapes)
    await offered(client)  # the question ran: this file's own use is offered
    assert [a for a in await actions_at(client, shapes, 4) if a.title.startswith("Spark: update")] == []
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.followUps", arguments=[{"uri": shapes}])
    )
    assert result["applied"] is False and "No follow-ups in other files" in result["error"]["message"]


async def test_uses_beyond_the_next_edit_window_come_with_the_other_files(client, emulator, workspace):
    """A use 450 lines below the definition is out of the next edit's reach: the action
    updates it in the open document too, at its version, with the other files."""
    far = SHAPES + "\n" * 450 + "print(area(3))\n"
    (workspace / "pkg" / "shapes.py").write_text(far)
    await start(client, emulator, workspace, options=FAST)
    await wait_status(client, lambda fast: fast["state"] == "ready")
    await _index_ready(client)
    shapes = (workspace / "pkg" / "shapes.py").as_uri()
    client.editor.open(shapes, far)
    _rename_area(client, shapes)
    await offered(client)
    action = await _follow_up_action(client, shapes)
    assert action.title == "Spark: update 5 uses of area in 3 files"
    version = client.editor.buffers[shapes].version
    result = await _run(client, action)
    assert result["applied"] is True, result
    text = client.editor.text(shapes)
    assert text.endswith("print(circle_area(3))\n") and "return 2 * area(r)" in text  # the near use: next edit's
    (edit,) = client.editor.applied[-1:]
    assert {c.text_document.uri: c.text_document.version for c in edit.document_changes}[shapes] == version


async def test_ahead_asks_as_soon_as_found_and_picking_sends_nothing_more(client, emulator, workspace):
    options = {"next_edit": {**FAST["next_edit"], "other_files": "ahead"}}
    shapes, app = await _session(client, emulator, workspace, options=options)
    _rename_area(client, shapes)
    await _offered_in(client, shapes)
    await _offered_in(client, app)
    action = await _follow_up_action(client, shapes)
    # this file's question, app.py's next edit, then one per other file, asked before anything is picked
    await wait_emulator(emulator, lambda stats: stats["responses"] >= 4)
    asked = emulator.stats()["responses"]
    # Typing elsewhere in the file asks this file's question again, not the other files'.
    offers = _offers(client, shapes)
    client.editor.type_text(shapes, 6, 0, "# done\n")
    async with asyncio.timeout(30):
        while _offers(client, shapes) == offers:
            await client.wait_for_notification("sparkls/nextEdit")
    assert emulator.stats()["responses"] == asked + 1
    asked += 1
    action = await _follow_up_action(client, shapes)
    result = await _run(client, action)
    assert result["applied"] is True and result["model_calls"] == 2, result
    assert emulator.stats()["responses"] == asked
    assert client.editor.text(app) == APP.replace("sh.area", "sh.circle_area")


async def test_an_open_document_that_follows_gets_its_next_edit_and_the_action_then_skips_it(client, emulator, workspace):
    shapes, app = await _session(client, emulator, workspace)
    _rename_area(client, shapes)
    suggestion = await _offered_in(client, app)
    assert suggestion["line"] == 2 and suggestion["reason"] == "use of area (now circle_area)"
    assert suggestion["newText"] == "circle_area"
    accepted = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.acceptNextEdit", arguments=[{"uri": app}])
    )
    assert accepted["applied"] is True, accepted
    assert client.editor.text(app) == APP.replace("sh.area", "sh.circle_area")
    # The action, listed before, looks again when picked: app.py needs nothing more.
    action = await _follow_up_action(client, shapes)
    result = await _run(client, action)
    assert result["applied"] is True and result["model_calls"] == 1, result
    assert [f["path"] for f in result["files"]] == ["report.py"]
    assert client.editor.text(app) == APP.replace("sh.area", "sh.circle_area")


async def test_an_open_document_is_read_from_its_buffer_and_an_excluded_one_never(client, emulator, workspace):
    """report.py is open with `area` already renamed (unsaved: the disk still has it), and
    a file `context.exclude` names uses `area`: neither is in the action."""
    (workspace / "private.py").write_text("from pkg.shapes import area\n\nprint(area(1))\n")
    options = {**FAST, "context": {"exclude": ["private.py"]}}
    shapes, app = await _session(client, emulator, workspace, options=options)
    report, private = (workspace / "report.py").as_uri(), (workspace / "private.py").as_uri()
    client.editor.open(report, REPORT.replace("area", "circle_area"))
    client.editor.open(private, (workspace / "private.py").read_text())
    _rename_area(client, shapes)
    await _offered_in(client, shapes)
    action = await _follow_up_action(client, shapes)
    assert action.title == "Spark: update 1 use of area in 1 file"  # app.py's `sh.area`
    result = await _run(client, action)
    assert result["applied"] is True and [f["path"] for f in result["files"]] == ["app.py"], result
    assert client.editor.text(report) == REPORT.replace("area", "circle_area")
    assert client.editor.text(private) == (workspace / "private.py").read_text()


async def test_an_open_follower_with_uses_apart_gets_the_first_as_its_next_edit(client, emulator, workspace):
    """The answer rewrites both regions; the suggestion is the first, not nothing."""
    two = "from pkg.shapes import area\n\n\nprint(area(1))\n"
    (workspace / "two.py").write_text(two)
    shapes, _ = await _session(client, emulator, workspace)
    uri = (workspace / "two.py").as_uri()
    client.editor.open(uri, two)
    _rename_area(client, shapes)
    suggestion = await _offered_in(client, uri)
    assert suggestion["line"] == 0 and suggestion["newText"] == "circle_area"


async def test_one_files_failed_question_applies_nothing(client, emulator, workspace):
    """The fast tier refuses one file's question: nothing is applied, and the user is told why."""
    shapes, app = await _session(client, emulator, workspace)
    _rename_area(client, shapes)
    await _offered_in(client, shapes)
    await _offered_in(client, app)
    action = await _follow_up_action(client, shapes)
    applied = len(client.editor.applied)
    emulator.set_faults(error_status=400, error_code="invalid_prompt", count=1)
    result = await _run(client, action)
    assert result["applied"] is False and result["error"]["code"], result
    assert len(client.editor.applied) == applied
    assert client.editor.text(app) == APP and (workspace / "report.py").read_text() == REPORT
