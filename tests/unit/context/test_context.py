"""Target regions, imports, headers and the fast-tier prompt."""

import pytest

from sparkls.context.builder import DiagnosticInfo, build_edit_context
from sparkls.context.tokens import estimate_tokens
from sparkls.context.prompt import CURSOR, REGION_END, REGION_START, render_edit_prompt
from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore
from sparkls.errors import EditError
from bench.kit.sealing import seal

SOURCE = '''\
"""Module doc."""
import os
from typing import Any

LIMIT = 10


class Greeter:
    """Says hello."""

    @staticmethod
    def greet(name: str) -> str:
        return "hello " + name

    def wave(self) -> None:
        pass


def helper():
    try:
        import json
    except ImportError:
        pass
    return 1

if __name__ == "__main__":
    print(helper())
'''


def _doc(text=SOURCE, uri="file:///w/app.py"):
    return DocumentStore().open(uri, text, 1)


def _offset(doc, needle):
    return doc.text.index(needle)


def test_region_is_the_enclosing_method_with_decorators():
    """A cursor in a decorated method selects the method and its decorator."""
    doc = _doc()
    at = _offset(doc, '"hello "')
    region = find_region(doc, at, at, max_lines=300)
    assert (region.start_line, region.end_line, region.kind) == (10, 12, "definition")
    assert doc.text[region.start : region.end].startswith("    @staticmethod\n")


def test_region_spanning_two_methods_is_the_class():
    """A selection across two methods selects their class."""
    doc = _doc()
    region = find_region(doc, _offset(doc, "return \"hello"), _offset(doc, "pass\n"), max_lines=300)
    assert (region.start_line, region.end_line) == (7, 15)


def test_whole_lines_selection_of_a_method_is_that_method():
    """Selecting a method's lines (ending at column 0 below it) gives the method, not its class."""
    doc = _doc()
    start = _offset(doc, "    def wave")
    end = _offset(doc, "        pass\n") + len("        pass\n")  # column 0 of the line below
    region = find_region(doc, start, end, max_lines=300)
    assert (region.start_line, region.end_line, region.kind) == (14, 15, "definition")


def test_oversized_scope_narrows_to_the_selected_lines():
    """When the scope is longer than the cap, the region is the selected lines."""
    doc = _doc()
    start = _offset(doc, "    def wave")
    region = find_region(doc, start, start + 5, max_lines=1)  # the method has two lines
    assert (region.start_line, region.end_line, region.kind) == (14, 14, "lines")


def test_module_level_code_selects_its_statement():
    """A cursor in module-level code selects the top-level statement around it."""
    doc = _doc()
    at = _offset(doc, "print(")
    region = find_region(doc, at, at, max_lines=300)
    assert (region.start_line, region.end_line, region.kind) == (25, 26, "statements")


def test_selection_larger_than_cap_is_refused():
    """A selection bigger than the cap is an error that names the setting."""
    doc = _doc()
    with pytest.raises(EditError, match="max_region_lines"):
        find_region(doc, 0, len(doc.text), max_lines=10)


def test_plain_text_gets_a_line_window():
    """Without a grammar the selected lines are the region."""
    doc = _doc("a\nb\nc\nd\n", uri="file:///w/notes.txt")
    region = find_region(doc, 2, 5, max_lines=300)
    assert (region.start_line, region.end_line, region.kind) == (1, 2, "lines")


def test_context_has_imports_headers_and_diagnostics():
    """Module imports (not function-local ones), the class header and in-region diagnostics."""
    doc = _doc()
    at = _offset(doc, '"hello "')
    ctx = build_edit_context(
        doc, at, at, path="app.py", max_region_lines=300,
        diagnostics=[DiagnosticInfo(line=12, message="bad thing", source="lint")],
    )
    assert ctx.imports == []  # the method uses none of them
    assert ctx.headers == ["class Greeter:"]
    assert [d.message for d in ctx.diagnostics] == ["bad thing"]
    assert ctx.cursor == at - ctx.region.start


def test_prompt_marks_the_region_and_ends_with_the_instruction():
    """The region sits between marker lines, the cursor is marked, the instruction is last."""
    doc = _doc()
    at = _offset(doc, '"hello "')
    ctx = build_edit_context(doc, at, at, path="app.py", max_region_lines=300)
    prompt = seal(render_edit_prompt(ctx, "Use an f-string."))
    lines = prompt.input.splitlines()
    start, end = lines.index(REGION_START), lines.index(REGION_END)
    region = "\n".join(lines[start + 1 : end])
    assert region.replace(CURSOR, "") == ctx.region_text.rstrip("\n")
    assert region.count(CURSOR) == 1
    assert prompt.input.rstrip().endswith("Instruction: Use an f-string.")
    assert prompt.input.index("File: app.py") < prompt.input.index("class Greeter:") < prompt.input.index(REGION_START)
    assert "REPLACE" not in prompt.instructions  # the emulator's directives stay the user's


def test_the_instructions_are_one_fixed_text_that_states_every_rule_of_the_protocol():
    """Every request starts with the same instructions (the provider caches that prefix),
    and they name each rule the reply is read by: the markers, the cursor, one fenced
    block of the whole region, unchanged lines kept."""
    doc = _doc()
    first = seal(render_edit_prompt(build_edit_context(doc, 0, 0, path="app.py", max_region_lines=300), "a"))
    at = _offset(doc, '"hello "')
    second = seal(render_edit_prompt(build_edit_context(doc, at, at, path="b/app.py", max_region_lines=300), "b"))
    assert first.instructions == second.instructions
    for rule in (REGION_START, REGION_END, CURSOR, "complete new text", "one fenced code block", "unchanged lines"):
        assert rule in first.instructions, rule
    assert estimate_tokens(first.instructions) <= 80  # it was 130: issue 16's "as short as it can be"


def test_secrets_in_imports_and_headers_are_redacted():
    """Snippets around the region carry no secrets; the region itself is left to the engine."""
    key = "sk-" + "proj-" + "Z9y8X7w6V5u4T3s2R1q0P9o8"
    text = f'import os  # {key}\n\n\nclass Box:  # token {key}\n    def f(self):\n        return 1\n'
    doc = DocumentStore().open("file:///w/box.py", text, 1)
    at = text.index("return")
    ctx = build_edit_context(doc, at, at, path="box.py", max_region_lines=300)
    sent = seal(render_edit_prompt(ctx, "x")).input
    assert ctx.headers and key not in sent
    assert "class Box:  # token [REDACTED]" in sent


def test_only_the_imports_the_region_uses():
    """Imports binding a name the region mentions are kept; the rest are not sent."""
    text = "import os\nimport sys\nfrom typing import Any, List\n\n\ndef f(p: Any):\n    return os.path.join(p)\n"
    doc = DocumentStore().open("file:///w/f.py", text, 1)
    at = text.index("return")
    ctx = build_edit_context(doc, at, at, path="f.py", max_region_lines=300)
    assert ctx.imports == ["import os", "from typing import Any, List"]
    assert [(s.start_line, s.kind) for s in ctx.snippets] == [(0, "import"), (2, "import")]


def test_snippets_fit_the_budget():
    """With a tiny budget the enclosing header is kept first and imports are dropped."""
    doc = _doc("import os\n\n\nclass A:\n    def f(self):\n        return os.sep\n")
    at = doc.text.index("return")
    ctx = build_edit_context(doc, at, at, path="a.py", max_region_lines=300, budget_tokens=3)
    assert ctx.headers == ["class A:"] and ctx.imports == []


def test_region_below_an_unclosed_bracket_is_still_the_function():
    """`x = (` typed at the top swallows the functions below into one broken statement;
    the cursor's region is still its own function, found in that piece parsed apart."""
    body = "".join(f"def f{i}(a, b):\n    '''Doc.'''\n    return a + b * {i}\n\n\n" for i in range(12))
    doc = _doc("x = (\n" + body)
    at = _offset(doc, "return a + b * 7")
    region = find_region(doc, at, at, max_lines=300)
    assert (region.start_line, region.end_line, region.kind) == (36, 38, "definition")
    assert doc.lines.line_text(region.start_line) == "def f7(a, b):"
