"""Read the new region text out of a fast-tier reply (model protocol, DESIGN.md).

The reply must hold one fenced code block (``` or ~~~, any length, optional
language tag); its body is the region's new text. Marker lines and the cursor
marker are stripped if the model echoed them. Pure.
"""

from __future__ import annotations

import re

from sparkls.context.prompt import CURSOR, REGION_END, REGION_START
from sparkls.errors import NoUsableReply

_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n`]*$")


def extract_region(reply: str, *, line_ending: str = "\n") -> str:
    """The body of the reply's first fenced block, with `line_ending` line breaks.

    Raises NoUsableReply when there is no complete fenced block.
    """
    lines = reply.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        opened = _OPEN.match(line)
        if not opened:
            continue
        fence = opened.group(1)
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        for j in range(i + 1, len(lines)):
            if closing.match(lines[j]):
                body = [
                    ln.replace(CURSOR, "")
                    for ln in lines[i + 1 : j]
                    if ln.strip() not in (REGION_START, REGION_END)
                ]
                return line_ending.join(body)
        break
    preview = " ".join(reply.split())[:80]
    raise NoUsableReply(
        "The model's reply had no complete code block, so nothing was changed"
        + (f" (it began: {preview!r})." if preview else " (the reply was empty).")
    )
