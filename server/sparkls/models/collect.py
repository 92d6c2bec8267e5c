"""Reading one response to its end: the answer, its timings, and steering.

`collect` reads the events of one request (any transport) and returns a `Reply`:
the answer (`models/answer.py`), and the time it took in three parts that always add
up to what the user waited — `wait_ms` (before the request left: a socket to free up,
a connection to open), `ttft_ms` (sent to first text) and `stream_ms` (first text to
the end). A request that was steered (steering.py) answers with its successor: a
response ended as `steered`, or one that ended while accepted input waited for its
successor, is not the answer; the successor's `response.created` starts a new one.

If no text has come `first_token_timeout` seconds after the request left, the user
is told once (`STREAM_STALLED`, else nothing: an inline completion is silent) and the
request goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from sparkls.config import TierSettings
from sparkls.errors import StreamError
from sparkls.models.answer import AnswerBuilder
from sparkls.models.chain import Chain
from sparkls.models.events import (
    Completed, Created, Event, ItemInfo, PatchCall, RefusalDelta, Sent, Steered, TextDelta, Where,
)
from sparkls.models.progress import STREAM_PROGRESS, STREAM_STALLED
from sparkls.models.steering import Steering

STEERED = "steered"


class SteeredAway(StreamError):
    """The response stopped for steering input that then failed: no answer came to
    either. The request is sent again (once, like a broken stream); not a transport
    failure."""


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    response_id: str
    ttft_ms: float  # request sent -> first text delta
    stream_ms: float  # first text delta -> response completed
    transport: str = ""  # what carried it (`Transport.carries`: websocket | http)
    attempts: int = 1
    usage: dict[str, Any] = field(default_factory=dict)
    chain: Chain | None = None  # how a follow-up can continue this response
    chained: bool = False  # it continued an earlier response (`previous_response_id`)
    wait_ms: float = 0.0  # asked -> request sent: waiting for a socket, a lane or a connection
    mode: str = ""  # the transport that served it (`Transport.name`: lanes | pool | http)
    steered: int = 0  # steering inputs its answer took (steering.py)
    via: object = None  # the WebSocket connection that served it (`Sent.via`)
    patch: PatchCall | None = None  # the edit made through the `apply_patch` tool, when it was

    @property
    def total_ms(self) -> float:
        return self.wait_ms + self.ttft_ms + self.stream_ms


async def collect(
    events: AsyncIterator[Event],
    where: Where,
    tier: TierSettings,
    *,
    transport: str,
    attempt: int,
    started: float,
    steering: Steering | None = None,
) -> Reply:
    """Read `events` to the end of the answer (see the module doc)."""
    progress = STREAM_PROGRESS.get()
    answer = AnswerBuilder(where)
    sent = time.perf_counter()
    first: float | None = None
    via: object = None
    chained = False
    finished: Completed | None = None  # ended, with accepted steering waiting for a successor
    stall = _stall_timer(where, tier)
    try:
        async with aclosing(events) as stream:
            async for event in stream:
                if isinstance(event, (TextDelta, RefusalDelta)) or (
                    isinstance(event, ItemInfo) and event.kind == "apply_patch_call"  # a tool call's first output
                ):
                    if first is None:
                        first = time.perf_counter()
                        if stall is not None:
                            stall.cancel()
                    if progress is not None:
                        progress(1)
                elif isinstance(event, Sent):
                    sent, via, chained = time.perf_counter(), event.via, event.chained
                    continue
                elif isinstance(event, Created):
                    if steering is not None:
                        if steering.response_id is not None:  # a successor: a new answer
                            answer, finished = AnswerBuilder(where), None
                        steering.created(event.response_id)
                    continue
                elif isinstance(event, Steered):
                    if steering is not None:
                        steering.on(event)
                        if finished is not None and not steering.awaiting_successor:
                            if finished.incomplete == STEERED:
                                raise SteeredAway("The response stopped for added input that could not be applied.")
                            return _reply(answer, finished, sent, first, transport, attempt, started, steering, via, chained)
                    continue
                elif isinstance(event, Completed):
                    if steering is not None:
                        steering.ended()
                    if steering is not None and (event.incomplete == STEERED or steering.awaiting_successor):
                        finished = event  # a successor (or the steering's failure) follows
                        continue
                    return _reply(answer, event, sent, first, transport, attempt, started, steering, via, chained)
                answer.feed(event)
    finally:
        if stall is not None:
            stall.cancel()
        if steering is not None:
            steering.close()
    raise StreamError("The stream ended without completing.")


def _reply(
    answer: AnswerBuilder,
    event: Completed,
    sent: float,
    first: float | None,
    transport: str,
    attempt: int,
    started: float,
    steering: Steering | None,
    via: object,
    chained: bool,
) -> Reply:
    done = time.perf_counter()
    text = answer.answer(event)  # raises on a refusal or a cut-off reply
    patch = answer.patch_call(event)
    first = first or done
    return Reply(
        text,
        event.response_id,
        ttft_ms=(first - sent) * 1000,
        stream_ms=(done - first) * 1000,
        transport=transport,
        attempts=attempt,
        usage=event.usage,
        wait_ms=max(0.0, sent - started) * 1000,
        steered=len(steering.committed) if steering is not None else 0,
        via=via,
        chained=chained,
        patch=patch,
    )


def _stall_timer(where: Where, tier: TierSettings) -> asyncio.TimerHandle | None:
    offer: Callable[[str], Any] | None = STREAM_STALLED.get()
    wait = tier.first_token_timeout
    if offer is None or wait is None:
        return None
    limit = f"; it gives up after {tier.request_timeout:g} s" if tier.request_timeout else ""
    message = (
        f"The {where.tier} tier ({where.model} at {where.host}) has sent nothing for {wait:g} s: "
        f"it may be overloaded. Cancel, or keep waiting{limit}."
    )
    return asyncio.get_running_loop().call_later(wait, offer, message)
