"""Model behaviours the emulator plays on demand, as pure scripts.

A real model does more than stream one fenced block: it reasons first, comments
before answering, refuses, stops at its output limit, fails, or is rate limited.
This module owns what each behaviour consists of, whatever the transport: a
:class:`Script` (the output items in order, how the reply ends and after how many
deltas), built by :func:`script` from the behaviour's name and the answer text.
How a script becomes events or chunks is ``replies.py``'s business.

Behaviours (the ``behaviour`` fault, or ``EMULATE <name>`` in the request text):

- ``final_answer`` (default): a reasoning item, then one message, ``phase: final_answer``;
- ``commentary``: reasoning, a ``phase: commentary`` message of prose (code only in
  backticks, never a fenced block), then the ``final_answer`` message;
- ``unlabelled``: reasoning, then two messages without ``phase``: prose, then the answer;
- ``plain``: one message without ``phase``, no reasoning item;
- ``refusal``: reasoning, then a message whose content is a refusal;
- ``max_output_tokens`` / ``content_filter``: about half of the answer's deltas, then
  the response ends ``incomplete`` for that reason;
- ``failed``: a few deltas, then ``response.failed`` (``server_error``);
- ``stream_error``: a few deltas, then an in-band ``error`` event; the stream ends;
- ``rate_limited``: refused before any output, 429 ``rate_limit_exceeded`` with
  ``retry-after`` (:func:`rate_limit_error`);
- ``queued``: ``response.queued`` after ``response.created``, then the default.
"""

from __future__ import annotations

import dataclasses
import re

from sparkls.emulator import deep
from sparkls.emulator.chat import CHAT_FLAVOURS
from sparkls.emulator.events import ApiError
from sparkls.emulator.model import REPLY_STYLES, parse_directives, split_tokens

BEHAVIOURS = (
    "final_answer",
    "commentary",
    "unlabelled",
    "plain",
    "refusal",
    "max_output_tokens",
    "content_filter",
    "failed",
    "stream_error",
    "rate_limited",
    "queued",
)
REFUSAL_TEXT = "I'm sorry, but I can't help with that request."
SERVER_ERROR_MESSAGE = "The server had an error while processing your request. Sorry about that!"
STREAM_ERROR_MESSAGE = (
    "An error occurred while processing your request. You can retry your request, or "
    "contact us through our help center at help.openai.com if the error persists."
)
FEW_DELTAS = 3  # what `failed` and `stream_error` send before they end the stream
RATE_LIMIT = {"limit": 30000, "used": 29500, "requested": 1200}

_EMULATE_RE = re.compile(r"(?<!\w)EMULATE[ \t]+([A-Za-z_.]+)")


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    """One assistant message item: its text, its ``phase``, whether it is a refusal,
    and the text cut into the pieces its deltas carry (computed once: long replies
    have thousands)."""

    text: str
    phase: str | None = None
    refusal: bool = False
    pieces: tuple[str, ...] = dataclasses.field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.pieces and self.text:
            object.__setattr__(self, "pieces", tuple(split_tokens(self.text)))


@dataclasses.dataclass(frozen=True, slots=True)
class Script:
    """What one reply consists of.

    ``reasoning`` is the model's hidden reasoning: a reasoning item (opaque) in the
    Responses API, ``reasoning_content``/``reasoning`` deltas from chat servers that
    show it; empty means no reasoning. ``ending`` is ``completed``, ``incomplete``
    (with ``reason``), ``failed`` or ``error``; ``cut``, when set, is how many deltas
    of the last message go out before that ending.
    """

    messages: tuple[Message, ...]
    reasoning: str = ""
    ending: str = "completed"
    reason: str | None = None
    cut: int | None = None
    queued: bool = False

    @property
    def reasoning_tokens(self) -> int:
        return len(split_tokens(self.reasoning))

    @property
    def visible_tokens(self) -> int:
        """Deltas the messages send (the last one cut short where the script says)."""
        *earlier, last = self.messages
        sent = len(last.pieces) if self.cut is None else self.cut
        return sum(len(m.pieces) for m in earlier) + sent

    @property
    def output_tokens(self) -> int:
        return self.visible_tokens + self.reasoning_tokens


def script(behaviour: str, answer: str, request_text: str) -> Script:
    """The script of *behaviour* for a reply whose answer is *answer*."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {behaviour!r}; expected one of {BEHAVIOURS}")
    thinking = reasoning_text(request_text)
    final = Message(answer, "final_answer")
    pieces = len(final.pieces)
    if behaviour == "commentary":
        return Script((Message(commentary_text(request_text), "commentary"), final), thinking)
    unlabelled = Message(answer, pieces=final.pieces)
    if behaviour == "unlabelled":
        return Script((Message(commentary_text(request_text)), unlabelled), thinking)
    if behaviour == "plain":
        return Script((unlabelled,))
    if behaviour == "refusal":
        return Script((Message(REFUSAL_TEXT, "final_answer", refusal=True),), thinking)
    if behaviour in ("max_output_tokens", "content_filter"):
        return Script((final,), thinking, "incomplete", behaviour, cut=pieces // 2)
    if behaviour == "failed":
        return Script((final,), thinking, "failed", cut=min(FEW_DELTAS, pieces // 2))
    if behaviour == "stream_error":
        return Script((final,), thinking, "error", cut=min(FEW_DELTAS, pieces // 2))
    return Script((final,), thinking, queued=behaviour == "queued")


def _code(value: str) -> str:
    """*value* as inline code in prose: its first line, shortened, in backticks."""
    line = value.split("\n", 1)[0].replace("`", "'")
    return f"`{line[:40]}{'…' if len(line) > 40 else ''}`"


def commentary_text(request_text: str) -> str:
    """What a model says before its answer: prose, code only in backticks."""
    if deep.is_deep_request(request_text):
        return "I'll make the change in each file shown, with one SEARCH/REPLACE block per edit."
    directives = parse_directives(request_text)
    if directives.replaces:
        changes = ", ".join(f"{_code(r.old)} to {_code(r.new)}" for r in directives.replaces)
        return f"I'll change {changes} in the selected code and keep the rest as it is."
    if directives.completes:
        return f"I'll insert {_code(''.join(directives.completes))} at the cursor and leave the surrounding code unchanged."
    return "Nothing in the request asks for a change, so I'll give the selected code back as it is."


def reasoning_text(request_text: str) -> str:
    """The model's hidden reasoning, as chat servers that show it stream it."""
    if deep.is_deep_request(request_text):
        return "The task spans several files. Each edit needs a SEARCH part that matches its file exactly."
    directives = parse_directives(request_text)
    if directives.replaces:
        asked = " and ".join(f"{_code(r.old)} replaced by {_code(r.new)}" for r in directives.replaces)
    elif directives.completes:
        asked = f"{_code(''.join(directives.completes))} inserted at the cursor"
    else:
        asked = "the code kept as it is"
    return f"The user wants {asked}. Only the editable region may change, so the answer is its full new text."


def emulate_directives(request_text: str) -> dict[str, str]:
    """Fault changes named by ``EMULATE <name>`` in the request text: a behaviour, a
    reply shape or a chat flavour (the last of each kind wins; unknown names are text)."""
    changes: dict[str, str] = {}
    for name in _EMULATE_RE.findall(request_text):
        if name in BEHAVIOURS:
            changes["behaviour"] = name
        elif name in REPLY_STYLES:
            changes["reply"] = name
        elif name in CHAT_FLAVOURS:
            changes["chat_flavour"] = name
    return changes


def format_wait(seconds: float) -> str:
    """A wait as the service writes it: ``120ms``, ``1.3s``, ``2m3.5s``, ``1h0m0s``."""
    if seconds < 1:
        return f"{round(seconds * 1000, 3):g}ms" if seconds > 0 else "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    secs_text = f"{round(secs, 3):g}s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{secs_text}"
    if minutes:
        return f"{int(minutes)}m{secs_text}"
    return secs_text


def rate_limit_error(model: str, retry_after: float) -> ApiError:
    """The 429 a tokens-per-minute limit gets, telling the client to wait *retry_after* s."""
    wait = format_wait(retry_after)
    limit, used, requested = RATE_LIMIT["limit"], RATE_LIMIT["used"], RATE_LIMIT["requested"]
    message = (
        f"Rate limit reached for {model} in organization org-sparkls-emulator on tokens per min "
        f"(TPM): Limit {limit}, Used {used}, Requested {requested}. Please try again in {wait}. "
        "Visit https://platform.openai.com/account/rate-limits to learn more."
    )
    headers = {
        "retry-after": f"{round(retry_after, 3):g}",
        "retry-after-ms": str(round(retry_after * 1000)),
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-limit-tokens": str(limit),
        "x-ratelimit-remaining-tokens": str(limit - used),
        "x-ratelimit-reset-tokens": wait,
    }
    return ApiError(429, "rate_limit_exceeded", message, error_type="requests", headers=headers)
