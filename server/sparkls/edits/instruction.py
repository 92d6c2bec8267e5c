"""Instructions written as comments: `# spark: add retries with backoff`.

Editors without an input box (Helix) can still give sparkls an instruction: the user
writes it as a comment whose text starts with `spark:` (in the language's own comment
syntax: `#` in Python, `//` or `/* */` in JavaScript, TypeScript, Go and Rust), and the
"Spark: apply instruction" code action edits the code the comment belongs to and
removes the comment.

This module finds such comments in a document's syntax tree (comment nodes, whatever
their grammar calls them), says which code each belongs to, words the instruction for
the model, and takes the comment out of the model's new text if the model left it in
(`finish_outcome`). Pure: reads a `Document`, returns plain values; knows nothing of
LSP or models.

Which code a comment belongs to:

- a comment on a line of code (`x = f()  # spark: ...`) belongs to that line's code;
- a comment on lines of its own belongs to the code that follows it (skipping blank
  lines and other comments) when that code is indented at least as deep, i.e. the next
  definition or statement and, through `context/region.py`, its enclosing scope;
- otherwise (the comment ends a block) to the scope around it.

The edit's range runs from the comment to the end of that code, so the region the
engine picks always holds the comment, and the one edit both changes the code and
removes the comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tree_sitter import Node

from sparkls.context.region import find_region
from sparkls.documents.store import Document
from sparkls.edits.diff import Replacement, apply_replacements
from sparkls.edits.tail import EditOutcome, rewrite
from sparkls.errors import DocumentChanged, EditError

_MARKER = re.compile(r"spark:", re.IGNORECASE)
_BODY = re.compile(r"\A\s*spark:\s*(?P<text>.*?)\s*\Z", re.IGNORECASE | re.DOTALL)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class CommentInstruction:
    """A `spark:` comment; offsets are code points of the document's text."""

    instruction: str  # the words after `spark:`, on one line
    text: str  # the comment as written, delimiters included
    start: int
    end: int
    line: int  # 0-based line of the comment's start
    target: tuple[int, int]  # the range to edit: the comment and the code it belongs to


def comment_body(text: str) -> str:
    """The words of a comment without its delimiters (`#`, `//`, `///`, `//!`, `/* */`)."""
    text = text.rstrip()
    if text.startswith("/*"):
        inner = text[2:-2] if text.endswith("*/") and len(text) >= 4 else text[2:]
        lines = [line.strip().lstrip("*!").strip() for line in inner.splitlines()]
        return "\n".join(lines).strip()
    if text.startswith("//"):
        return text.lstrip("/").removeprefix("!")
    if text.startswith("#"):
        return text.lstrip("#")
    return text


def parse_instruction(comment_text: str) -> str | None:
    """The instruction of a `spark:` comment, or None for any other comment."""
    match = _BODY.match(comment_body(comment_text))
    if match is None:
        return None
    words = _SPACE.sub(" ", match.group("text")).strip()
    return words or None


def _comment_at(root: Node, byte: int) -> Node | None:
    """The outermost comment node holding `byte`, if any."""
    node: Node | None = root.descendant_for_byte_range(byte, byte + 1)
    while node is not None and "comment" not in node.type:
        node = node.parent
    while node is not None and node.parent is not None and "comment" in node.parent.type:
        node = node.parent
    return node


def _blank(text: str) -> bool:
    return not text.strip()


def _next_code_line(doc: Document, root: Node, row: int) -> int | None:
    """The first line from `row` on that holds code (not blank, not only comments)."""
    lines = doc.lines
    while row < lines.line_count:
        text = lines.line_text(row)
        if _blank(text):
            row += 1
            continue
        indent = len(text) - len(text.lstrip())
        byte = doc.lines.byte_point(lines.starts[row] + indent)[0]
        comment = _comment_at(root, byte)
        if comment is None:
            return row
        row = max(row + 1, comment.end_point.row + (1 if comment.end_point.column else 0))
    return None


def _instruction(doc: Document, root: Node, node: Node, *, max_lines: int) -> CommentInstruction | None:
    text = doc.node_text(node).rstrip()
    instruction = parse_instruction(text)
    if instruction is None:
        return None
    lines = doc.lines
    start = doc.point_offset(node.start_point)
    end = start + len(text)
    first, last = node.start_point.row, lines.position(end, "utf-32").line
    before = doc.text[lines.starts[first] : start]
    after_end = lines.starts[last] + len(lines.line_text(last))
    after = doc.text[end:after_end]
    if _blank(before) and _blank(after):
        code_row = _next_code_line(doc, root, last + 1)
        if code_row is not None:
            code_text = lines.line_text(code_row)
            indent = len(code_text) - len(code_text.lstrip())
            if indent >= len(before):  # not the end of the comment's block
                code = lines.starts[code_row] + indent
                region = find_region(doc, code, code, max_lines=max_lines)
                return CommentInstruction(instruction, text, start, end, first, (start, max(end, region.end)))
        return CommentInstruction(instruction, text, start, end, first, (start, end))
    return CommentInstruction(instruction, text, start, end, first, (lines.starts[first], end))


def find_instructions(
    doc: Document, *, max_lines: int, lines: tuple[int, int] | None = None
) -> list[CommentInstruction]:
    """The `spark:` comments of the document (of its lines `lines`, when given), in
    order. Documents without a syntax tree have none (there is no telling a comment
    from a string)."""
    index = doc.lines
    begin, stop = 0, len(doc.text)
    if lines is not None:
        begin = index.starts[max(0, min(lines[0], index.line_count - 1))]
        stop = index.starts[lines[1] + 1] if lines[1] + 1 < index.line_count else len(doc.text)
    if not doc.parses or _MARKER.search(doc.text, begin, stop) is None:
        return []  # the common case: no marker near, so no tree is needed at all
    tree = doc.tree_around(begin, stop)
    if tree is None:
        return []
    root = tree.root_node
    found: list[CommentInstruction] = []
    seen: set[int] = set()
    for match in _MARKER.finditer(doc.text, begin, stop):
        node = _comment_at(root, doc.lines.byte_point(match.start())[0])
        if node is None or node.start_byte in seen:
            continue
        seen.add(node.start_byte)
        item = _instruction(doc, root, node, max_lines=max_lines)
        if item is not None:
            found.append(item)
    return found


def instructions_at(doc: Document, start: int, end: int, *, max_lines: int) -> list[CommentInstruction]:
    """The `spark:` comments offered for the range `start`..`end` (code points): those on
    the lines it touches, and those whose code it lies in."""
    lines = doc.lines
    first = lines.position(start, "utf-32").line
    last = lines.position(end, "utf-32").line
    offered = []
    # A comment is on the range's lines, or above the code it belongs to, which holds
    # the range and spans at most `max_lines`: only those lines are looked at.
    window = (first - 2 * max_lines, last)
    for item in find_instructions(doc, max_lines=max_lines, lines=window):
        comment_last = lines.position(item.end, "utf-32").line
        on_comment = item.line <= last and first <= comment_last
        in_code = item.target[0] <= start and end <= item.target[1]
        if on_comment or in_code:
            offered.append(item)
    return offered


def nearest_instruction(doc: Document, instruction: str, line: int, *, max_lines: int) -> CommentInstruction:
    """The `spark:` comment with these words nearest to `line` (found again in the
    document as it is now); `EditError` when there is none any more."""
    same = [i for i in find_instructions(doc, max_lines=max_lines) if i.instruction == instruction]
    if not same:
        raise EditError(f"The comment `spark: {instruction}` is no longer there; nothing was changed.")
    return min(same, key=lambda i: abs(i.line - line))


def model_instruction(item: CommentInstruction) -> str:
    """What the model is asked: follow the comment, then delete it. The comment is quoted
    on a line of its own, as written, so nothing is added around its words."""
    return (
        "The comment below, in the editable region, is an instruction from the user. Apply it "
        "to the code the comment belongs to, then delete the comment. Keep every other comment "
        f"and change nothing else.\n{item.text}"
    )


def strip_comment(new_text: str, item: CommentInstruction) -> str:
    """`new_text` without the instruction comment, if the model left it in.

    The comment is found as written or, failing that, as any comment line with the
    same instruction; a line left blank by its removal goes with it.
    """
    at = new_text.find(item.text)
    if at >= 0:
        span = (at, at + len(item.text))
    else:
        span = None
        for match in re.finditer(r"[^\n]*spark:[^\n]*", new_text, re.IGNORECASE):
            if parse_instruction(match.group().strip()) == item.instruction:
                span = (match.start() + len(match.group()) - len(match.group().lstrip()), match.end())
                break
        if span is None:
            return new_text
    line_start = new_text.rfind("\n", 0, span[0]) + 1
    line_end = new_text.find("\n", span[1])
    line_end = len(new_text) if line_end < 0 else line_end
    before, after = new_text[line_start : span[0]], new_text[span[1] : line_end]
    if _blank(before) and _blank(after):
        return new_text[:line_start] + new_text[min(line_end + 1, len(new_text)) :]
    if _blank(before):
        return new_text[: span[0]] + after.lstrip(" \t") + new_text[line_end:]
    return new_text[: line_start] + before.rstrip(" \t") + new_text[span[1] :]


def finish_outcome(doc: Document, outcome: EditOutcome, item: CommentInstruction) -> EditOutcome:
    """`outcome` (computed against `doc` as it is now) with the comment surely gone.

    The region's new text is rebuilt from the edits; if the model kept the comment it
    is stripped, the result checked to parse, and the edits recomputed.
    """
    if doc.version != outcome.version:
        raise DocumentChanged(f"{doc.uri} changed while the instruction was applied; nothing was changed.")
    lines = doc.lines
    first, last = outcome.region_lines
    start = lines.starts[first]
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
    old = doc.text[start:end]
    replacements = sorted(
        (Replacement(doc.offset(e.start) - start, doc.offset(e.end) - start, e.text) for e in outcome.edits),
        key=lambda r: (r.start, r.end),
    )
    if strip_comment(old, item) == old:
        raise EditError("The `spark:` comment is not in the edited region; nothing was changed.")
    new = strip_comment(apply_replacements(old, replacements), item)
    return replace(outcome, edits=rewrite(doc, start, old, new)[2])
