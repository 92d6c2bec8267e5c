"""A model tier as the engine sees it: `complete(prompt) -> Reply`, kept healthy all day.

`TierSession` holds the policy over one tier's transports (models/transports/): which
one serves, retrying, falling back and healing. It knows them by their traits, never
by name:

- **the choice**: the transports that fit the tier's settings, most preferred first
  (`transports.TRANSPORTS`: lanes on one WebSocket, then a pool of WebSockets, then
  Responses over HTTP; Chat Completions for an OpenAI-compatible server). One a
  setting switches off is left out (`lanes = false`), and so is one the server is
  found to refuse for good (`Transport.refusal`: a server that does not run lanes):
  the request that found it out goes to the next one at once;
- **retries**: what `is_retryable` allows, within the request's `Deadline`
  (`retry.Tries`);
- **fallback**: repeated failures of a transport that keeps connections open
  (`persistent`; a connection lost under several requests counts once) put the tier on
  the first one that does not (HTTP) for a cool-down, `degraded`; it heals back to the
  preferred one (heal.py);
- **status**: its state (`TierStatus`) to whoever listens.

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
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from sparkls.config import Settings, TierSettings
from sparkls.errors import (
    ApiError,
    ConnectError,
    HandshakeRefused,
    ModelError,
    ModelRefused,
    RateLimited,
    ReplyCutOff,
    StreamError,
)
from sparkls.guard.wire import Wire, require_wire
from sparkls.models.chain import PREVIOUS_RESPONSE_NOT_FOUND, Chain, FollowUp
from sparkls.models.collect import Reply, SteeredAway, collect
from sparkls.models.deadline import Deadline, gave_up
from sparkls.models.events import Where
from sparkls.models.explain import for_the_user
from sparkls.models.heal import Healer
from sparkls.models.retry import MAX_RATE_LIMIT_WAIT, Tries
from sparkls.models.steering import Steering
from sparkls.models.transports import Link, Request, Transport, fitting

logger = logging.getLogger(__name__)

# Failures that are about one request's answer, not the tier's health: they never
# mark the tier failing (a refusal or a cut-off reply says nothing of the service).
REQUEST_ERRORS = (ApiError, ReplyCutOff, ModelRefused)
# An interactive request (an edit, a quick fix, a completion, a next edit) waits out a
# rate limit up to this many seconds; a longer one is reported at once with its wait.
INTERACTIVE_RATE_LIMIT_WAIT = 5.0


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
    transport: str = ""  # what carries its requests now (`Transport.carries`: websocket | http)
    reason: str | None = None  # why degraded or failing
    last: dict[str, Any] | None = None  # the last request: transport and timings
    location: str = "remote"  # "local": its host is loopback, requests never leave the machine
    mode: str = ""  # the transport that serves now (`Transport.name`: lanes | pool | http)
    lanes_off: str | None = None  # why the tier's preferred transport is left out (lanes: a pool serves)
    wasted_tokens: int = 0  # output tokens of cancelled responses streamed and dropped

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class TierSession:
    """One tier ("fast" or "deep"): its transports, retries, fallback and status."""

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
        link = Link(name, settings, self.where, warm, cache_key)
        off = [(kind, kind.switched_off(self.tier)) for kind in fitting(self.tier)]
        # What this tier may use, most preferred first (made now, connected when first used).
        self.transports: tuple[Transport, ...] = tuple(kind(link) for kind, why in off if why is None)
        self._left_out = next((why for _, why in off if why is not None), None)  # why the preferred one is not used
        self._refused: set[Transport] = set()
        self._serving = self.transports[0]
        self._failures = 0  # failures of persistent transports in a row
        self._heal = Healer(
            name, self._start_preferred, self._healed,
            cooldown=self.tier.fallback_cooldown, cooldown_max=self.tier.fallback_cooldown_max,
        )
        self.status = TierStatus(name, self.tier.model, self.tier.host, location=self.tier.location)
        self._update_status()

    # -- which transport ---------------------------------------------------------------

    @property
    def transport(self) -> str:
        """What carries its requests now (`Transport.carries`)."""
        return self._serving.carries

    @property
    def mode(self) -> str:
        """The transport that serves now (`Transport.name`)."""
        return self._serving.name

    @property
    def wasted_tokens(self) -> int:
        """Output tokens of cancelled responses that streamed on and were dropped."""
        return sum(t.wasted_tokens for t in self.transports)

    def _usable(self) -> list[Transport]:
        return [t for t in self.transports if t not in self._refused]

    def _preferred(self) -> Transport:
        return self._usable()[0]

    def _fallback(self) -> Transport | None:
        """Where requests go while the persistent transports fail: the first that is not one."""
        return next((t for t in self._usable() if not t.persistent), None)

    def _refuse(self, transport: Transport, why: str) -> bool:
        """The server never takes `transport`: the tier does without it from now on, if
        another is left (else its failure is the request's). Whether it was left out."""
        if transport in self._refused or len(self._usable()) == 1:
            return False
        self._refused.add(transport)
        self._left_out = self._left_out or why
        if self._serving is transport:
            self._serving = self._preferred()
        logger.info("%s tier: %s; %s serves instead", self.name, why, self._preferred().name)
        self._set_status()
        return True

    async def _start_preferred(self) -> None:
        """Open and warm the preferred transport; one the server refuses is left out and
        the next one started."""
        while True:
            preferred = self._preferred()
            try:
                await preferred.start()
                return
            except ModelError as exc:
                if (why := preferred.refusal(exc)) is None or not self._refuse(preferred, why):
                    raise

    # -- status --------------------------------------------------------------------------

    def _update_status(self) -> None:
        self.status.transport, self.status.mode = self.transport, self.mode
        self.status.lanes_off, self.status.wasted_tokens = self._left_out, self.wasted_tokens

    def _set_status(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.status, key, value)
        self._update_status()
        if self._on_status is not None:
            self._on_status(self.status)

    async def warm(self) -> None:
        """Open and warm the serving transport's connections (over HTTP: make its client,
        which reads the key); never raises."""
        if not self._serving.persistent:
            try:
                await self._serving.start()
            except ModelError as exc:  # no API key
                self._set_status(state="failing", reason=str(exc))
            else:
                self._set_status(state="ready")
            return
        self._set_status(state="connecting", reason=None)
        try:
            await self._start_preferred()
        except ModelError as exc:
            self._transport_failed(self._preferred(), exc)
            if self._serving.persistent:
                self._set_status(state="failing", reason=str(self._explained(exc)))
            if unreachable(exc):
                self._probe()
            return
        self._failures = 0
        self._set_status(state="ready", reason=None)

    # -- requests ------------------------------------------------------------------------

    def hold(self, chain: Chain | None) -> None:
        """Keep what a follow-up of `chain` needs (the pool socket that served it; on a
        lane nothing: a follow-up forks from any lane of the connection)."""
        for transport in self.transports:
            transport.hold(chain)

    def release(self, chain: Chain | None) -> None:
        for transport in self.transports:
            transport.release(chain)

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
        in full at once. With `steering`, input may be added while it streams, on a
        transport that `steers`. `patient` (default: on the deep tier only) waits out a
        rate limit up to `MAX_RATE_LIMIT_WAIT`; otherwise the request is interactive
        and a wait longer than `INTERACTIVE_RATE_LIMIT_WAIT` fails it at once. Only
        the guard's output (`Wire`) is accepted."""
        require_wire(prompt)
        if follow_up is not None:
            require_wire(follow_up.short)
        patient = self.name == "deep" if patient is None else patient
        tries = Tries(
            Deadline(self.tier.request_timeout, self.name),
            max_wait=MAX_RATE_LIMIT_WAIT if patient else INTERACTIVE_RATE_LIMIT_WAIT,
        )
        asked = time.perf_counter()
        while True:
            tries.attempt += 1
            transport = self._serving
            try:
                reply = await self._attempt(transport, Request(prompt, follow_up, steering), tries)
            except ModelError as exc:
                if (why := transport.refusal(exc)) is not None and self._refuse(transport, why):
                    tries.attempt -= 1  # not a failure of the request: the next transport takes it at once
                    continue
                if follow_up is not None and isinstance(exc, ApiError) and exc.api_code == PREVIOUS_RESPONSE_NOT_FOUND:
                    # The service no longer knows the response: the whole conversation, at once.
                    logger.info("%s tier: the chain is gone (%s); resending in full", self.name, exc)
                    follow_up = None
                    continue
                await self._wait_to_retry(transport, exc, tries, notify)
                continue
            return self._served(transport, reply, asked)

    async def _attempt(self, transport: Transport, request: Request, tries: Tries) -> Reply:
        """One try on `transport`, within what is left of the request's deadline."""
        steering = request.steering
        if not transport.steers or (steering is not None and steering.closed):  # the first try only
            request = replace(request, steering=None)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(tries.deadline.left()):
                reply = await collect(
                    transport.stream(request), self.where, self.tier, transport=transport.carries,
                    attempt=tries.attempt, started=started, steering=request.steering,
                )
        except TimeoutError as exc:
            raise tries.deadline.passed() from exc
        chain = None
        if transport.chains:  # where a follow-up continues it: the connection that served it, if any
            chain = Chain(reply.response_id, transport.carries, self.tier.store, reply.via)  # type: ignore[arg-type]
        return replace(reply, chain=chain, mode=transport.name)

    async def _wait_to_retry(
        self, transport: Transport, exc: ModelError, tries: Tries, notify: Callable[[str], None] | None
    ) -> None:
        """Wait before the next try after `exc`; when there is none, raise it as the user
        is to read it (what happened, what it was sent again after, that nothing changed)."""
        self._transport_failed(transport, exc)
        delay = tries.again_after(exc)
        if delay is None:
            explained = gave_up(self._explained(exc), tries.resent)
            self._failed(exc, explained)
            if explained is exc:
                raise exc
            raise explained from exc
        if isinstance(exc, RateLimited) and notify is not None:
            notify(f"Rate limited by {self.where.host} ({self.name} tier). Retrying in {delay:.3g} s.")
        logger.info("%s tier: retrying after %s (attempt %d, in %.2f s)", self.name, exc, tries.attempt, delay)
        await asyncio.sleep(delay)

    def _served(self, transport: Transport, reply: Reply, asked: float) -> Reply:
        """A reply came: the tier's health and status say so."""
        if transport.persistent:
            self._failures = 0
        if (why := transport.refusal(None)) is not None:
            self._refuse(transport, why)
        # What the user waited for includes earlier attempts: all of it before this
        # attempt's request left is waiting.
        reply = replace(reply, wait_ms=(time.perf_counter() - asked) * 1000 - reply.ttft_ms - reply.stream_ms)
        last = {
            "transport": transport.carries, "mode": reply.mode, "wait_ms": round(reply.wait_ms, 2),
            "ttft_ms": round(reply.ttft_ms, 2), "stream_ms": round(reply.stream_ms, 2),
        }
        state = "degraded" if self.status.state == "degraded" else "ready"
        self._set_status(state=state, reason=self.status.reason if state == "degraded" else None, last=last)
        self._heal.wake()  # the endpoint answers: reconnect now, not at the next probe
        return reply

    # -- failures ------------------------------------------------------------------------

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
        return for_the_user(exc, self._settings, self.name)

    def _transport_failed(self, transport: Transport, exc: ModelError) -> None:
        """Count a persistent transport's failures; after enough of them (or an upgrade
        a proxy refuses), serve through the fallback for a while."""
        if not transport.persistent or not isinstance(exc, (ConnectError, StreamError)) or isinstance(exc, SteeredAway):
            return
        if not transport.counts(exc):
            return
        self._failures += 1
        fallback = self._fallback()
        refused = isinstance(exc, HandshakeRefused)  # a proxy will not let it through: no point retrying
        if fallback is not None and (refused or self._failures >= self.tier.fallback_after) and self._serving.persistent:
            probing = unreachable(exc)
            logger.warning(
                "%s tier: %s failing (%s); using %s %s", self.name, transport.carries, exc, fallback.carries,
                "until it answers" if probing else f"for {self.tier.fallback_cooldown:.0f} s",
            )
            self._serving = fallback
            self._set_status(state="degraded", reason=str(self._explained(exc)))
            self._heal.start(probing=probing)

    def _probe(self) -> None:
        """Probe an unreachable endpoint until the preferred transport opens (heal.py).
        One without connections has nothing to probe: its next request that gets
        through is enough."""
        if self._preferred().persistent:
            self._heal.start(probing=True)

    def _healed(self) -> None:
        self._failures = 0
        self._serving = self._preferred()
        self._set_status(state="ready", reason=None)

    async def settled(self) -> None:
        """Wait until no cancelled response holds a connection of its own (pool.py). On
        lanes nothing waits: a cancelled response's rest is dropped as it arrives."""
        for transport in self.transports:
            await transport.settled()

    async def close(self) -> None:
        self._heal.cancel()
        for transport in self.transports:
            await transport.close()
