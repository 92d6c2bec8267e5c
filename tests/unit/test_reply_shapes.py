"""Reply shapes real models produce: each applied exactly or refused clearly, never half."""

from __future__ import annotations

import re

import pytest

from sparkls.config import Settings
from sparkls.deep.blocks import fence_path
from sparkls.documents.store import DocumentStore
from sparkls.edits.elision import is_elision
from sparkls.edits.reply import RegionView, new_region_text
from sparkls.fastedit.engine import EditRequest, run_fast_edit
from tests.sealing import environment
from sparkls.errors import SparkError
from tests.unit.reply_shapes_table import (
    DEEP_SHAPES,
    FAST_SHAPES,
    FILES,
    PY_DOC,
    PY_OLD,
    STEP_SHAPES,
    DeepShape,
    FastShape,
    Outcome,
    StepShape,
    StubSession,
    fenced,
    run_deep,
    run_fast,
    run_step,
)


def _check(outcome: Outcome, original: dict[str, str], expected: dict[str, str], refused: str, name: str) -> None:
    """The outcome is the expected texts, byte for byte, or a clear refusal and the originals."""
    assert outcome.texts in (expected, original), f"{name}: corrupted buffer"
    if expected == original and not refused:
        assert outcome.error is None, f"{name}: refused: {outcome.error}"
    elif refused:
        assert isinstance(outcome.error, SparkError), f"{name}: applied, expected a refusal"
        assert outcome.texts == original
        assert re.search(refused, str(outcome.error)), f"{name}: message {str(outcome.error)!r}"
    else:
        assert outcome.error is None, f"{name}: refused: {outcome.error}"
        assert outcome.texts == expected


def test_the_table_is_large_enough():
    """At least 40 shapes: 25 fast-tier, 15 deep-tier."""
    assert len(FAST_SHAPES) + len(STEP_SHAPES) >= 25
    assert len(DEEP_SHAPES) >= 15
    assert len({s.name for s in [*FAST_SHAPES, *STEP_SHAPES, *DEEP_SHAPES]}) == len(FAST_SHAPES) + len(
        STEP_SHAPES
    ) + len(DEEP_SHAPES)


@pytest.mark.parametrize("shape", FAST_SHAPES, ids=lambda s: s.name)
async def test_fast_reply_shape(shape: FastShape):
    """A fast-tier reply through run_fast_edit: the exact new buffer, or a refusal and the old one."""
    outcome = await run_fast(shape)
    name = shape.doc.name
    _check(outcome, {name: shape.doc.text}, {name: shape.expected}, shape.refused, shape.name)


@pytest.mark.parametrize("shape", STEP_SHAPES, ids=lambda s: s.name)
async def test_delegated_step_reply_shape(shape: StepShape):
    """A plan step's fast-tier reply through tasks._run_step: the whole new file, or a refusal."""
    outcome = await run_step(shape)
    original = {"calc.py": shape.text or ""}
    expected = {"calc.py": shape.new_text} if shape.new_text is not None else original
    _check(outcome, original, expected, shape.refused, shape.name)


@pytest.mark.parametrize("shape", DEEP_SHAPES, ids=lambda s: s.name)
def test_deep_reply_shape(shape: DeepShape):
    """A deep-tier reply through edit_from_reply: every file exactly as expected, or none changed."""
    outcome = run_deep(shape)
    _check(outcome, dict(FILES), shape.expected, shape.refused, shape.name)


async def test_identical_block_reports_no_edit():
    """A block equal to the old region gives an outcome with no edits (the callers say 'no change')."""
    store = DocumentStore()
    doc = store.open("file:///work/shapes.py", PY_DOC.text, 1, "python")
    at = doc.position(PY_DOC.text.index(PY_DOC.inside))
    outcome = await run_fast_edit(environment(store, StubSession(fenced(PY_OLD))), EditRequest(doc.uri, at, at, "x"))
    assert outcome.edits == []


def test_marker_text_the_document_holds_is_code():
    """In a file that holds the marker strings itself, they are code, not echoes."""
    text = 'START = "<|editable_region_start|>"\n\n\ndef f():\n    return START\n'
    region = 'def f():\n    return START + "<|editable_region_end|>"\n'
    view = RegionView(text, text.index("def f"), len(text), "python")
    assert new_region_text(f"```python\n{region}```", view) == region


@pytest.mark.parametrize(
    "line",
    ["    # Return the value unchanged", "    ...", "x = [...]", "    # TODO: handle more...", "--i;",
     "#include <stdio.h>", "    # Rest of the items go below"],
)
def test_lines_that_are_not_elisions(line):
    """Comments that mention 'unchanged' or end in '...', and code with '...', are kept."""
    assert not is_elision(line)


@pytest.mark.parametrize(
    ("line", "path"),
    [("```python src/a.py", "src/a.py"), ("```src/a.py", "src/a.py"), ("```py:src/a.py", "src/a.py"),
     ('```python title="src/a.py"', "src/a.py"), ("```python", None), ("```", None), ("~~~ a.py", "a.py")],
)
def test_paths_on_fence_lines(line, path):
    """A fence line names a path after its language, as its only word with a / or ., or as title=."""
    assert fence_path(line) == path


def test_an_empty_block_deletes_only_where_the_caller_allows_it():
    """An empty answer deletes the region's lines for an edit the user asked for; a next
    edit or a follow-up (no `may_delete`) is refused instead: it never deletes code."""
    text = "import os\nimport sys\n\nprint(sys.argv)\n"
    view = RegionView(text, 0, len("import os\n"), "python")
    assert new_region_text("```python\n```\n", view, may_delete=True) == ""
    with pytest.raises(SparkError, match="code block was empty"):
        new_region_text("```python\n```\n", view)
