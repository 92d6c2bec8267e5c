"""A big document's syntax tree, one window at a time.

A whole-file tree costs 45-65 bytes per byte of source; for a big document (256 K
characters or more) sparkls keeps none. Its background pass parses the whole text once,
in a worker thread, to extract its facts — symbols, imports, and where its top-level
statements are (`Outline`) — and lets that tree go. A request parses only the window it
reads: the top-level statements around its range (`Outline.window`), with tree-sitter's
included ranges, so every node has the document's own positions (rows, bytes). Time
and memory are the window's, not the file's.

Pure, but for the parse: the text is read through a callback from the document's own
line index, so nothing outside the window is copied or encoded.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from tree_sitter import Parser, Point, Range, Tree

from sparkls.documents.positions import LineChange, LineIndex, index_of_byte, shift_lines, tree_source

MAX_WINDOW_LINES = 4000  # a top-level statement longer than this is read around the range only
MARGIN_LINES = 3  # lines around the window, for what changed since the outline
READ_CHUNK = 16 * 1024  # characters handed to the parser at a time


class Outline:
    """The line spans of a document's top-level statements at one version, read at a
    later one through `changes` (only the few lines asked about are moved)."""

    __slots__ = ("_firsts", "_lasts", "_changes")

    def __init__(self, spans: list[tuple[int, int]], changes: list[LineChange] | None = None) -> None:
        self._firsts = [first for first, _ in spans]
        self._lasts = [last for _, last in spans]
        self._changes = changes or []

    @classmethod
    def of(cls, tree: Tree) -> Outline:
        """The outline of a whole-file tree (in the worker thread)."""
        spans = []
        for child in tree.root_node.children:
            end = child.end_point
            last = end.row - 1 if end.column == 0 and end.row > child.start_point.row else end.row
            spans.append((child.start_point.row, last))
        return cls(spans)

    def carried(self, changes: list[LineChange]) -> Outline:
        if not changes:
            return self
        moved = Outline([], self._changes + changes)
        moved._firsts, moved._lasts = self._firsts, self._lasts
        return moved

    def _back(self, line: int) -> int:
        """A current line in the outline's own (older) lines, near enough for a window."""
        for c_first, c_last, delta in reversed(self._changes):
            if line > c_last + delta:
                line -= delta
            elif line >= c_first:
                line = c_first
        return line

    def window(self, first: int, last: int, line_count: int) -> tuple[int, int]:
        """Lines to parse for a request on lines `first`..`last`: the whole top-level
        statements met by those lines and a margin around them (never starting or
        ending inside a statement, whose parse would then differ), at most
        MAX_WINDOW_LINES."""
        a, b = self._back(first) - MARGIN_LINES, self._back(last) + MARGIN_LINES
        i = bisect_right(self._firsts, a) - 1
        if i >= 0 and self._lasts[i] >= a:
            a = self._firsts[i]
        j = bisect_right(self._firsts, b) - 1
        if j >= 0 and self._lasts[j] >= b:
            b = self._lasts[j]
        a, b = shift_lines(max(0, a), b, self._changes)
        a, b = min(a, first), max(b, last)
        if b - a + 1 > MAX_WINDOW_LINES:
            half = MAX_WINDOW_LINES // 2
            a, b = max(a, first - half), min(b, last + half)
        return max(0, a), min(line_count - 1, b)


def parse_window(parser: Parser, lines: LineIndex, first: int, last: int) -> Tree:
    """The tree of lines `first`..`last` of `lines.text`, at the text's own positions."""
    text = lines.text
    start = lines.start(first)
    end = lines.start(last + 1) if last + 1 < lines.line_count else len(text)
    start_byte, start_point = lines.byte_point(start)
    end_byte, end_point = lines.byte_point(end)
    parser.included_ranges = [Range(Point(*start_point), Point(*end_point), start_byte, end_byte)]
    return parser.parse(_reader(lines, end))


def _reader(lines: LineIndex, end: int) -> Callable[[int, Point], bytes]:
    """Bytes at a (byte, point) position, read from the line index's text (never
    past `end` but for the character that closes a "\\r\\n")."""
    text = lines.text

    def read(_byte: int, point: Point) -> bytes:
        if point.row >= lines.line_count:
            return b""
        offset = lines.start(point.row) + index_of_byte(lines.line_text(point.row), point.column)
        stop = min(end, offset + READ_CHUNK)
        if stop < len(text) and text[stop - 1 : stop] == "\r":
            stop += 1
        return tree_source(text[offset:stop].encode("utf-8", "surrogatepass"))

    return read

