"""Definitions of the names a region uses: same file, whole or as a signature, in budget."""

from sparkls.context.builder import build_edit_context
from sparkls.documents.store import DocumentStore

LONG_BODY = "\n".join(f"    step_{i} = compute({i}) * {i} + offset" for i in range(200))
SOURCE = f'''LIMIT = 10


def helper(x):
    """Scale x."""
    return x * LIMIT


def long_one(y):
    """A long function."""
{LONG_BODY}
    return y


def target(values):
    return [helper(v) + long_one(v) for v in values]


def unrelated():
    return 0
'''


def _ctx(budget=2000):
    doc = DocumentStore().open("file:///w/m.py", SOURCE, 1)
    at = SOURCE.index("return [helper")
    return build_edit_context(doc, at, at, path="m.py", max_region_lines=300, budget_tokens=budget)


def test_small_definitions_come_whole_and_long_ones_as_signatures():
    """helper and LIMIT are sent whole; the 200-line function as its signature and docstring."""
    kinds = {s.text.splitlines()[0]: s.kind for s in _ctx().snippets}
    assert kinds["def helper(x):"] == "definition"
    assert kinds["def long_one(y):"] == "signature"
    long_one = next(s for s in _ctx().snippets if s.text.startswith("def long_one"))
    assert long_one.text.splitlines()[1].strip() == '"""A long function."""'
    assert "step_5" not in long_one.text


def test_unused_definitions_are_not_sent():
    """A function the region does not mention is not a snippet, nor is the region itself."""
    texts = "\n".join(s.text for s in _ctx().snippets)
    assert "def unrelated" not in texts and "def target" not in texts


def test_definitions_fall_back_to_signatures_in_a_small_budget():
    """When the whole definition does not fit, its signature still may."""
    snippets = _ctx(budget=12).snippets
    assert [s.kind for s in snippets] == ["signature"]
    assert snippets[0].text.startswith("def helper(x):")


def test_prompt_lists_definitions_with_path_and_lines():
    """Each definition in the prompt says where it comes from."""
    from sparkls.context.prompt import render_edit_prompt

    prompt = render_edit_prompt(_ctx(), "Vectorise.")
    assert "m.py lines 4-6:" in prompt.input and "def helper(x):" in prompt.input
