"""Which part of a streamed response is the answer. Pure: records in, text out.

A response may hold several output items: a reasoning item, a message of commentary
(`phase: "commentary"`: "I'll rename the variable…"), then the message with the
answer (`phase: "final_answer"`). Only the answer is the reply. `AnswerBuilder` is
fed the records of one response (`models/events.py`) and, at its end, gives:

- the text of the last `final_answer` message; else, when no message has a phase (older
  models, Chat Completions), the last message; a stream whose deltas name no item
  (a proxy, a minimal server) is one message;
- `ModelRefused` when that message is a refusal (the refusal's text in the message);
- `ReplyCutOff` when the response ended as incomplete (`max_output_tokens`,
  `content_filter`, Chat's `length`): no part of a cut-off answer is ever used.

If no delta carried text but the completed response lists its output (a server that
does not stream deltas), the answer is read from that output by the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparkls.errors import ModelRefused, ReplyCutOff
from sparkls.models.events import Completed, Event, ItemInfo, RefusalDelta, TextDelta, Where
from sparkls.models.toolcall import PatchCall, patch_call

CUT_OFF_REASONS = {
    "max_output_tokens": "it reached the output token limit",
    "length": "it reached the output token limit",
    "content_filter": "the provider's content filter stopped it",
    "steered": "it stopped for new input (`response.steer`) that was then not applied",
}


@dataclass(slots=True)
class _Message:
    phase: str | None = None
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)


class AnswerBuilder:
    """The messages of one response, in the order they began."""

    __slots__ = ("_where", "_messages", "_skipped", "_calls")

    def __init__(self, where: Where) -> None:
        self._where = where
        self._messages: dict[str, _Message] = {}
        self._skipped: set[str] = set()  # items that are not messages (reasoning, tool calls)
        self._calls: list[PatchCall] = []

    def patch_call(self, done: Completed) -> PatchCall | None:
        """The response's last `apply_patch_call` (the edit through the tool), streamed
        or listed in its completed output; None when it made none."""
        if not self._calls:
            listed = (patch_call(item) for item in done.output)
            self._calls = [call for call in listed if call is not None]
        return self._calls[-1] if self._calls else None

    def feed(self, event: Event) -> None:
        if isinstance(event, PatchCall):
            self._skipped.add(event.item)
            self._calls.append(event)
        elif isinstance(event, TextDelta):
            self._message(event.item).text.append(event.text)
        elif isinstance(event, RefusalDelta):
            self._message(event.item).refusal.append(event.text)
        elif isinstance(event, ItemInfo):
            if event.kind != "message":
                self._skipped.add(event.item)
            else:
                message = self._message(event.item)
                message.phase = event.phase or message.phase

    def _message(self, item: str) -> _Message:
        message = self._messages.get(item)
        if message is None:
            message = self._messages[item] = _Message()
        return message

    def answer(self, done: Completed) -> str:
        """The answer's text, or the error the response's end means."""
        tier = self._where.tier
        if done.incomplete is not None:
            why = CUT_OFF_REASONS.get(done.incomplete, done.incomplete)
            raise ReplyCutOff(
                f"The {tier} tier's reply was cut off ({done.incomplete}: {why}), so nothing was applied.",
                reason=done.incomplete,
            )
        messages = [m for key, m in self._messages.items() if key not in self._skipped]
        if not any(m.text or m.refusal for m in messages) and done.output:
            messages = _messages_of(done.output)
        chosen = _final(messages)
        if chosen is None:
            return ""
        if chosen.refusal and not "".join(chosen.text).strip():
            refusal = " ".join("".join(chosen.refusal).split())
            raise ModelRefused(
                f"The {tier} tier's model declined: \u201c{refusal[:300]}\u201d Nothing was changed.",
                refusal=refusal,
            )
        return "".join(chosen.text)


def _final(messages: list[_Message]) -> _Message | None:
    finals = [m for m in messages if m.phase == "final_answer"]
    if finals:
        return finals[-1]
    unlabelled = [m for m in messages if m.phase is None]
    # Commentary alone is no answer; if all there is is commentary, the last one is
    # still better read (and refused by the edit step) than silently dropped.
    pool = unlabelled or messages
    return pool[-1] if pool else None


def _messages_of(output: tuple[dict[str, Any], ...]) -> list[_Message]:
    """The messages of a completed response's `output` list."""
    messages = []
    for item in output:
        if item.get("type") != "message":
            continue
        message = _Message(item.get("phase") if isinstance(item.get("phase"), str) else None)
        for part in item.get("content") or []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                message.text.append(part["text"])
            elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                message.refusal.append(part["refusal"])
        messages.append(message)
    return messages
