"""The transports against an in-process emulator: pool, HTTP SSE, chat, warm-up, drain."""

from __future__ import annotations

import asyncio

import pytest

from bench.kit.sealing import wire
from sparkls.emulator import Emulator, Faults
from sparkls.errors import AuthError, HandshakeRefused
from sparkls.models.events import Completed, TextDelta, Where, chat_body, response_create, responses_body
from sparkls.models.http import HTTPStreamer
from sparkls.models.pool import SocketPool
from sparkls.models.websocket import ResponsesSocket

KEY = "sk-unit"
WHERE = Where("fast", "127.0.0.1", "m")
PROMPT = wire("Edit.", "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE 1 WITH 2")


@pytest.fixture
async def emulator():
    async with Emulator(api_key=KEY) as em:
        yield em


async def _text(events) -> str:
    parts = []
    async for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        if isinstance(event, Completed):
            break
    return "".join(parts)


async def test_warm_up_returns_an_id_and_sends_no_output(emulator):
    """generate:false warms the socket and is counted as a warm-up, not a response."""
    sock = ResponsesSocket(emulator.ws_url, KEY, WHERE)
    response_id = await sock.warm("m", wire("Edit."))
    assert response_id.startswith("resp_") and sock.last_response_id == response_id
    assert emulator.stats["warmups"] == 1 and emulator.stats["responses"] == 0
    await sock.close()


async def test_abandoned_short_stream_is_drained(emulator):
    """A reader that stops early leaves the socket pending; the next use drains it first."""
    sock = ResponsesSocket(emulator.ws_url, KEY, WHERE)
    async for event in sock.stream(response_create("m", PROMPT)):
        if isinstance(event, TextDelta):
            break
    assert sock.pending
    assert "x = 2" in await _text(sock.stream(response_create("m", PROMPT)))
    assert emulator.stats["ws_connections"] == 1  # drained, not reconnected
    await sock.close()


async def test_abandoned_long_stream_is_closed(emulator):
    """A stream that does not end within the drain budget costs the connection."""
    emulator.set_faults(Faults(tokens_per_second=20))
    sock = ResponsesSocket(emulator.ws_url, KEY, WHERE)
    async for event in sock.stream(response_create("m", PROMPT)):
        if isinstance(event, TextDelta):
            break
    assert await sock.drain(0.05) is False and not sock.is_open
    await sock.close()


async def test_pool_hands_out_distinct_sockets(emulator):
    """Two concurrent checkouts get two different warm sockets."""
    async def warm(sock):
        await sock.warm("m", wire("Edit."))

    pool = SocketPool(lambda: ResponsesSocket(emulator.ws_url, KEY, WHERE), 2, warm=warm)
    await pool.start()
    async with pool.checkout() as a, pool.checkout() as b:
        assert a is not b and a.is_open and b.is_open
    assert emulator.stats["warmups"] == 2
    await pool.close()


async def test_pool_serves_waiters_first_come_first_served(emulator):
    """With one socket, waiting requests are served in arrival order."""
    pool = SocketPool(lambda: ResponsesSocket(emulator.ws_url, KEY, WHERE), 1)
    await pool.start()
    order = []

    async def user(name):
        async with pool.checkout():
            order.append(name)
            await asyncio.sleep(0)

    async with pool.checkout():
        tasks = [asyncio.ensure_future(user(n)) for n in "abc"]
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert order == ["a", "b", "c"]
    await pool.close()


async def test_http_sse_reuses_one_connection(emulator):
    """Responses SSE over a kept-alive client: three requests, one TCP connection."""
    streamer = HTTPStreamer(emulator.url, KEY, WHERE)
    for _ in range(3):
        assert "x = 2" in await _text(streamer.stream(responses_body("m", PROMPT)))
    assert emulator.stats["tcp_connections"] == 1
    await streamer.aclose()


async def test_chat_completions_sse(emulator):
    """Chat Completions SSE ends at [DONE] with the whole text."""
    streamer = HTTPStreamer(emulator.url, KEY, WHERE, api="chat")
    assert "x = 2" in await _text(streamer.stream(chat_body("m", PROMPT)))
    await streamer.aclose()


async def test_http_rejected_key(emulator):
    """A 401 over HTTP is an AuthError naming tier and host."""
    streamer = HTTPStreamer(emulator.url, "wrong", WHERE)
    with pytest.raises(AuthError, match="API key rejected for the fast tier"):
        await _text(streamer.stream(responses_body("m", PROMPT)))
    await streamer.aclose()


async def test_proxy_refusal_is_not_an_api_error(emulator):
    """An HTML 403 to the upgrade is a refused handshake, not a rejected key."""
    emulator.refuse_websocket = True
    sock = ResponsesSocket(emulator.ws_url, KEY, WHERE)
    with pytest.raises(HandshakeRefused, match="403"):
        await sock.connect()


async def test_sequential_requests_reuse_the_most_recent_socket(emulator):
    """One request after another goes over one connection; a concurrent one takes another."""
    async def warm(sock):
        await sock.warm("m", wire("Edit."))

    pool = SocketPool(lambda: ResponsesSocket(emulator.ws_url, KEY, WHERE), 3, warm=warm)
    await pool.start()
    used = []
    for _ in range(4):
        async with pool.checkout() as sock:
            used.append(sock)
            assert "x = 2" in await _text(sock.stream(response_create("m", PROMPT)))
    assert all(s is used[0] for s in used)
    async with pool.checkout() as first, pool.checkout() as second:
        assert first is used[0] and second is not first
    await pool.close()


async def test_pool_settled_waits_for_an_abandoned_stream(emulator):
    """`settled()` returns once a checkout left with its stream unfinished has been
    drained: the emulator is streaming nothing by then."""
    emulator.set_faults(Faults(tokens_per_second=200))
    pool = SocketPool(lambda: ResponsesSocket(emulator.ws_url, KEY, WHERE), 2, drain_budget=5)
    async with pool.checkout() as sock:
        async for event in sock.stream(response_create("m", PROMPT)):
            if isinstance(event, TextDelta):
                break
    assert emulator.stats["streaming"] == 1  # handed back mid-stream: being drained
    await pool.settled()
    assert emulator.stats["streaming"] == 0 and emulator.stats["max_streaming"] == 1
    await pool.close()
