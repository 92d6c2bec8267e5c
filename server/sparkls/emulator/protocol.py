"""The fast-tier model protocol's markers, as the emulator reads them. Pure.

This module owns the few pieces of the model protocol (docs/model-protocol.md) that both
the scripted model (``model.py``) and the reply shapes (``shapes.py``) need: the
region and cursor markers, finding the editable region in a request, and the plain
fence. It sits below both so that neither imports the other.
"""

from __future__ import annotations

import re

REGION_START = "<|editable_region_start|>"
REGION_END = "<|editable_region_end|>"
CURSOR = "<|cursor|>"
FENCE = "```"

START_LINE_RE = re.compile(rf"^{re.escape(REGION_START)}[ \t]*\r?$", re.MULTILINE)
END_LINE_RE = re.compile(rf"^{re.escape(REGION_END)}[ \t]*\r?$", re.MULTILINE)


def find_region(text: str) -> tuple[int, int] | None:
    """Return the (start, end) offsets of the editable region's text, or None.

    When the marker lines occur more than once (an example in the instructions, say),
    the last start line that has an end line after it wins: the variable part of a
    prompt comes last.
    """
    for start_match in reversed(list(START_LINE_RE.finditer(text))):
        start = start_match.end()
        if start < len(text) and text[start] == "\n":
            start += 1
        end_match = END_LINE_RE.search(text, start_match.end())
        if end_match is None:
            continue
        end = end_match.start()
        if end > start and text[end - 1] == "\n":
            end -= 1
            if end > start and text[end - 1] == "\r":
                end -= 1
        return start, end
    return None


def fence(text: str, marker: str = FENCE, tag: str = "") -> str:
    """Wrap *text* in one fenced code block."""
    return f"{marker}{tag}\n{text}\n{marker}"
