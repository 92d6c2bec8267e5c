"""No request waits behind another file's redaction, and a huge line is refused at once.

The real server over stdio against the emulator. Where the order of events is the
point, the task's redaction is made an event the test can hold (`held_seal.py`): the
test asserts what was answered while it was held, never how long anything took.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.conftest import run_edit, start
from tests.e2e.editor import make_editor_client
from tests.e2e.testbound import end_session

DEEP_MODEL = "gpt-5.3-codex"
SMALL = "def area(r):\n    return 3.14 * r * r\n"
BOUNDED = 60  # seconds: only ever reached when the server is stuck (a deadlock breaker, not a measure)


def minified(size: int) -> str:
    """One line of minified JavaScript of about `size` characters."""
    pairs, total, n = [], 0, 0
    while total < size:
        pairs.append(f"k{n}:{n}")
        total, n = total + len(pairs[-1]) + 1, n + 1
    return "var cfg={" + ",".join(pairs) + "};\n"


def _deep(emulator: Any) -> dict[str, Any]:
    return {"deep": {"baseUrl": emulator.url, "apiKey": emulator.api_key, "transport": "http"}}


def _task(client: LanguageClient, instruction: str, uris: list[str]) -> asyncio.Future[Any]:
    params = types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": instruction, "uris": uris}])
    return asyncio.ensure_future(client.workspace_execute_command_async(params))


def _code_action(client: LanguageClient, uri: str, line: int, character: int = 0) -> asyncio.Future[Any]:
    here = types.Position(line=line, character=character)
    return client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=here, end=here),
            context=types.CodeActionContext(diagnostics=[], trigger_kind=types.CodeActionTriggerKind.Invoked),
        )
    )


@contextlib.asynccontextmanager
async def held_server(folder: Path) -> AsyncIterator[tuple[LanguageClient, asyncio.Event]]:
    """sparkls whose first big seal waits in `folder`'s FIFOs (held_seal.py); the event is
    set once that seal has begun. On the way out the seal is released, whatever happened."""
    os.mkfifo(folder / "held")
    os.mkfifo(folder / "release")
    held = asyncio.Event()
    reader = os.open(folder / "held", os.O_RDONLY | os.O_NONBLOCK)  # open before the server writes to it
    loop = asyncio.get_running_loop()
    loop.add_reader(reader, held.set)
    client = make_editor_client()
    await client.start_io(
        sys.executable, str(Path(__file__).with_name("held_seal.py")), "--stdio",
        env={**os.environ, "SPARKLS_HELD_SEAL": str(folder)},
    )
    try:
        yield client, held
    finally:
        if held.is_set():
            await release(folder)
        loop.remove_reader(reader)
        os.close(reader)
        await end_session(client)


async def release(folder: Path) -> None:
    """Let the held seal go on (its reader is waiting for a writer: this open returns at once)."""
    if not (folder / "released").exists():
        (folder / "released").touch()
        os.close(await asyncio.to_thread(os.open, folder / "release", os.O_WRONLY))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "shapes.py").write_text(SMALL)
    return root


async def test_a_code_action_is_answered_while_a_task_redacts_a_minified_file(emulator, workspace, tmp_path):
    """While a task's 200 KB minified line is being redacted, a code action on another file is answered; then the task applies."""
    (workspace / "cfg.js").write_text(minified(200_000))
    (tmp_path / "fifos").mkdir()
    async with held_server(tmp_path / "fifos") as (client, held):
        await start(client, emulator, workspace, options=_deep(emulator))
        shapes = (workspace / "shapes.py").as_uri()
        client.editor.open(shapes, SMALL)
        task = _task(client, "REPLACE cfg WITH conf", [(workspace / "cfg.js").as_uri()])
        await asyncio.wait_for(held.wait(), BOUNDED)  # the task's files are being redacted now
        try:
            actions = await asyncio.wait_for(_code_action(client, shapes, 1), BOUNDED)
        except TimeoutError:
            raise AssertionError("no answer to the code action while the task's redaction went on: it holds up the server") from None
        # Answered while the task's redaction was still held: the task has sent nothing yet.
        assert not task.done()
        assert DEEP_MODEL not in emulator.stats()["by_model"]
        assert any("Spark" in action.title for action in actions), actions
        await release(tmp_path / "fifos")
        result = await asyncio.wait_for(task, BOUNDED)
    assert result["applied"] is True, result
    assert (workspace / "cfg.js").read_text().startswith("var conf={k0:0,")
    assert emulator.stats()["by_model"] == {DEEP_MODEL: {"http": 1}}


async def test_a_task_naming_a_50_mb_one_line_file_leaves_it_unread_and_says_why(client, emulator, workspace):
    """A 50 MB named file is not shown (by its size: context.max_file_bytes); the task goes on with the others and says so."""
    (workspace / "data.js").write_text("var d=[" + '{"id":1},' * 5_600_000 + "];\n")
    await start(client, emulator, workspace, options=_deep(emulator))
    shapes = (workspace / "shapes.py").as_uri()
    result = await _task(client, "REPLACE area WITH circle_area", [(workspace / "data.js").as_uri(), shapes])
    assert result["applied"] is True, result
    assert [f["path"] for f in result["files_shown"]] == ["shapes.py"]
    (warning,) = result["warnings"]
    assert warning.startswith("data.js is 50.4 MB, more than a task shows the deep tier (context.max_file_bytes, 2 MB)")
    assert (workspace / "shapes.py").read_text() == SMALL.replace("area", "circle_area")


async def test_edits_in_a_huge_line_are_refused_at_once_with_a_message(client, emulator, workspace):
    """In a 5 MB one-line open file: typing and code actions work; a completion or an edit there is refused, said why, nothing sent."""
    line = minified(5_000_000)
    await start(client, emulator, workspace, options={"context": {"index": False}})
    uri = (workspace / "bundle.js").as_uri()
    client.editor.open(uri, line, "javascript")
    client.editor.type_text(uri, 0, 10, "x")
    assert await _code_action(client, uri, 0, 20) is not None
    invoked = types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)
    completion = await client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=20), context=invoked
        )
    )
    assert completion is None
    edit = await run_edit(client, uri, 0, "REPLACE k1 WITH k_one")
    assert edit["applied"] is False
    length = f"{len(line) + 1:,}"  # the line, its break, and the character typed
    for said in (edit["error"]["message"], *[m.message for m in client.messages if "inline completion" in m.message]):
        assert f"Line 1 of bundle.js is {length} characters" in said, said
        assert "nothing was read or sent" in said and "shorter lines" in said, said
    assert len([m for m in client.messages if "inline completion" in m.message]) == 1
    assert emulator.stats()["by_model"] == {}
