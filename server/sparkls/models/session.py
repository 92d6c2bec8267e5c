"""A model tier as the engine sees it: `complete(prompt) -> Reply`, over a kept-open link.

`TierSession` binds one tier's settings to its transport. For the WebSocket transport
it keeps one `ResponsesSocket` open for the whole editor session, so N edits share
one connection; `warm()` opens it ahead of the first request.
"""

from __future__ import annotations

import logging
import time
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from sparkls.config import Settings, TierSettings
from sparkls.context.prompt import Prompt
from sparkls.errors import ConfigError, StreamError
from sparkls.models.events import Completed, TextDelta, Where, response_create
from sparkls.models.websocket import ResponsesSocket

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    response_id: str
    ttft_ms: float  # request sent -> first text delta
    stream_ms: float  # first text delta -> response completed
    usage: dict[str, Any] = field(default_factory=dict)


class TierSession:
    """One tier ("fast" or "deep") and its open connection."""

    def __init__(self, name: str, settings: Settings) -> None:
        self.name = name
        self.tier: TierSettings = getattr(settings, name)
        self._settings = settings
        self._socket: ResponsesSocket | None = None
        self.where = Where(name, self.tier.host, self.tier.model)

    @property
    def transport(self) -> str:
        return self.tier.transport

    @property
    def connections_opened(self) -> int:
        return self._socket.connections_opened if self._socket else 0

    def _get_socket(self) -> ResponsesSocket:
        if self.tier.transport != "websocket":
            raise ConfigError(
                f"The {self.name} tier is set to transport {self.tier.transport!r} with api "
                f"{self.tier.api!r}; this version of sparkls serves edits over the Responses "
                "WebSocket only. Set transport = \"websocket\" and api = \"responses\"."
            )
        if self._socket is None:
            key = self._settings.api_key_for(self.name)  # raises MissingApiKey
            self._socket = ResponsesSocket(
                self.tier.websocket_url, key, self.where, connect_timeout=self.tier.connect_timeout
            )
        return self._socket

    async def warm(self) -> None:
        """Open the connection before the first request needs it."""
        await self._get_socket().connect()

    async def complete(self, prompt: Prompt) -> Reply:
        """Send `prompt` and collect the whole reply."""
        socket = self._get_socket()
        message = response_create(self.tier.model, prompt)
        parts: list[str] = []
        sent = time.perf_counter()
        first: float | None = None
        async with aclosing(socket.stream(message)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    if first is None:
                        first = time.perf_counter()
                    parts.append(event.text)
                elif isinstance(event, Completed):
                    done = time.perf_counter()
                    first = first or done
                    return Reply(
                        "".join(parts),
                        event.response_id,
                        ttft_ms=(first - sent) * 1000,
                        stream_ms=(done - first) * 1000,
                        usage=event.usage,
                    )
        raise StreamError(f"The {self.name} tier's stream ended without completing.")

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
