"""The scripted model's rewrites the README and the editor pages promise on a first try:
"return None on empty input", "add retries with backoff", "Spark: Simplify", "shorter"
(an edit or a refine), a completion at the cursor with no directive, and a multi-file
task said in plain words; each through the request text sparkls sends."""

from __future__ import annotations

import pytest

from sparkls.completion.service import COMPLETION_INSTRUCTION
from sparkls.context.builder import EditContext
from sparkls.context.prompt import render_edit_prompt
from sparkls.context.region import Region
from sparkls.emulator import deep, followup
from sparkls.emulator.model import answer, responses_request_text
from sparkls.emulator.phrasings import not_understood
from sparkls.lsp.handlers.code_actions import REWRITE_PRESETS
from tests.sealing import seal
from tests.unit.test_emulator_phrasings import conversation, edited, request

TOTAL = "def total(items):\n    result = sum(items)\n    return result\n"
PARSE = 'def parse(line):\n    key, _, value = line.partition("=")\n    return key.strip(), value.strip()\n'
PRESETS = dict(REWRITE_PRESETS)


def test_return_none_on_empty_input():
    """The README's example instruction guards the function's first parameter."""
    assert edited(TOTAL, "return None on empty input") == TOTAL.replace(
        "):\n", "):\n    if not items:\n        return None\n", 1)


def test_return_none_instead_of_raising_on_an_empty_line():
    """helix.md's comment instruction: a line is empty when it holds only whitespace."""
    assert edited(PARSE, "return None instead of raising on an empty line") == PARSE.replace(
        "):\n", "):\n    if not line.strip():\n        return None\n", 1)


def test_add_retries_with_backoff():
    """The README's comment instruction: the body tried three times, waiting longer each time."""
    new = edited(TOTAL, "add retries with backoff")
    assert new == (
        "def total(items):\n    import time\n\n    for attempt in range(3):\n        try:\n"
        "            result = sum(items)\n            return result\n        except Exception:\n"
        "            if attempt == 2:\n                raise\n            time.sleep(2 ** attempt)\n"
    )
    compile(new, "total.py", "exec")


def test_the_simplify_action():
    """"Spark: Simplify" (its preset instruction): a boolean if/else becomes the condition."""
    region = "def is_empty(xs):\n    if len(xs) == 0:\n        return True\n    else:\n        return False\n"
    assert edited(region, PRESETS["Spark: Simplify"]) == "def is_empty(xs):\n    return not xs\n"


def test_simplify_with_nothing_to_simplify_answers_the_code_as_it_was():
    """As a model does, the region comes back unchanged: sparkls says no change was proposed."""
    assert edited(TOTAL.replace("result = sum(items)\n    return result", "return sum(items)"), "simplify") == (
        "def total(items):\n    return sum(items)\n")


def test_shorter_refines_the_last_answer():
    """"return None on empty input", then "shorter" as a refine: `return None` becomes `return`,
    `x = …; return x` becomes `return …`."""
    first = request(TOTAL, "return None on empty input")
    body = conversation(first, answer(first), "shorter")
    earlier, latest = followup.split_conversation(body)
    assert followup.continue_answer(earlier, latest) == (
        "```\ndef total(items):\n    if not items:\n        return\n    return sum(items)\n```")


def test_shorter_and_keep_the_old_name_together():
    """helix.md's refine comment: both at once."""
    first = request(TOTAL, "rename items to xs")
    body = conversation(first, answer(first), "shorter, and keep the old name")
    earlier, latest = followup.split_conversation(body)
    reply = followup.continue_answer(earlier, latest, origin=followup.origin_region(body))
    assert reply == "```\ndef total(items):\n    return sum(items)\n```"


def test_a_python_rewrite_in_another_language_says_so():
    """"shorter" on TypeScript: the emulator says it does not understand, never pretends."""
    region = "function f(x: number) {\n  return x;\n}\n"
    assert answer(request(region, "shorter", path="f.ts")) == not_understood("shorter")


# -- completion at the cursor, no directive ------------------------------------------


def completion_request(text: str, cursor: int) -> str:
    """sparkls's inline-completion request for `text` with the cursor at `cursor`: the
    cursor's line editable, the rest of the function shown around it."""
    line_start = text.rfind("\n", 0, cursor) + 1
    line_end = text.find("\n", cursor) + 1 or len(text)
    line = text.count("\n", 0, line_start)
    ctx = EditContext(
        path="shapes.py", language_id="python", region=Region(line, line, line_start, line_end, "lines"),
        region_text=text[line_start:line_end], cursor=cursor - line_start,
        before=text[:line_start], after=text[line_end:],
    )
    prompt = seal(render_edit_prompt(ctx, COMPLETION_INSTRUCTION))
    return responses_request_text({"instructions": prompt.instructions, "input": prompt.input})


@pytest.mark.parametrize(("text", "typed", "line"), [
    ("def add(total, count):\n    return tot", "tot", "    return total\n"),
    ("class C:\n    def __init__(self):\n        self.count = 0\n\n    def up(self):\n        self.", "self.", "        self.count\n"),
    ("def area(radius, scale=1.0):\n    pass\n\n\nprint(area(", "area(", "print(area(radius, scale)\n"),
    ("def total(items):\n    result = sum(items)\n    return ", "return ", "    return result\n"),
])
def test_completion_from_the_code_around_the_cursor(text, typed, line):
    """A word being typed, `self.`, a call's bracket, `return `: completed from the code shown."""
    reply = answer(completion_request(text + "\n", len(text)))
    assert reply == f"```\n{line}```", (typed, reply)


def test_a_complete_comment_does_not_act_on_a_later_edit():
    """A `# COMPLETE` line left in the file completes the line after it, and nothing else:
    an edit of the function that shows it inserts nothing."""
    region = 'def add(a, b):\n    # COMPLETE "a + b"\n    return a - b\n'
    assert edited(region, "rename a to x") == region.replace("(a, b)", "(x, b)").replace("return a", "return x")
    text = region.replace("return a - b\n", "return ")
    assert answer(completion_request(text + "\n", len(text))) == "```\n    return a + b\n```"


# -- a multi-file task in plain words -----------------------------------------------------


def deep_request(task: str) -> str:
    return (
        "Carry out the task with SEARCH/REPLACE blocks:\n<<<<<<< SEARCH\n\n"
        "shapes.py\n```python\ndef area(r):\n    \"\"\"The area of r.\"\"\"\n    return 3.14 * r * r\n```\n\n"
        "report.py\n```python\nfrom shapes import area\n\nprint(\"area:\", area(2))  # area\n```\n\n"
        f"Task: {task}\n"
    )


def test_a_task_in_plain_words_renames_in_every_file():
    """"rename the function area to surface everywhere": every use in code, no string's or comment's words."""
    reply = deep.answer(deep_request("rename the function area to surface everywhere"))
    assert reply.count("<<<<<<< SEARCH") == 3
    assert "def surface(r):" in reply and "from shapes import surface" in reply
    assert 'print("area:", surface(2))  # area' in reply


def test_a_task_it_cannot_follow_says_so():
    reply = deep.answer(deep_request("make everything faster"))
    assert reply == not_understood("make everything faster")
