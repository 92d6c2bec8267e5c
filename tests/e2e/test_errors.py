"""Errors a user can meet: each gets a clear message and changes nothing."""

from __future__ import annotations

import asyncio
import socket

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator, wait_status
from tests.e2e.testbound import end_session

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def _error_message(client) -> str:
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1, client.messages
    return errors[0]


async def _failed_edit(client, sample, instruction=FIX) -> dict:
    result = await run_edit(client, sample, 1, instruction)
    assert result["applied"] is False
    assert client.editor.text(sample) == SAMPLE
    assert client.editor.applied == []
    return result


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_missing_api_key(client, emulator, tmp_path, sample):
    """No key anywhere: the message names the variable to set."""
    await start(client, emulator, tmp_path, fast={"apiKey": None, "apiKeyEnv": "SPARKLS_TEST_UNSET_KEY"})
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "missing_api_key"
    assert "SPARKLS_TEST_UNSET_KEY" in _error_message(client)


async def test_connection_refused(client, emulator, tmp_path, sample):
    """Nothing listening at a local base_url: the message names the URL and asks whether
    the local server runs, never "All connection attempts failed"."""
    port = _closed_port()
    await start(client, emulator, tmp_path, fast={"baseUrl": f"http://127.0.0.1:{port}/v1"})
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "connect_failed"
    message = _error_message(client)
    assert f"cannot connect to http://127.0.0.1:{port}/v1 (connection refused)" in message
    assert f"is your local server (llama.cpp, Ollama, `sparkls emulate`…) running at 127.0.0.1:{port}?" in message
    assert "All connection attempts failed" not in message


async def test_base_url_without_v1(client, emulator, tmp_path, sample):
    """A base URL without /v1: the 404 says which URL to set (it is not rewritten)."""
    root = emulator.url.removesuffix("/v1")
    await start(client, emulator, tmp_path, fast={"baseUrl": root})
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "endpoint_not_found"
    assert f"the base URL probably needs /v1: set `fast.base_url` to {emulator.url}" in _error_message(client)
    assert emulator.stats()["responses"] == 0


async def test_a_long_rate_limit_answers_the_edit_at_once(client, emulator, tmp_path, sample):
    """A rate limit asking for 30 s: the edit fails at once with the wait, after one
    request (no retry after sleeping it out)."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(behaviour="rate_limited", retry_after=30)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "rate_limited"
    assert f"Rate limited by {emulator.host} (fast tier): retry in 30 s." in _error_message(client)
    assert emulator.stats()["errors"] == 1


async def test_an_unknown_setting_gets_did_you_mean(client, emulator, tmp_path, sample):
    """A misspelt setting from an editor (camelCase): the warning names the one meant."""
    await start(client, emulator, tmp_path, fast={"modle": "m"}, options={"nextEdit": {"debounceMsec": 50}})
    await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    warnings = " ".join(m.message for m in client.messages if m.type == types.MessageType.Warning)
    assert "unknown setting `fast.modle` (did you mean `fast.model`?)" in warnings
    assert "unknown setting `nextEdit.debounceMsec` (did you mean `nextEdit.debounceMs`?)" in warnings


async def test_rejected_api_key(client, emulator, tmp_path, sample):
    """A wrong key: "API key rejected for the fast tier at <host>", and the key is not shown."""
    await start(client, emulator, tmp_path, fast={"apiKey": "sk-wrong-key"})
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "auth_failed"
    message = _error_message(client)
    assert f"API key rejected for the fast tier at {emulator.host}" in message
    assert "sk-wrong-key" not in message


async def test_error_event(client, emulator, tmp_path, sample):
    """An in-band error event is reported with its code, and the next edit works."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=400, error_code="invalid_prompt", count=1)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "api_error"
    assert "invalid_prompt" in _error_message(client)
    assert (await run_edit(client, sample, 1, FIX))["applied"] is True
    assert emulator.stats()["ws_connections"] == 1  # the one lane connection survived the error


async def test_persistent_server_error(client, emulator, tmp_path, sample):
    """A 5xx that persists is retried (with backoff), then named as a server failure."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=503, error_code="server_overloaded")
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "server_error"
    assert "503" in _error_message(client)
    assert emulator.stats()["errors"] == 3  # three attempts in all, then the user is told


async def test_reply_without_fenced_block(client, emulator, tmp_path, sample):
    """A reply with no code block changes nothing and says so."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(reply="bare", count=1)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "no_usable_reply"
    assert "no complete code block" in _error_message(client)


async def test_reply_that_breaks_syntax(client, emulator, tmp_path, sample):
    """An edit that would not parse is refused before it reaches the buffer."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample, 'REPLACE "** 2" WITH "** (2"')
    assert result["error"]["code"] == "invalid_edit"
    assert "does not parse" in _error_message(client)


async def test_stream_dropped_twice(client, emulator, tmp_path, sample):
    """A stream cut twice gives a clear error, never half an edit, after exactly one retry."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(drop_after_deltas=3, count=2)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "stream_broken"
    assert emulator.stats()["responses"] == 2
    assert (await run_edit(client, sample, 1, FIX))["applied"] is True


async def test_document_closed_while_streaming(client, emulator, tmp_path, sample):
    """Closing the document while the model answers drops the edit with a message."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(delay_ms=400, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, 1, FIX))
    await wait_emulator(emulator, lambda s: s["responses"] >= 1)
    client.editor.close(sample)
    result = await edit
    assert result["applied"] is False
    assert result["error"]["code"] == "document_closed"
    assert "was closed" in _error_message(client)
    assert client.editor.applied == []


async def test_document_changed_while_streaming(client, emulator, tmp_path, sample):
    """Typing in the region while the model answers: the stale edit is dropped with a message."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(delay_ms=400, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, 1, FIX))
    await wait_emulator(emulator, lambda s: s["responses"] >= 1)
    client.editor.type_text(sample, 1, 4, "# typed\n    ")
    result = await edit
    assert result["error"]["code"] == "stale_edit"
    assert "while Spark was writing them" in _error_message(client)
    lines = SAMPLE.splitlines(keepends=True)
    assert client.editor.text(sample) == lines[0] + "    # typed\n" + "".join(lines[1:])


async def test_invalid_settings_are_reported_and_defaults_kept(client, emulator, tmp_path, sample):
    """A bad setting is shown as a warning; the server keeps working with the rest."""
    await start(client, emulator, tmp_path, fast={"transport": "pigeon"}, options={"context": {"maxRegionLines": -3}})
    await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("fast.transport" in w and "context.max_region_lines" in w for w in warnings), warnings
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, FIX))["applied"] is True


async def test_bad_command_argument(client, emulator, tmp_path, sample):
    """A malformed sparkls.edit argument is answered with a message, not a crash."""
    await start(client, emulator, tmp_path)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.edit", arguments=[{"uri": sample}])
    )
    assert result["applied"] is False and "invalid argument" in result["error"]["message"]


async def test_api_key_never_logged(tmp_path, emulator):
    """Even at DEBUG, with pygls logging whole messages, the key is not in the log."""
    import sys

    from pytest_lsp import ClientServerConfig

    from tests.e2e.editor import make_editor_client

    log = tmp_path / "server.log"
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "sparkls", "--log-level", "DEBUG", "--log-file", str(log)],
        client_factory=make_editor_client,
    )
    client = await config.start()
    try:
        await start(client, emulator, tmp_path)
        client.editor.open((tmp_path / "a.py").as_uri(), SAMPLE)
        assert (await run_edit(client, (tmp_path / "a.py").as_uri(), 1, FIX))["applied"] is True
    finally:
        await end_session(client)
        await client.stop()
    text = log.read_text()
    assert "initialize" in text  # the log did record the messages
    assert emulator.api_key not in text


@pytest.mark.parametrize("bundle", ["missing", "not PEM", "empty", "a folder"])
async def test_a_ca_file_that_cannot_be_loaded_is_named_and_the_edit_fails(client, emulator, tmp_path, sample, bundle):
    """The user's own `fast.ca_file` names no usable CA bundle: the status says the tier
    is failing and names the file; an edit fails at once saying so; nothing is sent."""
    ca_file = tmp_path / "certs" / "proxy-ca.pem"
    if bundle != "missing":
        ca_file.parent.mkdir()
    if bundle == "not PEM":
        ca_file.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    elif bundle == "empty":
        ca_file.write_text("")
    elif bundle == "a folder":
        ca_file.mkdir()
    await start(client, emulator, tmp_path, fast={"caFile": str(ca_file)})
    status = await wait_status(client, lambda fast: fast["state"] == "failing")
    assert str(ca_file) in status["reason"] and "fast.ca_file" in status["reason"]
    client.editor.open(sample, SAMPLE)
    result = await _failed_edit(client, sample)
    assert result["error"]["code"] == "bad_ca_file"
    message = _error_message(client)
    assert str(ca_file) in message and "fast.ca_file" in message and "nothing was sent" in message
    assert emulator.stats()["responses"] == 0 and emulator.stats()["ws_connections"] == 0
