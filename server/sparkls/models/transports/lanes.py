"""Lanes: every request of a tier on a lane of its one warm WebSocket (the default).

Over `LaneSocket` (models/lanesocket.py): one connection, warmed when opened,
rotated and replaced as it ages or drops. A follow-up continues its chain on the
connection that served it, from any lane (a fork), and input can be added while a
response streams (`response.steer`). A server that refuses a lane's `stream_id`, or
answers without naming lanes, does not run them (`refusal`): the tier goes on without
this transport (the pool next). A connection lost under several lanes is one failure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import aclosing

from sparkls.config import TierSettings
from sparkls.models.chain import turn_for
from sparkls.models.events import Event, response_create, warm_up_create
from sparkls.models.lanes import ConnectionLost, LaneConnection
from sparkls.models.lanesocket import LaneSocket, lanes_refused
from sparkls.models.transports.base import Link, Request, Transport, dial_options, marked
from sparkls.models.websocket import warmed

class Lanes(Transport):
    name = "lanes"
    carries = "websocket"
    persistent = True
    steers = True

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._socket: LaneSocket | None = None
        self._lost: deque[LaneConnection] = deque(maxlen=8)  # lost connections counted once

    @classmethod
    def fits(cls, tier: TierSettings) -> bool:
        return tier.api == "responses" and tier.transport == cls.carries

    @classmethod
    def switched_off(cls, tier: TierSettings) -> str | None:
        return None if tier.lanes else "the tier's `lanes` setting is off"

    @property
    def socket(self) -> LaneSocket:
        """The tier's lane socket, made on first use (reading the key: MissingApiKey)."""
        if self._socket is None:
            link, tier = self.link, self.link.tier
            self._socket = LaneSocket(
                tier.websocket_url,
                link.api_key(),
                link.where,
                dial_options=dial_options(link),
                warm=self._warm if link.warm is not None else None,
                max_age=tier.max_connection_age,
                waste_limit=tier.lane_waste_limit,
                stall=tier.keepalive_timeout,
            )
        return self._socket

    async def _warm(self, conn: LaneConnection) -> None:
        link = self.link
        assert link.warm is not None
        await warmed(conn.stream(warm_up_create(link.tier.model, link.warm, cache_key=link.cache_key)), link.where)

    async def start(self) -> None:
        await self.socket.start()

    async def stream(self, request: Request) -> AsyncIterator[Event]:
        lanes, tier = self.socket, self.link.tier
        conn = await lanes.connection()
        turn, previous = turn_for(request.follow_up, request.prompt, conn)
        if request.steering is not None:
            request.steering.attach(conn.steer, request.prompt)
        message = response_create(
            tier.model, turn, previous_response_id=previous, cache_key=self.link.cache_key, store=tier.store
        )
        async with aclosing(lanes.stream(message, on=conn)) as events:
            async for event in events:
                yield marked(event, previous)

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()

    def refusal(self, exc: BaseException | None) -> str | None:
        ignored = self._socket is not None and self._socket.ignores_lanes
        if exc is None:
            why = "its responses name no lane" if ignored else None
        else:
            why = str(exc) if lanes_refused(exc, ignored) else None
        return None if why is None else f"{self.link.where.host} does not run lanes ({why})"

    def counts(self, exc: BaseException) -> bool:
        if isinstance(exc, ConnectionLost):
            if exc.connection in self._lost:
                return False
            self._lost.append(exc.connection)
        return True

    @property
    def wasted_tokens(self) -> int:
        return self._socket.wasted_tokens if self._socket is not None else 0
