"""When each event of a reply goes out, whatever the transport: sinks and pacing.

This module owns the timing layer under ``replies.py``: :class:`Pacer` (no first
token for ``delay_ms``, with SSE keep-alive comments meanwhile; deltas on an absolute
schedule at ``tokens_per_second``; cutting the connection after
``drop_after_deltas``; stopping at the next safe boundary when an
:class:`Interrupt` asks, as a steered response does) and :func:`wait_as_generating`
for requests without streaming.

Transports plug in as a :class:`Sink`: WebSocket frames (``websocket.py``) or a
chunked SSE body (:class:`SseSink`). :class:`Wire` wraps the asyncio writer with byte
counting and a flush-then-cut abort. What the events contain is ``responses.py``'s and
``chat.py``'s business; their order is ``replies.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Callable, Protocol, Sequence

from sparkls.emulator import httpwire
from sparkls.emulator.control import Faults, Stats
from sparkls.emulator.model import split_tokens

Item = tuple[str, str]  # (event type, JSON text)
# How often an SSE stream that has nothing to send yet sends a comment line, so that
# proxies and clients see the connection alive (tests patch it).
KEEPALIVE_SECONDS = 1.0
KEEPALIVE_COMMENT = b": keep-alive\n\n"


class Wire:
    """An asyncio StreamWriter that counts the bytes it writes."""

    def __init__(self, writer: asyncio.StreamWriter, stats: Stats) -> None:
        self.writer = writer
        self.stats = stats
        self.counted = True  # False while answering /_emulator/ requests

    def write(self, data: bytes) -> None:
        if data:
            if self.counted:
                self.stats.bytes_out += len(data)
            self.writer.write(data)

    @property
    def closing(self) -> bool:
        return self.writer.is_closing()

    async def drain(self) -> None:
        await self.writer.drain()

    async def flush(self) -> None:
        """Wait until everything written so far has left the buffer."""
        transport = self.writer.transport
        transport.set_write_buffer_limits(0)  # so drain() waits for an empty buffer
        try:
            await self.writer.drain()
        finally:
            if not transport.is_closing():
                transport.set_write_buffer_limits()

    async def abort(self) -> None:
        """Send what was written, then cut the TCP connection (no close handshake)."""
        try:
            await self.flush()
        except ConnectionError:
            pass
        self.writer.transport.abort()

    def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()


class Sink(Protocol):
    """Where a reply's events go."""

    transport: str  # "websocket" or "sse"

    def send(self, items: Sequence[Item]) -> bool:
        """Write *items* now; False when the peer can no longer receive them."""
        ...

    def send_texts(self, kind: str, texts: Sequence[str]) -> bool:
        """Write events of one *kind*, given as JSON texts (the delta hot path)."""
        ...

    def keep_alive(self) -> bool:
        """Show the peer the stream is alive while nothing else is sent; False when
        the peer is gone."""
        ...

    async def drain(self) -> None: ...

    async def abort(self) -> None:
        """Flush, then cut the connection without ending the stream."""
        ...


class SseSink:
    """Server-Sent Events in a chunked HTTP body.

    *named* events carry an ``event:`` line (Responses API); otherwise only ``data:``
    lines are sent (Chat Completions).
    """

    transport = "sse"

    def __init__(self, wire: Wire, *, named: bool) -> None:
        self.wire = wire
        self.named = named

    def send(self, items: Sequence[Item]) -> bool:
        if self.wire.closing:
            return False
        if self.named:
            text = "".join([f"event: {kind}\ndata: {data}\n\n" for kind, data in items])
        else:
            text = "".join([f"data: {data}\n\n" for _, data in items])
        self.wire.write(httpwire.chunk(text.encode()))
        return True

    def send_texts(self, kind: str, texts: Sequence[str]) -> bool:
        if self.wire.closing:
            return False
        head = f"event: {kind}\ndata: " if self.named else "data: "
        self.wire.write(httpwire.chunk("".join([f"{head}{text}\n\n" for text in texts]).encode()))
        return True

    def keep_alive(self) -> bool:
        if self.wire.closing:
            return False
        self.wire.write(httpwire.chunk(KEEPALIVE_COMMENT))
        return True

    def finish(self, *, done_marker: bool) -> None:
        """End the body (after ``data: [DONE]`` when *done_marker*)."""
        if done_marker:
            self.wire.write(httpwire.chunk(httpwire.SSE_DONE.encode()))
        self.wire.write(httpwire.LAST_CHUNK)

    async def drain(self) -> None:
        await self.wire.drain()

    async def abort(self) -> None:
        await self.wire.abort()


def will_drop(faults: Faults, delta_count: int) -> bool:
    """Whether *faults* cut a reply of *delta_count* deltas short."""
    return faults.drop_after_deltas is not None and faults.drop_after_deltas < delta_count


class Interrupt:
    """A request to stop one reply at its next safe boundary (a steer, ``lanes.py``):
    between two batches of deltas, or at once while it waits for its first token."""

    def __init__(self) -> None:
        self.requested = False
        self._event = asyncio.Event()

    def request(self) -> None:
        self.requested = True
        self._event.set()

    async def wait(self, seconds: float) -> None:
        """Sleep *seconds*, or less when the interrupt is requested meanwhile."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._event.wait(), seconds)


class Pacer:
    """Sends one reply's deltas as *faults* say, across all its output items.

    Pacing follows an absolute schedule from the first delta (delta *k* is due at
    ``start + k / rate``) and sends every delta already due in one write, so the
    average rate stays exact even when the event loop wakes late. With an
    *interrupt*, the flag is checked before every batch: once requested, the reply
    stops there (:attr:`interrupted`).
    """

    def __init__(self, faults: Faults, sink: Sink, stats: Stats, interrupt: Interrupt | None = None) -> None:
        self.faults = faults
        self.sink = sink
        self.stats = stats
        self.interrupt = interrupt
        self.interrupted = False
        self.sent = 0
        self._start: float | None = None

    def stopping(self) -> bool:
        """Whether the reply is to stop here (an interrupt was requested)."""
        if self.interrupt is not None and self.interrupt.requested:
            self.interrupted = True
        return self.interrupted

    async def first_token_wait(self) -> None:
        """Send nothing for ``delay_ms`` (an SSE stream gets keep-alive comments);
        stop early when the peer is gone (the next send finds out) or an interrupt
        is requested."""
        if not self.faults.delay_ms:
            return
        await self.sink.drain()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.faults.delay_ms / 1000
        interrupt = self.interrupt
        while (left := deadline - loop.time()) > 0 and self.sink.keep_alive():
            if interrupt is None:
                await asyncio.sleep(min(left, KEEPALIVE_SECONDS))
            elif interrupt.requested:
                return
            else:
                await interrupt.wait(min(left, KEEPALIVE_SECONDS))

    async def deltas(self, kind: str, pieces: Sequence[str], build: Callable[[Sequence[str]], list[str]]) -> bool:
        """Send one *kind* event per piece, built by *build* (pieces in, JSON texts
        out); False when the stream cannot go on (the peer is gone, the drop fault
        cut the connection, or an interrupt stopped it: :attr:`interrupted`)."""
        drop = self.faults.drop_after_deltas
        limit = len(pieces)
        dropping = drop is not None and self.sent + limit > drop
        if dropping:
            assert drop is not None
            limit = drop - self.sent
        loop = asyncio.get_running_loop()
        rate = self.faults.tokens_per_second
        if self._start is None:
            self._start = loop.time()
        start, base, done = self._start, self.sent, 0
        sink, stats, interrupt = self.sink, self.stats, self.interrupt
        while done < limit:
            if interrupt is not None and interrupt.requested:
                self.interrupted = True
                return False
            if rate is None:
                upto = limit
            else:
                due = int((loop.time() - start) * rate) + 1 - base
                upto = min(limit, max(due, done + 1))
            if not sink.send_texts(kind, build(pieces[done:upto])):
                return False
            stats.deltas += upto - done
            done = upto
            self.sent = base + done
            if rate is not None and done < limit:
                await sink.drain()
                wait = start + self.sent / rate - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
        if dropping:
            await sink.abort()
            return False
        return True


async def wait_as_generating(text: str, faults: Faults) -> None:
    """Take as long as streaming *text* would, for requests without streaming."""
    seconds = faults.delay_ms / 1000
    if faults.tokens_per_second:
        seconds += len(split_tokens(text)) / faults.tokens_per_second
    if seconds > 0:
        await asyncio.sleep(seconds)
