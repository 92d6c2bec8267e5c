"""One WebSocket to the Responses API (WebSocket mode).

`ResponsesSocket` owns a single connection: `connect()` opens it, `warm()` sends a
`generate: false` request (the service caches the instructions and returns an id),
and `stream(message)` sends one `response.create` and yields its events until the
response completes — the API allows one response in flight per connection.
Keepalive pings (websockets' own) detect a dead peer; `closed` tells the pool. While a
response is awaited, a peer silent past the stall limit (`stall`: no frame, no pong;
liveness.py) has its connection closed and the response fails as a broken stream.

A response whose reader stopped early stays `pending`: its frames are still coming.
The next user of the socket first drains them (`drain`, bounded in time) or closes the
socket, so a request never sees frames of another; a frame that cannot belong to the
response awaited (frameorder.py: the tail of an earlier one, a duplicated response id)
closes the connection, and the request is sent again on a new one. Foreign exceptions are translated
here into `sparkls.errors`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from sparkls import __version__
from sparkls.guard.wire import Wire
from sparkls.errors import ApiError, ConnectError, EndpointNotFound, HandshakeRefused, ModelError, StreamError
from sparkls.models.explain import connect_failure, not_found_message
from sparkls.models.events import Completed, Event, Sent, Where, api_error, classify, retry_after_from_headers, warm_up_create
from sparkls.models.frameorder import OutOfOrder, ResponseOrder
from sparkls.models.liveness import Liveness

logger = logging.getLogger(__name__)

BETA_HEADER = ("OpenAI-Beta", "responses_websockets=2026-02-06")
CONNECTION_LIMIT = "websocket_connection_limit_reached"


def _status_error(exc: InvalidStatus, where: Where, url: str) -> Exception:
    """The API's own errors by status; anything else (a proxy, say) refused the upgrade.
    A 404 from a base URL without `/v1`, and a 429 whatever its body, say so."""
    response = exc.response
    body = response.body or b""
    try:
        err = json.loads(body).get("error")
    except (ValueError, AttributeError):
        err = None
    detail, code = (str(err.get("message") or ""), err.get("code")) if isinstance(err, dict) else ("", None)
    if response.status_code == 404 and (wrong := not_found_message(where.tier, url, detail, code)):
        return EndpointNotFound(wrong)
    if not isinstance(err, dict) and response.status_code == 429:
        err = {"code": "rate_limit_exceeded", "message": response.reason_phrase}
    if not isinstance(err, dict):
        return HandshakeRefused(
            f"The WebSocket upgrade to {url} was refused with HTTP {response.status_code} "
            f"{response.reason_phrase} (not an API error: a proxy or a server without WebSocket mode?)."
        )
    return api_error(
        where,
        response.status_code,
        err.get("code") or err.get("type"),
        str(err.get("message") or response.reason_phrase),
        retry_after=retry_after_from_headers(response.headers),
    )



def headers_for(api_key: str | None) -> list[tuple[str, str]]:
    """The beta header, and the key unless there is none (a local server)."""
    if api_key is None:
        return [BETA_HEADER]
    return [("Authorization", f"Bearer {api_key}"), BETA_HEADER]


_system_tls: ssl.SSLContext | None = None


async def system_tls() -> ssl.SSLContext:
    """The TLS context trusting the system's CAs, made once per process in a worker
    thread (reading the CA store takes tens of milliseconds) and shared by every
    `wss` connection; websockets would otherwise make one on the loop per connection."""
    global _system_tls
    if _system_tls is None:
        made = await asyncio.to_thread(ssl.create_default_context)
        _system_tls = _system_tls or made  # two connections at once may each have made one
    return _system_tls


async def dial(
    url: str,
    api_key: str | None,
    where: Where,
    *,
    connect_timeout: float | None,
    ssl_context: ssl.SSLContext | None,
    ping: tuple[float | None, float | None],
) -> ClientConnection:
    """Open one WebSocket-mode connection; failures as `sparkls.errors`."""
    kwargs: dict[str, Any] = {}
    if url.startswith("wss"):
        kwargs["ssl"] = ssl_context if ssl_context is not None else await system_tls()
    try:
        return await connect(
            url,
            additional_headers=headers_for(api_key),
            user_agent_header=f"sparkls/{__version__}",
            open_timeout=connect_timeout,
            compression=None,  # frames are small; deflate costs more time than it saves
            max_size=None,
            ping_interval=ping[0],
            ping_timeout=ping[1],
            # Closing a connection whose peer went silent waits for its close frame no
            # longer than a pong may take (websockets' default is 10 s more).
            close_timeout=ping[1] if ping[1] is not None else 10.0,
            **kwargs,
        )
    except InvalidStatus as exc:
        raise _status_error(exc, where, url) from exc
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
        raise ConnectError(connect_failure(where.tier, url, exc)) from exc


async def warmed(events: AsyncIterator[Event], where: Where) -> str:
    """The id a warm-up (`warm_up_create`) answered with, read from its events."""
    async for event in events:
        if isinstance(event, Completed):
            return event.response_id
    raise StreamError(f"The {where.tier} tier's warm-up did not complete.")


class ResponsesSocket:
    """One WebSocket connection to `url`; one response at a time."""

    def __init__(
        self,
        url: str,
        api_key: str | None,
        where: Where,
        *,
        connect_timeout: float | None = 10.0,
        ssl_context: ssl.SSLContext | None = None,
        ping_interval: float | None = 20.0,
        ping_timeout: float | None = 20.0,
        stall: float | None = None,
    ) -> None:
        self.url = url
        self.where = where
        self._api_key = api_key
        self._connect_timeout = connect_timeout
        self._ssl = ssl_context
        self._ping = (ping_interval, ping_timeout)
        self._ws: ClientConnection | None = None
        self._stall = stall
        self._liveness: Liveness | None = None
        self._silence: str | None = None  # why the connection was closed for silence
        self._order = ResponseOrder()
        self._lock = asyncio.Lock()
        self.opened_at = 0.0
        self.pending = False  # a response was sent and its end not yet read
        self.last_response_id: str | None = None  # for previous_response_id chaining
        self.connections_opened = 0

    @property
    def is_open(self) -> bool:
        return self._ws is not None and self._ws.state.name == "OPEN"

    @property
    def age(self) -> float:
        """Seconds since the current connection opened."""
        return time.monotonic() - self.opened_at if self._ws is not None else 0.0

    async def wait_closed(self) -> None:
        """Return when the current connection closes (peer, keepalive timeout or us)."""
        if self._ws is not None:
            await self._ws.wait_closed()

    async def connect(self) -> None:
        """Open the connection now if it is not open."""
        async with self._lock:
            await self._ensure_open()

    async def _ensure_open(self) -> ClientConnection:
        if self._ws is not None and self.is_open:
            return self._ws
        await self._drop()
        self._ws = await dial(
            self.url, self._api_key, self.where,
            connect_timeout=self._connect_timeout, ssl_context=self._ssl, ping=self._ping,
        )
        self.opened_at = time.monotonic()
        self.pending = False
        self._silence = None
        self._order = ResponseOrder()
        if self._stall is not None:
            self._liveness = Liveness(self._ws, self._stall, self._silent)
        self.last_response_id = None
        self.connections_opened += 1
        logger.info("connected to %s (%d connections so far)", self.url, self.connections_opened)
        return self._ws

    def can_continue(self, response_id: str) -> bool:
        """Whether a request on this socket may name `response_id`: its most recent."""
        return self.last_response_id == response_id

    async def warm(self, model: str, wire: Wire, *, cache_key: str | None = None) -> str:
        """Open if needed and send `wire`'s instructions as a `generate: false` request;
        returns its response id."""
        return await warmed(self.stream(warm_up_create(model, wire, cache_key=cache_key)), self.where)

    async def stream(self, message: dict[str, Any], *, drain_budget: float = 0.25) -> AsyncIterator[Event]:
        """Send one `response.create` and yield its events until it completes.

        Raises ConnectError when the message could not be sent (nothing was processed).
        A connection the service has retired (`websocket_connection_limit_reached`,
        answered before anything else: nothing was processed) is replaced and the
        message sent once more on the fresh one, so its caller never sees it.
        """
        async with self._lock:
            if self.pending and not await self._drain(drain_budget):
                await self._drop()
            payload = json.dumps(message)
            for fresh in (False, True):
                ws = await self._send(payload)
                yield Sent(self)
                started = False
                try:
                    while self.pending:
                        event = await self._next_event(ws)
                        if event is not None:
                            started = True
                            yield event
                    return
                except ApiError as exc:
                    if exc.api_code != CONNECTION_LIMIT or started or fresh:
                        raise
                    logger.info("%s retired a %.0f-second-old connection; resending on a new one", self.url, self.age)
                    await self._drop()

    async def _send(self, payload: str) -> ClientConnection:
        ws = await self._ensure_open()
        try:
            await ws.send(payload)
        except ConnectionClosed:
            # Closed before our frame left (idle timeout, rotation): nothing was
            # processed, so one send on a fresh connection is safe.
            ws = await self._ensure_open()
            try:
                await ws.send(payload)
            except ConnectionClosed as exc:
                await self._drop()
                raise ConnectError(f"The {self.where.tier} tier's connection closed at once: {exc}") from exc
        self._awaiting(True)
        return ws

    def _awaiting(self, pending: bool) -> None:
        """Whether a response is awaited on the connection (the stall watch runs then)."""
        self.pending = pending
        if pending:
            self._order.sent()
        if self._liveness is not None:
            self._liveness.busy(pending)

    def _silent(self, why: str) -> None:
        self._silence = why
        if self._ws is not None:
            self._ws.transport.abort()

    async def _next_event(self, ws: ClientConnection) -> Event | None:
        where = self.where
        try:
            frame = await ws.recv()
            if self._liveness is not None:
                self._liveness.heard()
            if not isinstance(frame, str):
                raise ValueError("a binary frame")
            data = json.loads(frame)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            self._order.check(data)
        except ConnectionClosed as exc:
            silence, _ = self._silence, await self._drop()
            if silence is not None:
                raise StreamError(
                    f"The {where.tier} tier at {where.host} went silent with a response in flight ({silence}); "
                    "sparkls closed the connection."
                ) from exc
            raise StreamError(
                f"The connection to the {where.tier} tier at {where.host} closed before the response completed ({exc})."
            ) from exc
        except ValueError as exc:
            await self._drop()
            raise StreamError(f"The {where.tier} tier sent a frame that is not a JSON event ({exc}).") from exc
        except OutOfOrder as exc:
            await self._drop()
            raise StreamError(f"The {where.tier} tier at {where.host} {exc}; sparkls closed the connection.") from exc
        try:
            event = classify(data, self.where)
        except ModelError:
            self._awaiting(False)  # an error event ends the response; the socket is fine
            raise
        if isinstance(event, Completed):
            self._awaiting(False)  # before the caller sees it: it may stop reading here
            self.last_response_id = event.response_id
        return event

    async def drain(self, budget: float) -> bool:
        """Read and discard the rest of an abandoned response within `budget` seconds.

        True if the socket is clean again; otherwise it is closed (the only hard
        cancel the API has) and the next use reconnects.
        """
        async with self._lock:
            if not self.pending:
                return True
            if await self._drain(budget):
                return True
            await self._drop()
            return False

    async def _drain(self, budget: float) -> bool:
        if self._ws is None or not self.is_open:
            return False
        ws = self._ws
        try:
            async with asyncio.timeout(budget):
                while self.pending:
                    try:
                        await self._next_event(ws)
                    except ModelError:
                        pass  # an error event also ends the response
        except (TimeoutError, StreamError):
            return False
        return True

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        self._awaiting(False)
        if self._liveness is not None:
            self._liveness.close()
            self._liveness = None
        if ws is not None:
            # Abort rather than wait for a closing handshake behind a stream we do not want.
            ws.transport.abort()
            await ws.close()

    async def close(self) -> None:
        """Close the connection; idempotent."""
        await self._drop()
