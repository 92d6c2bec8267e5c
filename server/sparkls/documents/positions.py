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


def tree_source(data: bytes) -> bytes:
    """`tree_bytes` for text already encoded (a file read from disk)."""
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


def normalize_encoding(name: str | None) -> Encoding:
    return name if name in ("utf-8", "utf-32") else "utf-16"  # type: ignore[return-value]


def code_units(text: str, encoding: Encoding) -> int:
    """Length of `text` in the encoding's code units."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def column_to_index(line: str, column: int, encoding: Encoding) -> int:
    """Code-point index in `line` of an LSP `character`; clamps to the line's end.

    A column that falls inside a character (half of a surrogate pair, or inside a
    UTF-8 sequence) moves to the start of that character.
    """
    if column <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(column, len(line))
    units = 0
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


class LineIndex:
    """Start offsets of the lines of one text, for offset <-> position conversion."""

    __slots__ = ("text", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            self.starts = [0]
            self.starts.extend(m.end() for m in LINE_BREAK.finditer(text))
        else:  # the common case, about ten times faster than the regex
            lengths = map(len, text.split("\n")[:-1])
            self.starts = list(accumulate(map(add, lengths, repeat(1)), initial=0))

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
            if "\r" in text[pos:end]:
                starts.extend(m.end() for m in LINE_BREAK.finditer(text, pos, end))
            else:
                at = text.find("\n", pos, end)
                while at >= 0:
                    starts.append(at + 1)
                    at = text.find("\n", at + 1, end)
            pos = end
            time.sleep(0)  # let the event loop's thread run
        index = cls.__new__(cls)
        index.text, index.starts = text, starts
        return index

    def spliced(self, start: int, end: int, inserted: str) -> LineIndex:
        """The index of the text with text[start:end] replaced by `inserted`.

        Lines before the change keep their starts and lines after it shift, so a
        keystroke in a big file costs a list shift rather than a rescan. Texts with
        "\r" take the full rebuild (a "\r\n" could be split or joined by the change).
        """
        text = self.text[:start] + inserted + self.text[end:]
        if "\r" in self.text or "\r" in inserted:
            return LineIndex(text)
        first = bisect_right(self.starts, start) - 1
        last = bisect_right(self.starts, end) - 1
        new_starts = self.starts[: first + 1]
        at = inserted.find("\n")
        while at >= 0:
            new_starts.append(start + at + 1)
            at = inserted.find("\n", at + 1)
        new_starts.extend(map(add, self.starts[last + 1 :], repeat(len(inserted) - (end - start))))
        index = LineIndex.__new__(LineIndex)
        index.text, index.starts = text, new_starts
        return index

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """The text of `line` without its line break."""
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, position: Position, encoding: Encoding) -> int:
        """Code-point offset in the text of an LSP position (clamped)."""
        if position.line < 0:
            return 0
        if position.line >= len(self.starts):
            return len(self.text)
        line = self.line_text(position.line)
        return self.starts[position.line] + column_to_index(line, position.character, encoding)

    def position(self, offset: int, encoding: Encoding) -> Position:
        """LSP position of a code-point offset in the text (clamped)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        line_text = self.line_text(line)
        # An offset between "\r" and "\n" is inside the break: count it as line end.
        index = min(offset - self.starts[line], len(line_text))
        return Position(line, index_to_column(line_text, index, encoding))

    def byte_point(self, offset: int) -> tuple[int, tuple[int, int]]:
        """(byte offset, (row, byte column)) of a code-point offset, for tree-sitter."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        column = len(self.text[self.starts[line] : offset].encode("utf-8", "surrogatepass"))
        return len(self.text[:offset].encode("utf-8", "surrogatepass")), (line, column)
