"""A reply's events in order: a behaviour's script played over a sink, or built whole.

This module owns the order of a reply, for both APIs: :func:`stream_response` plays a
:class:`~sparkls.emulator.behaviours.Script` as Responses events (opening events, the
wait for the first token, a reasoning item, each message's deltas, then the ending:
completed, incomplete, failed, or an in-band error), :func:`stream_chat` plays it as
Chat Completions chunks, and :func:`whole_response` / :func:`whole_chat` build the
object a request without streaming gets, through the same builders so the two always
agree. Timing is ``streaming.py``'s (:class:`~sparkls.emulator.streaming.Pacer`);
the JSON is ``responses.py``'s and ``chat.py``'s.

The stream functions return ``"completed"`` or ``"ended"`` (the stream ended in
order, some other way: incomplete, failed, error), ``"steered"`` (an
:class:`~sparkls.emulator.streaming.Interrupt` stopped it at a safe boundary: the open
message done as ``incomplete``, then ``response.incomplete`` with reason
``steered``) or ``"cut"`` (the connection went away or the drop fault cut it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from sparkls.emulator.behaviours import SERVER_ERROR_MESSAGE, STREAM_ERROR_MESSAGE, Script
from sparkls.emulator.chat import ChatChunks, chat_usage, timings
from sparkls.emulator.control import Faults, Stats
from sparkls.emulator.events import ApiError, dumps
from sparkls.emulator.model import split_tokens
from sparkls.emulator.responses import ResponseEvents, responses_usage
from sparkls.emulator.streaming import Interrupt, Item, Pacer, Sink

TEXT_DELTA = "response.output_text.delta"
REFUSAL_DELTA = "response.refusal.delta"
CHUNK = "chat.completion.chunk"
SERVER_ERROR = "server_error"
# A chat completion's finish_reason for the reason a response is incomplete.
FINISH_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _items(events: list[dict[str, Any]]) -> list[Item]:
    return [(event["type"], dumps(event)) for event in events]


async def stream_response(
    events: ResponseEvents,
    script: Script,
    usage: dict[str, Any],
    faults: Faults,
    sink: Sink,
    stats: Stats,
    interrupt: Interrupt | None = None,
) -> str:
    """Stream *script* as Responses events (see the module doc for the result); an
    *interrupt* stops it at the next safe boundary (steering)."""
    opening = [events.created("queued" if script.queued else "in_progress")]
    if script.queued:
        opening.append(events.queued())
    opening.append(events.in_progress())
    if not sink.send(_items(opening)):
        return "cut"
    pacer = Pacer(faults, sink, stats, interrupt)
    await pacer.first_token_wait()
    reasoning_tokens = 0
    if pacer.stopping():
        return _steered(events, None, usage, pacer.sent, sink)
    if script.reasoning:
        if not sink.send(_items(events.reasoning_item())):
            return "cut"
        reasoning_tokens = script.reasoning_tokens
    last = len(script.messages) - 1
    for index, message in enumerate(script.messages):
        cut = script.cut if index == last else None
        pieces = message.pieces if cut is None else message.pieces[:cut]
        if pacer.stopping():
            return _steered(events, None, usage, pacer.sent + reasoning_tokens, sink)
        if not sink.send(_items(events.open_message(message.phase, refusal=message.refusal))):
            return "cut"
        kind = REFUSAL_DELTA if message.refusal else TEXT_DELTA
        base = pacer.sent
        if not await pacer.deltas(kind, pieces, events.deltas):
            if not pacer.interrupted:
                return "cut"
            text = "".join(pieces[: pacer.sent - base])
            return _steered(events, text, usage, pacer.sent + reasoning_tokens, sink)
        text = "".join(pieces)
        if cut is None:
            if not sink.send(_items(events.close_message(text))):
                return "cut"
            continue
        if script.ending == "incomplete":
            assert script.reason is not None
            ending = [*events.close_message(text, "incomplete"), events.incomplete(script.reason, usage)]
        elif script.ending == "failed":
            events.abandon_message(text)
            ending = [events.failed(SERVER_ERROR, SERVER_ERROR_MESSAGE)]
        else:
            error = events.stream_error(SERVER_ERROR, STREAM_ERROR_MESSAGE, websocket=sink.transport == "websocket")
            ending = [error]
            stats.errors += 1
        return "ended" if sink.send(_items(ending)) else "cut"
    return "completed" if sink.send(_items([events.completed(usage)])) else "cut"


async def stream_patch_call(
    events: ResponseEvents, item: dict[str, Any], usage: dict[str, Any], faults: Faults, sink: Sink, stats: Stats,
    interrupt: Interrupt | None = None,
) -> str:
    """Stream an ``apply_patch_call`` answer (the `apply_patch` tool's): the opening
    events, the wait for the first token, the item added (in progress), the time its
    diff takes to write at the paced rate, the item done, completed. The SDK types no
    delta event for the diff, so none is sent."""
    if not sink.send(_items([events.created(), events.in_progress()])):
        return "cut"
    pacer = Pacer(faults, sink, stats, interrupt)
    await pacer.first_token_wait()
    if pacer.stopping():
        return _steered(events, None, usage, 0, sink)
    if not sink.send(_items([events.patch_call_added(item)])):
        return "cut"
    tokens = len(split_tokens(item["operation"].get("diff", "")))
    if faults.tokens_per_second and tokens:
        await sink.drain()
        await asyncio.sleep(tokens / faults.tokens_per_second)
    stats.deltas += tokens
    return "completed" if sink.send(_items([events.patch_call_done(item), events.completed(usage)])) else "cut"


def _steered(events: ResponseEvents, open_text: str | None, usage: dict[str, Any], produced: int, sink: Sink) -> str:
    """End a response stopped by a steer: the open message (holding *open_text*) done
    as incomplete, then ``response.incomplete`` (reason ``steered``) with usage
    counting the *produced* output tokens."""
    reasoning = min(produced, usage["output_tokens_details"]["reasoning_tokens"])
    cached = usage["input_tokens_details"]["cached_tokens"]
    so_far = responses_usage(usage["input_tokens"], produced, cached, reasoning)
    ending = [] if open_text is None else events.close_message(open_text, "incomplete")
    ending.append(events.incomplete("steered", so_far))
    return "steered" if sink.send(_items(ending)) else "cut"


def stream_warmup(events: ResponseEvents, usage: dict[str, Any], sink: Sink) -> bool:
    """A ``"generate": false`` reply: created, then completed with no output."""
    return sink.send(_items([events.created(), events.completed(usage)]))


def whole_response(events: ResponseEvents, script: Script, usage: dict[str, Any]) -> dict[str, Any]:
    """The response object a request without streaming gets for *script*.

    Raises :class:`ApiError` (500) for ``stream_error``: without a stream, a broken
    generation is a failed HTTP request.
    """
    if script.ending == "error":
        raise ApiError(500, SERVER_ERROR, STREAM_ERROR_MESSAGE)
    if script.reasoning:
        events.reasoning_item()
    last = len(script.messages) - 1
    for index, message in enumerate(script.messages):
        pieces = message.pieces
        cut = script.cut if index == last else None
        events.open_message(message.phase, refusal=message.refusal)
        text = "".join(pieces if cut is None else pieces[:cut])
        if cut is not None and script.ending == "failed":
            events.abandon_message(text)
            return events.response("failed", error={"code": SERVER_ERROR, "message": SERVER_ERROR_MESSAGE})
        events.close_message(text, "completed" if cut is None else "incomplete")
    if script.ending == "incomplete":
        return events.response("incomplete", usage, incomplete_reason=script.reason)
    return events.response("completed", usage)


# -- Chat Completions -------------------------------------------------------------


class ChatReply:
    """What one chat completion says, from a script, as *flavour* shows it."""

    def __init__(self, script: Script, flavour: str, prompt_tokens: int, cached_tokens: int) -> None:
        *earlier, last = script.messages
        prefix = "".join(message.text + "\n\n" for message in earlier)
        last_pieces = list(last.pieces if script.cut is None else last.pieces[: script.cut])
        self.script = script
        self.refusal = last.refusal and flavour == "openai"
        self.pieces = split_tokens(prefix) + last_pieces
        self.text = "".join(self.pieces)
        shown = flavour != "openai"  # OpenAI keeps reasoning hidden; local servers stream it
        self.thinking = script.reasoning if shown else ""
        self.finish_reason = FINISH_REASONS.get(script.reason or "", "stop")
        reasoning_tokens = script.reasoning_tokens
        completion_tokens = len(self.pieces) + reasoning_tokens
        self.usage = chat_usage(flavour, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens)
        self.timings = timings(prompt_tokens, completion_tokens, cached_tokens)

    @property
    def broken(self) -> bool:
        """Whether the reply breaks off with an error instead of finishing."""
        return self.script.ending in ("failed", "error")


async def stream_chat(chunks: ChatChunks, reply: ChatReply, faults: Faults, sink: Sink, stats: Stats) -> str:
    """Stream a chat reply as chunks, without ``[DONE]`` (see the module doc for the result)."""
    if not sink.send([(CHUNK, chunk) for chunk in chunks.opening(refusal=reply.refusal)]):
        return "cut"
    pacer = Pacer(faults, sink, stats)
    await pacer.first_token_wait()
    if reply.thinking and not await pacer.deltas(CHUNK, split_tokens(reply.thinking), chunks.reasonings):
        return "cut"
    if not await pacer.deltas(CHUNK, reply.pieces, chunks.refusals if reply.refusal else chunks.contents):
        return "cut"
    if reply.broken:
        stats.errors += 1
        return "ended" if sink.send([(CHUNK, chunks.error(STREAM_ERROR_MESSAGE))]) else "cut"
    closing = chunks.closing(reply.finish_reason, reply.usage, reply.timings)
    return "completed" if sink.send([(CHUNK, chunk) for chunk in closing]) else "cut"


def whole_chat(chunks: ChatChunks, reply: ChatReply) -> dict[str, Any]:
    """The ``chat.completion`` a request without streaming gets; raises
    :class:`ApiError` (500) when the reply breaks off."""
    if reply.broken:
        raise ApiError(500, SERVER_ERROR, STREAM_ERROR_MESSAGE)
    return chunks.completion(
        content=None if reply.refusal else reply.text,
        reasoning=reply.thinking,
        refusal=reply.text if reply.refusal else None,
        finish_reason=reply.finish_reason,
        usage=reply.usage,
        timing=reply.timings,
    )
