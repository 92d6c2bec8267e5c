"""The region of a bare cursor in the whitespace after a scope: where completions are typed."""

from __future__ import annotations

from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore
from bench.kit.sealing import seal

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



def test_a_completion_edits_only_the_cursor_line_with_its_function_as_context():
    """The prompt marks the cursor's line editable; the lines around it are shown outside the markers."""
    from sparkls.completion.service import COMPLETION_INSTRUCTION, completion_settings, cursor_line_only
    from sparkls.config import Settings
    from sparkls.context.prompt import render_edit_prompt
    from sparkls.documents.store import DocumentStore
    from sparkls.context.prompt import prepare_context

    source = "import math\n\ndef area(r):\n    x = 1\n    return math.\n    # 😀 tail\n"
    doc = DocumentStore().open("file:///w/a.py", source, 1)
    offset = source.index("math.\n") + len("math.")
    ctx = prepare_context(doc, offset, offset, path="a.py", settings=completion_settings(Settings()))
    narrowed = cursor_line_only(doc, ctx, offset)
    assert narrowed.region_text == "    return math.\n" and narrowed.cursor == len("    return math.")
    assert narrowed.before == "def area(r):\n    x = 1\n" and narrowed.after == "    # 😀 tail\n"
    excerpt = seal(render_edit_prompt(narrowed, COMPLETION_INSTRUCTION)).input.split("Excerpt (lines 3-6):\n```python\n")[1]
    assert excerpt.startswith(
        "def area(r):\n    x = 1\n<|editable_region_start|>\n    return math.<|cursor|>\n"
        "<|editable_region_end|>\n    # 😀 tail\n```"
    )
