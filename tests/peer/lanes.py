"""A loopback peer that runs WebSocket mode with lanes, and misbehaves on cue.

Not the project's emulator: it knows nothing of prompts or of sparkls. Every
`response.create` carrying a `stream_id` is served at once on its own task, each frame
naming that lane, so the lanes of one connection stream side by side as the service's
do. Model request number n (from 1, warm-ups excluded) plays `script_for(n)`, a list
of steps:

- a dict: one event, sent with the request's `stream_id` (unless it has its own key);
- `("sleep", seconds)`; `("hang",)`: wait until the connection ends;
- `("gather", n)`: wait until n model requests have come on this connection (so that
  a fault strikes with n lanes in flight);
- `("raw", text)`: a text frame as it is (not JSON, or JSON cut short);
- `("binary", data)`: a binary frame;
- `("as_lane", stream_id, event)`: an event naming another lane, or none (None);
- `("silent",)`: from now on the connection sends nothing and reads nothing, so pings
  go unanswered, while TCP stays open;
- `("half_close",)`: end the peer's side of TCP (a FIN) without a close frame;
- `("close", code)`: a close frame mid-stream;
- `("cut",)`: drop the connection (no close handshake).

A `generate: false` warm-up is answered `response.created` and `response.completed`
on its lane and is not a model request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tests.peer.streams import ResponseStream

Step = Any


class _Connection:
    def __init__(self, conn: ServerConnection) -> None:
        self.conn = conn
        self.arrived = 0
        self.changed = asyncio.Condition()
        self.silent = False
        self.ended = asyncio.Event()


class LanePeer:
    def __init__(self, script_for: Callable[[int], list[Step]]) -> None:
        self.script_for = script_for
        self.requests = 0  # model requests (warm-ups excluded)
        self.connections = 0
        self.stream_ids: list[str | None] = []
        self._open: list[_Connection] = []
        self._server: Any = None
        self._stopping = asyncio.Event()
        self.port = 0

    async def __aenter__(self) -> LanePeer:
        self._server = await serve(self._serve, "127.0.0.1", 0, compression=None, ping_interval=None)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stopping.set()
        for c in self._open:
            c.conn.transport.abort()  # a silent one would otherwise wait out its closing handshake
        self._server.close()
        await self._server.wait_closed()

    def silence(self) -> None:
        """Every open connection goes silent now (nothing sent, nothing read), as in `("silent",)`."""
        for state in self._open:
            state.silent = True
            state.conn.transport.pause_reading()

    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _serve(self, conn: ServerConnection) -> None:
        self.connections += 1
        state = _Connection(conn)
        self._open.append(state)
        lanes: set[asyncio.Task[None]] = set()
        try:
            async for raw in conn:
                body = json.loads(raw)
                if body.get("type") != "response.create":
                    continue
                lane = body.get("stream_id")
                if body.get("generate") is False:
                    warm = ResponseStream().start()
                    for event in (warm.events[0], warm.completed()[-1]):
                        await conn.send(json.dumps({**event, "stream_id": lane}))
                    continue
                self.requests += 1
                self.stream_ids.append(lane)
                task = asyncio.ensure_future(self._play(state, lane, self.script_for(self.requests)))
                lanes.add(task)
                task.add_done_callback(lanes.discard)
                async with state.changed:
                    state.arrived += 1
                    state.changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            state.ended.set()
            if state.silent:
                await self._stopping.wait()  # as a hung server: until the peer itself stops
            for task in lanes:
                task.cancel()

    async def _play(self, state: _Connection, lane: str | None, script: list[Step]) -> None:
        conn = state.conn
        try:
            for step in script:
                if state.silent:
                    break
                if isinstance(step, dict):
                    await conn.send(json.dumps({"stream_id": lane, **step} if lane is not None else step))
                elif step[0] == "sleep":
                    await asyncio.sleep(step[1])
                elif step[0] == "hang":
                    await state.ended.wait()
                elif step[0] == "gather":
                    async with state.changed:
                        await state.changed.wait_for(lambda: state.arrived >= step[1])
                else:
                    await self._fault(state, lane, step)
        except ConnectionClosed:
            pass

    async def _fault(self, state: _Connection, lane: str | None, step: tuple) -> None:
        conn = state.conn
        kind = step[0]
        if kind == "raw":
            await conn.send(step[1])
        elif kind == "binary":
            await conn.send(step[1])
        elif kind == "as_lane":
            event = dict(step[2])
            if step[1] is not None:
                event["stream_id"] = step[1]
            await conn.send(json.dumps(event))
        elif kind == "silent":
            state.silent = True
            conn.transport.pause_reading()
        elif kind == "half_close":
            conn.transport.write_eof()
        elif kind == "close":
            with contextlib.suppress(ConnectionClosed):
                await conn.close(step[1], "a fault")
        elif kind == "cut":
            conn.transport.abort()
        else:
            raise ValueError(f"unknown step {step!r}")
