"""The model session under stress: warm pool, retries, fallback and healing, cancellation,
other APIs. Each failure is injected by the emulator; nothing of sparkls is mocked."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator, wait_status

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"
FIXED = SAMPLE.replace("raduis", "radius")


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


@pytest.mark.parametrize("lanes, sockets", [(True, 1), (False, 2)])
async def test_connections_are_warm_before_the_first_edit(client, emulator, tmp_path, sample, lanes, sockets):
    """After initialized, the lane connection (or, lanes off, the pool's two sockets)
    opens and sends generate:false; the first edit opens nothing."""
    await start(client, emulator, tmp_path, fast={"lanes": lanes})
    status = await wait_status(client, lambda s: s["state"] == "ready")
    assert status["transport"] == "websocket" and status["mode"] == ("lanes" if lanes else "pool")
    stats = emulator.stats()
    assert stats["ws_connections"] == sockets and stats["warmups"] == sockets and stats["responses"] == 0
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, FIX))["applied"] is True
    assert emulator.stats()["ws_connections"] == sockets


async def test_two_requests_run_side_by_side(client, emulator, tmp_path, sample, tmp_path_factory):
    """With two sockets, a second request does not wait behind a slow first one."""
    other = tmp_path / "other.py"
    other.write_text(SAMPLE)
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    client.editor.open(other.as_uri(), SAMPLE)
    emulator.set_faults(delay_ms=500, count=2)
    first = asyncio.ensure_future(run_edit(client, sample, 1, FIX))
    second = asyncio.ensure_future(run_edit(client, other.as_uri(), 1, FIX))
    await wait_emulator(emulator, lambda s: s["responses"] == 2)  # both in flight at once
    assert not first.done() and not second.done()
    assert (await first)["applied"] and (await second)["applied"]


async def test_one_socket_queues_requests_in_order(client, emulator, tmp_path, sample):
    """With a pool of one, requests wait their turn: one in flight per socket."""
    other = tmp_path / "other.py"
    other.write_text(SAMPLE)
    await start(client, emulator, tmp_path, fast={"poolSize": 1})
    client.editor.open(sample, SAMPLE)
    client.editor.open(other.as_uri(), SAMPLE)
    emulator.set_faults(delay_ms=300, count=1)
    first = asyncio.ensure_future(run_edit(client, sample, 1, FIX))
    await wait_emulator(emulator, lambda s: s["responses"] == 1)
    second = asyncio.ensure_future(run_edit(client, other.as_uri(), 1, FIX))
    assert (await first)["applied"]
    assert (await second)["applied"]
    stats = emulator.stats()
    assert stats["ws_connections"] == 1 and stats["responses"] == 2


async def test_drop_mid_stream_is_retried_once_on_a_fresh_socket(client, emulator, tmp_path, sample):
    """One cut stream: the full request goes again and the edit lands whole."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(drop_after_deltas=3, count=1)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["attempts"] == 2
    assert client.editor.text(sample) == FIXED


async def test_server_error_is_retried_with_backoff(client, emulator, tmp_path, sample):
    """A passing 5xx costs a retry, not an error."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=500, count=1)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["attempts"] == 2


async def test_rate_limit_tells_the_user_and_retries(client, emulator, tmp_path, sample):
    """A 429 is reported to the user, waited out, and retried."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=429, error_code="rate_limit_exceeded", count=1)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["attempts"] == 2
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("Rate limited" in w and "Retrying in" in w for w in warnings), warnings


async def test_rejected_key_is_not_retried(client, emulator, tmp_path, sample):
    """401: one clear message naming tier and host, and no retry storm."""
    await start(client, emulator, tmp_path, fast={"apiKey": "sk-wrong-key"})
    await wait_status(client, lambda s: s["state"] == "failing")
    before = emulator.stats()["http_requests"]
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, 1, FIX)
    assert result["error"]["code"] == "auth_failed"
    assert f"API key rejected for the fast tier at {emulator.host}" in result["error"]["message"]
    assert emulator.stats()["http_requests"] - before <= 1  # at most the one handshake


async def test_unknown_model_is_named(client, emulator, tmp_path, sample):
    """404 model_not_found: the message names the model, and it is not retried."""
    await start(client, emulator, tmp_path, fast={"model": "gpt-nonexistent"})
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=404, error_code="model_not_found")
    result = await run_edit(client, sample, 1, FIX)
    assert result["error"]["code"] == "model_not_found"
    assert "gpt-nonexistent" in result["error"]["message"]
    assert emulator.stats()["errors"] == 1


async def test_connection_limit_rotates_and_resends(client, emulator, tmp_path, sample):
    """websocket_connection_limit_reached: the socket is replaced and the request sent again on
    the fresh one, inside the same attempt (nothing was processed)."""
    await start(client, emulator, tmp_path)
    await wait_status(client, lambda s: s["state"] == "ready")
    client.editor.open(sample, SAMPLE)
    opened = emulator.stats()["ws_connections"]
    emulator.set_faults(error_status=400, error_code="websocket_connection_limit_reached", count=1)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["attempts"] == 1
    assert emulator.stats()["ws_connections"] == opened + 1


async def test_previous_response_not_found_resends_full_input(client, emulator, tmp_path, sample):
    """previous_response_not_found: the request goes again with its full input, and lands."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(error_status=400, error_code="previous_response_not_found", count=1)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["attempts"] == 2
    assert client.editor.text(sample) == FIXED


async def test_old_sockets_are_rotated_between_requests(client, emulator, tmp_path, sample):
    """A socket past max_connection_age is reopened when handed back, never mid-stream."""
    await start(client, emulator, tmp_path, fast={"poolSize": 1, "maxConnectionAge": 0.001})
    client.editor.open(sample, SAMPLE)
    for old, new in [("raduis", "r1"), ("r1", "r2"), ("r2", "r3")]:
        assert (await run_edit(client, sample, 1, f"REPLACE {old} WITH {new}"))["applied"] is True
    stats = await wait_emulator(emulator, lambda s: s["ws_connections"] >= 4)  # 1 + 3 rotations (+ idle ones)
    assert stats["errors"] == 0


@pytest.mark.parametrize("lanes, sockets", [(True, 1), (False, 2)])
async def test_dead_socket_is_replaced_in_the_background(client, emulator, tmp_path, sample, lanes, sockets):
    """When the peer vanishes, the connection (or the pool) reconnects and re-warms
    before anyone asks."""
    await start(client, emulator, tmp_path, fast={"lanes": lanes})
    await wait_status(client, lambda s: s["state"] == "ready")
    assert emulator.disconnect() == sockets
    twice = 2 * sockets
    await wait_emulator(emulator, lambda s: s["ws_open"] == sockets and s["ws_connections"] == twice and s["warmups"] == twice)
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, FIX))["applied"] is True
    assert emulator.stats()["ws_connections"] == twice


async def test_blocked_websocket_falls_back_to_http_and_heals(client, emulator, tmp_path, sample):
    """A proxy that refuses the upgrade: HTTP at once, the user sees it, WebSocket again later."""
    emulator.refuse_websocket(True)
    await start(client, emulator, tmp_path, fast={"fallbackCooldown": 0.2})
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["transport"] == "http"
    degraded = [s["tiers"]["fast"] for s in client.editor.statuses if s["tiers"]["fast"]["state"] == "degraded"]
    assert degraded and degraded[0]["transport"] == "http" and "refused" in degraded[0]["reason"]
    emulator.refuse_websocket(False)
    await wait_status(client, lambda s: s["state"] == "ready" and s["transport"] == "websocket")
    assert (await run_edit(client, sample, 1, "REPLACE radius WITH r"))["transport"] == "websocket"


async def test_repeated_drops_degrade_to_http(client, emulator, tmp_path, sample):
    """Two WebSocket failures in a row switch the tier to HTTP SSE for a while."""
    await start(client, emulator, tmp_path, fast={"fallbackCooldown": 60})
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(drop_after_deltas=3, count=2)
    assert (await run_edit(client, sample, 1, FIX))["applied"] is False
    status = await wait_status(client, lambda s: s["state"] == "degraded")
    assert status["transport"] == "http", client.editor.statuses
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["transport"] == "http"


@pytest.mark.parametrize("lanes", [True, False])
async def test_cancel_request_stops_the_edit_and_keeps_the_socket_clean(client, emulator, tmp_path, sample, lanes):
    """$/cancelRequest: the edit stops, nothing is applied, the next edit never sees the old frames."""
    await start(client, emulator, tmp_path, fast={"poolSize": 1, "lanes": lanes})
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(delay_ms=1000, count=1)
    params = types.ExecuteCommandParams(
        command="sparkls.edit",
        arguments=[{"uri": sample, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                    "instruction": "REPLACE raduis WITH WRONG"}],
    )
    pending = asyncio.ensure_future(
        client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="edit-1")
    )
    await wait_emulator(emulator, lambda s: s["responses"] == 1)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="edit-1"))
    with pytest.raises(Exception, match="cancel"):
        await pending
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True
    assert client.editor.text(sample) == FIXED  # not WRONG: the old reply was discarded
    assert len(client.editor.applied) == 1
    # On lanes, the next edit ran on another lane of the same connection beside the
    # abandoned one. On the pool, the abandoned stream was long (a 1 s delay > the
    # drain budget): its socket was closed and replaced rather than drained.
    assert emulator.stats()["ws_connections"] == (1 if lanes else 2)


async def test_chat_completions_api(client, emulator, tmp_path, sample):
    """api = "chat" (local OpenAI-compatible servers) streams Chat Completions SSE."""
    await start(client, emulator, tmp_path, fast={"api": "chat"})
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, 1, FIX)
    assert result["applied"] is True and result["transport"] == "http"
    assert client.editor.text(sample) == FIXED
    assert emulator.stats()["ws_connections"] == 0


async def test_responses_over_http(client, emulator, tmp_path, sample):
    """transport = "http" with the Responses API: SSE on one kept-alive connection."""
    await start(client, emulator, tmp_path, fast={"transport": "http"})
    client.editor.open(sample, SAMPLE)
    for old, new in [("raduis", "r1"), ("r1", "r2"), ("r2", "r3")]:
        result = await run_edit(client, sample, 1, f"REPLACE {old} WITH {new}")
        assert result["applied"] is True and result["transport"] == "http"
    stats = emulator.stats()
    assert stats["ws_connections"] == 0 and stats["responses"] == 3
    assert stats["tcp_connections"] <= 2  # one for the requests (+ the control endpoint's)
