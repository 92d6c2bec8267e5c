"""HTTP/1.1 on the wire for the emulator: a request parser and response encoders.

This module owns bytes in and bytes out for plain HTTP: :class:`RequestParser` turns a
byte stream into :class:`HttpRequest` objects (request line, headers, a body framed by
``Content-Length``, keep-alive rules), and the encoders build whole responses, chunked
streaming responses and Server-Sent Events. It does no I/O; the asyncio layer
(``app.py``) feeds it what it reads and writes what it returns.

Deliberately small: no chunked request bodies (answered 411), no ``Expect:
100-continue``, no pipelining beyond handling queued requests one after another.
"""

from __future__ import annotations

import dataclasses
import email.utils
import http
import json
from typing import Any

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024
LAST_CHUNK = b"0\r\n\r\n"
SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"


class HttpError(Exception):
    """A request that cannot be parsed; answer *status* and close the connection."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass(slots=True)
class HttpRequest:
    """One parsed request. Header names in :attr:`headers` are lower-case."""

    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes
    raw_head: bytes

    @property
    def path(self) -> str:
        """The target without its query string."""
        return self.target.split("?", 1)[0]

    @property
    def size(self) -> int:
        """Bytes this request took on the wire."""
        return len(self.raw_head) + len(self.body)

    @property
    def keep_alive(self) -> bool:
        """Whether the connection may serve another request after this one."""
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens

    @property
    def is_websocket_upgrade(self) -> bool:
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        return "upgrade" in tokens and self.headers.get("upgrade", "").lower() == "websocket"

    def json(self) -> Any:
        """The body parsed as JSON; raises ValueError when it is not JSON."""
        return json.loads(self.body)


class RequestParser:
    """Accumulates bytes and yields complete requests, in order."""

    def __init__(
        self, *, max_head_bytes: int = MAX_HEAD_BYTES, max_body_bytes: int = MAX_BODY_BYTES
    ) -> None:
        self._buffer = bytearray()
        self._max_head = max_head_bytes
        self._max_body = max_body_bytes
        self._head: tuple[str, str, str, dict[str, str], bytes, int] | None = None

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def take_buffer(self) -> bytes:
        """Return and forget the bytes not consumed yet (after a protocol switch)."""
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    def next_request(self) -> HttpRequest | None:
        """Return the next complete request, or None until more bytes arrive.

        Raises :class:`HttpError` for a malformed or oversized request.
        """
        if self._head is None:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > self._max_head:
                    raise HttpError(431, "Request header fields too large")
                return None
            raw_head = bytes(self._buffer[: end + 4])
            del self._buffer[: end + 4]
            self._head = _parse_head(raw_head, self._max_body)
        method, target, version, headers, raw_head, length = self._head
        if len(self._buffer) < length:
            return None
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        self._head = None
        return HttpRequest(method, target, version, headers, body, raw_head)


def _parse_head(raw_head: bytes, max_body: int) -> tuple[str, str, str, dict[str, str], bytes, int]:
    try:
        text = raw_head.decode("iso-8859-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes anything
        raise HttpError(400, "Undecodable request head") from exc
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, f"Malformed request line: {lines[0][:100]!r}")
    method, target, version = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HttpError(400, f"Malformed header line: {line[:100]!r}")
        key = name.lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise HttpError(411, "Chunked request bodies are not supported; send Content-Length")
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError as exc:
        raise HttpError(400, "Invalid Content-Length") from exc
    if length < 0:
        raise HttpError(400, "Invalid Content-Length")
    if length > max_body:
        raise HttpError(413, "Request body too large")
    return method, target, version, headers, raw_head, length


def reason_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def response_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    """A status line and headers, ending with the blank line."""
    lines = [f"HTTP/1.1 {status} {reason_phrase(status)}"]
    lines.append(f"Date: {email.utils.formatdate(usegmt=True)}")
    lines.append("Server: sparkls-emulator")
    lines.extend(f"{name}: {value}" for name, value in headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def full_response(
    status: int,
    body: bytes,
    *,
    content_type: str,
    keep_alive: bool,
    headers: list[tuple[str, str]] | None = None,
) -> bytes:
    """A complete response with a ``Content-Length`` body."""
    all_headers = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "keep-alive" if keep_alive else "close"),
    ]
    all_headers.extend(headers or [])
    return response_head(status, all_headers) + body


def json_response(
    status: int, obj: Any, *, keep_alive: bool, headers: dict[str, str] | None = None
) -> bytes:
    """A complete JSON response (with extra *headers*, e.g. ``retry-after`` on a 429)."""
    body = json.dumps(obj, separators=(",", ":")).encode()
    extra = list(headers.items()) if headers else None
    return full_response(status, body, content_type=JSON_CONTENT_TYPE, keep_alive=keep_alive, headers=extra)


def stream_head(*, content_type: str = SSE_CONTENT_TYPE, keep_alive: bool = True) -> bytes:
    """The head of a chunked streaming response; the body follows as :func:`chunk`."""
    return response_head(
        200,
        [
            ("Content-Type", content_type),
            ("Cache-Control", "no-cache"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "keep-alive" if keep_alive else "close"),
        ],
    )


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (never empty: an empty chunk ends the body)."""
    if not data:
        return b""
    return b"%x\r\n%b\r\n" % (len(data), data)


def sse_event(event_type: str, data: str) -> str:
    """One Server-Sent Event with an ``event:`` line (the Responses API style)."""
    return f"event: {event_type}\ndata: {data}\n\n"


def sse_data(data: str) -> str:
    """One Server-Sent Event with only a ``data:`` line (the Chat Completions style)."""
    return f"data: {data}\n\n"


SSE_DONE = sse_data("[DONE]")
