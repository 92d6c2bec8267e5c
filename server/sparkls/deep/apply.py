"""Apply SEARCH/REPLACE blocks to file texts: all of them, or none. Pure.

Blocks apply in reply order, each to the text the previous ones left. A SEARCH part
is a run of whole lines; it is looked for in three passes, each more tolerant, and the
first pass that finds anything decides (edits/locate.py, docs/deep-tier.md):

1. exact: the lines are equal;
2. trailing whitespace: the lines are equal once trailing spaces and tabs are dropped;
3. indentation: the lines are equal once leading and trailing spaces and tabs are
   dropped, and every non-blank file line has one and the same extra indentation
   prefix over its SEARCH line (or all the same prefix less); the REPLACE lines are
   then re-indented by that difference. Blank lines match blank lines.

A pass that finds several places raises `SearchAmbiguous`; no pass finding anything
raises `SearchNotFound`. Nothing is guessed. An empty SEARCH creates the file (or
fills a file that is empty). Replaced lines take the file's line break (CRLF stays
CRLF), and a file without a final line break keeps having none.

Keys of `texts` are whatever names the blocks carry (paths.resolve_blocks makes them
canonical); a value of None means the file does not exist.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from sparkls.deep.blocks import SearchReplaceBlock
from sparkls.edits.locate import EXACT, INDENTATION, TRAILING, Match, find_lines, reindent
from sparkls.edits.workspace import FileChange
from sparkls.errors import FileAlreadyExists, SearchAmbiguous, SearchNotFound

_LINE_BREAK_KEPT = re.compile(r"(\r\n|\r|\n)")
NEW_FILE_LINE_BREAK = "\n"
SEARCH_PASSES = (EXACT, TRAILING, INDENTATION)  # edits/locate.py; no Unicode pass for whole files


class _Lines:
    """A text as lines without breaks, each line's own break, and the dominant break."""

    def __init__(self, text: str) -> None:
        parts = _LINE_BREAK_KEPT.split(text)
        self.lines = parts[0::2]
        self.breaks = parts[1::2] + [""]
        if self.lines[-1] == "":  # the text ends with a break (or is empty)
            self.lines.pop()
            self.breaks.pop()
        found = parts[1::2]
        # The most frequent break; on a tie, the first one seen.
        self.line_break = Counter(found).most_common(1)[0][0] if found else NEW_FILE_LINE_BREAK

    def replace(self, start: int, end: int, new_lines: list[str]) -> None:
        """Lines [start, end) become `new_lines`; the last keeps the old last break."""
        last_break = self.breaks[end - 1]
        self.lines[start:end] = new_lines
        if new_lines:
            self.breaks[start:end] = [self.line_break] * (len(new_lines) - 1) + [last_break]
        else:
            del self.breaks[start:end]
            if start == len(self.lines) and start > 0 and last_break == "":
                self.breaks[start - 1] = ""  # deleted through an unterminated last line

    def text(self) -> str:
        return "".join(line + brk for line, brk in zip(self.lines, self.breaks, strict=True))


def find_search(lines: list[str], search: Sequence[str]) -> list[Match]:
    """The places `search` matches in `lines`, from the first pass that finds any."""
    return find_lines(lines, search, passes=SEARCH_PASSES)


def _describe(block: SearchReplaceBlock) -> str:
    return f"block {block.number} ({block.path}, SEARCH beginning {block.first_search_line!r})"


def apply_block(text: str | None, block: SearchReplaceBlock) -> str:
    """The text after one block; raises a DeepEditError subclass when it cannot apply."""
    if block.creates_file:
        if text is not None and text.strip():
            raise FileAlreadyExists(
                f"Block {block.number} has an empty SEARCH, which creates {block.path}, but "
                f"{block.path} already exists and is not empty; nothing was changed.",
                path=block.path,
                block=block.number,
            )
        return "".join(line + NEW_FILE_LINE_BREAK for line in block.replace)
    if text is None:
        raise SearchNotFound(
            f"Block {block.number} edits {block.path}, which does not exist (an empty SEARCH "
            "creates a file); nothing was changed.",
            path=block.path,
            block=block.number,
        )
    doc = _Lines(text)
    found = find_search(doc.lines, block.search)
    if not found:
        raise SearchNotFound(
            f"The SEARCH of {_describe(block)} matches nothing in the file; nothing was changed.",
            path=block.path,
            block=block.number,
        )
    if len(found) > 1:
        where = ", ".join(str(m.start + 1) for m in found[:5])
        raise SearchAmbiguous(
            f"The SEARCH of {_describe(block)} matches {len(found)} places (lines {where}); "
            "nothing was changed.",
            path=block.path,
            block=block.number,
        )
    match = found[0]
    doc.replace(match.start, match.end, reindent(block.replace, match))
    return doc.text()


def apply_blocks(blocks: Sequence[SearchReplaceBlock], texts: Mapping[str, str | None]) -> list[FileChange]:
    """The files the blocks change, in order of first mention; all or nothing.

    `texts[block.path]` is each file's current text, None for a file that does not
    exist. Files whose text ends up unchanged are left out. Raises the first block's
    error; no partial result is ever returned.
    """
    current: dict[str, str | None] = {}
    numbers: dict[str, list[int]] = {}
    for block in blocks:
        if block.path not in current:
            if block.path not in texts:
                raise KeyError(f"no text given for {block.path!r}")
            current[block.path] = texts[block.path]
        current[block.path] = apply_block(current[block.path], block)
        numbers.setdefault(block.path, []).append(block.number)
    changes = []
    for path, new_text in current.items():
        old_text = texts[path]
        if new_text is not None and new_text != old_text:
            changes.append(FileChange(path, old_text, new_text, tuple(numbers[path])))
    return changes
