"""An edit of the text (a span replaced by the marker, or emptied), and applying many.

Edits are found on the text's UTF-8 bytes (`Edit`, byte offsets in one window) and
applied to the text itself (`apply`, character offsets), so that only the windows'
bytes are ever made, never the whole text's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, TypeVar

MARKER = "[REDACTED]"
MARKER_BYTES = MARKER.encode()


DECISIONS = 256  # candidates one window's rules may weigh in Python (see Budget)
WEIGHED = 32 * 1024  # bytes of the values those candidates hold, in all (Budget)
HITS = 4096  # keywords one window's assignment rules may try their whole pattern on (Budget.hits)
REACH = 16 * 1024  # bytes past a secret's start that a rule may read, at most

_M = TypeVar("_M")


def _start(match: Any) -> int:
    return match.start()



class Budget:
    """What one window's rules may still weigh one by one in Python: candidates, the
    bytes of the values they hold, and keywords tried by the assignment patterns.

    Ordinary text has a few dozen candidates per window, of a few dozen bytes each, and
    a few hundred keywords; only a file made of secrets, or one made to be slow
    (`password=` a million times, long values after `Authorization:` one after
    another, `key ` repeated), has more. Past the budget a rule stops at its next
    candidate and says where (`cut`); the window is then hidden from there on, line by
    line (`redact`), so the time a window takes stays bounded whatever it holds and
    nothing past the cut is sent unread. Each iterable handed to `matches` or `hits`
    must be in order of position (one per pattern), so that nothing before the cut is
    left unweighed."""

    __slots__ = ("left", "bytes_left", "hits_left", "cut")

    def __init__(self, decisions: int = DECISIONS, weighed: int = WEIGHED, hits: int = HITS) -> None:
        self.left = decisions
        self.bytes_left = weighed
        self.hits_left = hits
        self.cut: int | None = None

    def matches(
        self, found: Iterable[_M], position: Callable[[_M], int] = _start, size: Callable[[_M], int] | None = None
    ) -> Iterator[_M]:
        """`found` as long as the budget lasts; `size` says how many bytes of value an
        item holds (the span of a match whose value is in it: `span_size`)."""
        for item in found:
            weight = size(item) if size is not None else 0
            if self.left <= 0 or self.bytes_left < weight:
                self.stop(position(item))
                return
            self.left -= 1
            self.bytes_left -= weight
            yield item

    def hits(self, found: Iterable[re.Match[bytes]]) -> Iterator[re.Match[bytes]]:
        """`found` as long as the window's keyword hits last."""
        for item in found:
            if self.hits_left <= 0:
                self.stop(item.start())
                return
            self.hits_left -= 1
            yield item

    def stop(self, position: int) -> None:
        self.cut = position if self.cut is None else min(self.cut, position)

    def reach(self, data: bytes) -> bytes:
        """`data` as far as a rule still to run needs to read it: past the cut, only as
        far as a secret starting before it could reach (the rest is hidden)."""
        if self.cut is None or len(data) <= self.cut + REACH:
            return data  # not copied again
        return data[: self.cut + REACH]


def span_size(match: re.Match[bytes]) -> int:
    return match.end() - match.start()


class Edit(NamedTuple):
    start: int
    end: int
    replacement: bytes
    counted: bool  # False for the extra lines of one private key


def to_characters(data: bytes, edits: list[Edit]) -> list[tuple[int, int, str, bool]]:
    """`edits` (byte offsets into `data`) as character offsets into `data.decode()`,
    each span widened to whole UTF-8 characters; sorted."""
    spans = sorted(_whole_characters(data, edit) for edit in edits)
    if data.isascii():  # one byte per character
        return [(start, end, replacement.decode(), counted) for start, end, replacement, counted in spans]
    offsets = sorted({position for edit in spans for position in edit[:2]})
    chars: dict[int, int] = {}
    previous_byte = previous_char = 0
    for position in offsets:  # one pass over the data: each stretch decoded once
        previous_char += len(data[previous_byte:position].decode("utf-8", "surrogatepass"))
        previous_byte = position
        chars[position] = previous_char
    return [(chars[start], chars[end], replacement.decode(), counted) for start, end, replacement, counted in spans]


def _whole_characters(data: bytes, edit: Edit) -> Edit:
    start, end = edit.start, edit.end
    while 0 < start < len(data) and 0x80 <= data[start] < 0xC0:
        start -= 1
    while 0 < end < len(data) and 0x80 <= data[end] < 0xC0:
        end += 1
    return edit if (start, end) == (edit.start, edit.end) else edit._replace(start=start, end=end)


def apply(text: str, edits: list[tuple[int, int, str, bool]]) -> tuple[str, int]:
    """`text` with sorted character-offset edits applied, and how many were counted. An
    edit overlapping an earlier one is merged into it, uncounted."""
    edits.sort(key=lambda edit: (edit[0], -edit[1]))
    pieces: list[str] = []
    position = count = 0
    for start, end, replacement, counted in edits:
        if start < position:
            if end > position and pieces and pieces[-1] == MARKER:
                position = end  # the earlier marker now covers this one too
            continue
        pieces += (text[position:start], replacement)
        position = end
        count += counted
    pieces.append(text[position:])
    return "".join(pieces), count
