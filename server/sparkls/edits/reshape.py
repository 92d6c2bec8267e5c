"""Bring a code block a fast model wrote back to the shape of the region it replaces. Pure.

Each function takes the block's lines and the old region's lines (no line breaks) and
returns the lines to use. Each recovers one habit of real models, and only when the
intent is unambiguous; otherwise it leaves the lines as they are (and the syntax check,
or the user, sees them), or refuses with `NoUsableReply`:

- `strip_echo`: lines echoed from around the region (the whole file, the excerpt, a
  few lines of context) are removed when they equal, exactly, the lines before or
  after the region; a partial echo that changed lines outside the region is refused
  (lines that follow the document's own next to the region, in order; not new code
  above or below the region that shares a few lines with its neighbours);
- `match_indent_style`: leading tabs become spaces (or spaces tabs) when the reply
  consistently uses the other style than the file and the conversion is exact;
- `match_base_indent`: a region dedented (or indented by a constant) moves back to the
  region's indentation when every non-blank line moves by the same prefix;
- `strip_added_trailing_whitespace`: trailing spaces and tabs the old region did not
  have on that line are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from math import gcd

from sparkls.errors import NoUsableReply

_BLANKS = " \t"


@dataclass(frozen=True, slots=True)
class Around:
    """What surrounds the region: document lines and excerpt lines, nearest last/first."""

    doc_before: tuple[str, ...] = ()  # the document's lines right before the region
    doc_before_complete: bool = True  # `doc_before` is every line before the region
    doc_after: tuple[str, ...] = ()  # the document's lines right after the region
    doc_after_complete: bool = True
    file_start: str | None = None  # the document's first non-blank line, if before the region
    shown_before: tuple[str, ...] = ()  # excerpt lines shown above the region's start marker
    shown_after: tuple[str, ...] = ()
    placeholder: str = "..."  # the excerpt's stand-in for lines between a header and the region


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_BLANKS))]


def _blank(lines: Sequence[str]) -> bool:
    return not any(line.strip() for line in lines)


def _same_code(lines: Sequence[str], old: Sequence[str]) -> bool:
    """Whether `lines` are `old`'s lines, indentation aside: then they may be the
    region's own first (last) lines, re-indented, not an echo."""
    return [ln.strip() for ln in lines] == [ln.strip() for ln in old]


def _prefix_echo(lines: Sequence[str], before: Sequence[str], old: Sequence[str]) -> int:
    """The most leading lines of `lines` that equal the last lines of `before` (see strip_echo)."""
    best = 0
    first = lines[0] if lines else None
    for idx in range(len(before)):
        k = len(before) - idx
        if k <= best or k >= len(lines) or before[idx] != first:
            continue
        head = list(lines[:k])
        if head == list(before[idx:]) and not _blank(head) and not _same_code(head, old[:k]) and not _blank(lines[k:]):
            best = k
    return best


def _suffix_echo(lines: Sequence[str], after: Sequence[str], old: Sequence[str]) -> int:
    """The most trailing lines of `lines` that equal the first lines of `after`."""
    best = 0
    last = lines[-1] if lines else None
    for idx in range(len(after)):
        k = idx + 1
        if k >= len(lines) or after[idx] != last:
            continue
        tail = list(lines[len(lines) - k :])
        if tail == list(after[:k]) and not _blank(tail) and not _same_code(tail, old[len(old) - k :]) and not _blank(
            lines[:-k]
        ):
            best = k
    return best


def _echoed_outside(part: Sequence[str], doc: Sequence[str], old_set: set[str], *, before: bool) -> str | None:
    """The first of `part`'s lines found in `doc` (the lines before the region, or
    after it) but not in the old region, when there are two or more such non-blank
    lines and at least half of `part`'s non-blank lines follow, in order, the
    document's lines next to the region (an echo of them, some changed); else None.
    New code written above or below the region shares a few lines with its
    neighbours (a closing brace, a common statement), not their order."""
    doc_set = set(doc)
    found = [ln for ln in part if ln.strip() and ln in doc_set and ln.strip() not in old_set]
    if len(found) < 2:
        return None
    mine = [ln for ln in part if ln.strip()]
    near = [ln for ln in doc if ln.strip()]
    near = near[-len(mine) :] if before else near[: len(mine)]
    matched = sum(block.size for block in SequenceMatcher(None, mine, near, autojunk=False).get_matching_blocks())
    return found[0] if matched * 2 >= len(mine) else None


def _first_nonblank(lines: Sequence[str]) -> str | None:
    return next((line for line in lines if line.strip()), None)


def _trim_blank_edges(lines: list[str], *, head: bool, tail: bool) -> list[str]:
    while head and lines and not lines[0].strip():
        lines.pop(0)
    while tail and lines and not lines[-1].strip():
        lines.pop()
    return lines


def _echo_refused(line: str) -> NoUsableReply:
    return NoUsableReply(
        f"The model echoed lines from outside the editable region (beginning {line.strip()!r}) and changed "
        "some of them; sparkls edits only the region, so nothing was changed."
    )


def strip_echo(lines: Sequence[str], old: Sequence[str], around: Around) -> list[str]:
    """`lines` without the lines echoed from before and after the region.

    Leading lines are stripped when they equal the last lines before the region (in
    the document, or in the excerpt as shown, or the excerpt's headers without its
    placeholder line), exactly; trailing lines when they equal the first lines after
    it. Only when what is stripped holds a non-blank line, what is left holds one
    too, and the stripped lines are not, indentation aside, how the old region itself
    begins (or ends). Blank lines left between an echo and the region go too, unless
    the old region has them.

    Refused, as lines outside the region changed: a reply that begins with the file's
    first line but is not stripped; one with two or more lines from before the region
    (that the region lacks) ahead of the region's first line, or from after it behind
    its last line, when half its lines there follow the document's next to the region
    (`_echoed_outside`); one that echoes everything before the region but not all
    after it.
    """
    out = list(lines)
    if not out or _blank(old):
        return out
    old_set = {line.strip() for line in old}
    headers = tuple(line for line in around.shown_before if line.strip() != around.placeholder)
    options = [(around.doc_before, around.doc_before_complete), (around.shown_before, False), (headers, False)]
    stripped, whole_start = 0, False
    for before, complete in options:
        k = _prefix_echo(out, before, old)
        if k > stripped:
            stripped, whole_start = k, complete and k == len(before)
    if stripped:
        out = _trim_blank_edges(out[stripped:], head=bool(old[0].strip()), tail=False)
    else:
        first = _first_nonblank(out)
        if first is not None and first == around.file_start and first.strip() not in old_set:
            raise _echo_refused(first)
        anchor = _first_nonblank(old)
        head = out[: out.index(anchor)] if anchor in out else []
        if (echoed := _echoed_outside(head, around.doc_before, old_set, before=True)) is not None:
            raise _echo_refused(echoed)
    k = max(_suffix_echo(out, around.doc_after, old), _suffix_echo(out, around.shown_after, old))
    if whole_start and not _blank(around.doc_after):
        rest = _trim_blank_edges(list(around.doc_after), head=False, tail=True)
        if not around.doc_after_complete or len(out) <= len(rest) or out[len(out) - len(rest) :] != rest:
            raise _echo_refused(_first_nonblank(rest) or "")
        k = max(k, len(rest))
    if k:
        out = _trim_blank_edges(out[: len(out) - k], head=False, tail=bool(old[-1].strip()))
    else:
        anchor = _first_nonblank(old[::-1])
        tail = out[len(out) - out[::-1].index(anchor) :] if anchor in out else []
        if (echoed := _echoed_outside(tail, around.doc_after, old_set, before=False)) is not None:
            raise _echo_refused(echoed)
    return out


def _style(lines: Sequence[str]) -> tuple[str, list[int]] | None:
    """("tab", depths) or ("space", widths) of the indented non-blank lines, if they
    all use one style; None when they mix or none is indented."""
    indents = [indent_of(line) for line in lines if line.strip() and indent_of(line)]
    if not indents:
        return None
    if all(set(i) == {"\t"} for i in indents):
        return "tab", [len(i) for i in indents]
    if all(set(i) == {" "} for i in indents):
        return "space", [len(i) for i in indents]
    return None


def _space_unit(widths: Sequence[int], base: int) -> int | None:
    """The reply's indentation step: the smallest width over its least indented line."""
    steps = [w - base for w in widths if w > base]
    return min(steps) if steps else None


def _space_step(lines: Sequence[str]) -> int | None:
    """The indentation step of space-indented lines (their widths' common divisor),
    block-comment continuation lines (`` * text``) aside; None below 2."""
    step = 0
    for line in lines:
        indent = indent_of(line)
        if indent and set(indent) == {" "} and not line.lstrip().startswith("*"):
            step = gcd(step, len(indent))
    return step if step >= 2 else None


def match_indent_style(lines: Sequence[str], old: Sequence[str], neighbours: Sequence[str] = ()) -> list[str]:
    """`lines` with leading tabs and spaces converted to the file's style, when the
    reply consistently uses the other one and every indentation converts exactly;
    otherwise `lines` unchanged. The file's style is the old region's, or its
    neighbours' when the region has no indented line."""
    file_style = _style(old) or _style(neighbours)
    reply_style = _style(lines)
    if file_style is None or reply_style is None or file_style[0] == reply_style[0]:
        return list(lines)
    out = []
    if file_style[0] == "tab":  # spaces -> tabs, one tab per reply step
        widths = reply_style[1]
        base = min(len(indent_of(line)) for line in lines if line.strip())
        unit = _space_unit(widths, base)
        if unit is None:  # every line at one depth: the old region's depth says the step
            tabs = min(file_style[1])
            unit = base // tabs if base % tabs == 0 else None
        if not unit or unit < 2 or any(w % unit for w in widths):
            return list(lines)
        for line in lines:
            indent = indent_of(line)
            out.append("\t" * (len(indent) // unit) + line[len(indent) :] if line.strip() else line)
        return out
    unit = _space_step([*old, *neighbours]) or _space_step(old)  # tabs -> spaces, the file's step per tab
    if not unit:
        return list(lines)
    for line in lines:
        indent = indent_of(line)
        out.append(" " * (len(indent) * unit) + line[len(indent) :] if line.strip() else line)
    return out


def _common_indent(lines: Sequence[str]) -> str | None:
    common: str | None = None
    for line in lines:
        if not line.strip():
            continue
        indent = indent_of(line)
        if common is None:
            common = indent
        else:
            n = 0
            while n < min(len(common), len(indent)) and common[n] == indent[n]:
                n += 1
            common = common[:n]
    return common


def match_base_indent(lines: Sequence[str], old: Sequence[str]) -> list[str]:
    """`lines` moved to the old region's indentation: the common indentation prefix of
    the reply's non-blank lines becomes the old region's, when one is a prefix of the
    other and each region's first non-blank line sits at its common indentation (so a
    reply that added less-indented code after a method is left alone)."""
    old_base, new_base = _common_indent(old), _common_indent(lines)
    if old_base is None or new_base is None or old_base == new_base:
        return list(lines)
    if not (old_base.startswith(new_base) or new_base.startswith(old_base)):
        return list(lines)
    if indent_of(_first_nonblank(old) or "") != old_base or indent_of(_first_nonblank(lines) or "") != new_base:
        return list(lines)
    return [old_base + line[len(new_base) :] if line.strip() else line for line in lines]


def strip_added_trailing_whitespace(lines: Sequence[str], old: Sequence[str]) -> list[str]:
    """`lines` without trailing spaces and tabs, except on lines the old region had
    exactly so (trailing whitespace and all)."""
    had = set(old)
    return [line if line in had else line.rstrip(_BLANKS) for line in lines]
