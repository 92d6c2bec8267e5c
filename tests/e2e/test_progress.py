"""A slow edit shows work-done progress with the tokens received, and can be cancelled from it."""

from __future__ import annotations

import asyncio
import inspect
import sys

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start
from tests.e2e.testbound import end_session

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def _edit_progress(client) -> dict[str, list]:
    """The progress reports of edits (not the workspace index's), by token."""
    return {
        token: reports
        for token, reports in client.progress_reports.items()
        if reports and isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == "Spark edit"
    }


async def _progress_begun(client) -> str:
    """The token of the first edit progress the server began (polled, bounded)."""
    for _ in range(1000):
        if found := _edit_progress(client):
            return next(iter(found))
        await asyncio.sleep(0.01)
    raise AssertionError("no progress was begun")


async def test_a_slow_edit_reports_the_tokens_received(client, emulator, tmp_path, sample):
    """Paced at 20 tokens/s, the edit begins a cancellable progress, reports tokens, and ends it."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)
    result = await run_edit(client, sample, 0, FIX)
    assert result["applied"] is True
    [reports] = _edit_progress(client).values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable is True
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert messages and all(m.endswith(" tokens received") for m in messages)
    counts = [int(m.split()[0]) for m in messages]
    assert counts == sorted(counts) and counts[-1] > 0


async def test_a_fast_edit_shows_no_progress(client, emulator, tmp_path, sample):
    """An unpaced edit finishes before the progress delay: no spinner at all. (The
    session's first edit is made first: it may wait for the configuration pull and the
    socket's warm-up, which a loaded machine can stretch past the delay.)"""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 0, FIX))["applied"] is True
    before = set(_edit_progress(client))
    assert (await run_edit(client, sample, 0, "REPLACE radius WITH r"))["applied"] is True
    assert set(_edit_progress(client)) == before


async def test_cancelling_the_progress_cancels_the_edit(client, emulator, tmp_path, sample):
    """window/workDoneProgress/cancel stops the edit at once; nothing is applied."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=2, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, 0, FIX))
    token = await _progress_begun(client)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await edit
    assert result["applied"] is False and result["error"]["code"] == "cancelled"
    assert client.editor.text(sample) == SAMPLE and client.editor.applied == []


# A session whose editor answers the server's requests late and cancels at awkward
# moments, with the server's stderr captured: a healthy session writes nothing there
# (Neovim logs each stderr line as an [ERROR], Helix shows them in its log).

LATE = (
    types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WINDOW_SHOW_MESSAGE_REQUEST,
    types.WORKSPACE_APPLY_EDIT, types.WORKSPACE_CONFIGURATION,
)


class LateAnswers:
    """The editor's answers to `LATE` methods, each held back while `hold(method)` lasts."""

    def __init__(self, client) -> None:
        self.asked: dict[str, asyncio.Event] = {}
        self.released: dict[str, asyncio.Event] = {}
        for method in LATE:
            answer = client.protocol.fm.features[method]
            client.protocol.fm.features[method] = self._late(method, answer)

    def _late(self, method: str, answer):
        async def late(params):
            if method in self.released:
                self.asked[method].set()
                await self.released[method].wait()
            result = answer(params)
            return await result if inspect.isawaitable(result) else result

        return late

    def hold(self, method: str) -> None:
        self.asked[method], self.released[method] = asyncio.Event(), asyncio.Event()

    async def wait_asked(self, method: str) -> None:
        async with asyncio.timeout(30):
            await self.asked[method].wait()

    def release(self, method: str) -> None:
        self.released.pop(method).set()


def _edit_params(uri: str, instruction: str) -> types.ExecuteCommandParams:
    cursor = {"line": 0, "character": 0}
    return types.ExecuteCommandParams(
        command="sparkls.edit", arguments=[{"uri": uri, "range": {"start": cursor, "end": cursor}, "instruction": instruction}]
    )


async def _applied_late(client, uri: str, text: str) -> None:
    """Wait until the editor's buffer holds `text` (polled, bounded)."""
    for _ in range(3000):
        if text in client.editor.text(uri):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the late edit never landed: {client.editor.text(uri)!r}")


async def test_late_answers_and_cancels_leave_stderr_empty(tmp_path, emulator):
    """Progress token, stall question, applyEdit and configuration answered after the server stopped
    waiting; a cancel after the answer; a response nobody asked for: stderr stays empty."""
    from pytest_lsp import ClientServerConfig

    from tests.e2e.editor import capabilities, make_editor_client

    stderr = tmp_path / "stderr.txt"
    command = ["sh", "-c", 'err="$1"; shift; exec "$@" 2>"$err"', "sh", str(stderr), sys.executable, "-m", "sparkls"]
    client = await ClientServerConfig(server_command=command, client_factory=make_editor_client).start()
    late = LateAnswers(client)
    for method in (types.WORKSPACE_CONFIGURATION, types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WINDOW_SHOW_MESSAGE_REQUEST):
        late.hold(method)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities("neovim"),
                initialization_options={"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key, "firstTokenTimeout": 0.2}},
                root_uri=tmp_path.as_uri(),
            )
        )
        await late.wait_asked(types.WORKSPACE_CONFIGURATION)  # held until the end
        uri = (tmp_path / "area.py").as_uri()
        client.editor.open(uri, SAMPLE)

        # 1. A slow edit: its progress token is granted only after the edit has ended.
        emulator.set_faults(tokens_per_second=20, count=1)
        first = await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, _edit_params(uri, FIX), msg_id="e1")
        assert first["applied"] is True and late.asked[types.WINDOW_WORK_DONE_PROGRESS_CREATE].is_set()
        late.release(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        # A cancel for a request already answered.
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="e1"))

        # 2. A silent model: "Cancel / Keep waiting?" is answered after the edit has ended.
        late.hold(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        emulator.set_faults(delay_ms=1500, count=1)
        second = await client.workspace_execute_command_async(_edit_params(uri, "REPLACE radius WITH r"))
        assert late.asked[types.WINDOW_SHOW_MESSAGE_REQUEST].is_set() and second["applied"] is True, second
        late.release(types.WINDOW_SHOW_MESSAGE_REQUEST)
        late.release(types.WINDOW_WORK_DONE_PROGRESS_CREATE)

        # 3. The edit is cancelled while the server waits for applyEdit; the editor answers after.
        late.hold(types.WORKSPACE_APPLY_EDIT)
        third = asyncio.ensure_future(
            client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, _edit_params(uri, "REPLACE 3.14 WITH 3.14159"), msg_id="e3")
        )
        await late.wait_asked(types.WORKSPACE_APPLY_EDIT)
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="e3"))
        with pytest.raises(Exception, match="cancel"):
            await third
        late.release(types.WORKSPACE_APPLY_EDIT)
        await _applied_late(client, uri, "3.14159")  # the editor applies it: the next edit starts from there

        # 4. A response to a request the server never sent, and the configuration at last.
        client.protocol._send_data({"jsonrpc": "2.0", "id": "never-sent", "result": None})
        late.release(types.WORKSPACE_CONFIGURATION)
        last = await client.workspace_execute_command_async(_edit_params(uri, "REPLACE area WITH disk_area"))
        assert last["applied"] is True, last  # the session still serves
    finally:
        await end_session(client)
        await client.stop()
    assert stderr.read_text() == ""
