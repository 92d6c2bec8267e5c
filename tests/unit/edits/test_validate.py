"""Edits that break the syntax are refused before they reach the buffer."""

import pytest

from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore
from sparkls.edits.validate import check_region_parses
from sparkls.errors import InvalidEdit

SOURCE = "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n"


def _check(new_text, text=SOURCE, at=15):
    doc = DocumentStore().open("file:///a.py", text, 1)
    region = find_region(doc, at, at, max_lines=300)
    check_region_parses(doc, region, new_text)


def test_valid_edit_passes():
    """A well-formed rewrite is accepted."""
    _check("def f(x: int) -> int:\n    return x + 2\n")


def test_broken_edit_is_refused():
    """An edit that leaves an unclosed parenthesis is refused."""
    with pytest.raises(InvalidEdit, match="does not parse"):
        _check("def f(x:\n    return (x + 1\n")


def test_existing_errors_may_be_fixed():
    """A region that was already broken may be repaired."""
    _check("def f(x):\n    return (x + 1)\n", text="def f(x):\n    return (x + 1\n")


def test_indented_method_region_is_checked_on_its_own():
    """A method's region parses after dedenting; breaking it is still caught."""
    text = "class A:\n    def f(self):\n        return 1\n"
    _check("    def f(self):\n        return 2\n", text=text, at=30)
    with pytest.raises(InvalidEdit):
        _check("    def f(self:\n        return 2\n", text=text, at=30)


def test_typescript_method_is_checked_in_place():
    """A TS method only parses inside its class: a good edit passes, a broken one does not."""
    text = "class A {\n  f(x: number): number {\n    return x;\n  }\n}\n"
    doc = DocumentStore().open("file:///a.ts", text, 1)
    at = text.index("return")
    region = find_region(doc, at, at, max_lines=300)
    assert doc.text[region.start : region.end].lstrip().startswith("f(x")
    check_region_parses(doc, region, "  f(x: number): number {\n    return x + 1;\n  }\n")
    with pytest.raises(InvalidEdit):
        check_region_parses(doc, region, "  f(x: number): number {\n    return (x + 1;\n  }\n")
