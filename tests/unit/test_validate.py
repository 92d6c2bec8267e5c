"""Edits that break the syntax are refused before they reach the buffer."""

import pytest

from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore
from sparkls.edits.validate import check_region_parses
from sparkls.errors import InvalidEdit

SOURCE = "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n"


def _setup(text=SOURCE):
    doc = DocumentStore().open("file:///a.py", text, 1)
    region = find_region(doc, 15, 15, max_lines=300)
    return doc, region


def test_valid_edit_passes():
    """A well-formed rewrite is accepted."""
    doc, region = _setup()
    check_region_parses(doc, region, "def f(x: int) -> int:\n    return x + 2\n")


def test_broken_edit_is_refused():
    """An edit that leaves an unclosed parenthesis is refused."""
    doc, region = _setup()
    with pytest.raises(InvalidEdit, match="does not parse"):
        check_region_parses(doc, region, "def f(x:\n    return (x + 1\n")


def test_existing_errors_may_be_fixed():
    """A region that was already broken may be repaired."""
    doc, region = _setup("def f(x):\n    return (x + 1\n")
    check_region_parses(doc, region, "def f(x):\n    return (x + 1)\n")
