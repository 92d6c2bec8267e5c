"""The target region of an edit: the smallest enclosing scope, in whole lines.

The region is the smallest definition (function, method, class, impl, ...; with its
decorators, `export` or attributes) that holds the whole range. When that scope is
longer than `max_lines` (a 3,000-line class), the region narrows to the selected
lines. Module-level code gets the top-level statements the range touches. Documents
without a grammar get the selected lines, or a window around a bare cursor.

What counts as a definition is each language's `scopes.scm` query, in the capture
names below; this module names no node types, so it serves every grammar alike.

Pure: reads a `Document`, returns a `Region`; knows nothing of LSP or models.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Tree

from sparkls.context import recovery
from sparkls.context.queries import captures
from sparkls.documents.languages import new_parser
from sparkls.documents.positions import index_of_byte
from sparkls.documents.store import Document
from sparkls.documents.window import parse_window
from sparkls.errors import EditError

CURSOR_WINDOW = 10  # lines each side of a bare cursor when there is no tree
# The most a region may weigh, whatever its line count (`context.max_region_lines`):
# 300 lines of 160 characters. A minified line or a data blob is refused, not sent; and,
# measured by its line offsets first, never read, searched, parsed or redacted either.
MAX_REGION_CHARS = 48_000

# Capture names of the `scopes.scm` queries, the same in every language.
DEFINITION = "scope.definition"  # can be a region: function, method, class, impl, ...
WRAPPED = "scope.wrapped"  # a definition whose wrapper (decorators, `export`) is the scope
PREFIX = "scope.prefix"  # belongs to the definition right after it (Rust attributes)


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


class RegionTooLong(EditError):
    """The lines an edit would rewrite weigh more than MAX_REGION_CHARS (a minified line)."""


def lines_weight(doc: Document, start: int, end: int) -> tuple[int, int, int]:
    """(first line, last line, characters) of the whole lines that text[start:end]
    touches (a bare cursor: its line), from the line index alone: nothing is read."""
    lines = doc.lines
    first, last = lines.line_of(start), lines.line_of(max(start, end))
    stop = lines.start(last + 1) if last + 1 < lines.line_count else len(doc.text)
    return first, last, stop - lines.start(first)


def has_line_over(doc: Document, start: int, end: int, limit: int, *, most_lines: int = 2_000) -> bool:
    """Whether a line that text[start:end] touches is longer than `limit` characters
    (its break included), from the line index alone; a span of more than `most_lines`
    lines counts as one that has."""
    first, last, chars = lines_weight(doc, start, end)
    if chars <= limit:
        return False
    if last - first >= most_lines:
        return True
    lines = doc.lines
    stop = lines.start(last + 1) if last + 1 < lines.line_count else len(doc.text)
    starts = [lines.start(n) for n in range(first, last + 1)] + [stop]
    return any(b - a > limit for a, b in zip(starts, starts[1:]))


def refuse_long_lines(first: int, last: int, chars: int, path: str) -> None:
    """`RegionTooLong` when lines `first`..`last` (`chars` characters) of `path` weigh
    more than the fast tier is sent: at once, the text unread, with what to do instead."""
    if chars <= MAX_REGION_CHARS:
        return
    where = f"Line {first + 1}" if first == last else f"Lines {first + 1}-{last + 1}"
    verb = "is" if first == last else "are"
    raise RegionTooLong(
        f"{where} of {path} {verb} {chars:,} characters (minified or generated code?), more than sparkls "
        f"sends to the fast tier as a region ({MAX_REGION_CHARS:,}); nothing was read or sent. "
        "Edit shorter lines (format the file first), or use a multi-file task."
    )


def _lines_region(doc: Document, first: int, last: int, kind: str) -> Region:
    lines = doc.lines
    last = min(last, lines.line_count - 1)
    first = max(0, min(first, last))
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
    return Region(first, last, lines.starts[first], end, kind)


def _captured_at(language_id: str, node: Node, name: str) -> bool:
    """True if the scopes query captures `node` as `name` in a match starting at it."""
    return node in captures(language_id, "scopes", node, max_depth=0).get(name, ())


def _attached_start(language_id: str, node: Node) -> Node:
    """The first of the @scope.prefix siblings right before `node`, or `node` itself."""
    first = node
    sibling = node.prev_named_sibling
    while sibling is not None and _captured_at(language_id, sibling, PREFIX):
        first, sibling = sibling, sibling.prev_named_sibling
    return first


def _item_after(language_id: str, prefix: Node) -> Node | None:
    """The definition that the @scope.prefix node `prefix` belongs to, if any."""
    node = prefix.next_named_sibling
    while node is not None and _captured_at(language_id, node, PREFIX):
        node = node.next_named_sibling
    return node if node is not None and _captured_at(language_id, node, DEFINITION) else None


def _last_row(node: Node) -> int:
    """The node's last line; one that ends at column 0 (a comment that holds its line
    break, in some grammars) ends on the line before."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _enclosing_scopes(doc: Document, tree: Tree, start_byte: int, end_byte: int) -> list[tuple[int, int]]:
    """(first, last) rows of the definitions holding the byte range, smallest first.

    A definition's rows start at its @scope.prefix siblings (Rust attributes, say);
    a @scope.wrapped definition gives way to its wrapper (decorators, `export`).
    """
    language_id = doc.language_id
    # One byte wider, so that an empty range also meets the nodes that start at it.
    found = captures(language_id, "scopes", tree.root_node, (start_byte, max(end_byte, start_byte + 1)))
    wrapped = set(found.get(WRAPPED, ()))
    nodes = {n for n in found.get(DEFINITION, ()) if n not in wrapped}
    # A range that starts on an attribute or decorator may belong to the definition after it.
    starts_on = [p for p in found.get(PREFIX, ()) if p.start_byte <= start_byte <= p.end_byte]
    nodes.update(filter(None, (_item_after(language_id, p) for p in starts_on)))
    scopes = []
    for node in nodes:
        if node.end_byte < end_byte:
            continue
        first = _attached_start(language_id, node)
        if first.start_byte <= start_byte:
            scopes.append((node.end_byte - first.start_byte, first.start_point.row, _last_row(node)))
    return [(first, last) for _, first, last in sorted(scopes)]


def _apart_from_damage(doc: Document, tree: Tree, first: int, last: int) -> Tree:
    """`tree`, or when a parse error swallowed lines `first`..`last` (an unclosed
    bracket above them), the tree of the pieces they fall in parsed apart, at the
    document's own positions (`recovery.py`)."""
    lines = doc.lines
    piece = recovery.piece_around(tree.root_node, lambda n: lines.line_text(n).encode("utf-8", "surrogatepass"), first, last)
    parser = new_parser(doc.language_id) if piece is not None else None
    if piece is None or parser is None:
        return tree
    return parse_window(parser, lines, piece[0], piece[1])


def _top_child_at(root: Node, byte: int) -> Node | None:
    """The child of `root` holding `byte`, if one does (not the blank space between).
    (Not `first_child_for_byte`: py-tree-sitter 0.25 crashes where it finds none.)"""
    node = root.descendant_for_byte_range(byte, byte)
    if node is None or node == root:
        return None
    while node.parent is not None and node.parent != root:
        node = node.parent
    return node if node.parent is not None else None


def _top_level_statements(doc: Document, tree: Tree, start: int, end: int) -> tuple[int, int] | None:
    """The rows of the top-level statements the range `start`..`end` meets, found from
    the statement at its start, or the first code in it, or the one ending at it:
    never a walk of the whole file."""
    root = tree.root_node
    lines, text = doc.lines, doc.text
    code = start
    while code < end and text[code].isspace():
        code += 1
    child = _top_child_at(root, lines.byte_point(code)[0])
    if child is None:  # blank up to the end: the statement before, if it reaches the range
        before = start
        while before > 0 and text[before - 1].isspace():
            before -= 1
        child = _top_child_at(root, lines.byte_point(before - 1)[0]) if before > 0 else None
        if child is None or child.end_byte < lines.byte_point(start)[0]:
            return None
    elif child.prev_sibling is not None and child.prev_sibling.end_byte >= lines.byte_point(start)[0]:
        child = child.prev_sibling
    end_byte = lines.byte_point(end)[0]
    touched = []
    while child is not None and child.start_byte <= end_byte:
        touched.append(child)
        child = child.next_sibling
    first = _attached_start(doc.language_id, touched[0])
    return first.start_point.row, max(_last_row(child) for child in touched)


def find_region(doc: Document, start: int, end: int, *, max_lines: int) -> Region:
    """The region for the code-point range `start`..`end` of `doc`.

    A bare cursor in the whitespace after a scope's last token (typing at the end of a
    function, or on a new line below it) belongs to that scope, down to the cursor's
    line: tree-sitter's node ends at the token, so it would otherwise get a lone line.
    """
    region = _find_region(doc, start, end, max_lines=max_lines)
    if start != end or region.kind != "lines" or not doc.parses:
        return region
    token_end = start
    while token_end > 0 and doc.text[token_end - 1].isspace():
        token_end -= 1  # the whitespace run before the cursor, not the whole text before it
    if not 0 < token_end < start:
        return region
    before = _find_region(doc, token_end - 1, token_end - 1, max_lines=max_lines)
    if before.kind == "lines" or region.end_line - before.start_line + 1 > max_lines:
        return region
    return _lines_region(doc, before.start_line, max(before.end_line, region.end_line), before.kind)


def _find_region(doc: Document, start: int, end: int, *, max_lines: int) -> Region:
    lines = doc.lines
    first = lines.position(start, "utf-32").line
    last = lines.position(end, "utf-32").line
    if end > start and end == lines.starts[last] and last > first:
        # A selection ending at column 0 (whole lines selected) does not take that line.
        last -= 1
        end = lines.starts[last] + len(lines.line_text(last))
    if last - first + 1 > max_lines:
        raise EditError(
            f"The selection spans {last - first + 1} lines; the fast tier edits at most "
            f"{max_lines} lines at a time (setting `context.max_region_lines`). "
            "Select less, or use a multi-file task."
        )
    tree = doc.tree_around(start, end)
    if tree is not None and tree.root_node.has_error:
        tree = _apart_from_damage(doc, tree, first, last)
    if tree is None:
        if start == end:
            return _lines_region(doc, first - CURSOR_WINDOW, last + CURSOR_WINDOW, "lines")
        return _lines_region(doc, first, last, "lines")

    # Indentation before the start belongs to no node: look from the first character.
    indent = len(lines.line_text(first)) - len(lines.line_text(first).lstrip())
    if start - lines.starts[first] <= indent < end - lines.starts[first]:
        start = lines.starts[first] + indent
    start_byte = lines.byte_point(start)[0]
    end_byte = lines.byte_point(end)[0]
    for scope_first, scope_last in _enclosing_scopes(doc, tree, start_byte, end_byte):
        if scope_last - scope_first + 1 <= max_lines:
            return _lines_region(doc, scope_first, scope_last, "definition")
        break  # too big: narrow instead of widening to an even bigger scope
    else:
        span = _top_level_statements(doc, tree, start, end)
        if span is not None and span[1] - span[0] + 1 <= max_lines:
            return _lines_region(doc, min(span[0], first), max(span[1], last), "statements")
    return _lines_region(doc, first, last, "lines")


def without_comments(doc: Document, first: int, last: int, text: str) -> str:
    """`text`, lines `first`..`last` of `doc`, with its comments blanked: a word in a
    comment ("open the first window") names no definition the code uses."""
    lines = text.split("\n")
    start = doc.lines.start(first)
    tree = doc.tree_around(start, start + len(text))
    if tree is None:
        return text
    # The smallest node holding the lines: ending the range at the last line's end, not
    # at the next line's start, which only the whole module holds (a walk of every
    # top-level node of the file, per request).
    last_line = doc.lines.line_text(last).rstrip("\r\n")
    end_column = len(last_line.encode("utf-8", "surrogatepass"))
    node = tree.root_node.descendant_for_point_range((first, 0), (last, end_column))
    stack = [node] if node is not None else []
    while stack:
        node = stack.pop()
        if node.end_point.row < first or node.start_point.row > last:
            continue
        if "comment" in node.type:
            for row in range(max(first, node.start_point.row), min(last, node.end_point.row) + 1):
                line = lines[row - first]
                begin = index_of_byte(line, node.start_point.column) if row == node.start_point.row else 0
                end = index_of_byte(line, node.end_point.column) if row == node.end_point.row else len(line)
                lines[row - first] = line[:begin] + " " * (end - begin) + line[end:]
            continue
        stack.extend(node.children)
    return "\n".join(lines)
