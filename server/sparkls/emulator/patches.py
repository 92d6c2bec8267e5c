"""Patches as an exact model writes them: an edit of a region, as a V4A diff or SEARCH/REPLACE. Pure.

The emulator's ideal model knows each edit's true result (old region -> new region)
and answers in the shape the request asks for; bench/real_edits.py measures the shapes'
sizes with the same functions. A patch of a region is a list of hunks, each a run of
the region's lines (`Span`) with the change inside it:

- `v4a_diff`: the `apply_patch` tool's `update_file` diff: per hunk a ``@@`` line, then
  its lines as ``" "`` (context), ``"-"`` (removed) and ``"+"`` (added);
- `v4a_text`: the same diff in the text envelope (``*** Begin Patch``, ``*** Update
  File: <path>``, ..., ``*** End Patch``), for a request without the tool;
- `search_replace`: per hunk a ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE``
  block, the hunk's old lines then its new lines.

Each hunk carries `context` unchanged lines each side of its change (Codex's habit is
3; 0 is the least a patch can be), and more when it needs them to be found at exactly
one place in the region, or to hold a non-blank line; hunks whose lines would touch are
one hunk. None when a patch cannot say the edit: the region is empty or blank, or the
edit changes the region's final line break (a patch keeps the region's).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

BEGIN, END, UPDATE = "*** Begin Patch", "*** End Patch", "*** Update File: "
SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
CONTEXT = 3  # the context lines each side of a change, as Codex models write them


@dataclass(frozen=True, slots=True)
class Span:
    """Old lines lo..hi (exclusive) of the region, rewritten as a hunk."""

    lo: int
    hi: int


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as LSP counts lines (not at a form feed or U+2028)


def _lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def _split(old: str, new: str) -> tuple[list[str], list[str]] | None:
    """The regions' lines (line breaks dropped: the applier puts the region's back),
    or None when a patch cannot say the edit: a blank region, a change of the final
    line break, no change."""
    ends = ("\n", "\r")
    if not old.strip() or old.endswith(ends) != new.endswith(ends):
        return None
    a, b = _lines(old), _lines(new)
    return None if a == b else (a, b)


def _unique(a: list[str], span: Span) -> bool:
    want = a[span.lo : span.hi]
    if not any(line.strip() for line in want):
        return False
    n = len(want)
    return sum(1 for i in range(len(a) - n + 1) if a[i : i + n] == want) == 1


def spans(old: str, new: str, context: int = CONTEXT) -> list[Span] | None:
    """The hunks of the patch from `old` to `new` (see the module doc), or None."""
    split = _split(old, new)
    if split is None:
        return None
    a, b = split
    changes = [(i1, i2) for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
               if tag != "equal"]
    out: list[Span] = []
    for i1, i2 in changes:
        span = Span(max(0, i1 - context), min(len(a), i2 + context))
        while not _unique(a, span) and (span.lo > 0 or span.hi < len(a)):
            span = Span(max(0, span.lo - 1), min(len(a), span.hi + 1))
        if out and span.lo <= out[-1].hi:
            span = Span(out[-1].lo, max(out[-1].hi, span.hi))
            out.pop()
        out.append(span)
    return out


def _hunk_lines(a: list[str], b: list[str], span: Span) -> list[tuple[str, str]]:
    """(op, text) of the hunk over `span`: its old lines with the edit's changes (an
    insertion at either end of the span is the span's: spans never touch)."""
    ops: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops += [(" ", a[i]) for i in range(max(i1, span.lo), min(i2, span.hi))]
        elif span.lo <= i1 and i2 <= span.hi:
            ops += [("-", a[i]) for i in range(i1, i2)] + [("+", b[j]) for j in range(j1, j2)]
    return ops


def hunks(old: str, new: str, context: int = CONTEXT) -> list[list[tuple[str, str]]] | None:
    """The patch from `old` to `new` as hunks of (op, text), or None."""
    found = spans(old, new, context)
    if found is None:
        return None
    a, b = _split(old, new) or ([], [])
    return [_hunk_lines(a, b, span) for span in found]


def v4a_diff(old: str, new: str, context: int = CONTEXT) -> str | None:
    """The `apply_patch` tool's diff of the edit, or None."""
    found = hunks(old, new, context)
    if found is None:
        return None
    return "".join("@@\n" + "".join(f"{op}{text}\n" for op, text in hunk) for hunk in found)


def v4a_text(path: str, old: str, new: str, context: int = CONTEXT) -> str | None:
    """The edit as a V4A patch in its text envelope, or None."""
    diff = v4a_diff(old, new, context)
    return None if diff is None else f"{BEGIN}\n{UPDATE}{path}\n{diff}{END}\n"


def search_replace(old: str, new: str, context: int = 0) -> str | None:
    """The edit as SEARCH/REPLACE blocks, or None."""
    found = hunks(old, new, context)
    if found is None:
        return None
    blocks = []
    for hunk in found:
        before = "".join(f"{text}\n" for op, text in hunk if op != "+")
        after = "".join(f"{text}\n" for op, text in hunk if op != "-")
        blocks.append(f"{SEARCH}\n{before}{DIVIDER}\n{after}{REPLACE}\n")
    return "".join(blocks)
