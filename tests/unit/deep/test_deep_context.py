"""Which files a deep-tier task shows besides the named ones, and the checks before applying."""

from __future__ import annotations

import pytest

from sparkls.context.symbols import Symbol
from sparkls.deep import context
from sparkls.deep.apply import FileChange
from sparkls.deep.checks import check_changes
from sparkls.documents.store import Document
from sparkls.errors import InvalidEdit

SHAPES = "def area(r):\n    return 3.14 * r * r\n\n\ndef perimeter(r):\n    return 2 * 3.14 * r\n"


class FakeIndex:
    """A workspace index that knows a few definitions."""

    def __init__(self, defs: dict[str, list[str]]) -> None:
        self.defs = defs

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        return [(path, Symbol(name, "function", 0, 1, 0, 0, None)) for path in self.defs.get(name, [])]

    def members(self, path, container, name):
        return []

    def file_lines(self, path):
        return None


def _doc(text: str = SHAPES) -> Document:
    return Document("file:///w/shapes.py", text, 1, "python", "utf-16")


def test_symbols_are_words_of_the_instruction_that_something_defines():
    """`area` is defined in the named file, `Vector` in the index; `rename` and `to` nowhere."""
    index = FakeIndex({"Vector": ["geo/vector.py"]})
    names = context.symbols_in_play("rename area to circle_area, and use Vector", [_doc()], lookup=index)
    assert names == ["area", "Vector"]


def test_the_selection_brings_the_names_it_defines_and_uses():
    """A selection over `perimeter` puts it in play, with what its body uses that is defined."""
    doc = _doc()
    start = SHAPES.index("def perimeter")
    names = context.symbols_in_play("make it faster", [doc], (doc, start, len(SHAPES)))
    assert names == ["perimeter"]


def test_definers_come_from_the_index_without_the_named_files():
    """Each name's defining files, at most MAX_DEFINERS, the named ones left out."""
    index = FakeIndex({"area": ["shapes.py", "geo/area.py"]})
    found = context.definers(["area"], index, {"shapes.py"})
    assert [(r.path, r.reason) for r in found] == [("geo/area.py", "defines area")]


def test_references_are_whole_words_most_mentions_first():
    """`area` inside `surface_area` is no mention; the file mentioning it most ranks first."""
    files = [("a.py", "area(1)\n"), ("b.py", "area(area(2))\n"), ("c.py", "surface_area = 1\n")]
    found = sorted(context.references(["area"], files, set()), key=lambda r: r.rank)
    assert [(r.path, r.reason) for r in found] == [("b.py", "mentions area (2)"), ("a.py", "mentions area (1)")]


def test_choose_keeps_the_budget_and_the_file_count():
    """Definitions first, then references; what does not fit is left out, not cut."""
    relevant = [
        context.Relevant("big.py", "mentions x (9)", (1, -9, "big.py")),
        context.Relevant("def.py", "defines x", (0, 0, "def.py")),
        context.Relevant("small.py", "mentions x (1)", (1, -1, "small.py")),
    ]
    chosen = context.choose(relevant, {"big.py": 900, "def.py": 50, "small.py": 50}, 100, budget_tokens=500)
    assert chosen.paths == ["def.py", "small.py"] and chosen.left_out == ["big.py"]
    assert context.choose(relevant, {}, 0, max_files=1).paths == ["def.py"]


def test_a_change_that_adds_a_syntax_error_is_refused():
    """A file that parsed and no longer does is named; nothing is applied."""
    with pytest.raises(InvalidEdit, match="shapes.py does not parse"):
        check_changes([FileChange("shapes.py", SHAPES, SHAPES.replace("return", "return ("), (1,))])


def test_a_new_file_must_parse_and_other_languages_are_not_checked():
    """A new Python file with an error is refused; a new Markdown file is not checked."""
    with pytest.raises(InvalidEdit, match="new.py"):
        check_changes([FileChange("new.py", None, "def f(:\n", (1,))])
    check_changes([FileChange("notes.md", None, "def f(:\n", (1,))])


def test_a_change_that_writes_the_redaction_marker_is_refused():
    """The model saw `[REDACTED]` for a secret; writing it back would destroy the secret."""
    old = 'TOKEN = "abc"\n'
    with pytest.raises(InvalidEdit, match="REDACTED"):
        check_changes([FileChange("conf.py", old, 'TOKEN = "[REDACTED]"\nDEBUG = 1\n', (1,))])
