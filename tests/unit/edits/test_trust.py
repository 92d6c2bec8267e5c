"""The pure parts of trusting an edit: invented names, the retry note, change history, rebasing an outcome."""

import pytest

from sparkls.guard import Draft, Section
from bench.kit.sealing import seal
from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.edits.diff import Replacement
from sparkls.edits.invented import invented_names
from sparkls.edits.retry import RETRY_NOTE, syntax_errors, with_parse_error
from sparkls.edits.tail import EditOutcome, PositionedEdit, rebase_outcome
from sparkls.errors import StaleEdit

OLD = "def area(r):\n    return 3.14 * r ** 2\n"


def _invented(source, new, old=OLD, language="python"):
    suffix = {"python": "py", "go": "go", "javascript": "js"}[language]
    doc = DocumentStore().open(f"file:///w/a.{suffix}", source, 1)
    return invented_names(doc, new, old, None)


def test_a_new_bare_call_defined_nowhere_is_reported():
    """`validate(r)` exists nowhere: reported; `len`, `json.dumps` and names of the file are not."""
    source = "import json\n\n\ndef helper():\n    pass\n\n\n" + OLD
    new = "def area(r):\n    validate(r)\n    helper()\n    json.dumps(len([r]))\n    return 3.14 * r ** 2\n"
    assert _invented(source, new) == ["possible invented API: validate()"]


def test_a_function_the_edit_defines_is_not_invented():
    """A helper the new region defines and calls is known."""
    new = "def area(r):\n    def square(x):\n        return x * x\n    return 3.14 * square(r)\n"
    assert _invented(OLD, new) == []


def test_own_methods_are_judged_only_without_base_classes():
    """`self.fly()` is reported in a plain class, not in one that inherits (the method may be inherited)."""
    method_old = "    def go(self):\n        return 1\n"
    method_new = "    def go(self):\n        return self.fly()\n"
    assert _invented("class A:\n" + method_old, method_new) == ["possible invented API: self.fly()"]
    assert _invented("class A(Base):\n" + method_old, method_new) == []


def test_go_builtins_are_known():
    """`make`, `len` and `append` are Go's own."""
    old = "func f() int {\n\treturn 0\n}\n"
    new = "func f() int {\n\txs := make([]int, 0)\n\txs = append(xs, 1)\n\treturn len(xs)\n}\n"
    assert _invented("package p\n\n" + old, new, old, "go") == []


def test_syntax_errors_name_lines_of_the_region():
    """A missing token and a broken tail are described by their line in the region."""
    assert syntax_errors("python", "def f(x):\n    return x +\n") == ["line 2: unexpected `return x +`"]
    assert syntax_errors("python", "def f(x):\n    return x\n") == []


def test_the_retry_note_goes_after_the_unchanged_request():
    """The stable parts stay a prefix (prompt cache); the note names the errors."""
    prompt = Draft("instructions", (Section.of("input"),))
    retried = seal(with_parse_error(prompt, "python", "def f(x):\n    return x +\n"))
    assert retried.instructions == "instructions"
    assert retried.input.startswith("input\n\n" + RETRY_NOTE) and "line 2" in retried.input


def test_changes_since_a_version_are_kept_in_order():
    """Each didChange is recorded as code-point replacements; a whole text as the change it stands for."""
    doc = DocumentStore().open("file:///w/a.py", "ab\n", 1)
    doc.apply([TextChange("😀", (Position(0, 0), Position(0, 0)))], 2)
    doc.apply([TextChange("X", (Position(0, 3), Position(0, 4)))], 5)
    assert doc.changes_since(1) == [Replacement(0, 0, "😀"), Replacement(2, 3, "X")]
    assert doc.changes_since(2) == [Replacement(2, 3, "X")]
    assert doc.changes_since(5) == []
    assert doc.changes_since(3) is None  # no such version
    doc.apply([TextChange("new")], 6)
    assert doc.changes_since(5) == [Replacement(0, 4, "new")]


def _outcome(doc, start, end, replacements):
    edits = [PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements]
    return EditOutcome(
        uri=doc.uri, version=doc.version, edits=edits, tier="fast", model="m", transport="websocket", attempts=1,
        region_lines=(doc.position(start).line, doc.position(end).line - 1), timings_ms={},
        region_offsets=(start, end), replacements=replacements, text_length=len(doc.text),
    )


def test_an_outcome_follows_typing_above_its_region():
    """Typing a line above the region moves the edit down a line, in the positions of the new text."""
    store = DocumentStore()
    doc = store.open("file:///w/a.py", "x = 1\n" + OLD, 1)
    start = len("x = 1\n")
    old = _outcome(doc, start, len(doc.text), [Replacement(start + 31, start + 32, "radius")])
    doc.apply([TextChange("# 日本\n", (Position(0, 0), Position(0, 0)))], 2)
    new = rebase_outcome(store, old)
    assert new.version == 2 and new.region_lines == (2, 3)
    assert new.edits == [PositionedEdit(Position(3, 18), Position(3, 19), "radius")]


def test_an_outcome_whose_region_was_touched_is_stale():
    """Typing inside the region refuses the outcome."""
    store = DocumentStore()
    doc = store.open("file:///w/a.py", OLD, 1)
    old = _outcome(doc, 0, len(doc.text), [Replacement(24, 25, "radius")])
    doc.apply([TextChange("z", (Position(1, 4), Position(1, 4)))], 2)
    with pytest.raises(StaleEdit):
        rebase_outcome(store, old)
