"""A model tier as the engine sees it: `complete(prompt) -> Reply`, kept healthy all day.

`TierSession` binds one tier's settings to its transports: a `SocketPool` of warm
WebSockets (Responses API, WebSocket mode) and an `HTTPStreamer` (Responses SSE, or
Chat Completions SSE for OpenAI-compatible servers). It retries what `is_retryable`
allows, falls back to HTTP after repeated WebSocket failures and heals back after a
cool-down, and reports its state (`TierStatus`) to whoever listens.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sparkls.config import Settings, TierSettings
from sparkls.guard.wire import Wire, require_wire
from sparkls.errors import (
    ApiError,
    AuthError,
    ConnectError,
    HandshakeRefused,
    ModelError,
    ModelRefused,
    RateLimited,
    ReplyCutOff,
    RequestTimeout,
    StreamError,
)
from sparkls.models.answer import AnswerBuilder
from sparkls.models.chain import PREVIOUS_RESPONSE_NOT_FOUND, Chain, FollowUp, turn_for
from sparkls.models.progress import STREAM_PROGRESS, STREAM_STALLED
from sparkls.models.events import (
    Completed,
    Event,
    RefusalDelta,
    TextDelta,
    Where,
    chat_body,
    response_create,
    responses_body,
)
from sparkls.models.http import HTTPStreamer
from sparkls.models.pool import SocketPool
from sparkls.models.retry import MAX_ATTEMPTS, backoff, is_retryable, retry_delay
from sparkls.models.websocket import ResponsesSocket

logger = logging.getLogger(__name__)

# Failures that are about one request's answer, not the tier's health: they never
# mark the tier failing (a refusal or a cut-off reply says nothing of the service).
REQUEST_ERRORS = (ApiError, ReplyCutOff, ModelRefused)


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    response_id: str
    ttft_ms: float  # request sent -> first text delta
    stream_ms: float  # first text delta -> response completed
    transport: str = "websocket"
    attempts: int = 1
    usage: dict[str, Any] = field(default_factory=dict)
    chain: Chain | None = None  # how a follow-up can continue this response
    chained: bool = False  # it continued an earlier response (`previous_response_id`)


@dataclass(slots=True)
class TierStatus:
    """What the user's status bar shows for one tier (`sparkls/status`)."""

    tier: str
    model: str
    host: str
    state: str = "idle"  # idle | connecting | ready | degraded | failing
    transport: str = "websocket"  # the transport requests use now
    reason: str | None = None  # why degraded or failing
    last: dict[str, Any] | None = None  # the last request: transport and timings
    location: str = "remote"  # "local": its host is loopback, requests never leave the machine

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ssl_context_for(tier: TierSettings) -> ssl.SSLContext | None:
    return ssl.create_default_context(cafile=tier.ca_file) if tier.ca_file else None


class TierSession:
    """One tier ("fast" or "deep"): its connections, retries, fallback and status."""

    def __init__(
        self,
        name: str,
        settings: Settings,
        *,
        warm: Wire | None = None,
        cache_key: str | None = None,
        on_status: Callable[[TierStatus], None] | None = None,
    ) -> None:
        self.name = name
        self.tier: TierSettings = getattr(settings, name)
        self._settings = settings
        self.where = Where(name, self.tier.host, self.tier.model)
        self.cache_key = cache_key
        self._warm_wire = warm
        self._on_status = on_status
        self._pool: SocketPool | None = None
        self._http: HTTPStreamer | None = None
        self._ws_failures = 0
        self._heal: asyncio.Task[None] | None = None
        self.status = TierStatus(
            name, self.tier.model, self.tier.host, transport=self._configured_transport, location=self.tier.location
        )

    @property
    def _configured_transport(self) -> str:
        return "websocket" if self.tier.transport == "websocket" else "http"

    @property
    def transport(self) -> str:
        return self.status.transport

    def _set_status(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.status, key, value)
        if self._on_status is not None:
            self._on_status(self.status)

    def _get_pool(self) -> SocketPool:
        if self._pool is None:
            key = self._settings.api_key_for(self.name)  # raises MissingApiKey
            tier = self.tier
            context = ssl_context_for(tier)

            def make_socket() -> ResponsesSocket:
                return ResponsesSocket(
                    tier.websocket_url,
                    key,
                    self.where,
                    connect_timeout=tier.connect_timeout,
                    ssl_context=context,
                    ping_interval=tier.keepalive_interval,
                    ping_timeout=tier.keepalive_timeout,
                )

            self._pool = SocketPool(
                make_socket,
                tier.pool_size,
                warm=self._warm_socket if self._warm_wire is not None else None,
                max_age=tier.max_connection_age,
                drain_budget=tier.drain_budget,
            )
        return self._pool

    async def _warm_socket(self, sock: ResponsesSocket) -> None:
        assert self._warm_wire is not None
        await sock.warm(self.tier.model, self._warm_wire, cache_key=self.cache_key)

    def _get_http(self) -> HTTPStreamer:
        if self._http is None:
            self._http = HTTPStreamer(
                self.tier.base_url,
                self._settings.api_key_for(self.name),
                self.where,
                api=self.tier.api,
                connect_timeout=self.tier.connect_timeout,
                request_timeout=self.tier.request_timeout,
                verify=ssl_context_for(self.tier) or True,
            )
        return self._http

    async def warm(self) -> None:
        """Open and warm the WebSocket pool (HTTP tiers: check the key); never raises."""
        if self.transport != "websocket":
            try:
                self._get_http()
            except ModelError as exc:  # no API key
                self._set_status(state="failing", reason=str(exc))
            else:
                self._set_status(state="ready")
            return
        self._set_status(state="connecting", reason=None)
        try:
            await self._get_pool().start()
        except ModelError as exc:
            self._websocket_failed(exc)
            if self.transport == "websocket":
                self._set_status(state="failing", reason=str(self._explained(exc)))
            return
        self._ws_failures = 0
        self._set_status(state="ready", reason=None)

    def hold(self, chain: Chain | None) -> None:
        """Keep the socket `chain` was served on for its follow-up (`SocketPool.hold`)."""
        if chain is not None and chain.socket is not None and self._pool is not None:
            self._pool.hold(chain.socket)

    def release(self, chain: Chain | None) -> None:
        if chain is not None and chain.socket is not None and self._pool is not None:
            self._pool.release(chain.socket)

    async def follow(self, follow_up: FollowUp, *, notify: Callable[[str], None] | None = None) -> Reply:
        """Continue `follow_up.chain` with its short turn where the chain still holds,
        else send the whole conversation (`complete`)."""
        return await self.complete(follow_up.full, notify=notify, follow_up=follow_up)

    async def complete(
        self, prompt: Wire, *, notify: Callable[[str], None] | None = None, follow_up: FollowUp | None = None
    ) -> Reply:
        """Send `prompt` and collect the whole reply, retrying what may be retried.
        With `follow_up`, its short turn goes instead where its chain can be continued;
        a chain the service no longer knows (`previous_response_not_found`) is resent
        in full at once. Only the guard's output (`Wire`) is accepted."""
        require_wire(prompt)
        if follow_up is not None:
            require_wire(follow_up.short)
        delays = backoff()
        stream_retried = False
        attempt = 0
        while True:
            attempt += 1
            transport = self.transport
            try:
                reply = await self._complete_once(transport, prompt, attempt, follow_up)
            except ModelError as exc:
                if follow_up is not None and isinstance(exc, ApiError) and exc.api_code == PREVIOUS_RESPONSE_NOT_FOUND:
                    # The service no longer knows the response: the whole conversation, at once.
                    logger.info("%s tier: the chain is gone (%s); resending in full", self.name, exc)
                    follow_up = None
                    continue
                if transport == "websocket":
                    self._websocket_failed(exc)
                retry = is_retryable(exc) and attempt < MAX_ATTEMPTS
                if isinstance(exc, StreamError):
                    retry, stream_retried = retry and not stream_retried, True
                if not retry:
                    explained = self._explained(exc)
                    # A degraded tier stays degraded (its next request goes over HTTP).
                    if not isinstance(exc, REQUEST_ERRORS) and self.status.state != "degraded":
                        self._set_status(state="failing", reason=str(explained))
                    if explained is exc:
                        raise
                    raise explained from exc
                delay = retry_delay(exc, delays)
                if isinstance(exc, RateLimited) and notify is not None:
                    notify(f"{exc} Retrying in {delay:g} s.")
                logger.info("%s tier: retrying after %s (attempt %d, in %.2f s)", self.name, exc, attempt, delay)
                await asyncio.sleep(delay)
                continue
            if transport == "websocket":
                self._ws_failures = 0
            last = {"transport": transport, "ttft_ms": round(reply.ttft_ms, 2), "stream_ms": round(reply.stream_ms, 2)}
            state = "degraded" if self.status.state == "degraded" else "ready"
            self._set_status(state=state, reason=self.status.reason if state == "degraded" else None, last=last)
            return reply

    async def _complete_once(self, transport: str, prompt: Wire, attempt: int, follow_up: FollowUp | None) -> Reply:
        chain, store = (follow_up.chain if follow_up else None), self.tier.store
        try:
            async with asyncio.timeout(self.tier.request_timeout):
                if transport == "websocket":
                    async with self._get_pool().checkout(prefer=chain.socket if chain else None) as sock:
                        sent, previous = turn_for(follow_up, prompt, sock)
                        message = response_create(
                            self.tier.model, sent, previous_response_id=previous, cache_key=self.cache_key, store=store
                        )
                        reply = await self._collect(sock.stream(message), transport, attempt)
                        chain = Chain(reply.response_id, transport, store, sock)
                        return replace(reply, chain=chain, chained=previous is not None)
                if self.tier.api != "responses":
                    body = chat_body(self.tier.model, prompt)
                    return await self._collect(self._get_http().stream(body), transport, attempt)
                sent, previous = turn_for(follow_up, prompt, None)
                body = responses_body(
                    self.tier.model, sent, cache_key=self.cache_key, previous_response_id=previous, store=store
                )
                reply = await self._collect(self._get_http().stream(body), transport, attempt)
                return replace(reply, chain=Chain(reply.response_id, transport, store), chained=previous is not None)
        except TimeoutError as exc:
            raise RequestTimeout(
                f"The {self.name} tier did not finish within {self.tier.request_timeout:g} s "
                "(setting `request_timeout`)."
            ) from exc

    def _explained(self, exc: ModelError) -> ModelError:
        """A local server that refused the request sent no key: say how to give it one."""
        if not isinstance(exc, AuthError) or not self.tier.is_local:
            return exc
        try:
            sent_none = self._settings.api_key_for(self.name) is None
        except ModelError:
            return exc
        if not sent_none:
            return exc
        return AuthError(
            f"{exc} (No key was sent: a server on this machine gets only a key given to its tier, "
            f"`{self.name}.api_key` or `{self.name}.api_key_env`; {self._settings.api_key_env} never goes to it.)"
        )

    def _websocket_failed(self, exc: ModelError) -> None:
        """Count transport failures; after enough of them, serve over HTTP for a while."""
        if not isinstance(exc, (ConnectError, StreamError)) or self.tier.api != "responses":
            return
        self._ws_failures += 1
        refused = isinstance(exc, HandshakeRefused)  # a proxy will not let it through: no point retrying
        if (refused or self._ws_failures >= self.tier.fallback_after) and self.transport == "websocket":
            logger.warning(
                "%s tier: WebSocket failing (%s); using HTTP for %.0f s", self.name, exc, self.tier.fallback_cooldown
            )
            self._set_status(state="degraded", transport="http", reason=str(exc))
            self._heal = asyncio.ensure_future(self._heal_after(self.tier.fallback_cooldown))

    async def _heal_after(self, delay: float) -> None:
        """After the cool-down, try the WebSocket again; back to it if it works."""
        while True:
            await asyncio.sleep(delay)
            try:
                await self._get_pool().start()
            except ModelError as exc:
                delay = min(delay * 2, self.tier.fallback_cooldown_max)
                logger.info("%s tier: WebSocket still failing (%s); next try in %.0f s", self.name, exc, delay)
                continue
            self._ws_failures = 0
            logger.info("%s tier: WebSocket healthy again", self.name)
            self._set_status(state="ready", transport="websocket", reason=None)
            return

    async def settled(self) -> None:
        """Wait until no cancelled response streams on this tier's sockets (pool.py)."""
        if self._pool is not None:
            await self._pool.settled()

    async def close(self) -> None:
        if self._heal is not None:
            self._heal.cancel()
        if self._pool is not None:
            await self._pool.close()
        if self._http is not None:
            await self._http.aclose()


    async def _collect(self, events: AsyncIterator[Event], transport: str, attempt: int) -> Reply:
        """Read one response to its end: the answer (`models/answer.py`) and timings.

        If no text has come `first_token_timeout` seconds after the request left, the
        user is told once (`STREAM_STALLED`, else nothing: an inline completion
        is silent) and the request goes on."""
        progress = STREAM_PROGRESS.get()
        answer = AnswerBuilder(self.where)
        sent = time.perf_counter()
        first: float | None = None
        stall = self._stall_timer()
        try:
            async with aclosing(events) as stream:
                async for event in stream:
                    if isinstance(event, (TextDelta, RefusalDelta)):
                        if first is None:
                            first = time.perf_counter()
                            if stall is not None:
                                stall.cancel()
                        if progress is not None:
                            progress(1)
                    elif isinstance(event, Completed):
                        done = time.perf_counter()
                        text = answer.answer(event)  # raises on a refusal or a cut-off reply
                        first = first or done
                        return Reply(
                            text,
                            event.response_id,
                            ttft_ms=(first - sent) * 1000,
                            stream_ms=(done - first) * 1000,
                            transport=transport,
                            attempts=attempt,
                            usage=event.usage,
                        )
                    answer.feed(event)
        finally:
            if stall is not None:
                stall.cancel()
        raise StreamError("The stream ended without completing.")

    def _stall_timer(self) -> asyncio.TimerHandle | None:
        offer = STREAM_STALLED.get()
        wait = self.tier.first_token_timeout
        if offer is None or wait is None:
            return None
        limit = f"; it gives up after {self.tier.request_timeout:g} s" if self.tier.request_timeout else ""
        message = (
            f"The {self.name} tier ({self.tier.model} at {self.tier.host}) has sent nothing for {wait:g} s: "
            f"it may be overloaded. Cancel, or keep waiting{limit}."
        )
        return asyncio.get_running_loop().call_later(wait, offer, message)
