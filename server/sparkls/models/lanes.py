"""One WebSocket connection, many responses at once: the Responses API's lanes.

The service's WebSocket mode runs several responses on one connection. Each
`response.create` names a lane (`stream_id`); lanes run concurrently and their
events, each echoing its lane, interleave on the socket; requests on one lane are
served first come, first served. `previous_response_id` may name a response from
any lane of the same connection (a *fork*), and `response.steer` adds input to a
response still streaming.

`LaneConnection` owns one open connection and the task that reads it. Each request
goes on a fresh lane (`stream`), so nothing ever waits behind another request; every
frame is routed to the lane it names. A reader that stops early (a cancelled request)
*abandons* its lane: there is no cancel event, so the rest of that response is
dropped as it arrives, never read by anyone, and its output tokens are counted as
wasted (`wasted_tokens`). A lost connection fails every lane still in flight with a
`StreamError` naming the connection (`ConnectionLost.connection`), so the tier counts
one failure and each request is sent again once.

A connection is lost, too, when it cannot be trusted to route the rest: a frame that
is not a JSON object (a malformed or truncated text frame, a binary frame), a frame
naming a lane this connection never opened, a response frame naming no lane from a
server that runs lanes, or a response id the server already gave another request.
Any of those could belong to any lane, and a lane that misses its end would wait
forever; so sparkls closes the connection and every request in flight on it is sent
again, none applied. Frames for a lane that has ended (a response's tail after its
`response.completed`) are dropped. A connection silent past the stall limit while
requests wait on it (liveness.py) is closed the same way.

A server that does not know lanes either refuses the first `stream_id` with an error
naming it, or ignores it (its frames name no lane). Until a frame has named its lane
(`runs_lanes`), frames that name none go to the oldest lane still waiting for its
first frame, and `ignores_lanes` says so; the tier then falls back to a pool of
sockets (session.py). On a server that runs lanes, an error naming no lane that
follows a `response.steer` is that steer's failure (a server without steering).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from sparkls.errors import ConnectError, ModelError, StreamError
from sparkls.models.events import Created, Event, Sent, Where, classify
from sparkls.models.laneframes import ENDINGS, STEER_PREFIX, Untrusted, described, parsed, steer_failure
from sparkls.models.liveness import Liveness

logger = logging.getLogger(__name__)

KNOWN_RESPONSES = 256  # responses a fork may name on this connection (the service keeps each lane's last)


class ConnectionLost(StreamError):
    """The connection closed with this request in flight: nothing of it was applied."""

    def __init__(self, message: str, connection: LaneConnection) -> None:
        super().__init__(message)
        self.connection = connection


@dataclass(eq=False, slots=True)
class _Lane:
    id: str
    queue: asyncio.Queue[dict[str, Any] | BaseException] = field(default_factory=asyncio.Queue)
    started: bool = False  # a frame came for it
    done: bool = False  # its last frame came (or the connection failed it)
    abandoned: bool = False
    response_id: str | None = None
    ended: bool = False  # its current response ended; a successor may follow (steering)
    uncommitted: int = 0  # steering input accepted and not yet committed by a successor
    delivered: int = 0  # text deltas handed to its reader
    discarded: int = 0  # text deltas dropped after it was abandoned


class LaneConnection:
    """One open WebSocket-mode connection, its lanes and its reader."""

    _ids = itertools.count(1)

    def __init__(
        self,
        ws: ClientConnection,
        where: Where,
        *,
        on_lost: Callable[[LaneConnection], None],
        on_waste: Callable[[LaneConnection], None] | None = None,
        stall: float | None = None,
    ) -> None:
        self.ws = ws
        self.where = where
        self.opened_at = time.monotonic()
        self.retiring = False  # no new requests: they go to a newer connection
        self.ignores_lanes = False  # a frame of a response named no lane
        self.runs_lanes = False  # a frame named its lane: the server runs them
        self._steering: deque[_Lane] = deque()  # lanes whose steer awaits its answer, oldest first
        self.wasted_tokens = 0
        self.lanes_served = 0
        self._lanes: dict[str, _Lane] = {}
        self._opened: set[str] = set()  # every lane sent on this connection
        self._by_response: dict[str, _Lane] = {}
        self._known: OrderedDict[str, None] = OrderedDict()
        self._unlaned: _Lane | None = None  # the lane frames without a `stream_id` go to
        self._on_lost = on_lost
        self._on_waste = on_waste
        self._lost: ModelError | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._liveness = Liveness(ws, stall, self._silent) if stall is not None else None
        self._reader = asyncio.ensure_future(self._read())

    # -- state ----------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self._lost is None and self.ws.state.name == "OPEN"

    @property
    def age(self) -> float:
        return time.monotonic() - self.opened_at

    @property
    def in_flight(self) -> int:
        """Lanes whose reader still wants them."""
        return sum(1 for lane in self._lanes.values() if not lane.abandoned)

    @property
    def abandoned(self) -> int:
        return sum(1 for lane in self._lanes.values() if lane.abandoned)

    async def wait_idle(self) -> None:
        """Return when no lane's reader wants anything more from this connection."""
        await self._idle.wait()

    def _update_idle(self) -> None:
        if self.in_flight:
            self._idle.clear()
        else:
            self._idle.set()
        if self._liveness is not None:
            self._liveness.busy(bool(self.in_flight))

    @property
    def discarding(self) -> int:
        """Deltas dropped so far by the abandoned responses still streaming."""
        return sum(lane.discarded for lane in self._lanes.values() if lane.abandoned)

    def can_continue(self, response_id: str) -> bool:
        """Whether a request on this connection may name `response_id` (a fork)."""
        return self.is_open and response_id in self._known

    # -- requests ---------------------------------------------------------------

    async def stream(self, message: dict[str, Any]) -> AsyncIterator[Event]:
        """Send `message` on a fresh lane and yield its events: `Sent` once it left,
        then the response's, until it ended. Raises ConnectError when it could not be
        sent (nothing was processed), the response's error when it failed, and
        `ConnectionLost` when the connection closed first."""
        if not self.is_open:
            raise ConnectError(f"The {self.where.tier} tier's connection is closed.")
        lane = _Lane(f"lane-{next(self._ids)}")
        self._lanes[lane.id] = lane
        self._opened.add(lane.id)
        self._update_idle()
        try:
            await self.ws.send(json.dumps({**message, "stream_id": lane.id}))
        except ConnectionClosed as exc:
            self._lanes.pop(lane.id, None)
            self._update_idle()
            raise ConnectError(f"The {self.where.tier} tier's connection closed before the request left: {exc}") from exc
        self.lanes_served += 1
        try:
            yield Sent(self)
            while not lane.done or not lane.queue.empty():
                item = await lane.queue.get()
                if isinstance(item, BaseException):
                    raise item
                event = classify(item, self.where)  # raises the error a frame means
                if event is None:
                    continue
                if isinstance(event, Created):
                    lane.response_id = event.response_id
                yield event
        finally:
            if not lane.done:
                self._abandon(lane)
            self._update_idle()

    async def steer(self, message: dict[str, Any]) -> None:
        """Send a `response.steer`; its outcome comes on the target response's lane
        (an error naming no lane, from a server that runs lanes but not steering, is
        that steer's failure)."""
        lane = self._by_response.get(str(message.get("previous_response_id")))
        if lane is not None:
            self._steering.append(lane)
        try:
            await self.ws.send(json.dumps(message))
        except ConnectionClosed as exc:
            raise ConnectError(f"The {self.where.tier} tier's connection closed: {exc}") from exc

    def _abandon(self, lane: _Lane) -> None:
        lane.abandoned = True
        while not lane.queue.empty():  # frames already read and not taken: not delivered after all
            item = lane.queue.get_nowait()
            if isinstance(item, dict):
                if item.get("type") == "response.output_text.delta":
                    lane.delivered -= 1
                self._waste(lane, item)
        logger.debug("%s abandoned (%d deltas read)", lane.id, lane.delivered)

    # -- reading ------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                if self._liveness is not None:
                    self._liveness.heard()
                self._route(parsed(frame))
            reason = "the service closed it"
        except ConnectionClosed as exc:
            reason = str(exc)
        except Untrusted as exc:
            self._break(f"{exc}, which leaves its lanes in doubt")
            return
        except Exception as exc:  # the reader must fail the lanes, never vanish
            logger.exception("reading the %s tier's connection failed", self.where.tier)
            reason = f"{type(exc).__name__}: {exc}"
        self._fail_all(self._closed_message(reason))

    def _closed_message(self, reason: str) -> Callable[[int], str]:
        where = self.where
        return lambda n: f"The connection to the {where.tier} tier at {where.host} closed with {n} response(s) in flight ({reason})."

    def _silent(self, why: str) -> None:
        self._break(f"went silent ({why})")

    def _break(self, what: str) -> None:
        """Close the connection for `what` the service did; every lane in flight fails."""
        logger.info("closing the connection to the %s tier at %s: it %s", self.where.tier, self.where.host, what)
        where = self.where
        self._fail_all(
            lambda n: f"The {where.tier} tier at {where.host} {what}, with {n} response(s) in flight; sparkls closed the connection."
        )
        self.ws.transport.abort()

    def _route(self, data: dict[str, Any]) -> None:
        kind = str(data.get("type") or "")
        name = data.get("stream_id")
        if isinstance(name, str):
            if name not in self._opened:
                raise Untrusted(f"named a lane this connection never opened (`stream_id` {name[:40]!r})")
            self.runs_lanes = True
            lane = self._lanes.get(name)
        elif kind == "error" and self.runs_lanes and self._steering:
            data, kind = steer_failure(data), "response.steer.failed"  # a steer the server does not take
            lane = self._steering[0]
        else:
            lane = self._unlaned_lane(kind, data)
        if kind.startswith(STEER_PREFIX) and lane is not None and lane in self._steering:
            self._steering.remove(lane)
        if kind in ENDINGS or kind == "response.created":
            response_id = (data.get("response") or {}).get("id")
            if isinstance(response_id, str) and kind in ENDINGS:
                self._remember(response_id)
        if lane is None:
            return  # a lane that has ended: the rest of its response, dropped
        if kind == "response.created":
            self._check_new(lane, data)
        lane.started = True
        self._track(lane, kind, data)
        if lane.abandoned:
            self._waste(lane, data)
        else:
            if kind == "response.output_text.delta":
                lane.delivered += 1
            lane.queue.put_nowait(data)
        if lane.done:
            self._lanes.pop(lane.id, None)
            while lane in self._steering:
                self._steering.remove(lane)
            if self._unlaned is lane:
                self._unlaned = None
            if lane.abandoned:
                self._update_idle()

    def _unlaned_lane(self, kind: str, data: dict[str, Any]) -> _Lane | None:
        """The lane of a frame that names none: a steering answer goes to the response
        it is about; anything else to the oldest lane not yet answered (a server that
        ignores or refuses `stream_id` answers in order)."""
        if kind.startswith(STEER_PREFIX):
            steer = data.get("steer") if isinstance(data.get("steer"), dict) else {}
            return self._by_response.get(str(steer.get("previous_response_id")))
        if self.runs_lanes:
            raise Untrusted(f"sent {described(kind, data)} naming no lane")
        if self._unlaned is None or self._unlaned.done:
            self._unlaned = next((lane for lane in self._lanes.values() if not lane.started), None)
            if self._unlaned is not None and kind != "error":
                self.ignores_lanes = True
        return self._unlaned

    def _check_new(self, lane: _Lane, data: dict[str, Any]) -> None:
        """A lane starts a response only after its last one ended (a steered one's
        successor), and never with an id the server already gave a response: either
        would mix two answers into one."""
        response_id = (data.get("response") or {}).get("id")
        if lane.response_id is not None and not lane.ended:
            raise Untrusted(f"started a second response on a lane before its first ended ({str(response_id)[:40]!r})")
        if isinstance(response_id, str) and (response_id in self._by_response or response_id in self._known):
            raise Untrusted(f"gave a new response the id of an earlier one ({response_id[:40]!r})")

    def _track(self, lane: _Lane, kind: str, data: dict[str, Any]) -> None:
        """Whether this frame ends the lane: an error or a failed response does; a
        response's end does unless accepted steering input awaits its successor."""
        if kind == "response.created":
            response_id = (data.get("response") or {}).get("id")
            if isinstance(response_id, str):
                self._by_response[response_id] = lane
                lane.response_id = response_id
            lane.ended, lane.uncommitted = False, 0  # a successor commits what was queued
        elif kind in ENDINGS:
            lane.ended = True
            steered = ((data.get("response") or {}).get("incomplete_details") or {}).get("reason") == "steered"
            lane.done = lane.uncommitted == 0 and not steered
        elif kind in ("error", "response.failed"):
            lane.done = True
        elif kind == "response.steer.accepted":
            lane.uncommitted += 1
        elif kind in ("response.steer.failed", "response.steer.pending"):
            steer = data.get("steer") if isinstance(data.get("steer"), dict) else {}
            if steer.get("id") is not None and lane.uncommitted > 0:
                lane.uncommitted -= 1  # accepted before, not committed after all
            lane.done = lane.ended and lane.uncommitted == 0
        if lane.done and lane.response_id is not None:
            self._by_response.pop(lane.response_id, None)

    def _waste(self, lane: _Lane, data: dict[str, Any]) -> None:
        """Count what an abandoned response still costs: deltas as they come, and at
        its end the output tokens its usage names beyond what was read and dropped."""
        kind = data.get("type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            lane.discarded += 1
            self.wasted_tokens += 1
            if self._on_waste is not None:
                self._on_waste(self)
        elif kind in ENDINGS:
            usage = (data.get("response") or {}).get("usage") or {}
            output = usage.get("output_tokens")
            if isinstance(output, int):
                extra = output - lane.delivered - lane.discarded
                self.wasted_tokens += max(0, extra)

    def _remember(self, response_id: str) -> None:
        self._known[response_id] = None
        self._known.move_to_end(response_id)
        while len(self._known) > KNOWN_RESPONSES:
            self._known.popitem(last=False)

    def _fail_all(self, message: Callable[[int], str]) -> None:
        """Fail every lane in flight with `message(how many)` and forget them."""
        if self._lost is not None:
            return
        if self._liveness is not None:
            self._liveness.close()
        live = [lane for lane in self._lanes.values() if not lane.done]
        self._lost = ConnectionLost(message(len(live)), self)
        for lane in live:
            lane.done = True
            if not lane.abandoned:
                lane.queue.put_nowait(self._lost)
        self._lanes.clear()
        self._known.clear()
        self._idle.set()
        if live or not self.retiring:
            self._on_lost(self)

    async def close(self) -> None:
        """Close the connection (every lane still in flight fails); idempotent."""
        self.retiring = True
        try:
            self.ws.transport.abort()
            await self.ws.close()
        finally:
            self._reader.cancel()
            self._fail_all(self._closed_message("closed by sparkls"))
