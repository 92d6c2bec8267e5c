"""Apply SEARCH/REPLACE blocks to file texts: all of them, or none. Pure.

Blocks apply in reply order, each to the text the previous ones left. A SEARCH part
is a run of whole lines; it is looked for in three passes, each more tolerant, and the
first pass that finds anything decides (docs/deep-tier.md):

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sparkls.deep.blocks import SearchReplaceBlock
from sparkls.edits.workspace import FileChange
from sparkls.errors import FileAlreadyExists, SearchAmbiguous, SearchNotFound

_LINE_BREAK_KEPT = re.compile(r"(\r\n|\r|\n)")
NEW_FILE_LINE_BREAK = "\n"
_BLANKS = " \t"  # the whitespace the tolerant passes ignore


@dataclass(frozen=True, slots=True)
class Match:
    start: int  # first matched line
    end: int  # one past the last matched line
    pass_name: str  # "exact", "trailing whitespace" or "indentation"
    indent_added: str = ""  # prefix to add to REPLACE lines
    indent_removed: str = ""  # prefix to remove from REPLACE lines


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


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_BLANKS))]


def _matches_by_key(lines: list[str], search: Sequence[str], key: Callable[[str], str]) -> list[int]:
    keys = [key(line) for line in lines]
    wanted = [key(line) for line in search]
    n = len(wanted)
    return [i for i in range(len(keys) - n + 1) if keys[i] == wanted[0] and keys[i : i + n] == wanted]


def _uniform_indent(file_lines: Sequence[str], search: Sequence[str]) -> tuple[str, str] | None:
    """(added, removed): the one prefix the file's lines have more (or less) than SEARCH's."""
    seen: tuple[str, str] | None = None
    for have, want in zip(file_lines, search, strict=True):
        if not want.strip(_BLANKS):
            continue
        have_indent, want_indent = _indent(have), _indent(want)
        if have_indent.endswith(want_indent):
            delta = (have_indent[: len(have_indent) - len(want_indent)], "")
        elif want_indent.endswith(have_indent):
            delta = ("", want_indent[: len(want_indent) - len(have_indent)])
        else:
            return None
        if seen is None:
            seen = delta
        elif delta != seen:
            return None
    return seen


def find_search(lines: list[str], search: Sequence[str]) -> list[Match]:
    """The places `search` matches in `lines`, from the first pass that finds any."""
    n, first, wanted = len(search), search[0], list(search)
    exact = [i for i, line in enumerate(lines) if line == first and lines[i : i + n] == wanted]
    if exact:
        return [Match(i, i + n, "exact") for i in exact]
    trailing = _matches_by_key(lines, search, lambda s: s.rstrip(_BLANKS))
    if trailing:
        return [Match(i, i + n, "trailing whitespace") for i in trailing]
    found = []
    for i in _matches_by_key(lines, search, lambda s: s.strip(_BLANKS)):
        delta = _uniform_indent(lines[i : i + n], search)
        if delta is not None:
            found.append(Match(i, i + n, "indentation", *delta))
    return found


def _reindent(replace: Sequence[str], match: Match) -> list[str]:
    out = []
    for line in replace:
        if not line.strip(_BLANKS):
            out.append(line)
        elif match.indent_added:
            out.append(match.indent_added + line)
        else:
            out.append(line.removeprefix(match.indent_removed))
    return out


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
    doc.replace(match.start, match.end, _reindent(block.replace, match))
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
