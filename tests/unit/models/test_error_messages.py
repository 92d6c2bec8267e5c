"""Messages that name the fix: unreachable endpoints, a base URL without /v1, rate
limits an interactive request will not sleep through, and a tier that recovers as soon
as its endpoint is back. Real loopback servers (the in-process emulator, a bare
WebSocket server that refuses the handshake), no mocks of the transports."""

from __future__ import annotations

import asyncio
import socket
import ssl

import pytest
from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

from sparkls.config import Settings, load_settings
from sparkls.emulator import Emulator, Faults
from sparkls.errors import ConnectError, EndpointNotFound, MissingApiKey, RateLimited
from sparkls.models.events import Where
from sparkls.models.explain import api_root, connect_failure, missing_v1, not_found_message
from sparkls.models.http import HTTPStreamer
from sparkls.models.session import INTERACTIVE_RATE_LIMIT_WAIT, TierSession
from sparkls.models.websocket import dial
from bench.kit.sealing import wire

WHERE = Where("fast", "127.0.0.1", "m")
PROMPT = wire("Edit.", "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE 1 WITH 2")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _refused() -> ConnectionRefusedError:
    return ConnectionRefusedError(111, "Connect call failed")


# -- pure wording ---------------------------------------------------------------------


def test_the_emulators_address_asks_whether_sparkls_emulate_runs():
    """Refused at 127.0.0.1:8765: "is `sparkls emulate` running?", with the API root."""
    message = connect_failure("fast", "ws://127.0.0.1:8765/v1/responses", _refused())
    assert "cannot connect to http://127.0.0.1:8765/v1 (connection refused): is `sparkls emulate` running?" in message


def test_another_local_port_names_the_local_server():
    """Refused on another loopback port: the local server and its address are named."""
    message = connect_failure("deep", "http://localhost:8080/v1/chat/completions", _refused())
    assert "is your local server (llama.cpp, Ollama" in message and "running at localhost:8080?" in message
    assert "Ollama running at 127.0.0.1:11434" in connect_failure("fast", "http://127.0.0.1:11434/v1/responses", _refused())


def test_a_remote_host_names_the_host_and_the_network():
    """A remote endpoint: its host, and the network (or the host name when it does not resolve)."""
    timed_out = connect_failure("fast", "wss://api.openai.com/v1/responses", TimeoutError())
    assert "(timed out)" in timed_out and "network connection to api.openai.com" in timed_out
    unknown = connect_failure("fast", "https://api.exmaple.com/v1/responses", socket.gaierror(-2, "Name or service not known"))
    assert "host name api.exmaple.com in `fast.base_url`" in unknown


def test_an_untrusted_certificate_names_ca_file():
    message = connect_failure("fast", "wss://proxy.corp/v1/responses", ssl.SSLCertVerificationError("self-signed"))
    assert "`fast.ca_file`" in message


def test_the_root_cause_is_found_under_a_wrapper():
    """httpx's "All connection attempts failed" wraps the refusal: the refusal is what is said."""
    try:
        try:
            raise _refused()
        except OSError as inner:
            raise OSError("All connection attempts failed") from inner
    except OSError as outer:
        message = connect_failure("fast", "http://127.0.0.1:9/v1/responses", outer)
    assert "(connection refused)" in message and "All connection attempts" not in message


@pytest.mark.parametrize(
    "url, fixed",
    [
        ("ws://127.0.0.1:8765/responses", "http://127.0.0.1:8765/v1"),
        ("https://proxy.example.com/openai/chat/completions", "https://proxy.example.com/openai/v1"),
        ("ws://127.0.0.1:8765/v1/responses", None),
        ("https://gateway.example.com/api/v1/responses", None),
    ],
)
def test_missing_v1_is_told_only_when_the_path_lacks_it(url, fixed):
    assert missing_v1(url) == fixed


def test_a_404_naming_the_model_is_not_blamed_on_the_url():
    assert not_found_message("fast", "http://h/responses", "no such model", "model_not_found") is None
    assert api_root("wss://h/v1/responses") == "https://h/v1"


# -- against real servers -----------------------------------------------------------


async def test_refused_over_http_says_connection_refused_not_all_attempts_failed():
    """The HTTP transport's refusal reads as the WebSocket's does."""
    port = _closed_port()
    streamer = HTTPStreamer(f"http://127.0.0.1:{port}/v1", None, WHERE)
    with pytest.raises(ConnectError) as caught:
        async for _ in streamer.stream({"model": "m"}):
            pass
    await streamer.aclose()
    assert f"cannot connect to http://127.0.0.1:{port}/v1 (connection refused)" in str(caught.value)
    assert "All connection attempts failed" not in str(caught.value)


@pytest.mark.parametrize("transport", ["websocket", "http"])
async def test_a_base_url_without_v1_says_which_url_to_set(transport):
    """The emulator's 404 for /responses: the message gives the base URL with /v1 (nothing is rewritten)."""
    async with Emulator() as em:
        base = em.url.removesuffix("/v1")
        with pytest.raises(EndpointNotFound) as caught:
            if transport == "websocket":
                await dial(base.replace("http", "ws") + "/responses", None, WHERE, connect_timeout=5, ssl_context=None, ping=(None, None))
            else:
                streamer = HTTPStreamer(base, None, WHERE)
                try:
                    async for _ in streamer.stream({"model": "m"}):
                        pass
                finally:
                    await streamer.aclose()
    assert f"the base URL probably needs /v1: set `fast.base_url` to {base}/v1" in str(caught.value)


def _session(url: str, name: str = "fast", **tier: object) -> TierSession:
    settings, problems = load_settings({name: {"base_url": url, "fallback_cooldown": 600, **tier}})
    assert not problems
    return TierSession(name, settings)


async def test_a_local_base_url_is_named_as_the_setting_to_change():
    """Put there by `local_base_url`: that is the setting the 404 message names."""
    async with Emulator() as em:
        settings, _ = load_settings({"local_base_url": em.url.removesuffix("/v1")})
        session = TierSession("fast", settings)
        with pytest.raises(EndpointNotFound) as caught:
            await session.complete(PROMPT)
        await session.close()
    assert "set `local_base_url` to" in str(caught.value) and session.status.state == "failing"


async def _refusing_429(retry_after: str, *, json_body: bool):
    """A WebSocket server that refuses every handshake with 429 and `retry-after`."""
    seen: list[int] = []
    body = b'{"error": {"code": "rate_limit_exceeded", "message": "Slow down."}}' if json_body else b"Too Many Requests"

    def refuse(connection, request):
        seen.append(1)
        headers = Headers([("retry-after", retry_after), ("Content-Length", str(len(body)))])
        return Response(429, "Too Many Requests", headers, body)

    server = await serve(lambda ws: ws.wait_closed(), "127.0.0.1", 0, process_request=refuse)
    return server, seen


@pytest.mark.parametrize("json_body", [True, False], ids=["api-error", "bare-429"])
async def test_an_interactive_request_is_told_a_long_rate_limit_at_once(json_body):
    """A handshake refused with 429 and retry-after: 30: the edit fails at once with the
    wait, after one handshake, not after two 30-second sleeps."""
    server, seen = await _refusing_429("30", json_body=json_body)
    port = server.sockets[0].getsockname()[1]  # type: ignore[index]
    session = _session(f"http://127.0.0.1:{port}/v1")
    try:
        with pytest.raises(RateLimited) as caught:
            await session.complete(PROMPT)
    finally:
        await session.close()
        server.close()
    assert "retry in 30 s" in str(caught.value) and caught.value.retry_after == 30
    assert len(seen) == 1 and 30 > INTERACTIVE_RATE_LIMIT_WAIT


async def test_a_deep_task_waits_out_the_rate_limit_with_notice_and_can_be_cancelled():
    """The deep tier (patient) waits a 10-second limit: the user is told, and cancelling
    the task stops the wait."""
    server, seen = await _refusing_429("10", json_body=True)
    port = server.sockets[0].getsockname()[1]  # type: ignore[index]
    session = _session(f"http://127.0.0.1:{port}/v1", name="deep", transport="websocket")
    told = asyncio.Event()
    notices: list[str] = []
    task = asyncio.ensure_future(session.complete(PROMPT, notify=lambda m: (notices.append(m), told.set())))
    try:
        async with asyncio.timeout(30):
            await told.wait()
        assert not task.done()  # waiting, not failed
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await session.close()
        server.close()
    assert notices == ["Rate limited by 127.0.0.1:%d (deep tier). Retrying in 10 s." % port] and len(seen) == 1


async def test_the_status_is_ready_again_soon_after_the_endpoint_comes_back():
    """Stopped: a request fails and the tier is failing, naming the fix. Started again on
    the same port: the tier reports ready without any request (a probe within seconds)."""
    em = Emulator()
    port = await em.start()
    states: list[tuple[str, str | None]] = []
    ready = asyncio.Event()

    def on_status(status):
        states.append((status.state, status.reason))
        if status.state == "ready" and any(s == "failing" for s, _ in states):
            ready.set()

    settings, _ = load_settings({"fast": {"base_url": em.url, "fallback_cooldown": 600}})
    session = TierSession("fast", settings, on_status=on_status)
    try:
        await session.warm()
        assert session.status.state == "ready"
        await em.stop()
        with pytest.raises(ConnectError) as caught:
            await session.complete(PROMPT)
        assert session.status.state == "failing" and "(connection refused)" in str(caught.value)
        em = Emulator(port=port)
        await em.start()
        async with asyncio.timeout(60):  # generous: the probe comes within a few seconds
            await ready.wait()
        assert session.status.transport == "websocket"
        assert "x = 2" in (await session.complete(PROMPT)).text
    finally:
        await session.close()
        await em.stop()


async def test_a_request_over_http_that_gets_through_brings_the_websocket_back():
    """Degraded to HTTP because the endpoint was down: the first request that gets through
    wakes the reconnect, and the tier is ready on the WebSocket again."""
    em = Emulator(faults=Faults())
    port = await em.start()
    settings, _ = load_settings({"fast": {"base_url": em.url, "fallback_after": 1}})
    back = asyncio.Event()
    session = TierSession(
        "fast", settings, on_status=lambda s: back.set() if (s.state, s.transport) == ("ready", "websocket") else None
    )
    try:
        await em.stop()
        await session.warm()
        assert session.status.state == "degraded" and session.transport == "http"
        em = Emulator(port=port)
        await em.start()
        reply = await session.complete(PROMPT)  # over HTTP, or the WebSocket if the probe came first
        assert "x = 2" in reply.text
        async with asyncio.timeout(60):
            await back.wait()
    finally:
        await session.close()
        await em.stop()


def test_no_key_mentions_the_emulator():
    """No key and no local tier: how to try without one (`sparkls emulate`, `local_base_url`)."""
    with pytest.raises(MissingApiKey) as caught:
        Settings().api_key_for("fast", environ={})
    assert "run `sparkls emulate` and set `local_base_url`" in str(caught.value)
    assert "http://127.0.0.1:8765/v1" in str(caught.value)


async def test_an_http_tier_that_cannot_connect_is_not_probed_over_a_websocket():
    """A tier configured for HTTP is failing until a request gets through; no WebSocket
    is opened to probe it (its server may not have one)."""
    session = _session(f"http://127.0.0.1:{_closed_port()}/v1", name="deep", transport="http")
    with pytest.raises(ConnectError):
        await session.complete(PROMPT)
    assert session.status.state == "failing" and session.status.transport == "http"
    assert not session._heal.running
    await session.close()
