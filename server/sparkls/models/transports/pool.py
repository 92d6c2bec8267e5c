"""The pool: warm WebSockets, one response at a time on each, for a server without lanes.

Over `SocketPool` (models/pool.py): each request checks out a socket of its own and
gives it back when its stream is done. The tier uses it when its `lanes` setting is
off, or once its server turned lanes down. A follow-up continues its chain only on
the socket that served it, which the session keeps for it (`hold`) meanwhile.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

from sparkls.config import TierSettings
from sparkls.models.chain import Chain, turn_for
from sparkls.models.events import Event, response_create
from sparkls.models.pool import SocketPool
from sparkls.models.transports.base import Link, Request, Transport, dial_options, marked
from sparkls.models.websocket import ResponsesSocket


class Pool(Transport):
    name = "pool"
    carries = "websocket"
    persistent = True

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._pool: SocketPool | None = None

    @classmethod
    def fits(cls, tier: TierSettings) -> bool:
        return tier.api == "responses" and tier.transport == cls.carries

    @property
    def pool(self) -> SocketPool:
        """The tier's pool, made on first use (reading the key: MissingApiKey)."""
        if self._pool is None:
            link, tier = self.link, self.link.tier
            key, options = link.api_key(), dial_options(link)

            def make_socket() -> ResponsesSocket:
                return ResponsesSocket(
                    tier.websocket_url,
                    key,
                    link.where,
                    connect_timeout=options["connect_timeout"],
                    ssl_context=options["ssl_context"],
                    ping_interval=options["ping"][0],
                    ping_timeout=options["ping"][1],
                    stall=tier.keepalive_timeout,
                )

            self._pool = SocketPool(
                make_socket,
                tier.pool_size,
                warm=self._warm if link.warm is not None else None,
                max_age=tier.max_connection_age,
                drain_budget=tier.drain_budget,
            )
        return self._pool

    async def _warm(self, sock: ResponsesSocket) -> None:
        link = self.link
        assert link.warm is not None
        await sock.warm(link.tier.model, link.warm, cache_key=link.cache_key)

    async def start(self) -> None:
        await self.pool.start()

    async def stream(self, request: Request) -> AsyncIterator[Event]:
        tier, follow_up = self.link.tier, request.follow_up
        chain = follow_up.chain if follow_up is not None else None
        async with self.pool.checkout(prefer=chain.socket if chain else None) as sock:  # type: ignore[arg-type]
            turn, previous = turn_for(follow_up, request.prompt, sock)
            message = response_create(
                tier.model, turn, previous_response_id=previous, cache_key=self.link.cache_key, store=tier.store
            )
            async with aclosing(sock.stream(message)) as events:
                async for event in events:
                    yield marked(event, previous)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()

    def hold(self, chain: Chain | None) -> None:
        if chain is not None and isinstance(chain.socket, ResponsesSocket) and self._pool is not None:
            self._pool.hold(chain.socket)

    def release(self, chain: Chain | None) -> None:
        if chain is not None and isinstance(chain.socket, ResponsesSocket) and self._pool is not None:
            self._pool.release(chain.socket)

    async def settled(self) -> None:
        if self._pool is not None:
            await self._pool.settled()
