"""What requests need, imported after `initialized` in a worker thread; the requests
that wait for it.

Start-up imports only what `initialize` and reading settings need. The modules a
request runs (the context builder, the engines, the guard, the handlers' arguments)
are imported after `initialized`, one at a time in a worker thread, so that start-up
pays for none of it and the event loop for little. A request that uses them (a code
action, its resolve, a completion, any command) and comes while they are still being
imported waits for the rest of the preload rather than importing them itself on the
loop: a fresh server's first code action spent 50 to 90 ms of the loop's CPU in
imports, in one callback. Notifications never wait (documents stay in order), nor
do `initialize` and `shutdown`.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import importlib
from collections.abc import Callable, Coroutine
from typing import Any

from lsprotocol import types

PRELOAD = (
    "sparkls.config", "sparkls.guard", "sparkls.request.environment", "sparkls.models.session", "sparkls.context.builder", "sparkls.context.definitions",
    "sparkls.fastedit.engine", "sparkls.fastedit.speculation", "sparkls.edits.instruction", "sparkls.completion",
    "sparkls.lsp.handlers.args", "sparkls.deep.tasks", "sparkls.lsp.workspace_edit", "sparkls.context.index.workspace", "sparkls.nextedit.service",
)
# The requests whose handlers import what PRELOAD holds; commands wait too.
WAITING = frozenset({
    types.TEXT_DOCUMENT_CODE_ACTION, types.CODE_ACTION_RESOLVE,
    types.TEXT_DOCUMENT_INLINE_COMPLETION, types.TEXT_DOCUMENT_COMPLETION,
})


class Preload:
    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None

    def start(self, spawn: Callable[[Coroutine[Any, Any, None], str], asyncio.Task[None]]) -> None:
        self.task = spawn(self._run(), "loading what requests need")

    async def _run(self) -> None:
        for name in PRELOAD:  # in a worker: an import can hold the loop for 100 ms and more
            await asyncio.to_thread(importlib.import_module, name)
        # Everything loaded so far (modules, lsprotocol's types, pydantic's schemas) lives
        # as long as the process: out of the collector's sight, a full collection scans
        # the documents' objects only (pauses of tens of ms otherwise, now and then).
        gc.freeze()

    async def done(self) -> None:
        """Return once the preload has ended (at once when it has, or never began);
        its failure or cancellation is the spawner's to report."""
        if self.task is not None and not self.task.done():
            await asyncio.wait([self.task])

    def first(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """`handler`, run once the preload has ended (a sync one becomes async)."""

        @functools.wraps(handler)  # pygls reads the handler's signature and annotations through it
        async def after_preload(*args: Any, **kwargs: Any) -> Any:
            await self.done()
            result = handler(*args, **kwargs)
            return await result if asyncio.iscoroutine(result) else result

        return after_preload
