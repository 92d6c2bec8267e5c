"""Getting a tier's WebSocket back: one background task that tries until it works.

`Healer` runs `attempt` (open and warm the WebSocket) again and again until it
succeeds, then calls `healed`. Two rhythms:

- a **cool-down** after the tier fell back to HTTP because the WebSocket itself kept
  failing (a proxy refusing the upgrade, streams cut): `cooldown` seconds, doubling
  up to `cooldown_max` while it keeps failing;
- **probing** an endpoint that could not be reached at all (connection refused, a
  name that does not resolve): a jittered backoff of at most `RECONNECT_PROBE_MAX`
  seconds, so the tier is ready again within seconds of the endpoint coming back;
  `wake()` (a request got through) tries at once.

A probing heal replaces a cool-down one; otherwise a heal under way goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator

from sparkls.errors import ModelError
from sparkls.models.retry import backoff

logger = logging.getLogger(__name__)

# The longest pause between two attempts to reach an endpoint that could not be reached.
RECONNECT_PROBE_MAX = 4.0


class Healer:
    def __init__(
        self,
        name: str,
        attempt: Callable[[], Awaitable[object]],
        healed: Callable[[], None],
        *,
        cooldown: float,
        cooldown_max: float,
    ) -> None:
        self.name = name
        self._attempt = attempt
        self._healed = healed
        self._cooldown = (cooldown, cooldown_max)
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.probing = False  # the heal under way probes an unreachable endpoint

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, *, probing: bool) -> None:
        """Start healing, unless a heal is under way (a probing one replaces a cool-down)."""
        if self.running:
            if self.probing or not probing:
                return
            self.cancel()
        self.probing = probing
        delays = backoff(base=0.5, cap=RECONNECT_PROBE_MAX) if probing else self._cooldowns()
        self._task = asyncio.ensure_future(self._run(delays))

    def wake(self) -> None:
        """The endpoint answers (a request got through): a probing heal tries now."""
        if self.running and self.probing:
            self._wake.set()

    def _cooldowns(self) -> Iterator[float]:
        delay, most = self._cooldown
        while True:
            yield delay
            delay = min(delay * 2, most)

    async def _run(self, delays: Iterator[float]) -> None:
        tries = 0
        while True:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(next(delays)):
                    await self._wake.wait()
            try:
                await self._attempt()
            except ModelError as exc:
                tries += 1
                level = logging.DEBUG if self.probing and tries > 3 else logging.INFO
                logger.log(level, "%s tier: WebSocket still failing (%s; try %d)", self.name, exc, tries)
                continue
            self.probing = False
            logger.info("%s tier: WebSocket healthy again", self.name)
            self._healed()
            return

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
