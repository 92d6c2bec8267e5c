"""The region of a bare cursor in the whitespace after a scope: where completions are typed."""

from __future__ import annotations

from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore

SOURCE = '''import os


def add(a, b):
    total = a + b
    return 


def other():
    pass
'''


def _region(text: str, at: int):
    doc = DocumentStore().open("file:///w/m.py", text, 1)
    return find_region(doc, at, at, max_lines=60)


def test_cursor_after_trailing_space_belongs_to_the_function():
    """`return |` (after the space the user just typed) edits the function, not a lone line."""
    region = _region(SOURCE, SOURCE.index("return ") + len("return "))
    assert (region.start_line, region.end_line, region.kind) == (3, 5, "definition")


def test_cursor_on_a_new_line_below_the_function_extends_it():
    """A fresh indented line after the function's last statement joins the function's region."""
    text = SOURCE.replace("    return \n", "    return total\n    \n")
    region = _region(text, text.index("total\n    \n") + len("total\n    "))
    assert (region.start_line, region.end_line, region.kind) == (3, 6, "definition")


def test_cursor_inside_a_statement_is_unchanged():
    """A cursor within the function's code keeps the usual region."""
    region = _region(SOURCE, SOURCE.index("a + b"))
    assert (region.start_line, region.end_line) == (3, 5)

