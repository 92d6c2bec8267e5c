"""`DocumentTimers`: one pending callback per document, a debounce.

Scheduling again for a document replaces its pending callback; closing the document
(`forget`, through the server's per-document registry) cancels it. Used for the
reparse after typing stops (lsp/server.py) and the index refresh of a buffer
(lsp/indexing.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class DocumentTimers:
    def __init__(self) -> None:
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def schedule(self, uri: str, delay: float, run: Callable[[], None]) -> None:
        """Call `run` after `delay` seconds, unless scheduled again or forgotten first."""
        self.forget(uri)

        def fire() -> None:
            self._timers.pop(uri, None)
            run()

        self._timers[uri] = asyncio.get_running_loop().call_later(delay, fire)

    def forget(self, uri: str) -> None:
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()

    def cancel_all(self) -> None:
        for uri in list(self._timers):
            self.forget(uri)

    def held(self) -> int:
        return len(self._timers)
