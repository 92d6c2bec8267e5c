"""Fuzzing didChange: random sequences of ranged and whole-text changes against the
document store, checked against a reference model written for clarity, not speed.

The model: lines end at "\\r\\n", "\\r" or "\\n"; a position counts code units of the
negotiated encoding; past the end of a line it means the line's end, past the last
line the text's end; a column inside a character means that character's start; a
range whose end comes before its start inserts at its start (documents/positions.py
and store.py say the same). Bounded for CI: fixed examples from a fixed seed, no
deadline. `SPARKLS_FUZZ_EXAMPLES=20000` runs longer, from a random seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.fuzzing import fuzz_settings
from sparkls.documents.languages import new_parser
from sparkls.documents.positions import Position, tree_bytes
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.errors import SparkError

FUZZ = fuzz_settings(300)

BREAK = re.compile(r"\r\n|\r|\n")
PIECES = ["a", "b", " ", "\t", "\n", "\r\n", "\r", "é", "中文", "😀", "👍🏽", "\x00", "def f():\n    return 1\n", "x = [1,\n 2]"]
LONE_SURROGATES = ["\ud83d", "\ude00", "\udfff"]


@dataclass(frozen=True)
class Change:
    text: str
    start: tuple[int, int] | None = None  # None: the whole text
    end: tuple[int, int] | None = None


def width(ch: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return len(ch.encode("utf-8", "surrogatepass"))


def line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in BREAK.finditer(text)]


def offset(text: str, line: int, character: int, encoding: str) -> int:
    starts = line_starts(text)
    if line >= len(starts):
        return len(text)
    end_of_line = BREAK.search(text, starts[line])
    i, units, stop = starts[line], 0, end_of_line.start() if end_of_line else len(text)
    while i < stop and units + width(text[i], encoding) <= character:
        units += width(text[i], encoding)
        i += 1
    return i


def apply(text: str, change: Change, encoding: str) -> str:
    if change.start is None or change.end is None:
        return change.text
    start = offset(text, *change.start, encoding)
    end = max(start, offset(text, *change.end, encoding))
    return text[:start] + change.text + text[end:]


def texts(extra: list[str]) -> st.SearchStrategy[str]:
    piece = st.sampled_from(PIECES + extra) | st.characters(exclude_categories=["Cs"])
    return st.lists(piece, max_size=10).map("".join)


def changes(extra: list[str]) -> st.SearchStrategy[Change]:
    point = st.tuples(st.integers(0, 8), st.integers(0, 30))
    ranged = st.builds(Change, texts(extra), point, point)
    return st.one_of(ranged, ranged, ranged, st.builds(Change, texts(extra)))


def steps(extra: list[str]) -> st.SearchStrategy:
    """Each step: the changes of one didChange, and whether the tree is read after it."""
    return st.lists(st.tuples(st.lists(changes(extra), min_size=1, max_size=3), st.booleans()), max_size=10)


def to_store(change: Change) -> TextChange:
    if change.start is None or change.end is None:
        return TextChange(change.text)
    return TextChange(change.text, (Position(*change.start), Position(*change.end)))


def run_sequence(initial: str, sequence, encoding: str, uri: str) -> None:
    store = DocumentStore(encoding)  # type: ignore[arg-type]
    doc = store.open(uri, initial, 1)
    model = initial
    for version, (batch, read_tree) in enumerate(sequence, start=2):
        store.change(uri, [to_store(c) for c in batch], version)
        for change in batch:
            model = apply(model, change, encoding)
        assert doc.text == model
        assert doc.lines.starts == line_starts(model)
        if read_tree and doc.tree is not None:
            fresh = new_parser(doc.language_id).parse(tree_bytes(model))
            assert str(doc.tree.root_node) == str(fresh.root_node)  # the incremental parse agrees


ENCODINGS = st.sampled_from(["utf-16", "utf-8", "utf-32"])
URIS = st.sampled_from(["file:///t.py", "file:///t.txt"])


@FUZZ
@given(texts([]), steps([]), ENCODINGS, URIS)
def test_did_change_sequences_match_the_reference(initial, sequence, encoding, uri):
    """Emoji, CJK, NUL, CRLF/CR/LF mixes, positions past the end: the store's text, its
    line starts and its tree follow every change exactly, and nothing raises."""
    run_sequence(initial, sequence, encoding, uri)


@settings(FUZZ)
@given(texts(LONE_SURROGATES), steps(LONE_SURROGATES), ENCODINGS, URIS)
def test_did_change_with_lone_surrogates_matches_the_reference_or_refuses_clearly(initial, sequence, encoding, uri):
    """Half an emoji (a lone UTF-16 surrogate) in the text or a change: an exact edit, or
    a SparkError saying why, never another exception."""
    try:
        run_sequence(initial, sequence, encoding, uri)
    except SparkError:
        pass
