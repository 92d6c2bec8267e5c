"""Minimal replacements that turn one text into another.

Lines are matched first (difflib, no junk heuristics), then each changed block is
trimmed to the characters that really differ, so renaming one word yields one small
edit, not a rewritten region. Offsets are code points into the old text; converting
them to LSP positions is the caller's job (see documents/positions.py). Pure.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from sparkls.documents.text import Replacement

__all__ = ["Replacement", "apply_replacements", "diff_replacements"]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a: str, b: str, limit: int) -> int:
    n = min(len(a), len(b)) - limit
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


def diff_replacements(old: str, new: str) -> list[Replacement]:
    """The smallest-looking list of non-overlapping replacements, in order."""
    if old == new:
        return []
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    old_starts = [0]
    for line in old_lines:
        old_starts.append(old_starts[-1] + len(line))
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    out: list[Replacement] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        a = "".join(old_lines[i1:i2])
        b = "".join(new_lines[j1:j2])
        head = _common_prefix(a, b)
        tail = _common_suffix(a, b, head)
        out.append(Replacement(old_starts[i1] + head, old_starts[i2] - tail, b[head : len(b) - tail]))
    return out


def apply_replacements(old: str, replacements: list[Replacement]) -> str:
    """Apply ordered, non-overlapping replacements (used by tests and validation)."""
    parts: list[str] = []
    cursor = 0
    for r in replacements:
        parts.append(old[cursor : r.start])
        parts.append(r.text)
        cursor = r.end
    parts.append(old[cursor:])
    return "".join(parts)
