"""Fenced code blocks in a model's reply, by CommonMark's rules as models bend them. Pure.

A fence is a line of three or more backticks or tildes, indented by any amount of
spaces or tabs, followed by an info string (``python``, ``python title="a.py"``; a
backtick fence's info string holds no backtick). The block ends at a line of the same
character, at least as long, with nothing else on it; so a four-backtick fence may
hold a ```` ``` ```` line. A body line loses the opening fence's indentation where it
has it (a block indented inside a list item). This module finds blocks; what a block
means is the caller's business (edits/reply.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True, slots=True)
class FencedBlock:
    info: str  # the info string, stripped ("python", 'python title="a.py"', "")
    lines: tuple[str, ...]  # the body, without line breaks, the fence's indentation removed
    start: int  # 0-based reply line of the opening fence
    fence: str = "```"  # the opening fence's characters

    @property
    def tag(self) -> str:
        """The info string's first word, lower-cased (the language, by convention)."""
        return self.info.split(maxsplit=1)[0].lower() if self.info else ""


@dataclass(frozen=True, slots=True)
class Fences:
    blocks: list[FencedBlock]
    unclosed: int | None = None  # 0-based line of a fence that opens and never closes


def opening_fence(line: str) -> tuple[str, str, str] | None:
    """(indentation, fence, info string) when `line` opens a fenced block, else None."""
    found = _OPEN.match(line)
    if found is None:
        return None
    indent, fence, info = found.groups()
    if fence[0] == "`" and "`" in info:
        return None  # inline code such as ```x``` on one line, not a fence
    return indent, fence, info.strip()


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip(" \t")
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def find_fences(lines: list[str]) -> Fences:
    """Every complete fenced block of `lines` (a reply split at line breaks), in order,
    and the first fence left open, if any (nothing after it is read)."""
    blocks: list[FencedBlock] = []
    i = 0
    while i < len(lines):
        opened = opening_fence(lines[i])
        if opened is None:
            i += 1
            continue
        indent, fence, info = opened
        least = fence[:3]
        for j in range(i + 1, len(lines)):
            if least in lines[j] and _closes(lines[j], fence):
                body = tuple(ln.removeprefix(indent) for ln in lines[i + 1 : j])
                blocks.append(FencedBlock(info, body, i, fence))
                i = j + 1
                break
        else:
            return Fences(blocks, unclosed=i)
    return Fences(blocks)
