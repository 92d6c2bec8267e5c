"""`spark:` comments: found in each language's comment syntax, tied to their code, stripped."""

from __future__ import annotations

import pytest

from sparkls.context.region import find_region
from sparkls.documents.store import DocumentStore
from sparkls.edits.instruction import (
    find_instructions,
    instructions_at,
    model_instruction,
    parse_instruction,
    strip_comment,
)

MAX = 300


def open_doc(name: str, text: str):
    return DocumentStore().open(f"file:///w/{name}", text, 1)


def region_lines(doc, item):
    """The lines the engine would edit for this comment (same region logic)."""
    region = find_region(doc, *item.target, max_lines=MAX)
    return region.start_line, region.end_line


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# spark: add retries with backoff", "add retries with backoff"),
        ("#spark:add retries", "add retries"),
        ("// Spark: rename x", "rename x"),
        ("/// spark: document it", "document it"),
        ("//! spark: crate docs", "crate docs"),
        ("/* spark: one\n * two */", "one two"),
        ("/** spark: jsdoc style */", "jsdoc style"),
        ("# note: spark: not at the start", None),
        ("# spark:", None),
        ("// ordinary comment", None),
    ],
)
def test_parse_instruction(comment, expected):
    """Only comments that start with `spark:` are instructions; delimiters are dropped."""
    assert parse_instruction(comment) == expected


PYTHON = '''import math


def parse(line):
    # spark: return None instead of raising on an empty line
    key, _, value = line.partition("=")
    return key.strip(), value.strip()


# spark: add a docstring
@cache
def area(radius):
    return math.pi * radius ** 2


def label(name):
    return "😀 名前: " + name  # spark: use an f-string
'''


def test_python_comment_inside_a_function_belongs_to_it():
    """A comment over a statement edits the function around it, comment included."""
    doc = open_doc("a.py", PYTHON)
    first = find_instructions(doc, max_lines=MAX)[0]
    assert first.instruction == "return None instead of raising on an empty line"
    assert first.text == "# spark: return None instead of raising on an empty line"
    assert first.line == 4
    assert region_lines(doc, first) == (3, 6)


def test_python_comment_before_a_decorated_definition_takes_it():
    """A comment above a definition edits that definition, decorators and all."""
    doc = open_doc("a.py", PYTHON)
    second = find_instructions(doc, max_lines=MAX)[1]
    assert second.instruction == "add a docstring" and second.line == 9
    assert region_lines(doc, second) == (9, 12)


def test_python_trailing_comment_belongs_to_its_line():
    """`code  # spark: ...` edits the code of that line (its function), after an emoji."""
    doc = open_doc("a.py", PYTHON)
    third = find_instructions(doc, max_lines=MAX)[2]
    assert third.instruction == "use an f-string"
    assert doc.text[third.start : third.end] == "# spark: use an f-string"
    assert region_lines(doc, third) == (15, 16)


def test_python_strings_are_not_comments():
    """`spark:` inside a string is not an instruction."""
    doc = open_doc("s.py", 'x = "# spark: not me"\n')
    assert find_instructions(doc, max_lines=MAX) == []


def test_comment_at_the_end_of_a_block_belongs_to_the_block():
    """A comment after the last statement of a body, before a dedent, edits that body."""
    text = "def f():\n    x = 1\n    # spark: return x\n\n\ndef g():\n    pass\n"
    doc = open_doc("b.py", text)
    (item,) = find_instructions(doc, max_lines=MAX)
    assert region_lines(doc, item) == (0, 2)


def test_python_method_comment_in_a_class():
    """A comment over a method (tree-sitter files it under the previous method) edits code
    holding both the comment and the method."""
    text = "class C:\n    def a(self):\n        return 1\n\n    # spark: cache it\n    def b(self):\n        return 2\n"
    doc = open_doc("c.py", text)
    (item,) = find_instructions(doc, max_lines=MAX)
    first, last = region_lines(doc, item)
    assert first <= 4 and last == 6


TYPESCRIPT = """import { fetch } from "./net";

// spark: retry three times
export async function load(url: string): Promise<string> {
  return fetch(url);
}

function greet(name: string) {
  return "Hello, " + name; // spark: use a template string
}
"""


def test_typescript_line_comments():
    """`//` comments: above an exported function, and at the end of a line."""
    doc = open_doc("a.ts", TYPESCRIPT)
    above, trailing = find_instructions(doc, max_lines=MAX)
    assert above.instruction == "retry three times" and region_lines(doc, above) == (2, 5)
    assert trailing.instruction == "use a template string" and region_lines(doc, trailing) == (7, 9)


def test_javascript_block_comment():
    """A `/* */` comment over several lines is one instruction."""
    text = "/* spark: validate the input\n * and throw a TypeError */\nfunction f(x) {\n  return x * 2;\n}\n"
    doc = open_doc("a.js", text)
    (item,) = find_instructions(doc, max_lines=MAX)
    assert item.instruction == "validate the input and throw a TypeError"
    assert region_lines(doc, item) == (0, 4)


def test_go_comment_before_a_function():
    """Go `//` comments take the function that follows."""
    text = "package main\n\n// spark: return an error too\nfunc f() int {\n\treturn 1\n}\n"
    doc = open_doc("a.go", text)
    (item,) = find_instructions(doc, max_lines=MAX)
    assert item.instruction == "return an error too" and region_lines(doc, item) == (2, 5)


def test_rust_comment_before_attributes_takes_the_item():
    """Rust: a comment above `#[...]` attributes edits the item they belong to."""
    text = "// spark: make it generic\n#[inline]\nfn double(x: i32) -> i32 {\n    x * 2\n}\n\n/// spark: doc comments count too\nfn g() {}\n"
    doc = open_doc("a.rs", text)
    first, second = find_instructions(doc, max_lines=MAX)
    assert first.instruction == "make it generic" and region_lines(doc, first) == (0, 4)
    assert second.instruction == "doc comments count too" and region_lines(doc, second) == (6, 7)


def test_instructions_offered_on_the_comment_and_in_its_code():
    """Offered with the cursor on the comment or in the code after it; not elsewhere."""
    doc = open_doc("a.py", PYTHON)
    lines = doc.lines

    def at(line, column=0):
        offset = lines.starts[line] + column
        return [i.instruction for i in instructions_at(doc, offset, offset, max_lines=MAX)]

    assert at(4, 10) == ["return None instead of raising on an empty line"]
    assert at(6, 8) == ["return None instead of raising on an empty line"]
    assert at(12, 4) == ["add a docstring"]
    assert at(0) == []


def test_no_tree_no_instructions():
    """Plain text has no comments to read."""
    doc = open_doc("notes.txt", "# spark: do something\n")
    assert find_instructions(doc, max_lines=MAX) == []


def test_model_instruction_names_the_comment():
    doc = open_doc("a.go", "package main\n\n// spark: return an error too\nfunc f() {}\n")
    (item,) = find_instructions(doc, max_lines=MAX)
    assert model_instruction(item).endswith("\n// spark: return an error too")
    assert "delete the comment" in model_instruction(item)


@pytest.mark.parametrize(
    ("new_text", "expected"),
    [
        # kept as written, on its own line: the line goes
        ("def f():\n    # spark: do it\n    return 2\n", "def f():\n    return 2\n"),
        # already removed by the model: unchanged
        ("def f():\n    return 2\n", "def f():\n    return 2\n"),
        # re-indented and slightly re-spaced by the model: still found
        ("def f():\n        #   spark:   do   it\n    return 2\n", "def f():\n    return 2\n"),
        # moved to the end of a line of code
        ("def f():\n    return 2  # spark: do it\n", "def f():\n    return 2\n"),
        # other comments stay
        ("def f():\n    # keep me\n    # spark: do it\n    return 2\n", "def f():\n    # keep me\n    return 2\n"),
    ],
)
def test_strip_comment(new_text, expected):
    """The comment goes whatever the model did with it; nothing else does."""
    doc = open_doc("a.py", "def f():\n    # spark: do it\n    return 1\n")
    (item,) = find_instructions(doc, max_lines=MAX)
    assert strip_comment(new_text, item) == expected


def test_strip_block_comment_before_code():
    """A leading `/* spark: ... */` goes with the space after it."""
    doc = open_doc("a.ts", "function f() {\n  /* spark: x */ return 1;\n}\n")
    (item,) = find_instructions(doc, max_lines=MAX)
    assert strip_comment("function f() {\n  /* spark: x */ return 2;\n}\n", item) == "function f() {\n  return 2;\n}\n"


def _outcome(doc, new_text):
    """An engine outcome that rewrites lines 0-2 of `doc` into `new_text`."""
    from sparkls.edits.diff import diff_replacements
    from sparkls.edits.tail import EditOutcome, PositionedEdit

    old = doc.text[: doc.lines.starts[3]]
    edits = [PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in diff_replacements(old, new_text)]
    return EditOutcome(doc.uri, doc.version, edits, "fast", "m", "websocket", 1, (0, 2), {})


def _applied(doc, outcome):
    text = doc.text
    for e in sorted(outcome.edits, key=lambda e: (e.start.line, e.start.character), reverse=True):
        text = text[: doc.offset(e.start)] + e.text + text[doc.offset(e.end) :]
    return text


@pytest.mark.parametrize(
    "reply",
    [
        "def f():\n    # spark: return two\n    return 2\n",  # the model kept the comment
        "def f():\n    return 2\n",  # the model removed it
    ],
)
def test_finish_outcome_always_removes_the_comment(reply):
    """Whatever the model did with the comment, the final edit removes it; code changes stay."""
    from sparkls.edits.instruction import finish_outcome

    doc = open_doc("f.py", "def f():\n    # spark: return two\n    return 1\n\n\nx = 1\n")
    (item,) = find_instructions(doc, max_lines=MAX)
    done = finish_outcome(doc, _outcome(doc, reply), item)
    assert _applied(doc, done) == "def f():\n    return 2\n\n\nx = 1\n"



def test_finish_outcome_with_changes_in_several_places():
    """A rewrite that changes two separate places (and keeps the comment) is finished
    whole: both changes land, the comment goes (it once crashed ordering the edits)."""
    from sparkls.edits.instruction import finish_outcome

    doc = open_doc("g.py", "def g(a):\n    # spark: rename a to b\n    return a\n\n\nx = 1\n")
    (item,) = find_instructions(doc, max_lines=MAX)
    outcome = _outcome(doc, "def g(b):\n    # spark: rename a to b\n    return b\n")
    assert len(outcome.edits) >= 2
    done = finish_outcome(doc, outcome, item)
    assert _applied(doc, done) == "def g(b):\n    return b\n\n\nx = 1\n"
