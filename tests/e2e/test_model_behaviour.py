"""Real model behaviour through a real LSP session: what the user sees, and what it cost.

The emulator plays each behaviour (docs/emulator.md: `behaviour`); the server is the real
one over stdio. Every outcome is an exact edit or a clear message with the buffer (and
the files) untouched.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_status
from tests.e2e.test_session import FIX, FIXED, SAMPLE, sample  # noqa: F401
from tests.e2e.test_task import RENAME, _deep, _open_shapes, _renamed, _task, _unchanged, workspace  # noqa: F401


async def _edit_with(client, emulator, tmp_path, sample, **faults) -> dict:
    await start(client, emulator, tmp_path, fast=faults.pop("fast", None))
    await wait_status(client, lambda s: s["state"] == "ready")
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(**faults)
    return await run_edit(client, sample, 1, FIX)


async def test_commentary_then_final_answer_is_applied(client, emulator, tmp_path, sample):
    """GPT-5.3-Codex's commentary message is not the edit: the final answer is."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour="commentary", count=1)
    assert result["applied"] is True and result["attempts"] == 1
    assert client.editor.text(sample) == FIXED


async def test_unlabelled_messages_use_the_last(client, emulator, tmp_path, sample):
    """Two messages without phase: the last one is the answer."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour="unlabelled", count=1)
    assert result["applied"] is True and client.editor.text(sample) == FIXED


async def test_refusal_is_shown_and_nothing_changes(client, emulator, tmp_path, sample):
    """A refusal reaches the user in the model's words; one request, no edit."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour="refusal", count=1)
    assert result["applied"] is False and result["error"]["code"] == "model_refused"
    assert "declined" in result["error"]["message"] and "empty" not in result["error"]["message"]
    assert client.editor.text(sample) == SAMPLE and emulator.stats()["responses"] == 1


@pytest.mark.parametrize("behaviour", ["max_output_tokens", "content_filter"])
async def test_cut_off_reply_is_never_applied(client, emulator, tmp_path, sample, behaviour):
    """response.incomplete: reported as cut off, one request, the tier still on its WebSocket."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour=behaviour, count=1)
    assert result["applied"] is False and result["error"]["code"] == "reply_cut_off"
    assert f"cut off ({behaviour}" in result["error"]["message"]
    assert client.editor.text(sample) == SAMPLE and emulator.stats()["responses"] == 1
    again = await run_edit(client, sample, 1, FIX)
    assert again["applied"] is True and again["transport"] == "websocket"


async def test_failed_response_is_retried(client, emulator, tmp_path, sample):
    """response.failed (server_error) costs one retry, not an error."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour="failed", count=1)
    assert result["applied"] is True and result["attempts"] == 2 and client.editor.text(sample) == FIXED


async def test_in_band_rate_limit_waits_what_it_says(client, emulator, tmp_path, sample):
    """An in-band 429 with retry-after is waited out once and told to the user."""
    result = await _edit_with(client, emulator, tmp_path, sample, behaviour="rate_limited", retry_after=0.3, count=1)
    assert result["applied"] is True and result["attempts"] == 2
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("Rate limited" in w and "Retrying in 0.3 s" in w for w in warnings), warnings


async def test_connection_limit_on_an_open_socket(client, emulator, tmp_path, sample):
    """Sockets the service retired but left open: the edit goes through on a fresh one."""
    emulator.connection_limit(0.2)
    try:
        await start(client, emulator, tmp_path, fast={"poolSize": 3})
        await wait_status(client, lambda s: s["state"] == "ready")
        client.editor.open(sample, SAMPLE)
        stats = emulator.stats()
        opened = stats["ws_connections"]
        await asyncio.sleep(0.3)  # the connections age past the limit
        result = await run_edit(client, sample, 1, FIX)
    finally:
        emulator.connection_limit(None)
    assert result["applied"] is True and result["attempts"] == 1
    assert client.editor.text(sample) == FIXED
    stats = emulator.stats()
    assert stats["ws_connections"] > opened and stats["errors"] >= 1  # refused once, then a fresh socket


async def test_silent_model_offers_to_cancel(client, emulator, tmp_path, sample):
    """No first token within first_token_timeout: the user is asked, and Cancel cancels."""
    client.editor.message_answer = "Cancel"
    result = await _edit_with(
        client, emulator, tmp_path, sample, fast={"firstTokenTimeout": 0.2}, delay_ms=3000, count=1
    )
    assert result["applied"] is False and result["error"]["code"] == "cancelled"
    [asked] = client.editor.message_requests
    assert "sent nothing for 0.2 s" in asked.message and [a.title for a in asked.actions] == ["Cancel", "Keep waiting"]
    assert client.editor.text(sample) == SAMPLE


async def test_deep_task_with_commentary_is_applied(client, emulator, workspace):  # noqa: F811
    """The deep model's commentary message does not break its SEARCH/REPLACE blocks."""
    shapes = await _open_shapes(client, emulator, workspace)
    emulator.set_faults(behaviour="commentary", count=1)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is True, result
    _renamed(workspace, client, shapes)


async def test_deep_task_cut_off_applies_nothing(client, emulator, workspace):  # noqa: F811
    """A deep reply cut off by max_output_tokens applies no block at all."""
    shapes = await _open_shapes(client, emulator, workspace)
    emulator.set_faults(behaviour="max_output_tokens", count=1)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is False and result["error"]["code"] == "reply_cut_off"
    assert client.editor.text(shapes) == "def area(r):\n    return 3.14159 * r * r\n"
    _unchanged(workspace)
    assert not (workspace / "units.py").exists()


async def test_chat_deep_task_cut_by_length_applies_nothing(client, emulator, workspace):  # noqa: F811
    """Chat Completions `finish_reason: length` (a local server): nothing applied."""
    await start(client, emulator, workspace, options=_deep(emulator, api="chat"))
    shapes = (workspace / "shapes.py").as_uri()
    client.editor.open(shapes, "def area(r):\n    return 3.14159 * r * r\n")
    emulator.set_faults(behaviour="max_output_tokens", chat_flavour="llama.cpp", count=1)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is False and result["error"]["code"] == "reply_cut_off"
    _unchanged(workspace)
