"""One WebSocket-mode connection (``GET /v1/responses`` upgraded).

This module owns the connection's life: the opening handshake (through
``websockets``' sans-I/O :class:`~websockets.server.ServerProtocol`: ``accept``,
``send_response``), reading frames (pings are answered by the protocol itself),
handing ``response.create`` and ``response.steer`` messages to the connection's
:class:`~sparkls.emulator.lanes.Lanes` (which schedules the replies: lanes, forks,
steering), and the per-connection rules of the real service:

- without ``stream_id``, one response in flight: a second ``response.create``
  meanwhile gets an error event (``response_already_in_progress``) and the first
  stream goes on; with ``stream_id`` (a lane), see ``lanes.py``; an emulator made
  with ``lanes=False`` refuses ``stream_id`` (``unknown_parameter``) and
  ``response.steer`` (``unknown_event_type``) as a server without them would;
- ``previous_response_id`` resolves to the most recent response of a lane of this
  connection, or to a stored one (sent with ``store`` not false); with ``store:
  false`` only the connection's own responses can be continued;
- past ``max_connection_seconds`` (the service's 60 minutes), every request gets
  ``websocket_connection_limit_reached`` and the socket stays open, as the service
  leaves it; with ``close_on_connection_limit`` it is also closed;
- a client that closes the connection while responses stream has abandoned them
  (closing is the API's only hard cancel): each counted in ``abandoned``. A stream
  cut by the ``drop_after_deltas`` fault is the emulator's doing and not counted.

Outgoing reply frames skip ``send_text()`` on the hot path (see :meth:`send`); control
frames, pongs and the closing handshake all go through the protocol object.

What a reply contains and how it is paced is decided elsewhere (``app.py`` and
``streaming.py``); this module only knows frames and connection state.
"""

from __future__ import annotations

import asyncio
import json
import struct
from email.utils import formatdate
from typing import TYPE_CHECKING, Any, Sequence

from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from sparkls.emulator import events
from sparkls.emulator.httpwire import reason_phrase
from sparkls.emulator.control import (
    CONNECTION_LIMIT_REACHED,
    INVALID_JSON,
    INVALID_VALUE,
    UNKNOWN_EVENT_TYPE,
    UNKNOWN_PARAMETER,
    ApiError,
)
from sparkls.emulator.lanes import Lanes
from sparkls.emulator.streaming import Item, Wire

if TYPE_CHECKING:
    from sparkls.emulator.app import Emulator

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
CLOSE_TIMEOUT = 5.0


class WebSocketSession:
    """A WebSocket connection after the HTTP request that asked for it was read."""

    transport = "websocket"

    def __init__(self, emulator: Emulator, reader: asyncio.StreamReader, wire: Wire) -> None:
        self.emulator = emulator
        self.reader = reader
        self.wire = wire
        self.protocol = ServerProtocol(max_size=MAX_MESSAGE_BYTES)
        self.lanes = Lanes(self)
        self.opened_at = 0.0
        self._fragments: list[bytes] | None = None
        self._pending: list[object] = []
        self._eof_sent = False
        self._cut_by_fault = False  # the drop fault cut the stream, not the client

    # -- writing ---------------------------------------------------------------

    def flush(self) -> None:
        """Write what the protocol has to send; half-close on its end-of-stream mark."""
        for data in self.protocol.data_to_send():
            if data:
                self.wire.write(data)
            elif not self._eof_sent:
                self._eof_sent = True
                if self.wire.writer.can_write_eof() and not self.wire.closing:
                    self.wire.writer.write_eof()

    def send(self, items: Sequence[Item]) -> bool:
        """Send each item's JSON as one text frame (the :class:`Sink` interface)."""
        return self.send_texts("", [text for _, text in items])

    def send_texts(self, kind: str, texts: Sequence[str]) -> bool:
        """Send each JSON text as one text frame."""
        if self.protocol.state is not State.OPEN or self.wire.closing:
            return False
        if self.protocol.extensions:  # none are offered, but stay correct if they were
            for text in texts:
                self.protocol.send_text(text.encode())
            self.flush()
            return True
        # Hot path: thousands of deltas per reply. An unmasked, unfragmented,
        # extension-free server text frame is just a header and the payload, and the
        # protocol object keeps no state about outgoing data frames, so building them
        # here costs a fraction of send_text()'s per-frame work.
        self.flush()
        self.wire.write(b"".join([_text_frame(text.encode()) for text in texts]))
        return True

    def keep_alive(self) -> bool:
        """Send nothing: a WebSocket waiting for its first token is silent."""
        return self.protocol.state is State.OPEN and not self.wire.closing

    async def drain(self) -> None:
        await self.wire.drain()

    async def abort(self) -> None:
        self._cut_by_fault = True
        await self.wire.abort()

    def send_error(self, error: ApiError, stream_id: str | None = None) -> None:
        """An in-band error event (on the lane *stream_id*, when given)."""
        self.emulator.counters.errors += 1
        event = events.api_error_event(error)
        if stream_id is not None:
            event["stream_id"] = stream_id
        self.send([("error", events.dumps(event))])

    # -- handshake -------------------------------------------------------------

    def handshake(self, raw_request: bytes, authorized: bool) -> bool:
        """Answer the upgrade request in *raw_request*; True when the socket is open."""
        self.protocol.receive_data(raw_request)
        received = self.protocol.events_received()
        requests = [e for e in received if isinstance(e, Request)]
        # Frames sent right behind the handshake request are served once open.
        self._pending = [e for e in received if not isinstance(e, Request)]
        if not requests:  # the protocol found the request malformed and closed
            self.flush()
            return False
        request = requests[0]
        if not authorized:
            self.emulator.counters.errors += 1
            response = _json_rejection(401, self.emulator.unauthorized_body())
        else:
            response = self.protocol.accept(request)
        self.protocol.send_response(response)
        self.flush()
        return response.status_code == 101

    # -- reading ---------------------------------------------------------------

    async def run(self) -> None:
        """Serve the open connection until it closes."""
        loop = asyncio.get_running_loop()
        self.opened_at = loop.time()
        stats = self.emulator.counters
        try:
            for event in self._pending:
                message = self._message(event)
                if message is not None:
                    self.on_message(message)
            while not self._eof_sent:
                if self.protocol.state is State.CLOSING:
                    data = await asyncio.wait_for(self.reader.read(65536), CLOSE_TIMEOUT)
                else:
                    data = await self.reader.read(65536)
                if not data:
                    self.protocol.receive_eof()
                    self.flush()
                    break
                stats.bytes_in += len(data)
                self.protocol.receive_data(data)
                self.flush()
                for event in self.protocol.events_received():
                    message = self._message(event)
                    if message is not None:
                        self.on_message(message)
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            await self.lanes.close()

    def _message(self, event: object) -> bytes | None:
        """Assemble data frames into whole messages."""
        if not isinstance(event, Frame):
            return None
        if event.opcode in (Opcode.TEXT, Opcode.BINARY):
            if event.fin:
                return event.data
            self._fragments = [event.data]
        elif event.opcode is Opcode.CONT and self._fragments is not None:
            self._fragments.append(event.data)
            if event.fin:
                message, self._fragments = b"".join(self._fragments), None
                return message
        return None

    def on_message(self, message: bytes) -> None:
        """Handle one client message; replies are streamed by the lanes' tasks."""
        self.emulator.canary_net.check(message, "WebSocket message", self.emulator.counters)
        try:
            body: Any = json.loads(message)
        except ValueError:
            self.send_error(ApiError(400, INVALID_JSON, "The message is not valid JSON."))
            return
        kind = body.get("type") if isinstance(body, dict) else None
        lanes = self.emulator.lanes
        if kind == "response.steer" and lanes:
            self.lanes.steer(body)
            return
        if kind != "response.create":
            self.send_error(
                ApiError(400, UNKNOWN_EVENT_TYPE, f"Unsupported event type: {kind!r}.", "type")
            )
            return
        stream_id = body.get("stream_id")
        if stream_id is not None:
            if not lanes:
                self.send_error(ApiError(400, UNKNOWN_PARAMETER, "Unknown parameter: 'stream_id'.", "stream_id"))
                return
            if not isinstance(stream_id, str) or not stream_id:
                message_text = "Invalid 'stream_id': expected a non-empty string."
                self.send_error(ApiError(400, INVALID_VALUE, message_text, "stream_id"))
                return
        limit = self.emulator.max_connection_seconds
        if limit is not None and asyncio.get_running_loop().time() - self.opened_at >= limit:
            self.send_error(
                ApiError(
                    400,
                    CONNECTION_LIMIT_REACHED,
                    f"Responses websocket connection limit reached ({_duration(limit)}). "
                    "Create a new websocket connection to continue.",
                ),
                stream_id,
            )
            if self.emulator.close_on_connection_limit and self.protocol.state is State.OPEN:
                self.protocol.send_close(1000, CONNECTION_LIMIT_REACHED)
                self.flush()
            return
        self.lanes.create({k: v for k, v in body.items() if k not in ("type", "stream_id")}, stream_id)

    def abandoned(self) -> None:
        """A response stopped because the client went away (not by the drop fault)."""
        if not self._cut_by_fault:
            self.emulator.counters.abandoned += 1


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} seconds"


def _text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame (RFC 6455 section 5.2)."""
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length) + payload
    return struct.pack("!BBQ", 0x81, 127, length) + payload


def _json_rejection(status: int, body: dict[str, Any]) -> Response:
    """An HTTP response refusing the handshake, with an OpenAI-style JSON body."""
    data = events.dumps(body).encode()
    headers = Headers(
        [
            ("Date", formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Length", str(len(data))),
            ("Content-Type", "application/json"),
        ]
    )
    return Response(status, reason_phrase(status), headers, data)
