"""At most one completion at work per document; a newer request supersedes it at once.

`LatestOnly.submit(key, ident, work, delay=...)` runs `work()` after `delay` seconds of
quiet, as a task of its own. A later submit for the same key with a different `ident`
(the document changed, or the cursor moved) cancels the earlier task at once — in its
debounce wait, or in the middle of its model stream — and waits for it to be gone
before its own work starts, so two model requests for one document never overlap. A
submit with the same `ident` while the task is at work joins it instead: an editor
asking again for the same place (a completion menu refreshing) does not restart it.

Awaiting a superseded task raises `CancelledError`; `outcome()` turns that into None
for a caller that was not itself cancelled. Knows nothing of LSP or models.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class LatestOnly:
    def __init__(self) -> None:
        self._current: dict[str, tuple[Hashable, asyncio.Task[Any]]] = {}
        self.superseded = 0  # tasks cancelled by a newer submit

    def submit(
        self,
        key: str,
        ident: Hashable,
        work: Callable[[], Awaitable[T]],
        *,
        delay: float = 0.0,
        spare: Callable[[asyncio.Task[Any]], bool] | None = None,
    ) -> asyncio.Task[T]:
        """Run `work` after `delay` (see the module doc). `spare(task)` True leaves the
        task at work running and not waited for: the new work deals with it (a
        next-edit question steers newer typing into it, or cancels it)."""
        current = self._current.get(key)
        previous = current[1] if current is not None else None
        if current is not None and not current[1].done():
            if current[0] == ident:
                return current[1]
            if spare is not None and spare(current[1]):
                previous = None
            else:
                current[1].cancel()
                self.superseded += 1
        task = asyncio.ensure_future(self._run(previous, work, delay))
        self._current[key] = (ident, task)
        task.add_done_callback(lambda t: self._forget(key, t))
        return task

    async def _run(self, previous: asyncio.Task[Any] | None, work: Callable[[], Awaitable[T]], delay: float) -> T:
        if delay > 0:
            await asyncio.sleep(delay)
        if previous is not None and not previous.done():
            await asyncio.wait([previous])  # its cancellation is being handled
        return await work()

    def _forget(self, key: str, task: asyncio.Task[Any]) -> None:
        current = self._current.get(key)
        if current is not None and current[1] is task:
            del self._current[key]

    def uris(self) -> list[str]:
        """The keys with work going (documents, for the per-document stores)."""
        return list(self._current)

    def cancel(self, key: str) -> None:
        """Cancel the work for `key` (the document closed)."""
        current = self._current.pop(key, None)
        if current is not None:
            current[1].cancel()

    def busy(self, key: str) -> bool:
        current = self._current.get(key)
        return current is not None and not current[1].done()


async def outcome(task: asyncio.Task[T]) -> T | None:
    """The task's result; None if a newer request cancelled it.

    Cancelling the caller (`$/cancelRequest`) cancels the task too, and propagates.
    """
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
        return None
