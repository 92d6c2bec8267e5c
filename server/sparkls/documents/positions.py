"""Positions: the one place where LSP (line, character) meets Python string offsets.

LSP counts `character` in the negotiated `positionEncoding` (UTF-16 code units unless
the client and server agreed on "utf-8" or "utf-32"); Python strings index code
points; tree-sitter counts UTF-8 bytes. Everything that converts between them lives
here, is pure, and is tested with emoji and CJK text.

Line breaks are "\\n", "\\r\\n" and "\\r", as the LSP specification says.
A position past the end of a line clamps to the line end; past the last line, to the
end of the text (clients send such positions and the specification allows it).
"""

from __future__ import annotations

import codecs
import re
import time
from bisect import bisect_right
from itertools import accumulate, repeat
from operator import add
from dataclasses import dataclass
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]
LINE_BREAK = re.compile(r"\r\n|\r|\n")


_LONE_CR = re.compile(rb"\r(?!\n)")


def tree_bytes(text: str) -> bytes:
    """`text` as the bytes tree-sitter parses: UTF-8 (a lone surrogate passes through,
    three bytes, as everywhere here), with each lone "\\r" given as "\\n". Tree-sitter
    counts rows at "\\n" only, LSP at "\\r" too; the swap keeps every byte offset and
    makes its rows the document's lines."""
    return tree_source(text.encode("utf-8", "surrogatepass"))


def split_lines(text: str) -> list[str]:
    """`text`'s lines without their breaks (\\r\\n, \\r or \\n, as LSP counts lines and
    a syntax tree its rows: not at a form feed or U+2028, where `str.splitlines` breaks;
    a final break ends the last line)."""
    lines = LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def tree_source(data: bytes) -> bytes:
    """`tree_bytes` for text already encoded (a file read from disk)."""
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


# A change as whole lines: the first and last line it touched (in the text before it;
# an empty span, last = first - 1, when whole lines were put in before line `first`)
# and how many lines it added (negative: removed). What line-based facts
# (symbols, imports) computed for an earlier version need to be read at a later one.
LineChange = tuple[int, int, int]


def shift_lines(first: int, last: int, changes: list[LineChange]) -> tuple[int, int]:
    """A span of lines [first, last] of an earlier text, at the text `changes` led to:
    after a change, it moves by the lines added; around one, its end does; a span
    that starts inside a change starts where the change starts."""
    for c_first, c_last, delta in changes:
        if first > c_last:
            first, last = first + delta, last + delta
        elif last >= c_first:
            first = min(first, c_first) if first >= c_first else first
            last = max(first, last + delta) if last >= c_last else max(first, min(last, c_last + delta))
    return first, last


def line_change(lines: LineIndex, start: int, end: int, inserted: str) -> LineChange:
    """The `LineChange` of text[start:end] becoming `inserted`."""
    first, last = lines.line_of(start), lines.line_of(end)
    breaks = len(LINE_BREAK.findall(inserted)) if "\r" in inserted else inserted.count("\n")
    delta = breaks - (last - first)
    if lines.starts[first] == start and (not inserted or inserted[-1] in "\r\n"):
        if end == start:
            return first, first - 1, delta  # whole lines put in before line `first`: none touched
        if lines.starts[last] == end:
            return first, last - 1, delta  # whole lines replaced: those, and not the one after
    return first, last, delta


def normalize_encoding(name: str | None) -> Encoding:
    return name if name in ("utf-8", "utf-32") else "utf-16"  # type: ignore[return-value]


def code_units(text: str, encoding: Encoding) -> int:
    """Length of `text` in the encoding's code units (counted by the codec, in C: a
    line of millions of characters takes milliseconds)."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2  # a lone surrogate is one unit, as it is to LSP


_SURROGATE = re.compile("[\ud800-\udfff]")


def column_to_index(line: str, column: int, encoding: Encoding) -> int:
    """Code-point index in `line` of an LSP `character`; clamps to the line's end.

    A column that falls inside a character (half of a surrogate pair, or inside a
    UTF-8 sequence) moves to the start of that character.
    """
    if column <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(column, len(line))
    if not _SURROGATE.search(line):
        # In C: the line's first `column` units, decoded; a character they cut is held
        # back by the incremental decoder, which is "moves to its start".
        codec, width = ("utf-16-le", 2) if encoding == "utf-16" else ("utf-8", 1)
        return len(codecs.getincrementaldecoder(codec)().decode(line.encode(codec)[: column * width], final=False))
    units = 0  # lone surrogates (half an emoji): one unit each, never joined to a neighbour
    for index, ch in enumerate(line):
        cp = ord(ch)
        width = 1 if encoding == "utf-16" and cp <= 0xFFFF else 2
        if encoding == "utf-8":
            width = 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp <= 0xFFFF else 4
        if units + width > column:
            return index
        units += width
    return len(line)


def index_of_byte(line: str, byte_column: int) -> int:
    """Code-point index in `line` of a UTF-8 byte column (tree-sitter's); a column inside
    a character moves to its start. Lone surrogates count three bytes, as `surrogatepass`."""
    if line.isascii():
        return min(max(0, byte_column), len(line))
    return column_to_index(line, byte_column, "utf-8")


def index_to_column(line: str, index: int, encoding: Encoding) -> int:
    """LSP `character` of the code-point `index` in `line`."""
    return code_units(line[: max(0, index)], encoding)


@dataclass(frozen=True, slots=True)
class Position:
    """An LSP position in the negotiated encoding; a plain value, not lsprotocol's."""

    line: int
    character: int


BLOCK_LINES = 512  # lines per block of the line index (a block is split at twice that)


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _break_ends(text: str, start: int, end: int) -> list[int]:
    """Offsets just past each line break in text[start:end]."""
    if "\r" in text[start:end]:
        return [m.end() for m in LINE_BREAK.finditer(text, start, end)]
    out = []
    at = text.find("\n", start, end)
    while at >= 0:
        out.append(at + 1)
        at = text.find("\n", at + 1, end)
    return out


class _Starts:
    """The line starts as a read-only sequence (`starts[line]`, `len`, bisect)."""

    __slots__ = ("_index",)

    def __init__(self, index: LineIndex) -> None:
        self._index = index

    def __len__(self) -> int:
        return self._index.line_count

    def __getitem__(self, line: int) -> int:
        return self._index.start(line)

    def __iter__(self):  # type: ignore[no-untyped-def]
        index = self._index
        for base, local in zip(index._bases, index._local):
            for start in local:
                yield base + start

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other)  # type: ignore[call-overload]


class LineIndex:
    """Start offsets of the lines of one text, for offset <-> position conversion.

    The starts are kept in blocks of about BLOCK_LINES lines, each relative to its
    block's base (code points and UTF-8 bytes): a change re-derives the starts of the
    block(s) it touches and moves the bases of the blocks after it, so a keystroke
    costs a block, not the lines after it; byte offsets for tree-sitter cost the
    stretch from a block's base, not the text before the change.
    """

    __slots__ = ("text", "_local", "_bases", "_byte_bases", "_firsts", "_count")

    def __init__(self, text: str) -> None:
        if "\r" in text:
            starts = [0, *(m.end() for m in LINE_BREAK.finditer(text))]
        else:  # the common case, about ten times faster than the regex
            starts = list(accumulate(map(add, map(len, text.split("\n")[:-1]), repeat(1)), initial=0))
        self._set(text, starts)

    def _set(self, text: str, starts: list[int]) -> None:
        self.text = text
        self._local, self._bases, self._byte_bases = [], [], []
        self._blocks_from(starts, 0, 0)
        self._renumber(0)

    def _blocks_from(self, starts: list[int], at: int, byte_base: int, text_end: int | None = None) -> int:
        """Insert blocks for absolute `starts` at block position `at`; returns how many."""
        made = 0
        for k in range(0, len(starts), BLOCK_LINES):
            chunk = starts[k : k + BLOCK_LINES]
            base = chunk[0]
            if made:
                byte_base += _utf8_len(self.text[self._bases[at + made - 1] : base])
            self._local.insert(at + made, [s - base for s in chunk])
            self._bases.insert(at + made, base)
            self._byte_bases.insert(at + made, byte_base)
            made += 1
        return made

    def _renumber(self, from_block: int) -> None:
        firsts = self._firsts[:from_block] if from_block and hasattr(self, "_firsts") else []
        count = firsts[-1] + len(self._local[from_block - 1]) if firsts else 0
        for local in self._local[len(firsts) :]:
            firsts.append(count)
            count += len(local)
        self._firsts, self._count = firsts, count

    @classmethod
    def yielding(cls, text: str, chunk: int = 1 << 18) -> LineIndex:
        """The same index, built a chunk of `text` at a time, handing the GIL to other
        threads between chunks: for a worker thread, on a text of millions of lines."""
        starts = [0]
        pos, size = 0, len(text)
        while pos < size:
            end = min(size, pos + chunk)
            if text[end - 1] == "\r" and end < size and text[end] == "\n":
                end += 1  # never split a "\r\n"
            starts.extend(_break_ends(text, pos, end))
            pos = end
            time.sleep(0)  # let the event loop's thread run
        index = cls.__new__(cls)
        index._set(text, starts)
        return index

    def spliced(self, start: int, end: int, inserted: str) -> LineIndex:
        """The index of the text with text[start:end] replaced by `inserted`: the
        block(s) holding the change re-derived, later blocks moved. A "\\r\\n" the change
        splits or joins is taken in by widening it one character on either side."""
        old = self.text
        text = "".join((old[:start], inserted, old[end:]))  # one copy of the text less than `+`
        s = start - 1 if start > 0 and old[start - 1] == "\r" else start
        e = end + 1 if end < len(old) and old[end] == "\n" else end
        delta = len(inserted) - (end - start)
        byte_delta = _utf8_len(inserted) - _utf8_len(old[start:end])
        first_block = self._block_of_offset(s)
        last_block = self._block_of_offset(e)
        kept_before = [self._bases[first_block] + x for x in self._local[first_block] if self._bases[first_block] + x <= s]
        kept_after = [
            self._bases[b] + x + delta
            for b in range(first_block, last_block + 1)
            for x in self._local[b]
            if self._bases[b] + x > e
        ]
        starts = kept_before + _break_ends(text, s, e + delta) + kept_after
        index = LineIndex.__new__(LineIndex)
        index.text = text
        index._local = self._local[:first_block]
        index._bases = self._bases[:first_block]
        index._byte_bases = self._byte_bases[:first_block]
        made = index._blocks_from(starts, first_block, self._byte_bases[first_block])
        index._local += self._local[last_block + 1 :]
        index._bases += [b + delta for b in self._bases[last_block + 1 :]]
        index._byte_bases += [b + byte_delta for b in self._byte_bases[last_block + 1 :]]
        index._firsts = self._firsts[:first_block]
        index._renumber(first_block)
        del made
        return index

    def _block_of_offset(self, offset: int) -> int:
        return max(0, bisect_right(self._bases, offset) - 1)

    def start(self, line: int) -> int:
        """The offset where `line` starts (0 <= line < line_count)."""
        if line < 0:
            line += self._count
        block = bisect_right(self._firsts, line) - 1
        local = self._local[block]
        index = line - self._firsts[block]
        if not 0 <= index < len(local):
            raise IndexError(line)
        return self._bases[block] + local[index]

    @property
    def starts(self) -> _Starts:
        return _Starts(self)

    def line_of(self, offset: int) -> int:
        """The line holding the code-point `offset` (clamped)."""
        offset = max(0, min(offset, len(self.text)))
        block = self._block_of_offset(offset)
        return self._firsts[block] + bisect_right(self._local[block], offset - self._bases[block]) - 1

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The first and last line of text[start:end]: a line break ends its line, so
        a span ending with one ends on that line; an empty span is its line's."""
        return self.line_of(start), self.line_of(max(start, end - 1))

    @property
    def line_count(self) -> int:
        return self._count

    def line_text(self, line: int) -> str:
        """The text of `line` without its line break."""
        start = self.start(line)
        end = self.start(line + 1) if line + 1 < self._count else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def line_end(self, line: int) -> int:
        """The offset where `line`'s text ends, before its line break."""
        text = self.text
        start = self.start(line)
        end = self.start(line + 1) if line + 1 < self._count else len(text)
        if end > start and text[end - 1] == "\n":
            end -= 1
        if end > start and text[end - 1] == "\r":
            end -= 1
        return end

    # Position <-> offset read no more of a line than the column in question, and none
    # of it when the text is ASCII (`str.isascii` reads a flag): a keystroke on a line
    # of millions of characters (minified code) costs what one on a short line does.

    def offset(self, position: Position, encoding: Encoding) -> int:
        """Code-point offset in the text of an LSP position (clamped)."""
        if position.line < 0:
            return 0
        if position.line >= self._count:
            return len(self.text)
        start, end = self.start(position.line), self.line_end(position.line)
        column = max(0, position.character)
        if encoding == "utf-32" or self.text.isascii():
            return start + min(column, end - start)
        # Every code point is at least one code unit: those before the column lie within it.
        return start + column_to_index(self.text[start : min(end, start + column)], column, encoding)

    def position(self, offset: int, encoding: Encoding) -> Position:
        """LSP position of a code-point offset in the text (clamped)."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        start = self.start(line)
        # An offset between "\r" and "\n" is inside the break: count it as line end.
        index = min(offset, self.line_end(line)) - start
        if encoding == "utf-32" or self.text.isascii():
            return Position(line, index)
        return Position(line, code_units(self.text[start : start + index], encoding))

    def byte_point(self, offset: int) -> tuple[int, tuple[int, int]]:
        """(byte offset, (row, byte column)) of a code-point offset, for tree-sitter."""
        offset = max(0, min(offset, len(self.text)))
        block = self._block_of_offset(offset)
        line = self.line_of(offset)
        line_start = self.start(line)
        if self.text.isascii():  # a byte a character
            return self._byte_bases[block] + offset - self._bases[block], (line, offset - line_start)
        column = _utf8_len(self.text[line_start:offset])
        byte = self._byte_bases[block] + _utf8_len(self.text[self._bases[block] : line_start]) + column
        return byte, (line, column)
