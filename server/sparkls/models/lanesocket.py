"""A tier's one WebSocket: every concurrent request on a lane of one connection.

`LaneSocket` keeps one open connection (`LaneConnection`, lanes.py) for a tier and
keeps it usable without cutting a response in flight:

- opened and warmed (`generate: false`, itself on a lane, which tells at once
  whether the server knows lanes) by `start()`, shared by concurrent callers;
- rotated before the service's age limit (`max_age`): new requests go to a new
  connection, and the old one closes when its last lane is done;
- replaced when the service retires it (`websocket_connection_limit_reached`,
  answered before anything was processed): that request is sent once more on the
  new connection, so its caller never sees it;
- replaced in the background when the peer closes it while idle, so the next request
  finds a warm connection;
- closed rather than kept when only abandoned responses are left streaming on it and
  they have wasted `waste_limit` output tokens: reconnecting then costs less than
  paying for the rest (there is no cancel event).

`lanes_refused(exc)` tells an error that means "this server does not know lanes"
(its first `stream_id` refused, or its frames naming no lane); the tier then falls
back to a pool (session.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sparkls.errors import ApiError, ModelError
from sparkls.models.events import Event, Sent, Where
from sparkls.models.lanes import LaneConnection
from sparkls.models.pool import MIN_BACKGROUND_ROTATION
from sparkls.models.websocket import CONNECTION_LIMIT, dial

logger = logging.getLogger(__name__)

ALREADY_IN_PROGRESS = "response_already_in_progress"


class LanesUnsupported(ModelError):
    """The server does not run lanes (`stream_id`): the tier uses a pool instead."""


def lanes_refused(exc: BaseException, ignored: bool = False) -> bool:
    """Whether `exc` says the server does not know lanes: an error naming `stream_id`,
    or, from a server seen ignoring lanes, one response refused behind another."""
    if not isinstance(exc, ApiError):
        return isinstance(exc, LanesUnsupported)
    if exc.param == "stream_id" or "stream_id" in str(exc):
        return True
    return ignored and exc.api_code == ALREADY_IN_PROGRESS


class LaneSocket:
    def __init__(
        self,
        url: str,
        api_key: str | None,
        where: Where,
        *,
        dial_options: dict[str, Any],
        warm: Callable[[LaneConnection], Awaitable[Any]] | None = None,
        max_age: float = 55 * 60,
        waste_limit: int = 1000,
        stall: float | None = None,
    ) -> None:
        self.url = url
        self.where = where
        self._api_key = api_key
        self._dial_options = dial_options
        self._warm = warm
        self.max_age = max_age
        self.waste_limit = waste_limit
        self.stall = stall  # the stall limit of a request in flight (liveness.py)
        self._current: LaneConnection | None = None
        self._opening: asyncio.Task[LaneConnection] | None = None
        self._connections: set[LaneConnection] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self.connections_opened = 0
        self._wasted_before = 0  # by connections already closed

    # -- figures -----------------------------------------------------------------

    @property
    def wasted_tokens(self) -> int:
        """Output tokens of abandoned responses, read and dropped or named by their usage."""
        return self._wasted_before + sum(c.wasted_tokens for c in self._connections)

    @property
    def ignores_lanes(self) -> bool:
        return any(c.ignores_lanes for c in self._connections)

    @property
    def current(self) -> LaneConnection | None:
        return self._current

    # -- connections ----------------------------------------------------------------

    async def start(self) -> None:
        """Open and warm the connection if there is none; raises its failure
        (`LanesUnsupported` when the warm-up shows the server does not run lanes)."""
        await self.connection()

    async def connection(self) -> LaneConnection:
        """The current connection, opened (and warmed) if needed; one past `max_age`
        is retired first (a late timer: a suspended laptop)."""
        if self._closed:
            raise RuntimeError("the socket is closed")
        current = self._current
        if current is not None and current.is_open and not current.retiring:
            if current.age < self.max_age:
                return current
            self._retire(current)
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._open())
        return await asyncio.shield(self._opening)

    async def _open(self) -> LaneConnection:
        ws = await dial(self.url, self._api_key, self.where, **self._dial_options)
        conn = LaneConnection(ws, self.where, on_lost=self._on_lost, on_waste=self._on_waste, stall=self.stall)
        self._connections.add(conn)
        self.connections_opened += 1
        logger.info("connected to %s for lanes (%d connections so far)", self.url, self.connections_opened)
        try:
            if self._warm is not None:
                await self._warm(conn)
            if conn.ignores_lanes:
                raise LanesUnsupported(f"{self.where.host} answered without naming the request's lane (`stream_id`).")
        except BaseException:
            await self._close(conn)
            raise
        self._current = conn
        self._spawn(self._watch(conn))
        return conn

    def _retire(self, conn: LaneConnection) -> None:
        """No new requests on `conn`; it closes once its lanes are done."""
        if conn.retiring:
            return
        conn.retiring = True
        if self._current is conn:
            self._current = None
        self._spawn(self._close_when_idle(conn))

    async def _close_when_idle(self, conn: LaneConnection) -> None:
        await conn.wait_idle()
        await self._close(conn)

    async def _close(self, conn: LaneConnection) -> None:
        await conn.close()
        if conn in self._connections:
            self._connections.discard(conn)
            self._wasted_before += conn.wasted_tokens

    def _on_lost(self, conn: LaneConnection) -> None:
        if self._current is conn:
            self._current = None
            if not self._closed:
                self._spawn(self._reopen("the connection closed"))
        if conn in self._connections:
            self._connections.discard(conn)
            self._wasted_before += conn.wasted_tokens

    def _on_waste(self, conn: LaneConnection) -> None:
        """Only abandoned responses stream here and they have cost enough: close."""
        if conn.in_flight == 0 and conn.discarding >= self.waste_limit and not conn.retiring:
            logger.info("closing a connection to %s behind %d abandoned response(s)", self.url, conn.abandoned)
            if self._current is conn:
                self._current = None
            conn.retiring = True
            self._spawn(self._close(conn))
            self._spawn(self._reopen("abandoned responses"))

    async def _reopen(self, why: str) -> None:
        try:
            await self.connection()
            logger.info("reopened the connection to %s (%s)", self.url, why)
        except ModelError as exc:
            logger.info("could not reopen the connection to %s (%s): %s", self.url, why, exc)

    async def _watch(self, conn: LaneConnection) -> None:
        """Rotate `conn` in the background when it comes of age."""
        await asyncio.sleep(max(MIN_BACKGROUND_ROTATION, self.max_age - conn.age))
        if self._closed or conn is not self._current or not conn.is_open:
            return
        logger.info("rotating a %.0f-second-old connection to %s", conn.age, self.url)
        self._retire(conn)
        await self._reopen("age rotation")

    # -- requests ---------------------------------------------------------------------

    async def stream(self, message: dict[str, Any], *, on: LaneConnection | None = None) -> AsyncIterator[Event]:
        """Send `message` on a lane (of `on`, the connection the caller chose it for,
        while it takes requests) and yield its events (`LaneConnection.stream`). A
        connection the service has retired (nothing was processed) is replaced and
        the message sent once more on the new one."""
        conn = on if on is not None and on.is_open and not on.retiring else await self.connection()
        for fresh in (False, True):
            started = False
            try:
                async for event in conn.stream(message):
                    started = started or not isinstance(event, Sent)
                    yield event
                return
            except ApiError as exc:
                if exc.api_code != CONNECTION_LIMIT or started or fresh:
                    raise
                logger.info("%s retired a %.0f-second-old connection; resending on a new one", self.url, conn.age)
                self._retire(conn)
                conn = await self.connection()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """Close every connection and stop background work; idempotent."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._opening is not None:
            self._opening.cancel()
        await asyncio.gather(*(self._close(c) for c in list(self._connections)), return_exceptions=True)
