"""When a request may start, and when a replaced tier session may close.

- `FirstSettings`: with settings in `workspace/configuration`, an editor's first edit
  often comes before its answer. A request waits for the first pull, `SETTINGS_WAIT`
  seconds at most; then it runs on what is known (`initializationOptions`,
  `.sparkls.toml`), the user is told once, and no later request waits.
- `SessionLeases`: a request holds the tier sessions its environment was built with
  until its task ends. A settings change makes new sessions for new requests at once;
  a replaced session is closed once the requests holding it are done
  (`DRAIN_LIMIT` seconds at most), never under them.

What counts as a request is a task that built a request environment
(`SparkServer.environment`): a command, a code action's speculative fix, an inline
completion, a next-edit question. Nothing here knows LSP.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

SETTINGS_WAIT = 3.0  # seconds a request waits for the editor's first `workspace/configuration` answer
DRAIN_LIMIT = 300.0  # seconds a replaced session waits for the requests holding it


class FirstSettings:
    """The first configuration pull, which requests wait for (bounded)."""

    def __init__(self, on_late: Callable[[float], None]) -> None:
        self._pulled: asyncio.Event | None = None  # None: nothing to wait for
        self._on_late = on_late
        self.late = False  # a request stopped waiting: the pull is late

    def pulling(self) -> None:
        """The first pull is on its way: requests wait for `pulled()` from now on."""
        self._pulled = asyncio.Event()

    def pulled(self) -> None:
        """Answered, failed or refused: requests need not wait any more."""
        if self._pulled is not None:
            self._pulled.set()

    @property
    def waiting(self) -> bool:
        return self._pulled is not None and not self._pulled.is_set() and not self.late

    async def wait(self) -> None:
        """Until the first pull is done, or `SETTINGS_WAIT` seconds (said once)."""
        if not self.waiting:
            return
        assert self._pulled is not None
        try:
            async with asyncio.timeout(SETTINGS_WAIT):
                await self._pulled.wait()
        except TimeoutError:
            if not self.late:
                self.late = True
                self._on_late(SETTINGS_WAIT)


class SessionLeases:
    """Which running requests hold which tier sessions."""

    def __init__(self) -> None:
        self._holders: dict[Any, set[asyncio.Task[Any]]] = {}

    def hold(self, *sessions: Any) -> None:
        """The current task holds `sessions` (None ones are skipped) until it ends."""
        task = asyncio.current_task()
        if task is None:
            return
        for session in sessions:
            if session is None:
                continue
            holders = self._holders.setdefault(session, set())
            if task not in holders:
                holders.add(task)
                task.add_done_callback(lambda t, s=session: self._let_go(s, t))

    def _let_go(self, session: Any, task: asyncio.Task[Any]) -> None:
        holders = self._holders.get(session)
        if holders is not None:
            holders.discard(task)
            if not holders:
                del self._holders[session]

    def holders(self, session: Any) -> int:
        """How many running requests hold `session`."""
        return len(self._holders.get(session, ()))

    async def close_when_free(self, session: Any) -> None:
        """Close `session` once no running request holds it (the caller excepted)."""
        current = asyncio.current_task()
        holders = [t for t in self._holders.get(session, ()) if t is not current and not t.done()]
        if holders:
            logger.info("%s tier: the replaced session closes after %d request(s) in flight", session.name, len(holders))
            _, pending = await asyncio.wait(holders, timeout=DRAIN_LIMIT)
            if pending:
                logger.warning("%s tier: %d request(s) still hold the replaced session after %.0f s; closing it", session.name, len(pending), DRAIN_LIMIT)
        await session.close()


def tier_identity(settings: Any, tier: str) -> tuple[Any, ...]:
    """What a tier's session depends on; a change means a new session."""
    return (getattr(settings, tier), settings.api_key, settings.api_key_env)
