"""The code blocks of docs/editors/*.md, found by the heading they sit under.

The editor tests run the documented set-ups themselves, so a page that drifts from
what the editor accepts fails a test instead of a user.
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[3] / "docs" / "editors"
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
_FENCE = re.compile(r"^```(\w*)\s*$")


def code_blocks(page: str, lang: str) -> dict[str, list[str]]:
    """Every `lang` fenced block of `page`, grouped by the heading above it."""
    blocks: dict[str, list[str]] = {}
    heading, block, block_lang = "", None, ""
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines(keepends=True):
        fence = _FENCE.match(line)
        if block is not None:
            if fence and not fence.group(1):
                if block_lang == lang:
                    blocks.setdefault(heading, []).append("".join(block))
                block = None
            else:
                block.append(line)
        elif fence:
            block, block_lang = [], fence.group(1)
        elif match := _HEADING.match(line):
            heading = match.group(2)
    return blocks


def block(page: str, lang: str, heading: str, nth: int | None = None) -> str:
    """The `nth` `lang` block under `heading`, or the only one when `nth` is None."""
    found = code_blocks(page, lang).get(heading, [])
    if nth is None and len(found) != 1:
        raise LookupError(f"{page}: expected one {lang} block under {heading!r}, found {len(found)}")
    if nth is not None and nth >= len(found):
        raise LookupError(f"{page}: no {lang} block #{nth} under {heading!r} (found {len(found)})")
    return found[nth or 0]
