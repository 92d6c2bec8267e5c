"""How one lane connection routes frames (models/lanes.py), against a scripted socket:
frames naming their lane, a server that ignores lanes, a server that runs lanes but
answers a steer with a plain error, and a connection lost with lanes in flight."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

from sparkls.errors import StreamError
from sparkls.models.events import Completed, Created, Sent, Steered, TextDelta, Where
from sparkls.models.lanes import ConnectionLost, LaneConnection

WHERE = Where("fast", "example.test", "m")


class ScriptedSocket:
    """Enough of a websockets connection: `send` records, frames come from `push`."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.state = SimpleNamespace(name="OPEN")
        self._frames: asyncio.Queue[str | None] = asyncio.Queue()
        self.transport = SimpleNamespace(abort=lambda: None)

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def push(self, **frame: Any) -> None:
        self._frames.put_nowait(json.dumps(frame))

    def cut(self) -> None:
        self._frames.put_nowait(None)

    async def close(self) -> None:
        self.cut()

    def __aiter__(self) -> ScriptedSocket:
        return self

    async def __anext__(self) -> str:
        frame = await self._frames.get()
        if frame is None:
            self.state.name = "CLOSED"
            raise StopAsyncIteration
        return frame


def created(rid: str, **lane: str) -> dict[str, Any]:
    return {"type": "response.created", "response": {"id": rid}, **lane}


def delta(text: str, **lane: str) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "delta": text, "item_id": "m", **lane}


def completed(rid: str, **lane: str) -> dict[str, Any]:
    return {"type": "response.completed", "response": {"id": rid, "usage": {"output_tokens": 1}, "output": []}, **lane}


async def read(stream, into: list) -> None:
    async for event in stream:
        into.append(event)
        if isinstance(event, Completed):
            return


@pytest.fixture
async def socket_and_connection():
    ws = ScriptedSocket()
    lost: list[LaneConnection] = []
    conn = LaneConnection(ws, WHERE, on_lost=lost.append)  # type: ignore[arg-type]
    yield ws, conn, lost
    await conn.close()


async def test_interleaved_frames_reach_their_own_lanes(socket_and_connection):
    ws, conn, _ = socket_and_connection
    a, b = [], []
    ta = asyncio.ensure_future(read(conn.stream({"type": "response.create"}), a))
    tb = asyncio.ensure_future(read(conn.stream({"type": "response.create"}), b))
    await asyncio.sleep(0)
    la, lb = ws.sent[0]["stream_id"], ws.sent[1]["stream_id"]
    assert la != lb
    for frame in (created("r1", stream_id=la), created("r2", stream_id=lb), delta("x", stream_id=lb),
                  delta("y", stream_id=la), completed("r2", stream_id=lb), completed("r1", stream_id=la)):
        ws.push(**frame)
    await asyncio.gather(ta, tb)
    assert [e.text for e in a if isinstance(e, TextDelta)] == ["y"]
    assert [e.text for e in b if isinstance(e, TextDelta)] == ["x"]
    assert isinstance(a[0], Sent) and a[0].via is conn
    assert conn.can_continue("r1") and conn.can_continue("r2") and conn.runs_lanes and not conn.ignores_lanes


async def test_a_server_that_ignores_lanes_answers_the_oldest_request(socket_and_connection):
    ws, conn, _ = socket_and_connection
    first: list = []
    task = asyncio.ensure_future(read(conn.stream({"type": "response.create"}), first))
    await asyncio.sleep(0)
    for frame in (created("r1"), delta("z"), completed("r1")):
        ws.push(**frame)
    await task
    assert [e.text for e in first if isinstance(e, TextDelta)] == ["z"] and conn.ignores_lanes


async def test_a_plain_error_after_a_steer_is_that_steers_failure(socket_and_connection):
    """A server that runs lanes but not steering answers the steer with an error that
    names no lane: the steer failed; the response goes on."""
    ws, conn, _ = socket_and_connection
    events: list = []
    task = asyncio.ensure_future(read(conn.stream({"type": "response.create"}), events))
    await asyncio.sleep(0)
    lane = ws.sent[0]["stream_id"]
    ws.push(**created("r1", stream_id=lane))
    await asyncio.sleep(0.01)
    await conn.steer({"type": "response.steer", "previous_response_id": "r1", "input": "more"})
    ws.push(type="error", status=400, error={"code": "unknown_event_type", "message": "Unsupported event type"})
    ws.push(**delta("w", stream_id=lane))
    ws.push(**completed("r1", stream_id=lane))
    await task
    steered = [e for e in events if isinstance(e, Steered)]
    assert [(s.outcome, s.code) for s in steered] == [("failed", "unknown_event_type")]
    assert isinstance(events[1], Created) and isinstance(events[-1], Completed)


async def test_a_lost_connection_fails_every_lane_in_flight_once(socket_and_connection):
    ws, conn, lost = socket_and_connection
    outcomes = []

    async def one() -> None:
        try:
            await read(conn.stream({"type": "response.create"}), [])
        except StreamError as exc:
            outcomes.append(exc)

    tasks = [asyncio.ensure_future(one()) for _ in range(3)]
    await asyncio.sleep(0)
    ws.cut()
    await asyncio.gather(*tasks)
    assert len(outcomes) == 3 and all(isinstance(e, ConnectionLost) and e.connection is conn for e in outcomes)
    assert lost == [conn] and not conn.is_open


async def test_an_abandoned_lane_is_dropped_and_its_tokens_counted(socket_and_connection):
    ws, conn, _ = socket_and_connection
    stream = conn.stream({"type": "response.create"})
    assert isinstance(await stream.__anext__(), Sent)
    lane = ws.sent[0]["stream_id"]
    ws.push(**created("r1", stream_id=lane))
    assert isinstance(await stream.__anext__(), Created)
    for text in "xy":  # read off the socket, never taken by the reader
        ws.push(**delta(text, stream_id=lane))
    await asyncio.sleep(0.01)
    await stream.aclose()  # the reader gives up
    assert conn.in_flight == 0 and conn.abandoned == 1
    for text in "abc":
        ws.push(**delta(text, stream_id=lane))
    ws.push(type="response.completed", stream_id=lane,
            response={"id": "r1", "usage": {"output_tokens": 9}, "output": []})
    await asyncio.sleep(0.01)
    assert conn.wasted_tokens == 9 and conn.abandoned == 0  # 5 dropped, 4 more named by its usage
