"""The target region of an edit: the smallest enclosing scope, in whole lines.

The region is the smallest function, method or class (with its decorators) that
holds the whole range. When that scope is longer than `max_lines` (a 3,000-line
class), the region narrows to the selected lines. Module-level code gets the
top-level statements the range touches. Documents without a grammar get the selected
lines, or a window around a bare cursor.

Pure: reads a `Document`, returns a `Region`; knows nothing of LSP or models.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from sparkls.context.queries import captures
from sparkls.documents.store import Document
from sparkls.errors import EditError

CURSOR_WINDOW = 10  # lines each side of a bare cursor when there is no tree


@dataclass(frozen=True, slots=True)
class Region:
    """Whole lines `start_line`..`end_line` (0-based, inclusive) of a document."""

    start_line: int
    end_line: int
    start: int  # code-point offset of the first line's start
    end: int  # code-point offset just past the last line's break (or text end)
    kind: str  # "definition", "statements", "lines"

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1


def _lines_region(doc: Document, first: int, last: int, kind: str) -> Region:
    lines = doc.lines
    last = min(last, lines.line_count - 1)
    first = max(0, min(first, last))
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
    return Region(first, last, lines.starts[first], end, kind)


def _enclosing_scopes(doc: Document, start_byte: int, end_byte: int) -> list[Node]:
    tree = doc.tree
    assert tree is not None
    found = captures(doc.language_id, "scopes", tree.root_node, (start_byte, end_byte))
    nodes = [
        n
        for group in found.values()
        for n in group
        if n.start_byte <= start_byte and n.end_byte >= end_byte
    ]
    return sorted(nodes, key=lambda n: n.end_byte - n.start_byte)


def _top_level_statements(doc: Document, start_byte: int, end_byte: int) -> tuple[int, int] | None:
    tree = doc.tree
    assert tree is not None
    rows = [
        (child.start_point.row, child.end_point.row)
        for child in tree.root_node.children
        if child.start_byte <= end_byte and child.end_byte >= start_byte
    ]
    if not rows:
        return None
    return min(r[0] for r in rows), max(r[1] for r in rows)


def find_region(doc: Document, start: int, end: int, *, max_lines: int) -> Region:
    """The region for the code-point range `start`..`end` of `doc`."""
    lines = doc.lines
    first = lines.position(start, "utf-32").line
    last = lines.position(end, "utf-32").line
    if end > start and end == lines.starts[last] and last > first:
        last -= 1  # a selection ending at column 0 does not take that line
    if last - first + 1 > max_lines:
        raise EditError(
            f"The selection spans {last - first + 1} lines; the fast tier edits at most "
            f"{max_lines} lines at a time (setting `context.max_region_lines`). "
            "Select less, or use a multi-file task."
        )
    if doc.tree is None:
        if start == end:
            return _lines_region(doc, first - CURSOR_WINDOW, last + CURSOR_WINDOW, "lines")
        return _lines_region(doc, first, last, "lines")

    start_byte = lines.byte_point(start)[0]
    end_byte = lines.byte_point(end)[0]
    for node in _enclosing_scopes(doc, start_byte, end_byte):
        if node.parent is not None and node.parent.type == "decorated_definition":
            continue  # the decorated_definition around it is the scope
        if node.end_point.row - node.start_point.row + 1 <= max_lines:
            return _lines_region(doc, node.start_point.row, node.end_point.row, "definition")
        break  # too big: narrow instead of widening to an even bigger scope
    else:
        span = _top_level_statements(doc, start_byte, end_byte)
        if span is not None and span[1] - span[0] + 1 <= max_lines:
            return _lines_region(doc, min(span[0], first), max(span[1], last), "statements")
    return _lines_region(doc, first, last, "lines")
