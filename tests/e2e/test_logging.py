"""Where the server's log goes: nothing on stderr in a healthy session (Neovim shows
every stderr line as an error), the editor's log as its trace asks, the `--log-file`
at `--log-level`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import run_edit, wait_status
from tests.e2e.editor import capabilities, make_editor_client
from tests.e2e.testbound import end_session

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"
CONNECTED = "connected to"  # sparkls.models.lanesocket's INFO line once the fast tier's connection is open


def _with_stderr_to(path: Path, *args: str) -> list[str]:
    """`python -m sparkls ARGS` with its stderr in `path` (pytest-lsp would mix it into ours)."""
    return ["sh", "-c", 'err="$1"; shift; exec "$@" 2>"$err"', "sh", str(path), sys.executable, "-m", "sparkls", *args]


async def _session(tmp_path: Path, emulator, *server_args: str, trace: str | None = None, stderr: Path | None = None):
    """A started, initialized server against the emulator, its sample file open."""
    command = _with_stderr_to(stderr, *server_args) if stderr else [sys.executable, "-m", "sparkls", *server_args]
    client: LanguageClient = await ClientServerConfig(server_command=command, client_factory=make_editor_client).start()
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities("neovim"),
            initialization_options={"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}, "notifications": ["status"]},
            root_uri=tmp_path.as_uri(),
            trace=types.TraceValue(trace) if trace else None,
        )
    )
    (tmp_path / "a.py").write_text(SAMPLE)
    client.editor.open((tmp_path / "a.py").as_uri(), SAMPLE)
    return client


async def _end(client: LanguageClient) -> None:
    await end_session(client)
    await client.stop()


async def _log_message(client: LanguageClient, text: str) -> types.LogMessageParams:
    """The first window/logMessage containing `text` (waited for, bounded)."""
    async with asyncio.timeout(30):
        while True:
            for message in client.log_messages:
                if text in message.message:
                    return message
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)


async def test_a_healthy_session_writes_nothing_to_stderr(tmp_path, emulator):
    """No flags: initialize, open, an edit against the emulator and shutdown leave stderr empty."""
    stderr = tmp_path / "stderr.txt"
    client = await _session(tmp_path, emulator, stderr=stderr)
    try:
        assert (await run_edit(client, (tmp_path / "a.py").as_uri(), 1, FIX))["applied"] is True
    finally:
        await _end(client)
    assert stderr.read_text() == ""


async def test_trace_off_sends_no_info_to_the_editor(tmp_path, emulator):
    """With trace off (the default) the fast tier's INFO lines stay out of the editor's log."""
    client = await _session(tmp_path, emulator)
    try:
        await wait_status(client, lambda fast: fast["state"] == "ready")  # after the connection's INFO line
        assert not [m for m in client.log_messages if CONNECTED in m.message]
    finally:
        await _end(client)


async def test_trace_messages_sends_info_to_the_editor(tmp_path, emulator):
    """initialize with trace "messages": INFO lines reach window/logMessage as Info."""
    client = await _session(tmp_path, emulator, trace="messages")
    try:
        message = await _log_message(client, CONNECTED)
    finally:
        await _end(client)
    assert message.type == types.MessageType.Info and message.message.startswith("sparkls.models.lanesocket: ")


async def test_set_trace_turns_the_editor_log_on(tmp_path, emulator):
    """$/setTrace "messages" mid-session: a later INFO line (a failed edit) reaches the editor."""
    client = await _session(tmp_path, emulator)
    try:
        client.protocol.notify(types.SET_TRACE, types.SetTraceParams(value=types.TraceValue.Messages))
        emulator.set_faults(error_status=500)
        assert (await run_edit(client, (tmp_path / "a.py").as_uri(), 1, FIX))["applied"] is False
        message = await _log_message(client, "edit failed")
    finally:
        await _end(client)
    assert message.type == types.MessageType.Info


async def test_trace_never_sends_an_api_key(tmp_path, emulator):
    """At trace "verbose" no line the editor gets carries the key."""
    client = await _session(tmp_path, emulator, trace="verbose")
    try:
        await _log_message(client, CONNECTED)
        assert (await run_edit(client, (tmp_path / "a.py").as_uri(), 1, FIX))["applied"] is True
    finally:
        await _end(client)
    assert not [m for m in client.log_messages if emulator.api_key in m.message]


async def test_log_file_gets_info_and_stderr_stays_empty(tmp_path, emulator):
    """--log-file alone: the file has the INFO lines, stderr nothing."""
    log, stderr = tmp_path / "server.log", tmp_path / "stderr.txt"
    client = await _session(tmp_path, emulator, "--log-file", str(log), stderr=stderr)
    try:
        await wait_status(client, lambda fast: fast["state"] == "ready")
    finally:
        await _end(client)
    assert " INFO sparkls.models.lanesocket: connected to" in log.read_text()
    assert stderr.read_text() == ""


@pytest.mark.parametrize("level, present, absent", [("WARNING", None, " INFO "), ("DEBUG", " DEBUG ", None)])
async def test_log_level_sets_the_files_level(tmp_path, emulator, level, present, absent):
    """--log-level WARNING keeps INFO out of the file; DEBUG lets DEBUG in."""
    log = tmp_path / "server.log"
    client = await _session(tmp_path, emulator, "--log-file", str(log), "--log-level", level)
    try:
        await wait_status(client, lambda fast: fast["state"] == "ready")
    finally:
        await _end(client)
    text = log.read_text()
    assert (present is None or present in text) and (absent is None or absent not in text)
