"""Whole-text helpers for the document store: a replacement, parsing a big text a chunk
at a time, the minimal change between two texts, the UTF-8 size of a text. Pure, no state."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from tree_sitter import Parser, Tree

@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace old[start:end] with `text` (code-point offsets): a change in a
    document's history, and the unit of every edit (edits/diff.py)."""

    start: int
    end: int
    text: str


PARSE_CHUNK = 16 * 1024  # bytes a background parse reads between two yields of the GIL


class _ChunkBuffer(threading.local):
    """One thread's buffer for the chunks a parse reads (see `parse_yielding`)."""

    def __init__(self) -> None:
        self.data = bytearray(PARSE_CHUNK)
        self.whole = memoryview(self.data)


_chunks = _ChunkBuffer()


def parse_yielding(parser: Parser, source: bytes, old: Tree | None) -> Tree | None:
    """Parse `source` (incrementally from `old`), handing the GIL to other threads
    between chunks: tree-sitter holds it while it parses a bytestring.

    py-tree-sitter (0.25, 0.26) keeps a reference to every object the read callback
    returns during a parse, for good: returning slices of `source` leaked the whole
    text at every parse (28 MB over 200 documents of 100 KB). So while parsing, the
    chunks are copied into one buffer per thread, returned as the same memoryview each
    time (a reference more to an object that lives as long as the thread costs
    nothing); only a short last chunk is a new, small view. The parser reads a chunk
    only until it asks for the next, and no other Python code runs in between (the GIL
    is released only in the sleep before the copy), so one buffer per thread is enough.

    The tree keeps the callback as its source: a node's `text` (and a query predicate
    that reads one) calls it again later, from any thread, and there the binding wants
    `bytes` (a memoryview crashes 0.26.1) and releases them: after the parse, the
    callback returns plain slices of `source`.
    """
    text = memoryview(source)
    chunks = _chunks
    parsing = True

    def read(offset: int, _point: Any) -> memoryview | bytes:
        if not parsing:
            return source[offset : offset + PARSE_CHUNK]
        time.sleep(0)  # let the event loop's thread run
        piece = text[offset : offset + PARSE_CHUNK]
        size = len(piece)
        if size == 0:
            return b""
        chunks.data[:size] = piece
        return chunks.whole if size == PARSE_CHUNK else chunks.whole[:size]

    try:
        return parser.parse(read, old) if old is not None else parser.parse(read)
    finally:
        parsing = False


MATCH_CHUNK = 64 * 1024  # characters compared at a time when looking for a common prefix


def minimal_change(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, inserted): the one replacement of old[start:end] that makes `new`,
    found from the common prefix and suffix. A whole-text `didChange` becomes the
    keystroke it stands for, so the tree, the line index and the rebase history follow
    it as they follow a ranged change. Linear, at memcmp speed."""
    limit = min(len(old), len(new))
    prefix = _common_length(old, new, limit, forward=True)
    suffix = _common_length(old, new, limit - prefix, forward=False)
    return prefix, len(old) - suffix, new[prefix : len(new) - suffix]


def _common_length(a: str, b: str, limit: int, *, forward: bool) -> int:
    """How many characters `a` and `b` share from the start (or the end), up to `limit`."""
    def piece(s: str, i: int, n: int) -> str:
        return s[i : i + n] if forward else s[len(s) - i - n : len(s) - i]

    done = 0
    while done < limit:
        n = min(MATCH_CHUNK, limit - done)
        if piece(a, done, n) == piece(b, done, n):
            done += n
            continue
        low, high = 0, n  # piece(.., low) equal; piece(.., high) not
        while high - low > 1:
            middle = (low + high) // 2
            if piece(a, done, middle) == piece(b, done, middle):
                low = middle
            else:
                high = middle
        return done + low
    return done


def utf8_size_over(text: str, limit: int) -> bool:
    """Whether `text` takes more than `limit` bytes in UTF-8 (encoded only when in doubt)."""
    if len(text) > limit:
        return True
    return len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit
