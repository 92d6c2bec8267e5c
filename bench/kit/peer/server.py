"""A loopback peer that replays scripted streams: WebSocket mode or HTTP SSE.

Not the project's emulator: it knows nothing of prompts or of sparkls. Each model
request takes the next script (the last one repeats); a script is a list of steps:

- a dict: one event (a WebSocket frame, or an SSE `data:` line; `event:` named by its type);
- `("sleep", seconds)`: wait;
- `("keepalive",)`: an SSE comment line;
- `("cut",)`: drop the connection (no close handshake, no end of body);
- `("status", code, headers, body)`: (HTTP only) answer with this status instead of a stream.

A `generate: false` warm-up over WebSocket is answered created + completed and is not
a model request. With `retire_after` seconds, a request on an older WebSocket gets
`websocket_connection_limit_reached` and the socket stays open, as the service does.
`chat=True` ends an SSE body with `data: [DONE]`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from bench.kit.peer.streams import ResponseStream, ws_error

Step = Any


class Peer:
    def __init__(self, scripts: list[list[Step]], *, chat: bool = False, retire_after: float | None = None) -> None:
        self.scripts = scripts
        self.chat = chat
        self.retire_after = retire_after
        self.requests = 0  # model requests (warm-ups excluded)
        self.connections = 0
        self.retired = 0  # requests refused with the connection limit
        self.bodies: list[dict[str, Any]] = []
        self._servers: list[Any] = []
        self.ws_port = 0
        self.http_port = 0

    def _next_script(self) -> list[Step]:
        self.requests += 1
        return self.scripts[min(self.requests, len(self.scripts)) - 1]

    async def __aenter__(self) -> Peer:
        ws_server = await serve(self._ws, "127.0.0.1", 0, compression=None)
        self.ws_port = ws_server.sockets[0].getsockname()[1] if hasattr(ws_server, "sockets") else 0
        http_server = await asyncio.start_server(self._http, "127.0.0.1", 0)
        self.http_port = http_server.sockets[0].getsockname()[1]
        self._servers = [ws_server, http_server]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for server in self._servers:
            server.close()
        for server in self._servers:
            await server.wait_closed()

    def ws_base_url(self) -> str:
        return f"http://127.0.0.1:{self.ws_port}/v1"

    def http_base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/v1"

    # -- WebSocket mode -----------------------------------------------------------

    async def _ws(self, conn: ServerConnection) -> None:
        self.connections += 1
        opened = asyncio.get_running_loop().time()
        try:
            async for raw in conn:
                body = json.loads(raw)
                if body.get("generate") is False:
                    warm = ResponseStream().start()
                    await conn.send(json.dumps(warm.events[0]))
                    await conn.send(json.dumps(warm.completed()[-1]))
                    continue
                age = asyncio.get_running_loop().time() - opened
                if self.retire_after is not None and age >= self.retire_after:
                    self.retired += 1
                    await conn.send(json.dumps(ws_error(
                        400, "websocket_connection_limit_reached",
                        "Responses websocket connection limit reached (60 minutes). Create a new websocket "
                        "connection to continue.")))
                    continue
                self.bodies.append(body)
                for step in self._next_script():
                    if isinstance(step, dict):
                        await conn.send(json.dumps(step))
                    elif step[0] == "sleep":
                        await asyncio.sleep(step[1])
                    elif step[0] == "cut":
                        conn.transport.abort()
                        return
        except ConnectionClosed:
            pass

    # -- HTTP (SSE) ---------------------------------------------------------------

    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                body = json.loads(await reader.readexactly(int(headers.get("content-length", "0"))) or b"{}")
                self.bodies.append(body)
                if not await self._answer(writer, self._next_script()):
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, script: list[Step]) -> bool:
        """Write one answer; False when the connection was cut."""
        first = script[0] if script else None
        if isinstance(first, tuple) and first[0] == "status":
            _, code, headers, body = first
            data = json.dumps(body).encode()
            extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            writer.write(f"HTTP/1.1 {code} Error\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n"
                         f"{extra}\r\n".encode() + data)
            await writer.drain()
            return True
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        for step in script:
            if isinstance(step, dict):
                named = "" if self.chat else f"event: {step.get('type')}\n"
                _chunk(writer, f"{named}data: {json.dumps(step)}\n\n")
            elif step[0] == "keepalive":
                _chunk(writer, ": keep-alive\n\n")
            elif step[0] == "sleep":
                await writer.drain()
                await asyncio.sleep(step[1])
            elif step[0] == "cut":
                await writer.drain()
                writer.transport.abort()
                return False
        if self.chat:
            _chunk(writer, "data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _chunk(writer: asyncio.StreamWriter, text: str) -> None:
    data = text.encode()
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
