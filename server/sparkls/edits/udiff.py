"""A unified diff a fast model answered instead of the region's new text. Pure.

`is_unified_diff` tells a diff from code; `apply_unified_diff` applies one to the
region's old lines. Every hunk must find its old lines (context and removed lines) at
exactly one place in the region, in order and without overlapping; otherwise nothing
is applied and `NoUsableReply` (or `AmbiguousReply`) says which hunk failed. Line
numbers in ``@@`` headers are ignored: models miscount them. Lines are compared
exactly, or, when no hunk place is found that way, with trailing spaces ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sparkls.errors import AmbiguousReply, NoUsableReply

_HUNK = re.compile(r"^@@.*@@")
_NUMBERED_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_DIFF_TAGS = frozenset({"diff", "patch", "udiff"})


@dataclass
class _Hunk:
    number: int
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)


def diff_start(lines: Sequence[str]) -> int | None:
    """The index of the line a unified diff starts on (``---``/``+++`` file headers,
    ``diff --git``, or a numbered ``@@`` hunk header), when hunks follow it."""
    for i, line in enumerate(lines):
        headed = line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
        if headed or line.startswith("diff --git ") or _NUMBERED_HUNK.match(line):
            return i if any(_HUNK.match(ln) for ln in lines[i:]) else None
    return None


def is_unified_diff(
    lines: Sequence[str], tag: str, language_id: str, old_lines: Sequence[str], *, after_prose: bool = False
) -> bool:
    """Whether a block (or, `after_prose`, an unfenced reply) is a unified diff rather than code.

    A ``diff``/``patch`` tag says so unless the file itself is a diff; otherwise the
    diff must start on the block's first non-blank line (or anywhere after prose, in
    a reply without a fence), and the old region must not itself hold ``@@`` lines.
    """
    if language_id in _DIFF_TAGS:
        return False
    if tag in _DIFF_TAGS:
        return True
    if not after_prose:
        first = next((ln for ln in lines if ln.strip()), "")
        if not first.startswith(("--- ", "diff --git ", "@@")):
            return False
    start = diff_start(lines)
    if start is None or any(_HUNK.match(ln) for ln in old_lines):
        return False
    return after_prose or not any(ln.strip() for ln in lines[:start])


def _hunks(lines: Sequence[str]) -> list[_Hunk]:
    hunks: list[_Hunk] = []
    files = 0
    current: _Hunk | None = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.startswith("--- ") and nxt.startswith("+++ "):
            files += 1
            if files > 1:
                raise NoUsableReply(
                    "The model answered with a diff of several files instead of the region's new text, "
                    "so nothing was changed."
                )
            current = None
        elif _HUNK.match(line):
            current = _Hunk(len(hunks) + 1)
            hunks.append(current)
        elif current is None:
            continue  # "diff --git", "index", "+++" lines, or prose before the diff
        elif line.startswith(("\\", "+++ ")):
            continue  # "\ No newline at end of file"
        elif line.startswith(" ") or line == "":
            current.old.append(line[1:])
            current.new.append(line[1:])
        elif line.startswith("-"):
            current.old.append(line[1:])
        elif line.startswith("+"):
            current.new.append(line[1:])
        else:
            current = None  # prose after a hunk ends it
    for hunk in hunks:
        # Blank context lines at a hunk's end are usually the blank line before the
        # closing fence; they only narrow where the hunk may go.
        while hunk.old and hunk.new and hunk.old[-1] == hunk.new[-1] == "":
            hunk.old.pop()
            hunk.new.pop()
    return hunks


def _places(old_lines: Sequence[str], wanted: list[str]) -> list[int]:
    n = len(wanted)
    for key in (lambda s: s, lambda s: s.rstrip(" \t")):
        keys = [key(s) for s in old_lines]
        want = [key(s) for s in wanted]
        found = [i for i in range(len(keys) - n + 1) if keys[i : i + n] == want]
        if found:
            return found
    return []


def apply_unified_diff(old_lines: Sequence[str], diff_lines: Sequence[str]) -> list[str]:
    """The region's new lines: `diff_lines` applied to `old_lines`, every hunk or none."""
    hunks = _hunks(diff_lines)
    if not hunks:
        raise NoUsableReply("The model answered with a diff that has no hunks (@@ lines), so nothing was changed.")
    placed: list[tuple[int, _Hunk]] = []
    for hunk in hunks:
        if not any(s.strip() for s in hunk.old):
            raise NoUsableReply(
                f"Hunk {hunk.number} of the model's diff has no old lines to place it by, so nothing was changed."
            )
        places = _places(old_lines, hunk.old)
        if not places:
            raise NoUsableReply(
                f"The model answered with a diff whose hunk {hunk.number} does not match the region "
                f"(it expects {hunk.old[0].strip()!r}), so nothing was changed."
            )
        if len(places) > 1:
            where = ", ".join(str(p + 1) for p in places[:5])
            raise AmbiguousReply(
                f"The model answered with a diff whose hunk {hunk.number} fits {len(places)} places in the "
                f"region (its lines {where}), so nothing was changed."
            )
        if placed and places[0] < placed[-1][0] + len(placed[-1][1].old):
            raise NoUsableReply(
                f"Hunks {placed[-1][1].number} and {hunk.number} of the model's diff overlap or are out of "
                "order, so nothing was changed."
            )
        placed.append((places[0], hunk))
    new = list(old_lines)
    for start, hunk in reversed(placed):
        new[start : start + len(hunk.old)] = hunk.new
    return new
