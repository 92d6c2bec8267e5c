"""Symbols a parse error would lose, found again by parsing what is around it apart.

Tree-sitter recovers from most errors locally, but a construct its grammar does not
know (tree-sitter-typescript 0.23 and two generic call signatures in a row without
`;`) can leave a file whose root is one ERROR node from that point on: the
definitions after it are bare tokens, no longer symbols, and the file drops out of
the index and of every other file's context.

`damaged_lines` finds the lines of a tree that no whole top-level node covers: runs
of top-level children that are errors, hold one, are bare tokens, or do not start
their own line. `chunks` cuts such lines into pieces that each start a top-level
statement (a line that starts at column 0 and is no closing bracket; comment lines
stay with what follows them). `extract_symbols` parses each piece on its own and
takes its symbols, moved to the piece's lines; a piece that still fails gives what
its own recovery keeps.

Pure: trees and bytes in, line ranges out; the parsing is the caller's.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

_CLOSERS = (b"}", b")", b"]", b"end")
_COMMENTS = (b"//", b"/*", b"*", b"#", b"--")


def _starts_line(node: Node, source: bytes | None) -> bool:
    if source is None:
        return node.start_point.column == 0
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return not source[line_start : node.start_byte].strip()


def _whole(node: Node, source: bytes | None) -> bool:
    return node.is_named and not node.is_error and not node.has_error and _starts_line(node, source)


def damaged_lines(root: Node, source: bytes | None = None) -> list[tuple[int, int]]:
    """0-based inclusive line ranges of top-level text the parse lost (none when
    the tree has no error). Without `source`, a node starts its line at column 0."""
    if not root.has_error:
        return []
    ranges: list[tuple[int, int]] = []
    run: tuple[int, int] | None = None
    for child in root.children:
        if _whole(child, source) and not (run is not None and child.start_point.row <= run[1]):
            if run is not None:
                ranges.append(run)
                run = None
            continue
        first, last = child.start_point.row, child.end_point.row
        run = (run[0], max(run[1], last)) if run is not None else (first, last)
    if run is not None:
        ranges.append(run)
    return ranges


def chunks(line: Callable[[int], bytes], first: int, last: int) -> list[tuple[int, int]]:
    """Lines `first`..`last` (`line(n)`: line n's bytes) cut where a top-level
    statement starts: (first, last) each."""
    starts: list[int] = []
    comment_run = False
    for row in range(first, last + 1):
        line_bytes = line(row)
        stripped = line_bytes.strip()
        top = bool(stripped) and line_bytes[:1] not in (b" ", b"\t") and not stripped.startswith(_CLOSERS)
        if not top:
            comment_run = comment_run and not stripped  # a blank line ends a comment's hold
            continue
        if not (starts and comment_run):
            starts.append(row)
        comment_run = stripped.startswith(_COMMENTS)
    if not starts or starts[0] != first:
        starts.insert(0, first)
    return [(start, (starts[i + 1] - 1) if i + 1 < len(starts) else last) for i, start in enumerate(starts)]


def piece_around(root: Node, line: Callable[[int], bytes], first: int, last: int) -> tuple[int, int] | None:
    """The lines of the pieces that lines `first`..`last` fall in, when the parse lost
    them (a region there is then found in those pieces parsed apart), else None."""
    for a, b in damaged_lines(root):
        if a <= first and last <= b:
            pieces = [(s, e) for s, e in chunks(line, a, b) if s <= last and first <= e]
            return pieces[0][0], pieces[-1][1]
    return None
