"""How long a WebSocket peer may stay silent while a request waits on it: the stall limit.

A peer can keep the TCP connection open and send nothing: no event, no pong (a hung
server, a proxy that lost the other side, a laptop's network gone without a reset).
websockets' own keepalive finds that out when its ping goes unanswered, but only at its
next ping (`keepalive_interval`) plus its wait (`keepalive_timeout`) plus a closing
handshake nobody answers. `Liveness` bounds a request in flight more tightly: while
the connection has requests in flight (`busy`), it pings after half the stall limit
with nothing heard (a frame or a pong), and when nothing comes within the other half
either, the connection is declared dead (`on_silent`), `stall` seconds after the last
sign of life. A model that thinks for minutes without an event is not stalled: its
service answers the pings.

The connection's owner says what it heard (`heard()`: each frame, and each request it
sends, from which the silence is counted) and what its requests wait for (`busy`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed


class Liveness:
    """The stall watch over one connection (see the module doc); `close()` ends it."""

    def __init__(self, ws: ClientConnection, stall: float, on_silent: Callable[[str], None]) -> None:
        self.ws = ws
        self.stall = stall
        self._on_silent = on_silent
        self.last = time.monotonic()  # the last frame, pong or request sent
        self._busy = asyncio.Event()
        self._task = asyncio.ensure_future(self._watch())

    def heard(self) -> None:
        self.last = time.monotonic()

    def busy(self, busy: bool) -> None:
        """Whether a request waits on the connection now."""
        if busy and not self._busy.is_set():
            self.heard()  # the silence counts from the request, not from the idle time before it
            self._busy.set()
        elif not busy:
            self._busy.clear()

    def why(self) -> str:
        return f"nothing for {self.stall:g} s, not even an answer to a ping (setting `keepalive_timeout`)"

    async def _watch(self) -> None:
        half = self.stall / 2
        while True:
            await self._busy.wait()
            quiet = time.monotonic() - self.last
            if quiet < half:
                await asyncio.sleep(half - quiet)
                continue
            answered = await self._pong_within(self.stall - quiet)
            if answered is None:
                return  # closed: its reader says so
            if answered:
                self.heard()
            elif time.monotonic() - self.last >= self.stall and self._busy.is_set():
                self._on_silent(self.why())
                return

    async def _pong_within(self, seconds: float) -> bool | None:
        """Whether a ping is answered within `seconds`; None when the connection closed."""
        try:
            async with asyncio.timeout(max(seconds, 0.0)):
                pong = await self.ws.ping()
                await pong
            return True
        except TimeoutError:
            return False
        except ConnectionClosed:
            return None

    def close(self) -> None:
        self._task.cancel()
