"""One persistent WebSocket to the Responses API (WebSocket mode).

`ResponsesSocket` owns a single connection: it opens it on demand (or ahead of time
with `connect()`), sends `response.create` messages one at a time — the API allows one
response in flight per connection — and yields the events of each response until it
completes. Foreign exceptions are translated here into `sparkls.errors`.

A response abandoned half-way (its consumer stopped reading) closes the socket: the
only way to stop the server's stream, and the next request must not see its frames.
The next `stream()` opens a fresh connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from sparkls import __version__
from sparkls.errors import ConnectError, ModelError, StreamError
from sparkls.models.events import Completed, Event, Where, api_error, classify

logger = logging.getLogger(__name__)

BETA_HEADER = ("OpenAI-Beta", "responses_websockets=2026-02-06")


def _status_error(exc: InvalidStatus, where: Where) -> Exception:
    response = exc.response
    code, message = None, ""
    try:
        body = json.loads(response.body or b"{}")
        err = body.get("error") or {}
        code, message = err.get("code"), err.get("message", "")
    except (ValueError, AttributeError):
        message = (response.body or b"").decode("utf-8", "replace")[:200]
    retry_after = response.headers.get("retry-after")
    return api_error(
        where,
        response.status_code,
        code,
        message or response.reason_phrase,
        retry_after=float(retry_after) if retry_after and retry_after.isdigit() else None,
    )


class ResponsesSocket:
    """A lazily (re)opened WebSocket connection to `url`; one response at a time."""

    def __init__(self, url: str, api_key: str, where: Where, *, connect_timeout: float | None = 10.0) -> None:
        self.url = url
        self.where = where
        self._api_key = api_key
        self._connect_timeout = connect_timeout
        self._ws: ClientConnection | None = None
        self._lock = asyncio.Lock()
        self.connections_opened = 0

    @property
    def is_open(self) -> bool:
        return self._ws is not None and self._ws.state.name == "OPEN"

    async def connect(self) -> None:
        """Open the connection now if it is not open (used to warm up)."""
        async with self._lock:
            await self._ensure_open()

    async def _ensure_open(self) -> ClientConnection:
        if self._ws is not None and self.is_open:
            return self._ws
        await self._drop()
        try:
            self._ws = await connect(
                self.url,
                additional_headers=[("Authorization", f"Bearer {self._api_key}"), BETA_HEADER],
                user_agent_header=f"sparkls/{__version__}",
                open_timeout=self._connect_timeout,
                compression=None,  # frames are small; deflate costs more time than it saves
                max_size=None,
                ping_interval=20,
                ping_timeout=20,
            )
        except InvalidStatus as exc:
            raise _status_error(exc, self.where) from exc
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__
            raise ConnectError(
                f"Cannot connect to the {self.where.tier} tier at {self.url}: {reason}"
            ) from exc
        self.connections_opened += 1
        logger.info("connected to %s (%d connections so far)", self.url, self.connections_opened)
        return self._ws

    async def stream(self, message: dict[str, Any]) -> AsyncIterator[Event]:
        """Send one `response.create` and yield its events until it completes."""
        async with self._lock:
            ws = await self._ensure_open()
            payload = json.dumps(message)
            try:
                await ws.send(payload)
            except ConnectionClosed:
                # Closed before our frame left (idle timeout, server restart):
                # nothing was processed, so sending on a fresh socket is safe.
                ws = await self._ensure_open()
                await ws.send(payload)
            completed = False
            try:
                while True:
                    try:
                        raw = await ws.recv()
                        data = json.loads(raw)
                    except ConnectionClosed as exc:
                        raise StreamError(
                            f"The connection to the {self.where.tier} tier at {self.where.host} "
                            f"closed before the response completed ({exc})."
                        ) from exc
                    except ValueError as exc:
                        raise StreamError(f"The {self.where.tier} tier sent a frame that is not JSON.") from exc
                    try:
                        event = classify(data, self.where)
                    except ModelError:
                        completed = True  # an error event ends the response; the socket is fine
                        raise
                    if isinstance(event, Completed):
                        completed = True  # before yielding: the consumer may stop reading here
                        yield event
                        return
                    if event is not None:
                        yield event
            finally:
                if not completed:
                    await self._drop()

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            # Abort rather than wait for a closing handshake behind a stream we do not want.
            ws.transport.abort()
            await ws.close()

    async def close(self) -> None:
        """Close the connection; idempotent."""
        await self._drop()
