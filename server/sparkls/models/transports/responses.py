"""Responses over HTTP: `POST /responses` and its server-sent events.

Over `HTTPStreamer` (models/http.py), one kept-alive client per tier. It serves a
tier whose `transport` is `http`, and a WebSocket tier while its connections keep
failing (the session's fallback, until they heal). A follow-up continues its chain
only when the response was stored (`store: true`); else the whole conversation goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any, ClassVar

from sparkls.config import TierSettings
from sparkls.models.chain import turn_for
from sparkls.models.events import Event, Sent, responses_body
from sparkls.models.http import Api, HTTPStreamer, tls_context
from sparkls.models.transports.base import Link, Request, Transport


class ResponsesSSE(Transport):
    name = "http"
    carries = "http"
    api: ClassVar[Api] = "responses"

    def __init__(self, link: Link) -> None:
        super().__init__(link)
        self._client: HTTPStreamer | None = None

    @classmethod
    def fits(cls, tier: TierSettings) -> bool:
        return tier.api == cls.api

    async def client(self) -> HTTPStreamer:
        """The tier's HTTP client, made on first use (reading the key: MissingApiKey). Its
        TLS context (a CA bundle read) is made in a worker thread: the loop does not wait."""
        if self._client is None:
            link, tier = self.link, self.link.tier
            key = link.api_key()
            verify = await asyncio.to_thread(lambda: tls_context(link.ssl_context()))
            if self._client is None:  # another request may have made it meanwhile
                self._client = HTTPStreamer(
                    tier.base_url, key, link.where, api=self.api, connect_timeout=tier.connect_timeout,
                    request_timeout=tier.request_timeout, verify=verify,
                )
        return self._client

    async def start(self) -> None:
        """Make the client: a missing key or a CA file that does not load is said now."""
        await self.client()

    def body(self, request: Request) -> tuple[dict[str, Any], str | None]:
        """The POST body and the response it continues."""
        tier = self.link.tier
        turn, previous = turn_for(request.follow_up, request.prompt, None)
        body = responses_body(
            tier.model, turn, cache_key=self.link.cache_key, previous_response_id=previous, store=tier.store
        )
        return body, previous

    async def stream(self, request: Request) -> AsyncIterator[Event]:
        body, previous = self.body(request)
        yield Sent(None, chained=previous is not None)
        async with aclosing((await self.client()).stream(body)) as events:
            async for event in events:
                yield event

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
