"""A model tier as the engine sees it: `complete(prompt) -> Reply`, kept healthy all day.

`TierSession` binds one tier's settings to its transports, in one of three modes:

- **lanes** (WebSocket mode, the default): one warm connection carries every
  concurrent request, each on a lane of its own (`LaneSocket`, lanesocket.py);
- **pool**: a `SocketPool` of warm WebSockets, one response at a time on each, for a
  server that does not run lanes (it refused or ignored the first `stream_id`: the
  session remembers it and resends that request on the pool at once) or when the
  tier's `lanes` setting is off;
- **http**: an `HTTPStreamer` (Responses SSE, or Chat Completions SSE for
  OpenAI-compatible servers).

It retries what `is_retryable` allows, falls back to HTTP after repeated WebSocket
failures (a connection lost with several lanes in flight counts once) and heals back
after a cool-down, and reports its state (`TierStatus`) to whoever listens.

An endpoint that cannot be reached at all (`unreachable`: connection refused, a name
that does not resolve) marks the tier failing and is probed every few seconds at
most (heal.py), and at once when a request over HTTP gets through: the
status is ready again within seconds of the endpoint coming back. An interactive
request (everything but a deep task) never sleeps through a rate limit longer than
`INTERACTIVE_RATE_LIMIT_WAIT`: it fails at once with the wait in its message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from sparkls.config import Settings, TierSettings
from sparkls.guard.wire import Wire, require_wire
from sparkls.errors import (
    ApiError,
    AuthError,
    ConnectError,
    EndpointNotFound,
    HandshakeRefused,
    ModelError,
    ModelRefused,
    RateLimited,
    ReplyCutOff,
    RequestTimeout,
    StreamError,
)
from sparkls.models.chain import PREVIOUS_RESPONSE_NOT_FOUND, Chain, FollowUp, turn_for
from sparkls.models.collect import Reply, SteeredAway, collect
from sparkls.models.deadline import Deadline, gave_up
from sparkls.models.events import Where, chat_body, response_create, responses_body
from sparkls.models.explain import naming_local_base_url
from sparkls.models.heal import Healer
from sparkls.models.lanes import ConnectionLost, LaneConnection
from sparkls.models.lanesocket import LanesUnsupported, lanes_refused
from sparkls.models.retry import MAX_ATTEMPTS, MAX_RATE_LIMIT_WAIT, backoff, is_retryable, retry_delay
from sparkls.models.steering import Steering
from sparkls.models.transports import Transports
from sparkls.models.websocket import ResponsesSocket

logger = logging.getLogger(__name__)

# Failures that are about one request's answer, not the tier's health: they never
# mark the tier failing (a refusal or a cut-off reply says nothing of the service).
REQUEST_ERRORS = (ApiError, ReplyCutOff, ModelRefused)
# An interactive request (an edit, a quick fix, a completion, a next edit) waits out a
# rate limit up to this many seconds; a longer one is reported at once with its wait.
INTERACTIVE_RATE_LIMIT_WAIT = 5.0


# Errors whose message may name the tier's `base_url` setting (models/explain.py).
NAMES_BASE_URL = (ConnectError, HandshakeRefused, EndpointNotFound)


def unreachable(exc: BaseException) -> bool:
    """The endpoint itself could not be reached (refused, no such host, timed out):
    HTTP would fail as the WebSocket did. A proxy refusing the upgrade is not that."""
    return isinstance(exc, ConnectError) and not isinstance(exc, HandshakeRefused)


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
    mode: str = "lanes"  # lanes | pool | http: how WebSocket requests share connections
    lanes_off: str | None = None  # why this tier's server is served by a pool instead of lanes
    wasted_tokens: int = 0  # output tokens of cancelled responses streamed and dropped

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
        self._on_status = on_status
        self._links = Transports(name, settings, self.where, warm=warm, cache_key=cache_key)
        self._lanes_off: str | None = None if self.tier.lanes else "the tier's `lanes` setting is off"
        self._ws_failures = 0
        self._lost_counted: deque[LaneConnection] = deque(maxlen=8)  # lost connections counted once
        self._heal = Healer(
            name, self._start_websocket, self._healed,
            cooldown=self.tier.fallback_cooldown, cooldown_max=self.tier.fallback_cooldown_max,
        )
        self.status = TierStatus(
            name, self.tier.model, self.tier.host, transport=self._configured_transport,
            location=self.tier.location, lanes_off=self._lanes_off,
        )
        self.status.mode = self.mode

    @property
    def _configured_transport(self) -> str:
        return "websocket" if self.tier.transport == "websocket" else "http"

    @property
    def transport(self) -> str:
        return self.status.transport

    @property
    def mode(self) -> str:
        """"lanes", "pool" or "http": how requests are served now (module doc)."""
        if self.transport != "websocket":
            return "http"
        return "pool" if self._lanes_off else "lanes"

    @property
    def wasted_tokens(self) -> int:
        """Output tokens of cancelled responses that streamed on and were dropped."""
        lanes = self._links.lanes_made
        return lanes.wasted_tokens if lanes is not None else 0

    def _set_status(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.status, key, value)
        self.status.mode, self.status.lanes_off = self.mode, self._lanes_off
        self.status.wasted_tokens = self.wasted_tokens
        if self._on_status is not None:
            self._on_status(self.status)

    async def _start_websocket(self) -> None:
        """Open and warm the lane connection, or the pool; a server found not to run
        lanes is remembered and the pool opened instead."""
        if self.mode == "lanes":
            try:
                await self._links.lanes().start()
                return
            except ModelError as exc:
                if not lanes_refused(exc):
                    raise
                self._no_lanes(exc)
        await self._links.pool().start()

    def _no_lanes(self, exc: BaseException) -> None:
        """This server does not run lanes: the pool serves the rest of the session."""
        if self._lanes_off is None:
            self._lanes_off = f"{self.tier.host} does not run lanes ({exc})"
            logger.info("%s tier: %s; using a pool of %d sockets", self.name, self._lanes_off, self.tier.pool_size)
            self._set_status()

    async def warm(self) -> None:
        """Open and warm the WebSocket connection (HTTP tiers: check the key); never raises."""
        if self.transport != "websocket":
            try:
                await self._links.http()
            except ModelError as exc:  # no API key
                self._set_status(state="failing", reason=str(exc))
            else:
                self._set_status(state="ready")
            return
        self._set_status(state="connecting", reason=None)
        try:
            await self._start_websocket()
        except ModelError as exc:
            self._websocket_failed(exc)
            if self.transport == "websocket":
                self._set_status(state="failing", reason=str(self._explained(exc)))
            if unreachable(exc):
                self._probe()
            return
        self._ws_failures = 0
        self._set_status(state="ready", reason=None)

    def hold(self, chain: Chain | None) -> None:
        """Keep the pool socket `chain` was served on for its follow-up (`SocketPool.hold`);
        on a lane nothing is held: a follow-up forks from any lane of the connection."""
        if chain is not None and isinstance(chain.socket, ResponsesSocket) and self._links.pool_made is not None:
            self._links.pool_made.hold(chain.socket)

    def release(self, chain: Chain | None) -> None:
        if chain is not None and isinstance(chain.socket, ResponsesSocket) and self._links.pool_made is not None:
            self._links.pool_made.release(chain.socket)

    async def follow(self, follow_up: FollowUp, *, notify: Callable[[str], None] | None = None) -> Reply:
        """Continue `follow_up.chain` with its short turn where the chain still holds,
        else send the whole conversation (`complete`)."""
        return await self.complete(follow_up.full, notify=notify, follow_up=follow_up)

    async def complete(
        self,
        prompt: Wire,
        *,
        notify: Callable[[str], None] | None = None,
        follow_up: FollowUp | None = None,
        steering: Steering | None = None,
        patient: bool | None = None,
    ) -> Reply:
        """Send `prompt` and collect the whole reply, retrying what may be retried.
        With `follow_up`, its short turn goes instead where its chain can be continued;
        a chain the service no longer knows (`previous_response_not_found`) is resent
        in full at once. With `steering`, input may be added while it streams on a lane
        (steering.py). `patient` (default: on the deep tier only) waits out a rate limit
        up to `MAX_RATE_LIMIT_WAIT`; otherwise the request is interactive and a wait
        longer than `INTERACTIVE_RATE_LIMIT_WAIT` fails it at once. Only the guard's
        output (`Wire`) is accepted."""
        require_wire(prompt)
        if follow_up is not None:
            require_wire(follow_up.short)
        delays = backoff()
        patient = self.name == "deep" if patient is None else patient
        max_wait = MAX_RATE_LIMIT_WAIT if patient else INTERACTIVE_RATE_LIMIT_WAIT
        stream_retried = False
        attempt = 0
        asked = time.perf_counter()
        deadline = Deadline(self.tier.request_timeout, self.name)
        resent: ModelError | None = None  # the broken stream a request was sent again after
        while True:
            attempt += 1
            transport, mode = self.transport, self.mode
            try:
                reply = await self._complete_once(transport, prompt, attempt, follow_up, steering, deadline)
            except ModelError as exc:
                if mode == "lanes" and lanes_refused(exc, self._links.ignores_lanes):
                    self._no_lanes(exc)
                    attempt -= 1  # not a failure of the request: it goes to the pool at once
                    continue
                if follow_up is not None and isinstance(exc, ApiError) and exc.api_code == PREVIOUS_RESPONSE_NOT_FOUND:
                    # The service no longer knows the response: the whole conversation, at once.
                    logger.info("%s tier: the chain is gone (%s); resending in full", self.name, exc)
                    follow_up = None
                    continue
                if transport == "websocket":
                    self._websocket_failed(exc)
                retry = is_retryable(exc, max_wait=max_wait) and attempt < MAX_ATTEMPTS
                if isinstance(exc, StreamError):
                    retry, stream_retried = retry and not stream_retried, True
                delay = retry_delay(exc, delays) if retry else 0.0
                if not retry or not deadline.allows(delay):
                    explained = gave_up(self._explained(exc), resent)
                    self._failed(exc, explained)
                    if explained is exc:
                        raise
                    raise explained from exc
                if isinstance(exc, StreamError):
                    resent = exc
                if isinstance(exc, RateLimited) and notify is not None:
                    notify(f"Rate limited by {self.where.host} ({self.name} tier). Retrying in {delay:.3g} s.")
                logger.info("%s tier: retrying after %s (attempt %d, in %.2f s)", self.name, exc, attempt, delay)
                await asyncio.sleep(delay)
                continue
            if transport == "websocket":
                self._ws_failures = 0
                if mode == "lanes" and self._links.ignores_lanes:
                    self._no_lanes(LanesUnsupported("its responses name no lane"))
            # What the user waited for includes earlier attempts: all of it before this
            # attempt's request left is waiting.
            reply = replace(reply, wait_ms=(time.perf_counter() - asked) * 1000 - reply.ttft_ms - reply.stream_ms)
            last = {
                "transport": transport, "mode": reply.mode, "wait_ms": round(reply.wait_ms, 2),
                "ttft_ms": round(reply.ttft_ms, 2), "stream_ms": round(reply.stream_ms, 2),
            }
            state = "degraded" if self.status.state == "degraded" else "ready"
            self._set_status(state=state, reason=self.status.reason if state == "degraded" else None, last=last)
            self._heal.wake()  # the endpoint answers: reconnect now, not at the next probe
            return reply

    async def _complete_once(
        self, transport: str, prompt: Wire, attempt: int, follow_up: FollowUp | None, steering: Steering | None,
        deadline: Deadline,
    ) -> Reply:
        chain, store = (follow_up.chain if follow_up else None), self.tier.store
        started = time.perf_counter()
        read = {"where": self.where, "tier": self.tier, "transport": transport, "attempt": attempt, "started": started}

        def create(sent: Wire, previous: str | None) -> dict[str, Any]:
            return response_create(
                self.tier.model, sent, previous_response_id=previous, cache_key=self.cache_key, store=store
            )

        try:
            async with asyncio.timeout(deadline.left()):
                if transport == "websocket" and self.mode == "lanes":
                    lanes = self._links.lanes()
                    conn = await lanes.connection()
                    sent, previous = turn_for(follow_up, prompt, conn)
                    steering = steering if steering is not None and not steering.closed else None  # first attempt only
                    if steering is not None:
                        steering.attach(conn.steer, prompt)
                    reply = await collect(lanes.stream(create(sent, previous), on=conn), steering=steering, **read)
                    chain = Chain(reply.response_id, transport, store, reply.via)  # type: ignore[arg-type]
                    return replace(reply, chain=chain, chained=previous is not None, mode="lanes")
                if transport == "websocket":
                    async with self._links.pool().checkout(prefer=chain.socket if chain else None) as sock:
                        sent, previous = turn_for(follow_up, prompt, sock)
                        reply = await collect(sock.stream(create(sent, previous)), **read)
                        chain = Chain(reply.response_id, transport, store, sock)
                        return replace(reply, chain=chain, chained=previous is not None, mode="pool")
                if self.tier.api != "responses":
                    body = chat_body(self.tier.model, prompt)
                    return replace(await collect((await self._links.http()).stream(body), **read), mode="http")
                sent, previous = turn_for(follow_up, prompt, None)
                body = responses_body(
                    self.tier.model, sent, cache_key=self.cache_key, previous_response_id=previous, store=store
                )
                reply = await collect((await self._links.http()).stream(body), **read)
                chain = Chain(reply.response_id, transport, store)
                return replace(reply, chain=chain, chained=previous is not None, mode="http")
        except TimeoutError as exc:
            raise deadline.passed() from exc

    def _failed(self, exc: ModelError, explained: ModelError) -> None:
        """The status after a request failed for good. An unreachable endpoint makes the
        tier failing, even a degraded one (HTTP failed too), and is probed until it
        answers; a degraded tier otherwise stays degraded (its next request goes over
        HTTP); a failure of the request itself (REQUEST_ERRORS) changes nothing."""
        if unreachable(exc):
            self._set_status(state="failing", reason=str(explained))
            self._probe()
        elif not isinstance(exc, REQUEST_ERRORS) and self.status.state != "degraded":
            self._set_status(state="failing", reason=str(explained))

    def _explained(self, exc: ModelError) -> ModelError:
        """A local server that refused the request sent no key: say how to give it one.
        A base URL set through `local_base_url` is named as that setting."""
        if type(exc) in NAMES_BASE_URL and self._settings.local_base_url == self.tier.base_url:
            return type(exc)(naming_local_base_url(str(exc), self.name))
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
        """Count transport failures; after enough of them, serve over HTTP for a while.
        A connection lost with several lanes in flight is one failure, not one per lane."""
        if not isinstance(exc, (ConnectError, StreamError)) or isinstance(exc, SteeredAway) or self.tier.api != "responses":
            return
        if isinstance(exc, ConnectionLost):
            if exc.connection in self._lost_counted:
                return
            self._lost_counted.append(exc.connection)
        self._ws_failures += 1
        refused = isinstance(exc, HandshakeRefused)  # a proxy will not let it through: no point retrying
        if (refused or self._ws_failures >= self.tier.fallback_after) and self.transport == "websocket":
            probing = unreachable(exc)
            logger.warning(
                "%s tier: WebSocket failing (%s); using HTTP %s", self.name, exc,
                "until it answers" if probing else f"for {self.tier.fallback_cooldown:.0f} s",
            )
            self._set_status(state="degraded", transport="http", reason=str(self._explained(exc)))
            self._heal.start(probing=probing)

    def _probe(self) -> None:
        """Probe an unreachable endpoint until the WebSocket opens (heal.py). An HTTP
        tier has no connection to probe: its next request that gets through is enough."""
        if self._configured_transport == "websocket" and self.tier.api == "responses":
            self._heal.start(probing=True)

    def _healed(self) -> None:
        self._ws_failures = 0
        self._set_status(state="ready", transport="websocket", reason=None)

    async def settled(self) -> None:
        """Wait until no cancelled response holds a pool socket (pool.py). On lanes
        nothing waits: a cancelled response's rest is dropped as it arrives."""
        if self._links.pool_made is not None:
            await self._links.pool_made.settled()

    async def close(self) -> None:
        self._heal.cancel()
        await self._links.close()
