"""Read SEARCH/REPLACE blocks out of a deep-tier reply (docs/deep-tier.md). Pure.

A block is a path line, then ``<<<<<<< SEARCH``, the old lines, ``=======``, the new
lines, ``>>>>>>> REPLACE``. The scanner tolerates what real models write around that:
the path in backticks, bold, or after ``File:`` / ``###``, or on the fence line;
blocks inside code fences, also indented in a list item; a block that follows another
without repeating the path; no path line when only one file was shown; CRLF line
breaks. Anything it cannot read unambiguously raises `MalformedBlocks` naming the block.

This module does not know about the workspace (see paths.py) or file texts (apply.py).
`BlockStream` reads a reply as it streams and hands out each block once it is closed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sparkls.edits.reply import is_words
from sparkls.errors import MalformedBlocks

SEARCH_MARKER = "<<<<<<< SEARCH"
DIVIDER = "======="
REPLACE_MARKER = ">>>>>>> REPLACE"

# 5-9 marker characters, as models miscount them. A block's markers share one
# indentation (none, or the list item's its fence sits in); matched on the line with
# that indentation removed.
_SEARCH = re.compile(r"^<{5,9}[ \t]*SEARCH[ \t]*$")
_DIVIDER = re.compile(r"^={5,9}[ \t]*$")
_REPLACE = re.compile(r"^>{5,9}[ \t]*REPLACE[ \t]*$")
_INDENTED_SEARCH = re.compile(r"^([ \t]*)<{5,9}[ \t]*SEARCH[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})([^`]*)$")
_FENCE_ATTRIBUTE = re.compile(r"""\b(?:title|file(?:name)?|path)=["']?([^"'\s]+)""", re.IGNORECASE)
_LABEL = re.compile(r"^(?:file(?:name)?|path)\s*:\s*", re.IGNORECASE)
_NEW_FILE_NOTE = re.compile(r"\s+\(new(?: file)?\)\s*:?\s*$", re.IGNORECASE)
_QUOTES = ("`", '"', "'")


@dataclass(frozen=True, slots=True)
class SearchReplaceBlock:
    """One change to one file. Lines carry no line breaks; an empty `search` creates."""

    path: str
    search: tuple[str, ...]
    replace: tuple[str, ...]
    number: int  # 1-based position of the block in the reply
    line: int  # 1-based line of its SEARCH marker in the reply

    @property
    def creates_file(self) -> bool:
        return not self.search

    @property
    def first_search_line(self) -> str:
        """The first non-blank SEARCH line, stripped, for messages."""
        return next((s.strip() for s in self.search if s.strip()), "")


def clean_path_line(line: str) -> str | None:
    """The path a path line names, or None when the line is prose, not a path.

    Strips surrounding whitespace, leading ``#`` (headings), a ``File:``/``Path:``
    label, a ``(new)`` or ``(new file)`` note, ``**bold**``, one pair of backticks or
    quotes, and a trailing colon. A path with a space is accepted only when quoted.
    """
    text = line.strip().lstrip("#").strip()
    text = _NEW_FILE_NOTE.sub("", _LABEL.sub("", text))
    for _ in range(2):  # "**`a.py`**:" and "`a.py`:" both peel in two rounds
        text = text.strip().removesuffix(":").strip()
        if len(text) > 4 and text.startswith("**") and text.endswith("**"):
            text = text[2:-2].strip()
        text = _LABEL.sub("", text)
    quoted = len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0]
    if quoted:
        text = text[1:-1].strip()
    if not text or (not quoted and any(ch.isspace() for ch in text)):
        return None
    if any(ch in text for ch in "`<>|*\0"):
        return None
    return text


def fence_path(line: str) -> str | None:
    """The path a fence line names, if any: ```` ```python src/a.py ````,
    ```` ```src/a.py ````, ```` ```python:src/a.py ````, ```` ```python title="src/a.py" ````.
    A lone word is a path only with a ``/`` or a ``.`` in it (``python`` is a language)."""
    found = _FENCE.match(line)
    if found is None:
        return None
    info = found.group(1).strip()
    attribute = _FENCE_ATTRIBUTE.search(info)
    if attribute is not None:
        return clean_path_line(attribute.group(1))
    words = info.split()
    if len(words) == 1 and ":" in words[0]:
        words = words[0].split(":", 1)
    if not words or len(words) > 2:
        return None
    word = words[-1]
    if len(words) == 1 and "/" not in word and "." not in word.strip("."):
        return None
    return clean_path_line(word)


def _preview(text: str) -> str:
    return " ".join(text.split())[:80]


class _Scanner:
    """A line-at-a-time state machine: outside a block, in its SEARCH, in its REPLACE."""

    def __init__(self, known_paths: tuple[str, ...] = ()) -> None:
        self.known_paths = known_paths  # the files shown to the model
        self.blocks: list[SearchReplaceBlock] = []
        self.lineno = 0
        self.state = "outside"
        self.since_last_block: list[str] = []  # lines outside blocks, for the path line
        self.last_path: str | None = None
        self.path = ""
        self.indent = ""  # the block's marker indentation
        self.start_line = 0
        self.search: list[str] = []
        self.replace: list[str] = []

    @property
    def number(self) -> int:
        return len(self.blocks) + 1

    def feed_line(self, line: str) -> SearchReplaceBlock | None:
        self.lineno += 1
        line = line.removesuffix("\r")
        if self.state == "outside":
            if opened := _INDENTED_SEARCH.match(line):
                self._open(opened.group(1))
            elif _REPLACE.match(line.lstrip(" \t")):
                raise MalformedBlocks(
                    f"Block {self.number} of the deep tier's reply has a `{REPLACE_MARKER}` line "
                    f"(line {self.lineno}) with no `{SEARCH_MARKER}` before it; nothing was changed.",
                    block=self.number,
                )
            else:
                self.since_last_block.append(line)
            return None
        # Markers at the block's indentation, or at the start of the line.
        markers = (line, line[len(self.indent) :]) if self.indent and line.startswith(self.indent) else (line,)
        if self.state == "search":
            if any(_DIVIDER.match(m) for m in markers):
                self.state = "replace"
            elif any(_SEARCH.match(m) or _REPLACE.match(m) for m in markers):
                raise self._unclosed(f"`{DIVIDER}`")
            else:
                self.search.append(self._content(line))
            return None
        if any(_REPLACE.match(m) for m in markers):
            return self._close()
        if any(_SEARCH.match(m) for m in markers):
            raise self._unclosed(f"`{REPLACE_MARKER}`")
        self.replace.append(self._content(line))
        return None

    def _content(self, line: str) -> str:
        """A SEARCH or REPLACE line without the markers' indentation."""
        if line.startswith(self.indent):
            return line[len(self.indent) :]
        if not line.strip():
            return ""
        raise MalformedBlocks(
            f"Block {self.number} of the deep tier's reply ({self.path}, line {self.start_line}) has its markers "
            f"indented, but its line {self.lineno} is indented less ({_preview(line)!r}); nothing was changed.",
            path=self.path,
            block=self.number,
        )

    def finish(self) -> list[SearchReplaceBlock]:
        if self.state != "outside":
            raise self._unclosed(f"`{DIVIDER}`" if self.state == "search" else f"`{REPLACE_MARKER}`")
        return self.blocks

    def _open(self, indent: str) -> None:
        self.state, self.path, self.indent, self.start_line = "search", self._path(), indent, self.lineno
        self.search, self.replace = [], []

    def _path(self) -> str:
        """The file of the block opening now: its path line (or its fence's path); else
        the file of the block right before it; else the only file shown."""
        candidate = None
        for previous in reversed(self.since_last_block):
            if not previous.strip():
                continue
            if _FENCE.match(previous):
                if (on_fence := fence_path(previous)) is not None:
                    return on_fence
                continue
            candidate = previous
            break
        only = self.known_paths[0] if len(self.known_paths) == 1 else None
        if candidate is None:
            if self.last_path is not None:
                return self.last_path  # a block right after another edits the same file
            if only is not None:
                return only
            raise MalformedBlocks(
                f"Block {self.number} of the deep tier's reply (line {self.lineno}) has no "
                "file path line before it; nothing was changed.",
                block=self.number,
            )
        path = clean_path_line(candidate) or only
        if path is None:
            raise MalformedBlocks(
                f"Block {self.number} of the deep tier's reply (line {self.lineno}) is not "
                f"preceded by a file path: the line before it is {_preview(candidate)!r}; "
                "nothing was changed.",
                block=self.number,
            )
        return path

    def _close(self) -> SearchReplaceBlock:
        # A SEARCH part of blank lines only has nothing to find: it means "create".
        search = tuple(self.search) if any(s.strip() for s in self.search) else ()
        block = SearchReplaceBlock(self.path, search, tuple(self.replace), self.number, self.start_line)
        self.blocks.append(block)
        self.last_path, self.state, self.since_last_block, self.indent = self.path, "outside", [], ""
        return block

    def _unclosed(self, missing: str) -> MalformedBlocks:
        return MalformedBlocks(
            f"Block {self.number} of the deep tier's reply ({self.path}, line {self.start_line}) "
            f"is missing its {missing} line; nothing was changed.",
            path=self.path,
            block=self.number,
        )


def parse_blocks(reply: str, known_paths: Sequence[str] = ()) -> list[SearchReplaceBlock]:
    """Every SEARCH/REPLACE block of a complete reply, in order.

    `known_paths` are the files shown to the model: when only one was shown, a block
    whose path line is missing (or is prose) edits that one.
    Raises MalformedBlocks for a broken block, or when the reply holds no block at all.
    """
    scanner = _Scanner(tuple(known_paths))
    for line in reply.split("\n"):
        scanner.feed_line(line)
    blocks = scanner.finish()
    if not blocks:
        raise no_blocks(reply)
    return blocks


def no_blocks(reply: str) -> MalformedBlocks:
    """What to say of a reply with no block: its words whole when it is an answer in
    words (the task will not, or cannot, be done), else how it began."""
    said = " ".join(reply.split())
    if said and is_words(reply) and SEARCH_MARKER not in reply:
        # An answer in words (it will not, or cannot, do the task) is the answer, heard out
        # whole, as the fast tier's is: the emulator's "does not understand ...; it follows:
        # ..." reads as what it is, never as a model that failed to write blocks.
        return MalformedBlocks(f'The answer was words, not edits, so nothing was changed: "{said[:600]}"')
    preview = _preview(reply)
    return MalformedBlocks(
        "The deep tier's reply held no SEARCH/REPLACE blocks, so nothing was changed"
        + (f" (it began: {preview!r})." if preview else " (the reply was empty).")
    )


class BlockStream:
    """Blocks of a reply that is still streaming: `feed` returns the newly closed ones.

    Only complete lines are scanned, so the cost is linear in the reply. `finish()`
    checks the end of the reply and returns every block, like `parse_blocks`.
    """

    def __init__(self, known_paths: Sequence[str] = ()) -> None:
        self._scanner = _Scanner(tuple(known_paths))
        self._pending = ""
        self._said: list[str] = []  # the reply so far, for the message when it holds no block

    def feed(self, delta: str) -> list[SearchReplaceBlock]:
        self._said.append(delta)
        text = self._pending + delta
        *lines, self._pending = text.split("\n")
        closed = []
        for line in lines:
            block = self._scanner.feed_line(line)
            if block is not None:
                closed.append(block)
        return closed

    @property
    def blocks(self) -> list[SearchReplaceBlock]:
        return list(self._scanner.blocks)

    def finish(self) -> list[SearchReplaceBlock]:
        if self._pending:
            self._scanner.feed_line(self._pending)
            self._pending = ""
        blocks = self._scanner.finish()
        if not blocks:
            raise no_blocks("".join(self._said))
        return blocks


def format_block(path: str, search: str, replace: str) -> str:
    """One block in the reply format (for scripted replies, the emulator and tests).

    `search` and `replace` are texts whose lines become the block's parts; an empty
    `search` makes a block that creates `path`.
    """
    parts = [path, SEARCH_MARKER]
    parts.extend(search.splitlines())
    parts.append(DIVIDER)
    parts.extend(replace.splitlines())
    parts.append(REPLACE_MARKER)
    return "\n".join(parts) + "\n"
