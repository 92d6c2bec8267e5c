"""Streaming over HTTP: Responses SSE and Chat Completions SSE, on a kept-alive client.

`HTTPStreamer` owns one `httpx.AsyncClient` (HTTP/1.1, connection kept alive between
requests) for one tier. `stream(body)` POSTs and yields the same `Event` records as
the WebSocket client, so the session above does not care which transport served.
httpx exceptions are translated here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from collections.abc import AsyncIterator
from typing import Any, Literal

import httpx

from sparkls import __version__
from sparkls.errors import ConnectError, EndpointNotFound, RequestTimeout, StreamError
from sparkls.models.events import (
    Completed,
    Event,
    Where,
    api_error,
    classify,
    classify_chat,
    retry_after_from_headers,
)
from sparkls.models.explain import connect_failure, not_found_message
from sparkls.models.sse import SSEDecoder

logger = logging.getLogger(__name__)

Api = Literal["responses", "chat"]
BODY_END_WAIT = 0.5  # seconds to wait for the end of a completed response's body


# Chat Completions' finish reasons that mean the answer is not whole.
CUT_OFF_FINISH = frozenset({"length", "content_filter"})


def tls_context(custom: ssl.SSLContext | None) -> ssl.SSLContext:
    """The client's TLS context: `custom` (a tier's CA bundle), else the one httpx would
    make (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR). Reading a bundle takes
    tens of milliseconds: callers make it in a worker thread, off the event loop."""
    return custom if custom is not None else httpx.create_ssl_context()


class HTTPStreamer:
    """POST + server-sent events to one tier's API root."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        where: Where,
        *,
        api: Api = "responses",
        connect_timeout: float | None = 10.0,
        request_timeout: float | None = 120.0,
        verify: ssl.SSLContext | bool = True,
        keep_alive: bool = True,
    ) -> None:
        self.where = where
        self.api = api
        self.path = "/responses" if api == "responses" else "/chat/completions"
        self.url = base_url.rstrip("/") + self.path
        limits = httpx.Limits(max_keepalive_connections=4 if keep_alive else 0, keepalive_expiry=120)
        headers = {"Accept": "text/event-stream", "User-Agent": f"sparkls/{__version__}"}
        if api_key is not None:  # None: a local server, sent no key (config.Settings.api_key_for)
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(request_timeout, connect=connect_timeout),
            limits=limits,
            verify=verify,
        )

    async def stream(self, body: dict[str, Any]) -> AsyncIterator[Event]:
        """POST `body` and yield its events until the response completes."""
        try:
            async with self._client.stream("POST", self.url, json=body) as response:
                if response.status_code != 200:
                    raise await self._status_error(response)
                async for event in self._events(response):
                    yield event
                    if isinstance(event, Completed):
                        return
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            cause = TimeoutError() if isinstance(exc, httpx.ConnectTimeout) else exc
            raise ConnectError(connect_failure(self.where.tier, self.url, cause)) from exc
        except httpx.TimeoutException as exc:
            raise RequestTimeout(
                f"The {self.where.tier} tier at {self.where.host} did not answer in time ({type(exc).__name__})."
            ) from exc
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError) as exc:
            raise StreamError(
                f"The connection to the {self.where.tier} tier at {self.where.host} broke "
                f"before the response completed ({type(exc).__name__})."
            ) from exc
        raise StreamError(f"The {self.where.tier} tier's stream ended without completing.")

    async def _events(self, response: httpx.Response) -> AsyncIterator[Event]:
        decoder = SSEDecoder()
        chunks = response.aiter_text()
        if self.api == "chat":
            async for event in self._chat_events(decoder, chunks):
                yield event
            return
        async for chunk in chunks:
            for sse in decoder.feed(chunk):
                event = classify(_json(sse.data, self.where), self.where)
                if isinstance(event, Completed):
                    yield await _after_body(chunks, event)
                    return
                if event is not None:
                    yield event

    async def _chat_events(self, decoder: SSEDecoder, chunks: AsyncIterator[str]) -> AsyncIterator[Event]:
        """Chat chunks as records; the end (`[DONE]`, or the body's end after a
        `finish_reason`) as `Completed`, incomplete when the reason says cut off."""
        response_id, usage, finish = "", {}, None

        def end() -> Completed:
            return Completed(response_id, usage, finish if finish in CUT_OFF_FINISH else None)

        async for chunk in chunks:
            for sse in decoder.feed(chunk):
                if sse.data.strip() == "[DONE]":
                    yield await _after_body(chunks, end())
                    return
                payload = _json(sse.data, self.where)
                response_id = payload.get("id", response_id)
                if isinstance(payload.get("usage"), dict):
                    usage = payload["usage"]
                records, reason = classify_chat(payload, self.where)
                finish = reason or finish
                for record in records:
                    yield record
        if finish is not None:  # a server that ends the body without `[DONE]`
            yield end()

    async def _status_error(self, response: httpx.Response) -> Exception:
        raw = await response.aread()
        code, message = None, ""
        try:
            err = json.loads(raw).get("error") or {}
            if isinstance(err, dict):
                code, message = err.get("code") or err.get("type"), str(err.get("message") or "")
            else:
                message = str(err)
        except (ValueError, AttributeError):
            message = raw.decode("utf-8", "replace")[:200]
        if response.status_code == 404 and (wrong := not_found_message(self.where.tier, self.url, message, code)):
            return EndpointNotFound(wrong)
        return api_error(
            self.where,
            response.status_code,
            code,
            message or response.reason_phrase,
            retry_after=retry_after_from_headers(response.headers),
        )

    async def aclose(self) -> None:
        await self._client.aclose()


async def _after_body(chunks: AsyncIterator[str], completed: Completed) -> Completed:
    """Read the body's end (the last chunk is already on its way) before reporting
    completion, so httpx can reuse the connection; give up after a moment."""
    try:
        async with asyncio.timeout(BODY_END_WAIT):
            async for _ in chunks:
                pass
    except TimeoutError:
        logger.debug("the response body did not end after completion; the connection is dropped")
    return completed


def _json(data: str, where: Where) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise StreamError(f"The {where.tier} tier sent an event that is not JSON.") from exc
    return value if isinstance(value, dict) else {}
