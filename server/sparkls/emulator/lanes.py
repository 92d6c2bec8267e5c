"""One WebSocket connection's lanes, forks and steering.

This module owns how a connection schedules its responses; ``websocket.py`` hands it
each ``response.create`` and ``response.steer`` and keeps only frames and the
connection's life.

- **Lanes.** A ``response.create`` with ``stream_id`` goes to that lane. Each lane is
  a task of its own, so lanes stream concurrently (each paced by its own faults),
  their frames interleaved on the socket; within a lane requests are served FIFO.
  Every event of a lane's response carries its ``stream_id``, spliced into each JSON
  text by :class:`LaneSink` (the delta hot path stays one string operation per
  event). Refusals go out on the lane too, and the lane goes on with its next
  request. Without ``stream_id`` a request goes to the unnamed lane, which serves
  one response at a time and refuses a second meanwhile
  (``response_already_in_progress``), as before lanes.
- **Forks.** ``previous_response_id`` resolves to the most recent response that ended
  on any lane of this connection (the 256 most recently used named lanes, and the
  unnamed one), or to a stored response.
- **Steering** (``response.steer``): an accepted steer on a response in flight sets
  its :class:`~sparkls.emulator.streaming.Interrupt`; the response stops at its next
  safe boundary (``response.incomplete``, reason ``steered``) and a *successor*
  continues it on the same lane with the queued input (``steering.py`` builds the
  events and the successor's request). The ``steer`` fault makes steering
  unsupported, pending, or its successor fail.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import TYPE_CHECKING, Any, Sequence

from sparkls.emulator import steering
from sparkls.emulator.control import RESPONSE_IN_PROGRESS, Faults
from sparkls.emulator.events import ApiError, dumps
from sparkls.emulator.responses import ResponseEvents
from sparkls.emulator.streaming import Interrupt, Item, Sink

if TYPE_CHECKING:
    from sparkls.emulator.websocket import WebSocketSession

logger = logging.getLogger(__name__)

REMEMBERED_LANES = 256  # named lanes whose most recent response a fork can name
ENDED_RESPONSES = 1024  # ended responses a steer is told "already completed" about
QUEUED_CONTINUATIONS = 256  # responses whose pending steering input waits for a create


class LaneSink:
    """A lane's view of the connection: every JSON text gets ``"stream_id"`` spliced
    in before its closing brace."""

    transport = "websocket"

    def __init__(self, session: WebSocketSession, stream_id: str) -> None:
        self.session = session
        self._suffix = ',"stream_id":' + dumps(stream_id) + "}"

    def send(self, items: Sequence[Item]) -> bool:
        suffix = self._suffix
        return self.session.send_texts("", [text[:-1] + suffix for _, text in items])

    def send_texts(self, kind: str, texts: Sequence[str]) -> bool:
        suffix = self._suffix
        return self.session.send_texts(kind, [text[:-1] + suffix for text in texts])

    def keep_alive(self) -> bool:
        return self.session.keep_alive()

    async def drain(self) -> None:
        await self.session.drain()

    async def abort(self) -> None:
        await self.session.abort()


class ResponseRun:
    """One response on a lane (``lane`` None: the unnamed one), from its request to
    its end: what a steer needs to find it, number its events and stop it."""

    def __init__(self, lanes: Lanes, lane: str | None, body: dict[str, Any]) -> None:
        self.lanes = lanes
        self.lane = lane
        self.body = body
        self.interrupt = Interrupt()
        self.events: ResponseEvents | None = None  # set once the response starts
        self.faults = Faults()
        self.steers: list[tuple[str, Any]] = []  # accepted: (steer id, input), in order
        self.outcome: str | None = None  # "completed", "ended", "steered"

    @property
    def response_id(self) -> str:
        assert self.events is not None
        return self.events.response_id

    @property
    def response_id_or_none(self) -> str | None:
        return None if self.events is None else self.events.response_id

    def started(self, events: ResponseEvents, faults: Faults) -> None:
        """Called by ``Emulator.serve_response`` just before the first event goes out."""
        self.events, self.faults = events, faults
        self.lanes.on_started(self)

    def number(self) -> int:
        """The next sequence number in this response's stream."""
        assert self.events is not None
        return self.events.next_number()


class Lanes:
    """The lanes, the responses in flight and the ended ones of one connection."""

    def __init__(self, session: WebSocketSession) -> None:
        self.session = session
        self.emulator = session.emulator
        self._queues: dict[str | None, collections.deque[dict[str, Any]]] = {}
        self._tasks: dict[str | None, asyncio.Task[None]] = {}
        self._active: dict[str, ResponseRun] = {}  # in flight, by response id
        self._last: collections.OrderedDict[str | None, ResponseRun] = collections.OrderedDict()
        self._ended: collections.OrderedDict[str, ResponseRun] = collections.OrderedDict()
        self._queued: collections.OrderedDict[str, list[Any]] = collections.OrderedDict()
        self._streaming_named = 0

    # -- requests ----------------------------------------------------------------------

    def create(self, body: dict[str, Any], stream_id: str | None) -> None:
        """Queue a ``response.create`` (without its ``type`` and ``stream_id``) on its lane."""
        if stream_id is None and None in self._tasks:
            self.session.send_error(
                ApiError(
                    400,
                    RESPONSE_IN_PROGRESS,
                    "A response is already in progress on this connection; wait for "
                    "response.completed before sending another response.create.",
                )
            )
            return
        self._queues.setdefault(stream_id, collections.deque()).append(body)
        if stream_id not in self._tasks:
            self._tasks[stream_id] = asyncio.create_task(self._run_lane(stream_id))

    async def _run_lane(self, lane: str | None) -> None:
        queue = self._queues[lane]
        try:
            while queue:
                if not await self._serve(lane, queue.popleft()):
                    return
        finally:  # no await between the empty queue and here: a new request starts a new task
            self._tasks.pop(lane, None)
            self._queues.pop(lane, None)

    async def _serve(self, lane: str | None, body: dict[str, Any]) -> bool:
        """Serve one request, then the successors steering gives it; False when the
        connection is gone."""
        session = self.session
        sink: Sink = session if lane is None else LaneSink(session, lane)
        next_body: dict[str, Any] | None = self._with_queued(body)
        previous: ResponseRun | None = None  # the steered response a successor continues
        while next_body is not None:
            run = ResponseRun(self, lane, next_body)
            try:
                response_id = await self.emulator.serve_response(
                    next_body, sink, previous_known=self.resolvable, run=run
                )
            except asyncio.CancelledError:  # the client closed the connection mid-stream
                session.abandoned()
                raise
            except ApiError as error:
                if previous is None:
                    session.send_error(error, lane)
                else:  # the successor was refused (an injected error): its input comes back
                    for steer_id, value in previous.steers:
                        self._fail(previous, steering.SUCCESSOR_CREATION_FAILED, previous.response_id, value,
                                   steer_id=steer_id)
                return True
            except ConnectionError:
                session.abandoned()
                return False
            except Exception:  # a bug must show, and must not leave the client waiting
                logger.exception("emulator response failed")
                session.wire.writer.transport.abort()
                return False
            finally:
                self._finished(run)
            if response_id is None:
                session.abandoned()
                return False
            self._record(run)
            next_body, previous = self._after(run), run
        return True

    def _with_queued(self, body: dict[str, Any]) -> dict[str, Any]:
        """*body* with the steering input still queued for the response it continues
        (``response.steer.pending``) prepended to its input."""
        previous = body.get("previous_response_id")
        if isinstance(previous, str) and previous in self._queued:
            return steering.with_queued_input(body, self._queued.pop(previous))
        return body

    # -- the responses' lives --------------------------------------------------------------

    def on_started(self, run: ResponseRun) -> None:
        self._active[run.response_id] = run
        if run.lane is not None:
            stats = self.emulator.counters
            stats.lanes += 1
            self._streaming_named += 1
            stats.max_lanes = max(stats.max_lanes, self._streaming_named)

    def _finished(self, run: ResponseRun) -> None:
        if run.response_id_or_none is None or self._active.pop(run.response_id, None) is None:
            return  # refused, or a warm-up (never in flight)
        if run.lane is not None:
            self._streaming_named -= 1

    def _record(self, run: ResponseRun) -> None:
        """*run* ended in order: the most recent response of its lane."""
        self._last.pop(run.lane, None)
        self._last[run.lane] = run
        named = len(self._last) - (None in self._last)
        if named > REMEMBERED_LANES:
            oldest = next(lane for lane in self._last if lane is not None)
            del self._last[oldest]
        self._ended[run.response_id] = run
        while len(self._ended) > ENDED_RESPONSES:
            self._ended.popitem(last=False)
        if run.outcome == "steered":
            self.emulator.counters.steered += 1

    def resolvable(self, response_id: str) -> bool:
        """Whether ``previous_response_id`` *response_id* can be continued here: the
        most recent response of a lane of this connection, or a stored one."""
        for lane, run in self._last.items():
            if run.response_id == response_id:
                self._last.move_to_end(lane)
                return True
        return self.emulator.is_stored(response_id)

    def _after(self, run: ResponseRun) -> dict[str, Any] | None:
        """What follows a response that ended with accepted steers: the successor's
        request, or the pending or failed events (and None)."""
        if not run.steers:
            return None
        assert run.events is not None
        mode, stats = run.faults.steer, self.emulator.counters
        if mode == "pending" and run.outcome == "completed":
            for steer_id, _ in run.steers:
                self._emit(steering.pending_event(steer_id, run.response_id, run.number(), run.lane))
            self._queued[run.response_id] = [value for _, value in run.steers]
            while len(self._queued) > QUEUED_CONTINUATIONS:
                self._queued.popitem(last=False)
            return None
        if mode in ("pending", "successor_fails") or run.outcome not in ("completed", "steered"):
            for steer_id, value in run.steers:
                self._fail(run, steering.SUCCESSOR_CREATION_FAILED, run.response_id, value, steer_id=steer_id)
            return None
        stats.successors += 1
        return steering.successor_body(
            run.body, run.response_id, run.events.output_text(), run.outcome == "completed",
            [value for _, value in run.steers],
        )

    # -- steering ------------------------------------------------------------------------

    def steer(self, event: dict[str, Any]) -> None:
        """Answer a ``response.steer``: accepted (and the response stopped at its next
        safe boundary, unless the ``steer`` fault says otherwise) or failed."""
        previous = event.get("previous_response_id")
        response_id = previous if isinstance(previous, str) else ""
        value = event.get("input")
        active = self._active.get(response_id)
        run = active or self._ended.get(response_id)
        problem = steering.steer_problem(event)
        if problem is not None:
            self._fail(run, steering.INVALID_INPUT, response_id, value, message=problem)
        elif run is None:
            self._fail(None, steering.RESPONSE_NOT_FOUND, response_id, value)
        elif active is None:
            self._fail(run, steering.RESPONSE_ALREADY_COMPLETED, response_id, value)
        elif run.faults.steer == "unsupported":
            self._fail(run, steering.STEERING_NOT_SUPPORTED, response_id, value)
        elif len(run.steers) >= steering.MAX_PENDING_STEERS:
            self._fail(run, steering.TOO_MANY_PENDING_STEERS, response_id, value)
        else:
            steer_id = steering.new_steer_id()
            run.steers.append((steer_id, value))
            self.emulator.counters.steers_accepted += 1
            self._emit(steering.accepted_event(steer_id, response_id, run.number(), run.lane))
            if run.faults.steer != "pending":
                run.interrupt.request()

    def _fail(
        self,
        run: ResponseRun | None,
        code: str,
        response_id: str,
        value: Any,
        *,
        steer_id: str | None = None,
        message: str | None = None,
    ) -> None:
        """``response.steer.failed``: numbered in the target's stream and on its lane
        when the target is known here, else number 0 and no lane."""
        number, lane = (run.number(), run.lane) if run is not None else (0, None)
        self.emulator.counters.steers_failed += 1
        self._emit(steering.failed_event(code, response_id, value, number, lane, steer_id=steer_id, message=message))

    def _emit(self, event: dict[str, Any]) -> None:
        self.session.send([(event["type"], dumps(event))])

    # -- the end -----------------------------------------------------------------------------

    async def close(self) -> None:
        """The connection ended: stop every lane (a response still streaming was
        abandoned, each counted once)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
