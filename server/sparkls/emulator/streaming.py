"""Streaming a reply, whatever the transport: pacing, faults and event order.

This module owns *when* each event of a reply goes out: the Responses event sequence
(:func:`stream_response`, :func:`stream_warmup`), the Chat chunk sequence
(:func:`stream_chat`), and the pacing of deltas (:func:`pace_deltas`: delay before
the first delta, an absolute schedule at ``tokens_per_second``, dropping the
connection after N deltas).

Transports plug in as a :class:`Sink`: WebSocket frames (``websocket.py``) or a
chunked SSE body (:class:`SseSink`). :class:`Wire` wraps the asyncio writer with byte
counting and a flush-then-cut abort. What the events contain is ``events.py``'s
business; what the model says is ``model.py``'s.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Protocol, Sequence

from sparkls.emulator import httpwire
from sparkls.emulator.control import Faults, Stats
from sparkls.emulator.events import ChatChunks, ResponseEvents, dumps
from sparkls.emulator.model import split_tokens

Item = tuple[str, str]  # (event type, JSON text)
DELTA_TYPE = "response.output_text.delta"


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

    def send(self, items: Sequence[Item]) -> bool:
        """Write *items* now; False when the peer can no longer receive them."""
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

    def finish(self, *, done_marker: bool) -> None:
        """End the body (after ``data: [DONE]`` when *done_marker*)."""
        if done_marker:
            self.wire.write(httpwire.chunk(httpwire.SSE_DONE.encode()))
        self.wire.write(httpwire.LAST_CHUNK)

    async def drain(self) -> None:
        await self.wire.drain()

    async def abort(self) -> None:
        await self.wire.abort()


def event_item(event: dict) -> Item:
    return event["type"], dumps(event)


def will_drop(faults: Faults, delta_count: int) -> bool:
    """Whether *faults* cut a reply of *delta_count* deltas short."""
    return faults.drop_after_deltas is not None and faults.drop_after_deltas < delta_count


async def pace_deltas(
    pieces: Sequence[str],
    faults: Faults,
    sink: Sink,
    make_delta: Callable[[str], Item],
    stats: Stats,
) -> bool:
    """Send one delta per piece as *faults* say; False when the stream did not finish.

    Pacing follows an absolute schedule (delta *k* is due at ``start + k / rate``) and
    sends every delta already due in one write, so the average rate stays exact even
    when the event loop wakes late.
    """
    dropping = will_drop(faults, len(pieces))
    limit = faults.drop_after_deltas if dropping else len(pieces)
    assert limit is not None
    if faults.delay_ms:
        await sink.drain()
        await asyncio.sleep(faults.delay_ms / 1000)
    loop = asyncio.get_running_loop()
    rate = faults.tokens_per_second
    start = loop.time()
    sent = 0
    while sent < limit:
        if rate is None:
            upto = limit
        else:
            due = int((loop.time() - start) * rate) + 1
            upto = min(limit, max(due, sent + 1))
        if not sink.send([make_delta(piece) for piece in pieces[sent:upto]]):
            return False
        stats.deltas += upto - sent
        sent = upto
        if rate is not None and sent < limit:
            await sink.drain()
            wait = start + sent / rate - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
    if dropping:
        await sink.abort()
        return False
    return True


async def stream_response(
    events: ResponseEvents,
    text: str,
    usage: dict,
    faults: Faults,
    sink: Sink,
    stats: Stats,
) -> bool:
    """Stream a full Responses reply; False when it was cut short."""
    opening = [events.created(), events.in_progress(), events.item_added(), events.part_added()]
    if not sink.send([event_item(event) for event in opening]):
        return False
    make_delta = lambda piece: (DELTA_TYPE, events.delta(piece))  # noqa: E731
    if not await pace_deltas(split_tokens(text), faults, sink, make_delta, stats):
        return False
    closing = [
        events.text_done(text),
        events.part_done(text),
        events.item_done(text),
        events.completed(text, usage),
    ]
    return sink.send([event_item(event) for event in closing])


def stream_warmup(events: ResponseEvents, usage: dict, sink: Sink) -> bool:
    """A ``"generate": false`` reply: created, then completed with no output."""
    return sink.send([event_item(events.created()), event_item(events.completed(None, usage))])


async def stream_chat(
    chunks: ChatChunks,
    text: str,
    usage: dict | None,
    faults: Faults,
    sink: Sink,
    stats: Stats,
) -> bool:
    """Stream a Chat Completions reply (without ``[DONE]``); False when cut short."""
    kind = "chat.completion.chunk"
    if not sink.send([(kind, dumps(chunks.role()))]):
        return False
    make_delta = lambda piece: (kind, chunks.content(piece))  # noqa: E731
    if not await pace_deltas(split_tokens(text), faults, sink, make_delta, stats):
        return False
    closing = [(kind, dumps(chunks.stop()))]
    if usage is not None:
        closing.append((kind, dumps(chunks.usage(usage))))
    return sink.send(closing)


async def wait_as_generating(text: str, faults: Faults) -> None:
    """Take as long as streaming *text* would, for requests without streaming."""
    seconds = faults.delay_ms / 1000
    if faults.tokens_per_second:
        seconds += len(split_tokens(text)) / faults.tokens_per_second
    if seconds > 0:
        await asyncio.sleep(seconds)
