"""The scripted model's next-edit answers (docs/model-protocol.md, "Next edit"). Pure.

A next-edit request shows the file's recent edits as diff hunks under a line
``Recent edits (oldest first):``, then numbered regions (``Region N (lines a-b, ...):``
and a fence holding the region between the marker lines). The scripted model answers
as a real one would:

- ``NEXT_EDIT NONE`` anywhere in the request: ``NO_EDIT``;
- ``REPLACE <old> WITH <new>`` directives in the request (``model.py`` reads them and
  passes them in): applied to the regions in order, lines holding a directive aside;
  the first region they change is the answer (a forced answer);
- otherwise the renames each diff hunk shows (``-def area(raduis):`` /
  ``+def area(radius):`` renames ``raduis`` to ``radius``) are applied as a model
  would: whole words, in code (never inside a string literal or a comment), the
  newest hunk's first;
- a name the diffs add on a line of its own (``+    BLUE = 3``) gets an arm in a region
  that branches on its siblings (``case Color.GREEN:`` and its body are copied for
  ``Color.BLUE``, the sibling's name replaced in every case: GREEN, Green, green);
- nothing applies: ``NO_EDIT``.

The answer is ``Region N`` on a line, then the region's new text in one fence. A
question about another file (a line ``Edited file: <path>`` names the file the diffs
are from) is answered for every region the same renames change, one after another.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from sparkls.emulator.code import rename_in_code
from sparkls.emulator.protocol import END_LINE_RE, START_LINE_RE, fence

RECENT_EDITS = "Recent edits (oldest first):"
NO_EDIT = "NO_EDIT"
_REGION_RE = re.compile(r"^Region (\d+) \(lines [^\n]*\):\n(`{3,}|~{3,})([^\n]*)\n", re.MULTILINE)
_EDITED_FILE = re.compile(r"^Edited file: ", re.MULTILINE)
_NONE_RE = re.compile(r"(?<!\w)NEXT_EDIT[ \t]+NONE(?!\w)")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_MEMBER_LINE = re.compile(r"\s*([^\W\d]\w*)\s*(?:[=,(:]|$)")  # `BLUE = 3`, `Blue,`
_MEMBER_USE = re.compile(r"\b([A-Za-z_]\w*)(\.|::)([A-Za-z_]\w*)")


def is_next_edit_request(text: str) -> bool:
    return RECENT_EDITS in text and _REGION_RE.search(text) is not None


def regions(text: str) -> list[tuple[int, str, str]]:
    """(number, fence tag, region text) of each region shown."""
    found = []
    for match in _REGION_RE.finditer(text):
        start = START_LINE_RE.search(text, match.end())
        end = END_LINE_RE.search(text, start.end()) if start else None
        if start is None or end is None:
            continue
        body = text[start.end() + 1 : end.start()].removesuffix("\n")
        found.append((int(match.group(1)), match.group(3), body))
    return found


def hunks(text: str) -> list[tuple[list[str], list[str]]]:
    """The removed and the added lines of each recent edit's hunk, newest first."""
    at = text.find(RECENT_EDITS)
    block = text[at : text.find("\nRegion ", at)] if at >= 0 else ""
    found: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines():
        if line.startswith("@@"):
            found.append(([], []))
        elif found and line[:1] in ("-", "+"):
            found[-1][0 if line[0] == "-" else 1].append(line[1:])
    return found[::-1]


Replace = tuple[str, str]  # (old, new)
_DIRECTIVE_LINE = re.compile(r"(?<!\w)(?:REPLACE|COMPLETE|NEXT_EDIT)[ \t]")


def apply_replaces(region: str, replaces: list[Replace] | tuple[Replace, ...]) -> str:
    """Every `old` replaced by its `new`, except on lines that hold a directive."""
    lines = region.split("\n")
    for i, line in enumerate(lines):
        if not _DIRECTIVE_LINE.search(line):
            for old, new in replaces:
                if old:
                    line = line.replace(old, new)
            lines[i] = line
    return "\n".join(lines)


def diff_renames(removed: list[str], added: list[str]) -> list[Replace]:
    """The identifiers the diffs replaced by others, as REPLACE directives would say."""
    old = _IDENTIFIER.findall("\n".join(removed))
    new = _IDENTIFIER.findall("\n".join(added))
    found: list[Replace] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            found += [(a, b) for a, b in zip(old[i1:i2], new[j1:j2]) if a != b and (a, b) not in found]
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def with_new_arm(region: str, member: str) -> str:
    """The region with the last arm that names a sibling copied for `member`."""
    lines = region.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        use = _MEMBER_USE.search(lines[i])
        if use is None or use.group(3) == member:
            continue
        sibling, arm_end = use.group(3), i + 1
        while arm_end < len(lines) and lines[arm_end].strip() and _indent(lines[arm_end]) > _indent(lines[i]):
            arm_end += 1
        arm = "\n".join(lines[i:arm_end])
        for old, new in ((sibling, member), (sibling.lower(), member.lower()), (sibling.capitalize(), member.capitalize())):
            arm = re.sub(rf"(?<![\w]){re.escape(old)}(?!\w)", new, arm)
        return "\n".join([*lines[:arm_end], arm, *lines[arm_end:]])
    return region


def answer(text: str, forced: list[Replace] | tuple[Replace, ...] = ()) -> str:
    """The scripted model's answer to a next-edit request; `forced`: the request's
    REPLACE directives."""
    if _NONE_RE.search(text):
        return NO_EDIT
    shown = regions(text)
    # A real model follows the newest edit first: each hunk's renames (or the forced
    # REPLACEs), newest first, are tried on every region in turn.
    attempts = [(list(forced), [])] if forced else [(diff_renames(r, a), _added_members(r, a)) for r, a in hunks(text)]
    every = _EDITED_FILE.search(text) is not None  # another file's follow-ups: every region that changes
    for replaces, members in attempts:
        rewritten = []
        for number, tag, body in shown:
            # REPLACE directives as written; a diff's renames as a model would make them
            new = apply_replaces(body, replaces) if forced else rename_in_code(body, replaces, tag, keep_line=_DIRECTIVE_LINE.search)
            for member in members:
                if _MEMBER_USE.search(new) and not re.search(rf"(?:\.|::){re.escape(member)}\b", new):
                    new = with_new_arm(new, member)
            if new != body:
                rewritten.append(f"Region {number}\n" + fence(new, tag=tag))
                if not every:
                    break
        if rewritten:
            return "\n".join(rewritten)
    return NO_EDIT


def _added_members(removed: list[str], added: list[str]) -> list[str]:
    before = set(_IDENTIFIER.findall("\n".join(removed)))
    found = []
    for line in added:
        member = _MEMBER_LINE.match(line)
        if member and member.group(1) not in before and line.strip() not in (r.strip() for r in removed):
            found.append(member.group(1))
    return found
