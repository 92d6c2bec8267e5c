"""The emulator's scripted "model": request text in, answer text out.

This module owns what the emulator *says*; it knows nothing of HTTP, WebSocket or
events, and does no I/O. It follows the fast-tier model protocol (docs/model-protocol.md):

- The editable region is the text between a line ``<|editable_region_start|>`` and a
  line ``<|editable_region_end|>`` (the marker lines excluded, as is the newline that
  ends the region's last line). ``<|cursor|>`` may appear inside it.
- ``REPLACE <old> WITH <new>`` anywhere in the request text replaces every *old* in
  the region, except on region lines that themselves hold a directive: an *old* that
  is an identifier (or a dotted name) is replaced where it is code only, never in a
  string or a comment (``code.py``); any other text is replaced wherever it stands.
  ``COMPLETE <text>`` inserts *text* at the cursor (or at the region's end when there
  is no cursor) when it is in the user's words, or, for an inline completion, on the
  cursor's line or the line just above it: a ``# COMPLETE`` comment left in a file
  acts on the completion right after it, not on every later edit that shows it. An
  operand is a bare non-space token, a ``"double-quoted"`` string or a ```backticked```
  string; inside the quoted forms ``\\n`` and ``\\t`` mean newline and tab.
- Without a REPLACE or COMPLETE directive, a diagnostic in the prompt that suggests a
  name (``Cannot find name 'raduis'. Did you mean 'radius'?``) is followed, as a real
  model would: the name becomes the suggested one in the region (``suggestions.py``);
  then the user's plain words ("rename a to b", "add a docstring", a quick fix on a
  ruff or pyright message) are followed, or answered with one line saying what the
  emulator does not understand and what it follows (``understanding.py``); an inline
  completion request is completed from the code around the cursor (``completing.py``).
- The answer is the complete new region, without the cursor marker, in one fenced
  code block (or in another reply shape, ``shapes.py``). Without region markers the
  answer is the COMPLETE text in a fence, or the sentence :data:`NO_REGION_ANSWER`.
  The markers themselves and finding the region are ``protocol.py``'s.
- A next-edit request (recent edits as diffs, numbered regions) is answered by
  ``nextedit.py``: the region the recent renames (or the REPLACE directives) change,
  as ``Region N`` and a fence, or ``NO_EDIT``.
- A request in the shape of the deep-tier prompt (SEARCH/REPLACE instructions or a
  plan request, files as path lines and fences, a ``Task:`` line) is answered by the
  scripted deep tier instead: SEARCH/REPLACE blocks or a plan (``deep.py``).

It also owns the two small text utilities the transport needs: how a request body
becomes request text (:func:`responses_request_text`, :func:`chat_request_text`) and
how an answer is cut into token-like pieces (:func:`split_tokens`), plus a rough token
count and an emulated prompt cache (:class:`PromptCache`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from typing import Any, Iterable

from sparkls.emulator import deep, nextedit, phrasings, rewrites, suggestions, understanding
from sparkls.emulator.code import is_identifier, rename_in_code
from sparkls.emulator.protocol import CURSOR, FENCE, REGION_END, REGION_START, fence, find_region
from sparkls.emulator.shapes import BROKEN_TAIL, REPLY_STYLES, render

__all__ = [
    "BROKEN_TAIL", "CURSOR", "FENCE", "NO_REGION_ANSWER", "REGION_END", "REGION_START",
    "REPLY_STYLES", "PromptCache", "answer", "chat_request_text", "count_tokens", "edit_region",
    "fence", "find_region", "parse_directives", "responses_request_text", "split_tokens",
]

NO_REGION_ANSWER = "No editable region in the request."

# An operand: "double-quoted" (backslash escapes), `backticked`, or a bare token.
# Operands never span lines; a newline inside one is written \n.
_OPERAND = r'"(?:\\.|[^"\\\n])*"|`[^`\n]*`|[^\s]+'
_REPLACE_RE = re.compile(rf"(?<!\w)REPLACE[ \t]+({_OPERAND})[ \t]+WITH[ \t]+({_OPERAND})")
_COMPLETE_RE = re.compile(rf"(?<!\w)COMPLETE[ \t]+({_OPERAND})")
_TOKEN_RE = re.compile(r"\s+|\w+|[^\w\s]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "`": "`"}


@dataclasses.dataclass(frozen=True, slots=True)
class Replace:
    """One ``REPLACE old WITH new`` directive."""

    old: str
    new: str


@dataclasses.dataclass(frozen=True, slots=True)
class Directives:
    """The directives of one request, in order of appearance."""

    replaces: tuple[Replace, ...] = ()
    completes: tuple[str, ...] = ()


def unquote(operand: str) -> str:
    """Return an operand's value: quotes removed, ``\\n`` and ``\\t`` expanded."""
    if len(operand) >= 2 and operand[0] == operand[-1] and operand[0] in "\"`":
        body = operand[1:-1]
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), body)
    return operand


def has_directive(text: str) -> bool:
    """Tell whether *text* (typically one line) holds a REPLACE or COMPLETE directive."""
    return bool(_REPLACE_RE.search(text) or _COMPLETE_RE.search(text))


def parse_directives(text: str) -> Directives:
    """Find every directive in *text*."""
    replaces = tuple(
        Replace(unquote(m.group(1)), unquote(m.group(2))) for m in _REPLACE_RE.finditer(text)
    )
    completes = tuple(unquote(m.group(1)) for m in _COMPLETE_RE.finditer(text))
    return Directives(replaces, completes)


def edit_region(region: str, directives: Directives, language: str = "") -> str:
    """Apply *directives* to *region* (of *language*, "" for Python or unknown); return
    the new region without the cursor."""
    # Replacements run over each stretch of consecutive lines without a directive, so
    # an operand may span lines ("a\nb") but a directive's own line stays as it is.
    runs: list[tuple[bool, list[str]]] = []
    for line in region.splitlines(keepends=True):
        held = has_directive(line)
        if runs and runs[-1][0] == held:
            runs[-1][1].append(line)
        else:
            runs.append((held, [line]))
    edited = []
    for held, lines in runs:
        chunk = "".join(lines)
        if not held:
            for replace in directives.replaces:
                if is_identifier(replace.old):  # a rename: in code only, never a string's words
                    chunk = rename_in_code(chunk, [(replace.old, replace.new)], language, whole_words=False)
                elif replace.old:
                    chunk = chunk.replace(replace.old, replace.new)
        edited.append(chunk)
    text = "".join(edited)
    insertion = "".join(directives.completes)
    cursor = text.find(CURSOR)
    if cursor < 0:
        return text + insertion
    return text[:cursor] + insertion + text[cursor + len(CURSOR) :].replace(CURSOR, "")


def answer(request_text: str, *, reply: str = "fenced") -> str:
    """Return the scripted model's complete answer to *request_text*.

    *reply* is the answer's shape (``shapes.py``): ``fenced`` (the protocol), ``bare``,
    ``empty``, ``broken``, or one of the shapes real fast models produce. A deep-tier
    request is answered by the scripted deep tier whatever the shape (``empty`` aside).
    """
    if reply not in REPLY_STYLES:
        raise ValueError(f"unknown reply style {reply!r}; expected one of {REPLY_STYLES}")
    if reply == "empty":
        return ""
    if deep.is_deep_request(request_text):
        return deep.answer(request_text)
    directives = parse_directives(request_text)
    if nextedit.is_next_edit_request(request_text):
        return nextedit.answer(request_text, [(r.old, r.new) for r in directives.replaces])
    bounds = find_region(request_text)
    if bounds is not None:
        old = request_text[bounds[0] : bounds[1]]
        directives = Directives(directives.replaces, _completes_in_reach(request_text, bounds))
        new = edit_region(old, directives, rewrites.language(request_text))
        if not (directives.replaces or directives.completes):
            new = suggestions.apply_renames(new, suggestions.suggested_renames(request_text))
            followed = follow_words(request_text, old, new)
            if followed is not None and followed.prose is not None:
                return followed.prose
            new = new if followed is None else followed.region
        return render(reply, new, old, request_text)
    if directives.completes:
        return render(reply, "".join(directives.completes), None, request_text)
    return NO_REGION_ANSWER


def _completes_in_reach(request_text: str, bounds: tuple[int, int]) -> tuple[str, ...]:
    """The COMPLETE directives that act on this request: in the user's words, and for an
    inline completion on the cursor's line or the line above it (a raw request without
    user words: all of them)."""
    labelled = phrasings.labelled_words(request_text)
    if labelled is None:  # a raw request (a test's own): its directives, wherever they are
        return parse_directives(request_text).completes
    completes = parse_directives(labelled).completes
    words = phrasings.user_words(request_text) or ""
    if words.startswith("Complete the code at the cursor"):
        above = request_text[: bounds[0]].rstrip("\n").rsplit("\n", 2)  # [..., line above, start marker]
        near = (above[-2] if len(above) >= 2 else "") + "\n" + request_text[bounds[0] : bounds[1]]
        completes += parse_directives(near).completes
    return completes


def follow_words(request_text: str, old: str, new: str, *, earlier: str | None = None) -> understanding.Followed | None:
    """The user's plain words followed on *new* (the region *old* after the
    suggestions, ``understanding.py``): None when the request holds no user words;
    a suggestion taken counts as understanding them."""
    cursor = old.find(CURSOR)
    followed = understanding.follow(request_text, new, cursor=cursor if cursor >= 0 else None, earlier=earlier)
    not_understood = followed is not None and (followed.prose or "").startswith(phrasings.NOT_UNDERSTOOD_START)
    if not_understood and new != old.replace(CURSOR, ""):
        return understanding.Followed(new)
    return followed


def split_tokens(text: str) -> list[str]:
    """Cut *text* into token-like pieces (whitespace runs, words, single symbols).

    The pieces join back to exactly *text*; each becomes one streamed delta.
    """
    return _TOKEN_RE.findall(text)


def count_tokens(text: str) -> int:
    """A rough token count for usage figures: one token per four characters."""
    return (len(text) + 3) // 4


def _content_text(content: Any) -> Iterable[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                yield part
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]


def responses_request_text(body: dict[str, Any]) -> str:
    """The text a Responses API request shows the model: instructions, then inputs."""
    texts: list[str] = []
    if isinstance(body.get("instructions"), str):
        texts.append(body["instructions"])
    items = body.get("input")
    if isinstance(items, str):
        texts.append(items)
    elif isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                if "content" in item:
                    texts.extend(_content_text(item["content"]))
                elif isinstance(item.get("text"), str):
                    texts.append(item["text"])
            elif isinstance(item, str):
                texts.append(item)
    return "\n".join(texts)


def chat_request_text(body: dict[str, Any]) -> str:
    """The text a Chat Completions request shows the model: the messages' contents."""
    texts: list[str] = []
    messages = body.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                texts.extend(_content_text(message.get("content")))
    return "\n".join(texts)


class PromptCache:
    """An emulated provider prompt cache, to make ``cached_tokens`` meaningful.

    Like the real service, a prompt's prefix counts as cached when an earlier prompt
    shared it and the shared part is at least *minimum* tokens; the count is rounded
    down to a multiple of *increment*. It remembers the last *size* prompts.
    """

    MAX_PREFIX_CHARS = 512 * 1024  # remember at most this much of each prompt

    def __init__(self, *, size: int = 64, minimum: int = 1024, increment: int = 128) -> None:
        self._prompts: deque[str] = deque(maxlen=size)
        self._minimum = minimum
        self._increment = increment

    def lookup(self, prompt: str) -> int:
        """Return the cached tokens for *prompt*, then remember it."""
        best = 0
        for earlier in self._prompts:
            best = max(best, _common_prefix_length(earlier, prompt))
        self._prompts.append(prompt[: self.MAX_PREFIX_CHARS])
        tokens = best // 4
        if tokens < self._minimum:
            return 0
        return tokens - tokens % self._increment

    def recent(self) -> list[str]:
        """The prompts it remembers, oldest first (each cut at MAX_PREFIX_CHARS)."""
        return list(self._prompts)

    def clear(self) -> None:
        self._prompts.clear()


def _common_prefix_length(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    low, high = 0, limit  # invariant: a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low
