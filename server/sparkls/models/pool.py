"""A small pool of warm WebSockets for one tier.

One response in flight per socket, so an inline completion never waits behind an
edit: each request checks out a socket of its own and gives it back when its stream
is done. When all are busy, requests wait first come, first served; otherwise a
request takes the most recently used idle socket, so that one editing session's
requests, one after another, read as one persistent connection, while the others
serve concurrent work. The pool keeps the sockets usable without touching a stream
in progress:

- opened and warmed (`generate: false`) in the background by `start()`;
- a socket whose peer went away (keepalive timeout, server close) is replaced in the
  background while idle;
- a socket older than `max_age` is rotated (closed and reopened), well before the
  service's 60-minute limit: in the background when it comes of age while idle, when
  it is handed back if it came of age while busy, and at checkout if a timer was late
  (a suspended laptop): a socket past `max_age` is never handed out;
- a socket handed back with its response unfinished (the request was cancelled) is
  drained within `drain_budget` seconds, or closed and reopened: whichever is cheaper.

A socket whose last response may be continued (a refine of the edit it served, with
`previous_response_id`: connection-local state) can be *held* (`hold`): other
requests take any other idle socket first, and get it only when no other is idle;
`checkout(prefer=sock)` takes it back for the continuation. Whether the chain
survived is the socket's business (`last_response_id`), never assumed here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sparkls.errors import ModelError
from sparkls.models.websocket import ResponsesSocket

logger = logging.getLogger(__name__)

# An idle socket is rotated in the background no sooner than this after it opened, so
# a tiny `max_age` (a test's) cannot turn rotation into a reconnect loop; requests
# still never get a socket past `max_age` (checkout rotates it).
MIN_BACKGROUND_ROTATION = 1.0


class SocketPool:
    def __init__(
        self,
        factory: Callable[[], ResponsesSocket],
        size: int,
        *,
        warm: Callable[[ResponsesSocket], Awaitable[Any]] | None = None,
        max_age: float = 55 * 60,
        drain_budget: float = 0.25,
    ) -> None:
        self._sockets = [factory() for _ in range(max(1, size))]
        self._idle: deque[ResponsesSocket] = deque(self._sockets)
        self._waiters: deque[asyncio.Future[ResponsesSocket]] = deque()
        self._warm = warm
        self.max_age = max_age
        self.drain_budget = drain_budget
        self._tasks: set[asyncio.Task[Any]] = set()
        self._settling: set[asyncio.Task[Any]] = set()  # drains and rotations under way
        self._watched: dict[ResponsesSocket, float] = {}  # socket -> the connection (opened_at) watched
        self._starting: asyncio.Task[None] | None = None
        self._closed = False
        self._held: dict[ResponsesSocket, int] = {}  # socket -> holders (a refine may follow)

    async def start(self) -> None:
        """Open and warm every idle socket, concurrently; raises the first failure.

        Concurrent calls share one run, so a request that comes while the pool is
        warming waits for a warm socket instead of opening a cold one.
        """
        if self._starting is None or self._starting.done():
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        sockets = [s for s in self._idle if not s.is_open]
        for s in sockets:
            self._idle.remove(s)
        results = await asyncio.gather(*(self._open(s) for s in sockets), return_exceptions=True)
        for s in sockets:
            self._give_back(s)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]

    async def _open(self, sock: ResponsesSocket) -> None:
        await sock.connect()
        if self._warm is not None:
            await self._warm(sock)
        self._watch_current(sock)

    def _watch_current(self, sock: ResponsesSocket) -> None:
        """Watch `sock`'s current connection, once (it may have reconnected by itself)."""
        if sock.is_open and self._watched.get(sock) != sock.opened_at:
            self._watched[sock] = sock.opened_at
            self._spawn(self._watch(sock))

    async def _watch(self, sock: ResponsesSocket) -> None:
        """Replace `sock` in the background if its connection dies while it is idle;
        rotate it when it comes of age while idle."""
        watched = sock.opened_at
        try:
            async with asyncio.timeout(max(MIN_BACKGROUND_ROTATION, self.max_age) - sock.age):
                await sock.wait_closed()
            expired = False
        except TimeoutError:
            expired = True
        if self._closed or sock.opened_at != watched or sock not in self._idle:
            return  # reopened already, or in use: its user (or the hand-back) deals with it
        self._idle.remove(sock)
        if expired:
            await self._settle(sock, self._rotate(sock))
            return
        try:
            await self._open(sock)
            logger.info("replaced a closed connection to %s", sock.url)
        except ModelError as exc:
            logger.info("could not replace a closed connection to %s: %s", sock.url, exc)
        finally:
            self._give_back(sock)

    def hold(self, sock: ResponsesSocket) -> None:
        """Keep `sock` for a continuation of its last response: others take it last."""
        self._held[sock] = self._held.get(sock, 0) + 1

    def release(self, sock: ResponsesSocket) -> None:
        """Undo one `hold`."""
        left = self._held.get(sock, 0) - 1
        if left > 0:
            self._held[sock] = left
        else:
            self._held.pop(sock, None)

    def _pick_idle(self, prefer: ResponsesSocket | None) -> ResponsesSocket:
        """`prefer` when it is idle; else the most recently used idle socket that is
        not held (sequential requests share one connection); else a held one."""
        if prefer is not None and prefer in self._idle:
            self._idle.remove(prefer)
            return prefer
        for sock in reversed(self._idle):
            if sock not in self._held:
                self._idle.remove(sock)
                return sock
        return self._idle.pop()

    @contextlib.asynccontextmanager
    async def checkout(self, *, prefer: ResponsesSocket | None = None) -> AsyncIterator[ResponsesSocket]:
        """A socket of one's own for one request, in FIFO order when all are busy;
        `prefer` (the socket that served the response being continued) if it is idle."""
        if self._closed:
            raise RuntimeError("the pool is closed")
        if self._starting is None or not self._starting.done():
            await self.start()  # the first request of a session, or one during warm-up
        if self._idle and not self._waiters:
            sock = self._pick_idle(prefer)
        else:
            waiter: asyncio.Future[ResponsesSocket] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                sock = await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._give_back(waiter.result())
                else:
                    self._waiters.remove(waiter)
                raise
        try:
            if sock.is_open and sock.age > self.max_age:
                await self._rotate(sock)  # late timer: pay the handshake rather than be refused
            yield sock
        finally:
            self._hand_back(sock)

    def _hand_back(self, sock: ResponsesSocket) -> None:
        if self._closed:
            return
        if sock.pending:
            self._settling.add(self._spawn(self._settle(sock, self._drain_or_replace(sock))))
        elif sock.is_open and sock.age > self.max_age:
            self._settling.add(self._spawn(self._settle(sock, self._rotate(sock))))
        else:
            self._watch_current(sock)  # it may have reconnected while in use
            self._give_back(sock)

    async def _drain_or_replace(self, sock: ResponsesSocket) -> None:
        """Finish an abandoned response: a short rest is read and dropped; a long one
        costs a new connection instead (closing is the only hard cancel)."""
        if not await sock.drain(self.drain_budget):
            logger.info("closed a connection to %s behind an abandoned response", sock.url)
            await self._open(sock)

    async def _rotate(self, sock: ResponsesSocket) -> None:
        logger.info("rotating a %.0f-second-old connection to %s", sock.age, sock.url)
        await sock.close()
        await self._open(sock)

    async def _settle(self, sock: ResponsesSocket, work: Awaitable[Any]) -> None:
        try:
            await work
        except ModelError as exc:
            logger.info("background work on a connection to %s failed: %s", sock.url, exc)
        finally:
            self._give_back(sock)

    def _give_back(self, sock: ResponsesSocket) -> None:
        if self._closed:
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(sock)
                return
        self._idle.append(sock)

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._settling.discard)
        return task

    async def settled(self) -> None:
        """Wait until no abandoned response is left on any socket (drained, or its
        socket closed and replaced): a speculative request that must never overlap
        the one it supersedes waits for this."""
        while pending := [t for t in self._settling if not t.done()]:
            await asyncio.wait(pending)

    async def close(self) -> None:
        """Close every socket and stop background work; idempotent."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        for waiter in self._waiters:
            waiter.cancel()
        await asyncio.gather(*(s.close() for s in self._sockets), return_exceptions=True)
