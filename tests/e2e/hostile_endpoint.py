"""A recording endpoint on loopback: every request's line, headers and body, and the
text frames a WebSocket client sends, written down for a test to search.

`RecordingEndpoint()` answers every request itself, `401 invalid_api_key` (what a
server that is not the user's would say: enough to see what the client sent, which is
the point); `RecordingEndpoint(upstream=emulator.url)` passes everything on to the
emulator and its answers back, so that a session works as usual and is recorded all
the same. In both, the WebSocket handshake's `Sec-WebSocket-Extensions` is dropped on
the way, so that no frame is compressed and every frame the client sends can be read.

`carrying(*secrets)` says where any of `secrets` was sent: the request, and the
header, body or frame that held it. `requests` is the whole record.

Threads of its own (a `socketserver`): it works whatever event loop a test runs.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_UNAUTHORIZED = json.dumps(
    {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}
).encode()
_DROPPED_HEADERS = {"sec-websocket-extensions"}


@dataclass
class Request:
    """One request as the client sent it (a WebSocket handshake is one, with its frames)."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes = b""
    frames: list[bytes] = field(default_factory=list)  # unmasked payloads of the client's frames

    @property
    def websocket(self) -> bool:
        return any(name.lower() == "upgrade" and value.lower() == "websocket" for name, value in self.headers)

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def __str__(self) -> str:
        return f"{self.method} {self.target}{' (WebSocket)' if self.websocket else ''}"


class _ClientStream:
    """What the client sends on one connection, read as HTTP/1.1 requests, then
    WebSocket frames after an upgrade; each piece recorded as it completes."""

    def __init__(self, record: list[Request], lock: threading.Lock) -> None:
        self.record, self.lock = record, lock
        self.buffer = b""
        self.state = "head"  # head | body | frames | raw
        self.remaining = 0
        self.current: Request | None = None

    def feed(self, data: bytes) -> bytes:
        """Take bytes from the client; return what to pass on (a head without the dropped headers)."""
        self.buffer += data
        out = b""
        while True:
            if self.state == "head":
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return out
                head, self.buffer = self.buffer[: end + 4], self.buffer[end + 4 :]
                out += self._head(head)
            elif self.state == "body":
                taken, self.buffer = self.buffer[: self.remaining], self.buffer[self.remaining :]
                out += taken
                with self.lock:
                    self.current.body += taken
                self.remaining -= len(taken)
                if self.remaining:
                    return out
                self.state = "head"
            elif self.state == "frames":
                frame = self._frame()
                if frame is None:
                    return out
                out += frame
            else:  # raw: a body of no declared length (chunked); kept whole
                with self.lock:
                    self.current.body += self.buffer
                out, self.buffer = out + self.buffer, b""
                return out

    def _head(self, head: bytes) -> bytes:
        line, *fields = head.decode("latin-1").split("\r\n")
        method, target = (line.split(" ") + ["", ""])[:2]
        headers = [(name.strip(), value.strip()) for name, _, value in (f.partition(":") for f in fields if f)]
        self.current = Request(method, target, headers)
        with self.lock:
            self.record.append(self.current)
        if self.current.websocket:
            self.state = "frames"
        elif (length := self.current.header("content-length")) is not None:
            self.state, self.remaining = ("body", int(length)) if int(length) else ("head", 0)
        elif self.current.header("transfer-encoding"):
            self.state = "raw"
        kept = [f"{n}: {v}" for n, v in headers if n.lower() not in _DROPPED_HEADERS]
        return ("\r\n".join([line, *kept]) + "\r\n\r\n").encode("latin-1")

    def _frame(self) -> bytes | None:
        """One whole client frame off the buffer, its payload unmasked and recorded."""
        data = self.buffer
        if len(data) < 2:
            return None
        length, at = data[1] & 0x7F, 2
        if length == 126:
            if len(data) < 4:
                return None
            length, at = int.from_bytes(data[2:4], "big"), 4
        elif length == 127:
            if len(data) < 10:
                return None
            length, at = int.from_bytes(data[2:10], "big"), 10
        masked = data[1] & 0x80
        mask_end = at + (4 if masked else 0)
        if len(data) < mask_end + length:
            return None
        mask = data[at:mask_end]
        payload = data[mask_end : mask_end + length]
        if masked:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.lock:
            self.current.frames.append(payload)
        frame, self.buffer = data[: mask_end + length], data[mask_end + length :]
        return frame


class RecordingEndpoint:
    """A loopback HTTP + WebSocket endpoint recording what clients send (see the module)."""

    def __init__(self, upstream: str | None = None) -> None:
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._upstream = urlsplit(upstream) if upstream else None
        endpoint = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                endpoint._serve(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="recording endpoint", daemon=True)
        self._thread.start()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self._server.server_address[1]}"

    @property
    def url(self) -> str:
        """The API root, as a tier's `base_url`."""
        return f"http://{self.host}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def carrying(self, *secrets: str) -> list[str]:
        """Where each of `secrets` went: "GET /v1/responses (WebSocket): header Authorization", ..."""
        found = []
        with self._lock:
            requests = list(self.requests)
        for request in requests:
            places = [(f"header {name}", value.encode()) for name, value in request.headers]
            places += [("request line", request.target.encode()), ("body", request.body)]
            places += [(f"frame {n}", frame) for n, frame in enumerate(request.frames)]
            for secret in secrets:
                found += [f"{request}: {place}" for place, data in places if secret.encode() in data]
        return found

    def _serve(self, client: socket.socket) -> None:
        stream = _ClientStream(self.requests, self._lock)
        upstream = None
        if self._upstream is not None:
            upstream = socket.create_connection((self._upstream.hostname, self._upstream.port), timeout=30)
            threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()
        try:
            while data := client.recv(65536):
                passed = stream.feed(data)
                if upstream is not None:
                    upstream.sendall(passed)
                elif stream.current is not None and stream.state in ("head", "frames"):
                    _refuse(client)  # the request is whole (a handshake is, at once): answered, closed
                    return
        except OSError:
            pass
        finally:
            if upstream is not None:
                # shutdown first: close() alone sends no FIN while _pump's thread is blocked
                # in recv on it, and the emulator would keep the connection open.
                try:
                    upstream.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                upstream.close()


def _refuse(client: socket.socket) -> None:
    client.sendall(
        b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + f"Content-Length: {len(_UNAUTHORIZED)}\r\n\r\n".encode()
        + _UNAUTHORIZED
    )


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """The upstream's answers back to the client, as they come, until either side closes."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass
