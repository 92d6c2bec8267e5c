"""The emulator server: one loopback port, the connections, the shared state.

This module owns the thin asyncio layer and the :class:`Emulator` object: accepting
TCP connections (plain, or TLS with an ``ssl_context``), reading HTTP requests with
``httpwire``, handing a WebSocket upgrade of ``/v1/responses`` to ``websocket.py`` and
every other request to ``routes.py``, checking the API key (a request without
``Authorization: Bearer <key>``, when a key is set, gets 401 ``invalid_api_key``; the
WebSocket handshake too), and the state all connections share: faults, stats, ids of
stored responses, the prompt cache, the canary net (``canaries.py``).

:meth:`Emulator.serve_response` is the one Responses API request flow, used by both
WebSocket mode and SSE. A malformed HTTP request gets a 4xx and the connection closes.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import ipaddress
import logging
import ssl
import time
from typing import TYPE_CHECKING, Any, Callable

from sparkls.emulator import behaviours, followup, httpwire, model, routes
from sparkls.emulator.canaries import CanaryNet
from sparkls.emulator.control import INVALID_API_KEY, Faults, FaultState, Stats, check_request, refusal
from sparkls.emulator.events import http_error_body
from sparkls.emulator.ideal import IdealModel
from sparkls.emulator.replies import stream_patch_call, stream_response, stream_warmup
from sparkls.emulator.responses import ResponseEvents, responses_usage
from sparkls.emulator.streaming import Sink, Wire
from sparkls.emulator.toolcalls import PatchCalls
from sparkls.emulator.websocket import WebSocketSession

if TYPE_CHECKING:
    from sparkls.emulator.lanes import ResponseRun

logger = logging.getLogger(__name__)

STORED_RESPONSES = 1024  # how many response ids POST's previous_response_id can name


class Emulator:
    """A local stand-in for the OpenAI Responses and Chat Completions APIs.

    ``host`` must be a loopback address. ``port`` 0 picks a free port (see
    :meth:`start`). ``faults`` are the defaults that ``/_emulator/reset`` returns to;
    ``models``, when given, is the only models accepted; ``max_connection_seconds``
    limits a WebSocket connection's age: past it, every ``response.create`` on that
    connection gets ``websocket_connection_limit_reached`` and the socket stays open,
    as the service does (closed too with ``close_on_connection_limit``). With
    ``ssl_context`` (a server-side context holding a certificate) every connection is
    TLS and the URLs are https/wss. ``lanes`` (default True) serves WebSocket lanes
    (``stream_id``) and steering (``lanes.py``); False refuses both, as a server
    without them would.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        api_key: str | None = None,
        faults: Faults | None = None,
        models: list[str] | tuple[str, ...] | None = None,
        max_connection_seconds: float | None = None,
        close_on_connection_limit: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        lanes: bool = True,
    ) -> None:
        if not _is_loopback(host):
            raise ValueError(f"the emulator listens on loopback only, not {host!r}")
        self.host = host
        self.port = port
        self.api_key = api_key or None
        self.models = frozenset(models) if models else None
        self.max_connection_seconds = max_connection_seconds
        self.close_on_connection_limit = close_on_connection_limit
        self._connection_limit_defaults = (max_connection_seconds, close_on_connection_limit)
        self.ssl_context = ssl_context
        self.lanes = lanes
        self._lanes_default = lanes
        self.fault_state = FaultState(faults or Faults())
        self.counters = Stats()
        self.prompt_cache = model.PromptCache()
        # Strings no request may hold (canaries.py); kept across resets.
        self.canary_net = CanaryNet()
        self.ideal = IdealModel()  # edits known exactly (``POST /_emulator/ideal``), for benchmarks
        self._stored: collections.OrderedDict[str, None] = collections.OrderedDict()
        # The text of recent answers, by response id, for a request that continues one.
        self._answers: collections.OrderedDict[str, str] = collections.OrderedDict()
        self.patch_calls = PatchCalls(self.ideal, self.counters, STORED_RESPONSES)  # the apply_patch tool
        self._origins: collections.OrderedDict[str, str] = collections.OrderedDict()  # answer -> region it rewrote
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._ws_wires: set[Wire] = set()
        # Answer WebSocket upgrades as a proxy that blocks them would (control endpoint).
        self.refuse_websocket = False
        # Wait this long before answering a WebSocket upgrade, as a far service's TLS and
        # upgrade take (control endpoint ``handshake``): the client's "warming" is seen.
        self.handshake_ms = 0

    # -- public surface --------------------------------------------------------

    @property
    def url(self) -> str:
        """The API root, e.g. ``http://127.0.0.1:8765/v1`` (``https://`` with TLS)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://{host}:{self.port}/v1"

    @property
    def ws_url(self) -> str:
        """The WebSocket-mode URL, e.g. ``ws://127.0.0.1:8765/v1/responses`` (or ``wss://``)."""
        return "ws" + self.url[len("http") :] + "/responses"

    @property
    def stats(self) -> dict[str, int]:
        """A snapshot of the counters (see :class:`~sparkls.emulator.control.Stats`)."""
        return self.counters.to_json()

    @property
    def faults(self) -> Faults:
        """The faults the next model request will get."""
        return self.fault_state.current

    def set_faults(self, faults: Faults) -> None:
        """Install *faults* until reset (or for ``faults.count`` model requests)."""
        self.fault_state.set(faults)

    def reset(self) -> None:
        """Zero the counters (the canaries found too; not the canaries), forget the
        ideal model's edits, and return to the default faults, connection limit and
        lanes switch."""
        self.counters.reset()
        self.fault_state.reset()
        self.prompt_cache.clear()
        self.ideal.forget()
        self.refuse_websocket = False
        self.handshake_ms = 0
        self.lanes = self._lanes_default
        self.max_connection_seconds, self.close_on_connection_limit = self._connection_limit_defaults

    def set_connection_limit(self, seconds: float | None, *, close: bool = False) -> None:
        """Limit WebSocket connections' age from now on (open ones included); *close*
        closes a socket that reached it instead of leaving it open."""
        self.max_connection_seconds = seconds
        self.close_on_connection_limit = close

    def disconnect_websockets(self) -> int:
        """Cut every open WebSocket at the TCP level (a dead peer, a restarted server)."""
        wires = list(self._ws_wires)
        for wire in wires:
            wire.writer.transport.abort()
        return len(wires)

    async def start(self) -> int:
        """Start listening; return the bound port."""
        self._server = await asyncio.start_server(
            self._on_connection, self.host, self.port, ssl=self.ssl_context
        )
        self.port = self._server.sockets[0].getsockname()[1]
        logger.info("emulator listening on %s", self.url)
        return self.port

    async def stop(self) -> None:
        """Stop listening and close every connection. Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        tasks = list(self._connections)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if server is not None:
            await server.wait_closed()

    async def __aenter__(self) -> Emulator:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- shared by the transports ----------------------------------------------

    def unauthorized_body(self) -> dict[str, Any]:
        return http_error_body(
            401,
            INVALID_API_KEY,
            "Incorrect API key provided. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
        )

    def authorized(self, headers: dict[str, str]) -> bool:
        if self.api_key is None:
            return True
        scheme, _, token = headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode(), self.api_key.encode()
        )

    def is_stored(self, response_id: str) -> bool:
        """Whether a stored response (HTTP ``previous_response_id``) has this id."""
        return response_id in self._stored

    def remember(self, response_id: str) -> None:
        self._stored[response_id] = None
        while len(self._stored) > STORED_RESPONSES:
            self._stored.popitem(last=False)

    def remember_answer(self, response_id: str, text: str) -> None:
        self._answers[response_id] = text
        while len(self._answers) > STORED_RESPONSES:
            self._answers.popitem(last=False)

    def answer_for(self, body: dict[str, Any], reply: str) -> tuple[str, str]:
        """(the scripted answer, the request text it answers): a request that continues
        an earlier answer (``previous_response_id``, or one in ``input``) is answered
        from that answer (``followup.py``)."""
        previous_id = body.get("previous_response_id")
        earlier, latest = followup.split_conversation(body)
        if isinstance(previous_id, str) and earlier is None:
            self.counters.chained += 1
            earlier = self._answers.get(previous_id)
        if earlier is None:
            text = self.ideal.answer(latest) or model.answer(latest, reply=reply)
            bounds = model.find_region(latest)
            origin = None if bounds is None else latest[bounds[0] : bounds[1]].replace(model.CURSOR, "")
        else:
            origin = followup.origin_region(body) or self._origins.get(earlier)
            text = followup.continue_answer(earlier, latest, reply=reply, origin=origin)
        if origin is not None:  # the code before sparkls's edits: what "keep the old name" goes back to
            self._origins[text] = origin
            while len(self._origins) > STORED_RESPONSES:
                self._origins.popitem(last=False)
        return text, latest

    async def serve_response(
        self,
        body: dict[str, Any],
        sink: Sink,
        *,
        previous_known: Callable[[str], bool],
        run: ResponseRun | None = None,
    ) -> str | None:
        """Check and stream one Responses request; return its id once the stream ended
        in order (completed, or incomplete, failed, errored, steered), None when it
        was cut. A WebSocket response passes its *run* (``lanes.py``): told when the
        response starts and how it ended, and carrying the interrupt a steer sets.

        Raises :class:`ApiError` before anything is sent when the request is refused.
        """
        check_request(body, models=self.models, previous_known=previous_known)
        stats = self.counters
        model_name = body["model"]
        request_text = model.responses_request_text(body)
        cached = self.prompt_cache.lookup(request_text)
        input_tokens = model.count_tokens(request_text)
        options = body.get("stream_options")
        obfuscate = not (isinstance(options, dict) and options.get("include_obfuscation") is False)
        reply = ResponseEvents(body, model=model_name, created_at=int(time.time()), obfuscate=obfuscate)
        if body.get("generate") is False:
            stats.warmups += 1
            if not stream_warmup(reply, responses_usage(input_tokens, 0, cached), sink):
                return None
            if body.get("store", True) is not False:
                self.remember(reply.response_id)
            if run is not None:
                run.events, run.outcome = reply, "completed"
            return reply.response_id
        faults = self.fault_state.take(model_name).for_request(request_text)
        error = refusal(faults, model_name)
        if error is not None:
            raise error
        self.patch_calls.check(body)
        stats.count_response(model_name, "websocket" if sink.transport == "websocket" else "http")
        call = self.patch_calls.answer(body)
        if call is None:
            text, answered = self.answer_for(body, faults.reply)
            script = behaviours.script(faults.behaviour, text, answered)
            usage = responses_usage(input_tokens, script.output_tokens, cached, script.reasoning_tokens)
        else:
            text = call[1]  # what a refine continuing this call works from
            usage = responses_usage(input_tokens, len(model.split_tokens(call[0]["operation"]["diff"])), cached)
        interrupt = None
        if run is not None:
            run.started(reply, faults)
            interrupt = run.interrupt
        stats.streaming += 1
        stats.max_streaming = max(stats.max_streaming, stats.streaming)
        try:
            if call is None:
                outcome = await stream_response(reply, script, usage, faults, sink, stats, interrupt)
            else:
                outcome = await stream_patch_call(reply, call[0], usage, faults, sink, stats, interrupt)
        finally:
            stats.streaming -= 1
        if call is not None and outcome == "completed":
            self.patch_calls.ended(reply.response_id, call[0])
        if outcome == "cut":
            return None
        # No await from the last event to here: a client that answers it at once must
        # find this response finished (and its id resolvable).
        if outcome == "completed" and body.get("store", True) is not False:
            self.remember(reply.response_id)
        if outcome != "steered":
            self.remember_answer(reply.response_id, text)
        else:  # cut short: what continues it works from the answer it continued, if any
            earlier = followup.split_conversation(body)[0] or self._answers.get(body.get("previous_response_id") or "")
            if earlier is not None:
                self.remember_answer(reply.response_id, earlier)
        if run is not None:
            run.outcome = outcome
        return reply.response_id

    # -- connections -----------------------------------------------------------

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        self.counters.tcp_connections += 1
        wire = Wire(writer, self.counters)
        try:
            await self._serve_connection(reader, wire)
        except (ConnectionError, ssl.SSLError, asyncio.CancelledError):
            pass  # the peer went away, or broke the TLS session
        except Exception:  # one broken connection must not take the server down
            logger.exception("emulator connection failed")
        finally:
            self._connections.discard(task)
            wire.close()

    async def _serve_connection(self, reader: asyncio.StreamReader, wire: Wire) -> None:
        parser = httpwire.RequestParser()
        while True:
            try:
                request = parser.next_request()
            except httpwire.HttpError as exc:
                self.counters.errors += 1
                body = http_error_body(exc.status, None, exc.message)
                wire.write(httpwire.json_response(exc.status, body, keep_alive=False))
                return
            if request is None:
                data = await reader.read(65536)
                if not data:
                    return
                parser.feed(data)
                continue
            if request.is_websocket_upgrade and request.path == "/v1/responses":
                await self._serve_websocket(request, parser.take_buffer(), reader, wire)
                return
            if not await routes.serve_http(self, request, wire) or not request.keep_alive:
                await wire.drain()
                return

    async def _serve_websocket(
        self, request: httpwire.HttpRequest, rest: bytes, reader: asyncio.StreamReader, wire: Wire
    ) -> None:
        self.counters.bytes_in += request.size + len(rest)
        if self.refuse_websocket:
            self.counters.errors += 1
            page = b"<html><body>WebSocket connections are not allowed by policy.</body></html>"
            wire.write(httpwire.full_response(403, page, content_type="text/html", keep_alive=False))
            await wire.drain()
            return
        if self.handshake_ms:
            await asyncio.sleep(self.handshake_ms / 1000)
        session = WebSocketSession(self, reader, wire)
        raw_request = request.raw_head + request.body + rest
        if not session.handshake(raw_request, self.authorized(request.headers)):
            await wire.drain()
            return
        self.counters.ws_connections += 1
        self.counters.ws_open += 1
        self._ws_wires.add(wire)
        try:
            await session.run()
        finally:
            self._ws_wires.discard(wire)
            self.counters.ws_open -= 1


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host).is_loopback
    return False
