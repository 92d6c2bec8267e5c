"""Faults on a lane connection with N lanes in flight, and one function that runs a
fault through sparkls's real tier session (`TierSession.complete`) against the lane
peer (lanes.py).

Each fault strikes once N requests are streaming on one connection (each has had two
text deltas), on the lane of the last to arrive. A fault of the connection cuts every
lane in flight (each is sent again); a fault of one response (an error, a failed
response) ends that lane only (it alone is sent again, the others finish). Requests
that come after (the resends, and one more request) get a whole answer. Shared by tests/unit/test_lane_faults.py (which asserts the outcome)
and bench/lane_faults.py (which prints how long each request took to end).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sparkls.config import Settings
from sparkls.errors import SparkError
from sparkls.models.session import TierSession
from tests.peer.lanes import LanePeer
from tests.peer.streams import ResponseStream, ws_error
from tests.peer.variants import ANSWER, KEY, PROMPT
from tests.sealing import wire

STALL = 0.6  # the stall limit the faults run with (`keepalive_timeout`), seconds
HEAD = 6  # created, in_progress, item added, part added, two text deltas


def whole() -> list[dict[str, Any]]:
    return ResponseStream().start().message(ANSWER, phase="final_answer").completed()


EVERY_LANE, ITS_LANE, NONE = "every lane", "its lane", "none"  # what a fault has sent again


@dataclass(frozen=True)
class LaneFault:
    name: str
    resends: str  # EVERY_LANE (the connection is replaced), ITS_LANE (the striking one), NONE
    strike: Callable[[list[list[dict[str, Any]]]], list[Any]]  # the responses in flight -> the fault's steps

    @property
    def resent(self) -> bool:
        """The connection is lost: every request in flight is sent again."""
        return self.resends == EVERY_LANE

    def attempts(self, lanes: int) -> list[int]:
        """Each request's attempts, sorted: 2 where the fault cut it."""
        cut = {EVERY_LANE: lanes, ITS_LANE: 1, NONE: 0}[self.resends]
        return [1] * (lanes - cut) + [2] * cut

    def scripts(self, lanes: int) -> Callable[[int], list[Any]]:
        """Request n's script: the first `lanes` stream, gather, and the last of them
        strikes; every later request gets a whole answer."""
        responses = [whole() for _ in range(lanes)]

        def script_for(n: int) -> list[Any]:
            if n > lanes:
                return whole()
            events = responses[n - 1]
            if n == lanes:
                rest = [("hang",)] if self.resends != NONE else events[HEAD:]
                return [*events[:HEAD], ("gather", lanes), *self.strike(responses), *rest]
            return [*events[:HEAD], ("gather", lanes), *([("hang",)] if self.resent else events[HEAD:])]

        return script_for


def _delta(responses: list[list[dict[str, Any]]]) -> dict[str, Any]:
    return responses[-1][HEAD - 1]


def _after_end(responses: list[list[dict[str, Any]]]) -> list[Any]:
    """The striking lane ends, then sends more: a delta and its end again (the others end as usual)."""
    events = responses[-1]
    return [*events[HEAD:], events[HEAD - 1], events[-1], ("hang",)]


def _duplicate(responses: list[list[dict[str, Any]]]) -> list[Any]:
    """A `response.created` naming the first lane's response (with one lane: its own, again)."""
    return [responses[0][0]]


def _failed(responses: list[list[dict[str, Any]]]) -> list[Any]:
    """The striking lane's response fails (`response.failed`, a server error)."""
    created = responses[-1][0]
    error = {"code": "server_error", "message": "The server had an error while processing your request."}
    return [{"type": "response.failed", "sequence_number": HEAD, "response": {**created["response"], "status": "failed", "error": error}}]


def _server_error(responses: list[list[dict[str, Any]]]) -> list[Any]:
    """An in-band error on the striking lane mid-stream (a 500)."""
    return [ws_error(500, "server_error", "The server had an error.", kind="server_error")]


FAULTS = [
    LaneFault("silent peer (no frames, no pongs)", EVERY_LANE, lambda r: [("silent",)]),
    LaneFault("malformed frame (not JSON)", EVERY_LANE, lambda r: [("raw", "<html>502 Bad Gateway</html>")]),
    LaneFault("truncated frame", EVERY_LANE, lambda r: [("raw", '{"type": "response.output_text.delta", "delta": "x')]),
    LaneFault("binary frame", EVERY_LANE, lambda r: [("binary", b"\x00\x01\x02 not an event")]),
    LaneFault("half-closed socket (FIN, no close frame)", EVERY_LANE, lambda r: [("half_close",)]),
    LaneFault("connection cut (no close handshake)", EVERY_LANE, lambda r: [("cut",)]),
    LaneFault("close frame mid-stream (1011)", EVERY_LANE, lambda r: [("close", 1011)]),
    LaneFault("event naming an unknown stream_id", EVERY_LANE, lambda r: [("as_lane", "lane-unknown", _delta(r))]),
    LaneFault("event naming no stream_id", EVERY_LANE, lambda r: [("as_lane", None, _delta(r))]),
    LaneFault("duplicated response id", EVERY_LANE, _duplicate),
    LaneFault("frames after response.completed", NONE, _after_end),
    LaneFault("response.failed on one lane", ITS_LANE, _failed),
    LaneFault("in-band server_error on one lane", ITS_LANE, _server_error),
]


# The faults a pool socket can meet too (it sends no `stream_id`).
LANE_ONLY = ("event naming",)


@dataclass
class FaultOutcome:
    replies: list[Any]  # each request's Reply, or the SparkError it ended with
    seconds: list[float]  # each request: asked -> ended
    requests: int  # model requests the peer served (the first N, the resends, the next one)
    connections: int
    next_reply: Any  # the request after the fault
    transport: str  # the tier's transport after it all
    texts: list[str | None]


def settings_for(peer: LanePeer, **tier: Any) -> Settings:
    fast = {"model": "gpt-5.3-codex-spark", "base_url": peer.base_url(), "api_key": KEY,
            "keepalive_timeout": STALL, "request_timeout": 30, **tier}
    return Settings.model_validate({"fast": fast})


async def _timed(session: TierSession) -> tuple[Any, float]:
    started = time.perf_counter()
    try:
        reply: Any = await session.complete(PROMPT)
    except SparkError as exc:
        reply = exc
    return reply, time.perf_counter() - started


async def run_fault(fault: LaneFault, in_flight: int, **tier: Any) -> FaultOutcome:
    """`in_flight` requests at once on a warm lane connection, the fault, then one more
    request (`tier`: settings of the tier, `lanes=False` for the pool)."""
    async with LanePeer(fault.scripts(in_flight)) as peer:
        session = TierSession("fast", settings_for(peer, **tier), warm=wire("Edit the region."))
        try:
            await session.warm()
            ended = await asyncio.gather(*(_timed(session) for _ in range(in_flight)))
            next_reply, _ = await _timed(session)
        finally:
            await session.close()
        replies = [r for r, _ in ended]
        return FaultOutcome(
            replies, [s for _, s in ended], peer.requests, peer.connections, next_reply, session.transport,
            [getattr(r, "text", None) for r in replies],
        )
