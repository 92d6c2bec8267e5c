"""The scripted model follows plain words and quick fixes on real linters' messages,
and says in one line what it follows when it cannot.

Requests are rendered by sparkls's own fast-tier prompt (and refine turn), so each rule
is tested against the text sparkls sends: instruction in, edited region out.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
import httpx

from sparkls.context.builder import DiagnosticInfo, EditContext
from sparkls.context.prompt import render_edit_prompt
from sparkls.context.region import Region
from sparkls.emulator import Emulator, followup
from sparkls.emulator.model import answer, responses_request_text
from sparkls.emulator.phrasings import NOT_UNDERSTOOD_START, not_understood, read, user_words
from sparkls.refine.prompt import ANSWER_AGAIN, REVISE
from tests.sdk_conformance import check_sse_event, check_ws_event, parse_sse, response_invariants, ws_events
from tests.sealing import seal

AREA = "def area(radius, scale=1.0):\n    return 3.14 * radius ** 2 * scale\n"


def request(region: str, instruction: str, *, path: str = "shapes.py", diagnostics=(), cursor: int | None = None) -> str:
    """The request text sparkls sends for `instruction` on `region` (a whole file),
    with `diagnostics` as (message, source, code) listed."""
    language = {"py": "python", "ts": "typescript", "js": "javascript"}[path.rsplit(".", 1)[1]]
    ctx = EditContext(
        path=path, language_id=language, region=Region(0, region.count("\n") - 1, 0, len(region), "definition"),
        region_text=region, cursor=cursor,
        diagnostics=[DiagnosticInfo(line=1, message=m, source=s, code=c) for m, s, c in diagnostics],
    )
    prompt = seal(render_edit_prompt(ctx, instruction))
    return responses_request_text({"instructions": prompt.instructions, "input": prompt.input})


def edited(region: str, instruction: str, **kwargs) -> str:
    """The region the emulator answers (its fenced block's text, with a final newline)."""
    reply = answer(request(region, instruction, **kwargs))
    assert reply.startswith("```\n") and reply.endswith("\n```"), reply
    return reply[4:-3]


def fix(region: str, message: str, source: str, code: str) -> str:
    """The region after "Fix with Spark" on one diagnostic."""
    return edited(region, f"Fix this problem: {message}", diagnostics=[(message, source, code)])


# -- plain words ----------------------------------------------------------------------


@pytest.mark.parametrize("words", [
    "rename radius to r", "Rename radius as r", "rename `radius` to `r`", 'rename "radius" to "r".',
    "RENAME THE PARAMETER radius TO r", "change the name of radius to r", "replace radius with r",
])
def test_rename_phrasings(words):
    """Every common phrasing of a rename renames the whole identifier everywhere in the region."""
    assert edited(AREA, words) == AREA.replace("radius", "r")


def test_rename_keeps_longer_identifiers():
    """Only the whole identifier changes: radius_squared stays."""
    region = "def f(radius):\n    radius_squared = radius * radius\n    return radius_squared\n"
    assert edited(region, "rename radius to r") == region.replace("radius *", "r *").replace("* radius", "* r").replace("f(radius)", "f(r)")


def test_call_it_renames_the_region_s_one_definition():
    """"call it b" renames the one function the region defines."""
    assert edited(AREA, "call it circle_area") == AREA.replace("def area", "def circle_area")


def test_call_it_renames_the_name_at_the_cursor():
    """With the cursor on a name, "call it b" renames that name."""
    region = "def f(radius):\n    return radius * 2\n"
    assert edited(region, "call it r", cursor=region.index("radius *") + 2) == "def f(r):\n    return r * 2\n"


def test_call_it_with_no_clear_name_is_not_understood():
    """Two functions and no cursor: "it" names nothing, and the answer says what works."""
    region = "def a():\n    pass\n\n\ndef b():\n    pass\n"
    assert answer(request(region, "call it c")) == not_understood("call it c")


@pytest.mark.parametrize("words", ["add a docstring", "Add a concise docstring to the selected code. Change nothing else.", "document this function", "write a docstring"])
def test_docstring_phrasings(words):
    """A one-line docstring made from the function's name goes under its header."""
    assert edited(AREA, words) == AREA.replace("):\n", '):\n    """Area."""\n', 1)


def test_docstring_is_not_added_twice():
    """A function that has a docstring keeps it, and gets no second one."""
    region = 'def circle_area(r):\n    """Area of a circle."""\n    return r\n'
    assert edited(region, "add a docstring") == region


def test_docstring_in_typescript_is_a_doc_comment():
    """In TypeScript the docstring is a /** */ comment above the function."""
    region = "export function circleArea(r: number): number {\n  return r * r;\n}\n"
    assert edited(region, "add a docstring", path="shapes.ts") == "/** Circle area. */\n" + region


@pytest.mark.parametrize("words", ["add type hints", "Add type hints to the selected code's signatures and variables where they help.", "add type annotations", "annotate the types"])
def test_type_hint_phrasings(words):
    """Parameters are annotated from their defaults and names, the return from its value."""
    assert edited(AREA, words) == "def area(radius: float, scale: float = 1.0) -> float:\n    return 3.14 * radius ** 2 * scale\n"


def test_type_hints_none_return_and_unknown_names():
    """A function that returns nothing gets -> None; a name the rules do not know stays bare."""
    region = "def log(message, thing, verbose=False):\n    print(message, thing)\n"
    assert edited(region, "add type hints") == "def log(message: str, thing, verbose: bool = False) -> None:\n    print(message, thing)\n"


@pytest.mark.parametrize("words", ["make it async", "Make this function async", "convert it to async", "make area asynchronous"])
def test_async_phrasings(words):
    """The region's function becomes async."""
    assert edited(AREA, words) == "async " + AREA


def test_async_in_javascript():
    """function f() becomes async function f(); an arrow function gets async before it."""
    assert edited("function load(url) {\n  return fetch(url);\n}\n", "make it async", path="shapes.js") == (
        "async function load(url) {\n  return fetch(url);\n}\n"
    )
    assert edited("const load = (url) => fetch(url);\n", "make it async", path="shapes.js") == (
        "const load = async (url) => fetch(url);\n"
    )


def test_remove_unused_imports_from_what_the_request_shows():
    """Without diagnostics, an import no code shown uses goes; a used one stays."""
    region = "def f(p):\n    import os\n    import json\n    return os.path.join(p)\n"
    assert edited(region, "remove unused imports") == "def f(p):\n    import os\n    return os.path.join(p)\n"


def test_remove_unused_imports_keeps_all_when_no_code_is_shown():
    """A region of imports alone (the rest of the file unseen): nothing is known unused, nothing goes."""
    region = "import os\nimport json\n"
    assert edited(region, "remove the unused imports") == region


def test_remove_unused_imports_from_the_diagnostics():
    """With ruff's F401 listed, exactly the imports it names go (one name of a from-import)."""
    region = "import os\nfrom typing import Any, List\n"
    diagnostics = [("`os` imported but unused", "Ruff", "F401"), ("`typing.List` imported but unused", "Ruff", "F401")]
    assert edited(region, "remove unused imports", diagnostics=diagnostics) == "from typing import Any\n"


@pytest.mark.parametrize("words", ["delete the unused variable", "remove unused variables", "get rid of the unused variable"])
def test_delete_unused_variable_phrasings(words):
    """An assignment to a name the function never reads goes; a call on its right side stays."""
    region = "def f(a):\n    total = a * 2\n    result = compute(a)\n    return a\n"
    assert edited(region, words) == "def f(a):\n    compute(a)\n    return a\n"


def test_comment_instruction_line_is_left_for_sparkls_to_remove():
    """A `spark:` comment is followed; the comment's own words are not renamed (sparkls deletes it)."""
    region = "def area(radius):\n    # spark: rename radius to r\n    return radius ** 2\n"
    words = (
        "The comment below, in the editable region, is an instruction from the user. Apply it to the code the "
        "comment belongs to, then delete the comment. Keep every other comment and change nothing else.\n"
        "# spark: rename radius to r"
    )
    assert edited(region, words) == "def area(r):\n    # spark: rename radius to r\n    return r ** 2\n"


def test_directives_still_win():
    """With a REPLACE directive in the words, only the directive applies."""
    assert edited(AREA, "add a docstring REPLACE radius WITH r") == AREA.replace("radius", "r")


def test_emulate_alone_is_not_an_instruction():
    """`EMULATE prose` alone asks for a reply shape, not a change: the region comes back."""
    reply = answer(request(AREA, "EMULATE prose"))
    assert "```\n" + AREA + "```" in reply and NOT_UNDERSTOOD_START not in reply


# -- what it cannot do -----------------------------------------------------------------


@pytest.mark.parametrize("words", ["make it faster", "port this to Rust", "translate the comments"])
def test_words_it_cannot_follow_get_one_line_saying_what_it_follows(words):
    """The answer is one line, as a scripted stand-in says it: the words it does not
    understand, what it follows, with examples, and where that is documented."""
    reply = answer(request(AREA, words))
    assert reply == not_understood(words)
    assert reply.startswith(f'The sparkls emulator does not understand "{words}"; it follows: `rename old to new`')
    assert reply.endswith("(docs/emulator.md).") and "\n" not in reply and "model" not in reply
    assert "\n" not in reply and "`rename old to new`" in reply and "docs/emulator.md" in reply


def test_without_user_words_it_answers_as_before():
    """A request with no Instruction: label (a raw test request) gets the region back, as always."""
    text = "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nsomething"
    assert answer(text) == "```\nx = 1\n```"


def test_user_words_are_the_last_labelled_ones():
    """The words come from the label, without directives; none without a label."""
    assert user_words("File: a.py\n\nInstruction: rename a to b EMULATE diff") == "rename a to b"
    assert user_words("rename a to b") is None
    assert read("Rename `a` as `b`").renames == (("a", "b"),)


# -- quick fixes on real linters' messages -------------------------------------------


def test_ruff_f401_removes_the_import_line():
    """ruff F401 "`os` imported but unused": the import line goes."""
    assert fix("import os\nimport sys\n\nprint(sys.argv)\n", "`os` imported but unused", "Ruff", "F401") == (
        "import sys\n\nprint(sys.argv)\n"
    )


def test_ruff_f401_with_its_hint_and_a_from_import():
    """ruff's longer message (with its hint) on one name of a from-import removes that name."""
    message = "`typing.List` imported but unused; consider removing, adding to `__all__`, or using a redundant alias"
    assert fix("from typing import Dict, List\n", message, "Ruff", "F401") == "from typing import Dict\n"


def test_pyright_import_not_accessed():
    """basedpyright's 'Import "json" is not accessed' removes the import too."""
    assert fix("import json\nimport os\n", 'Import "json" is not accessed', "basedpyright", "reportUnusedImport") == "import os\n"


def test_ruff_f841_removes_the_assignment():
    """ruff F841: the assignment goes; an assigned call keeps its call."""
    region = "def f(a):\n    x = a + 1\n    return a\n"
    assert fix(region, "Local variable `x` is assigned to but never used", "Ruff", "F841") == "def f(a):\n    return a\n"
    region = "def f(a):\n    x = save(a)\n    return a\n"
    assert fix(region, "Local variable `x` is assigned to but never used", "Ruff", "F841") == "def f(a):\n    save(a)\n    return a\n"


def test_ruff_f841_on_an_except_name():
    """F841 on `except E as e`: the `as e` goes."""
    region = "def f():\n    try:\n        g()\n    except ValueError as e:\n        pass\n"
    assert fix(region, "Local variable `e` is assigned to but never used", "Ruff", "F841") == region.replace(" as e", "")


def test_ruff_e711_compares_with_is():
    """ruff E711: `== None` becomes `is None`, `!= None` becomes `is not None`."""
    region = "def f(a):\n    if a == None:\n        return 0\n    return a != None\n"
    assert fix(region, "Comparison to `None` should be `cond is None`", "Ruff", "E711") == (
        "def f(a):\n    if a is None:\n        return 0\n    return a is not None\n"
    )


def test_ruff_e712_drops_the_comparison_to_true():
    """ruff E712: `x == True` becomes `x`, `x == False` becomes `not x`."""
    region = "def f(a, b):\n    return a == True and b == False\n"
    message = "Avoid equality comparisons to `True`; use `a:` for truth checks"
    assert fix(region, message, "Ruff", "E712") == "def f(a, b):\n    return a and not b\n"


def test_ruff_e722_and_f541():
    """ruff E722: a bare except catches Exception; F541: an f-string without placeholders loses its f."""
    region = "def f():\n    try:\n        g()\n    except:\n        return f\"failed\"\n"
    assert fix(region, "Do not use bare `except`", "Ruff", "E722") == region.replace("except:", "except Exception:")
    assert fix(region, "f-string without any placeholders", "Ruff", "F541") == region.replace('f"failed"', '"failed"')


def test_pyright_undefined_misspelt_name():
    """pyright '"raduis" is not defined': the name becomes the close one the request shows."""
    region = "def area(radius):\n    return 3.14 * raduis ** 2\n"
    assert fix(region, '"raduis" is not defined', "Pyright", "reportUndefinedVariable") == region.replace("raduis", "radius")


def test_pyright_undefined_module_is_imported():
    """pyright '"os" is not defined' (a standard-library module): imported at the top of the function."""
    region = "def join(p):\n    return os.path.join(p, 'x')\n"
    assert fix(region, '"os" is not defined', "Pyright", "reportUndefinedVariable") == (
        "def join(p):\n    import os\n    return os.path.join(p, 'x')\n"
    )


def test_pyright_optional_member_access_gets_an_assert():
    """reportOptionalMemberAccess: `assert m is not None` before the line that reads m.group."""
    region = "def first(s):\n    m = re.match('a', s)\n    return m.group(0)\n"
    assert fix(region, '"group" is not a known attribute of "None"', "Pyright", "reportOptionalMemberAccess") == (
        "def first(s):\n    m = re.match('a', s)\n    assert m is not None\n    return m.group(0)\n"
    )


def test_pyright_unresolved_import_is_answered_in_words():
    """'Import "requests" could not be resolved' is no code problem: the answer says what to do."""
    message = 'Import "requests" could not be resolved'
    reply = answer(request("import requests\n", f"Fix this problem: {message}", diagnostics=[(message, "Pyright", "reportMissingImports")]))
    assert "pip install requests" in reply and "```" not in reply


def test_pyright_unresolved_import_misspelt_is_fixed():
    """An unresolved import one letter off a standard-library module is that module."""
    message = 'Import "jsonn" could not be resolved'
    assert fix("import jsonn\n", message, "Pyright", "reportMissingImports") == "import json\n"


def test_unknown_diagnostic_is_not_understood():
    """A diagnostic no rule knows gets the one line saying what the emulator follows."""
    message = "Line too long (120 > 88)"
    reply = answer(request(AREA, f"Fix this problem: {message}", diagnostics=[(message, "Ruff", "E501")]))
    assert reply.startswith(f'The sparkls emulator does not understand the diagnostic "{message}"; it follows:')


# -- refines ------------------------------------------------------------------------


def conversation(first: str, earlier_answer: str, words: str) -> dict:
    """A refine resent in full: the first request, the answer, and the refine turn."""
    return {"input": [
        {"role": "user", "content": first},
        {"role": "assistant", "content": earlier_answer},
        {"role": "user", "content": f"{REVISE}{words}\n\n{ANSWER_AGAIN}"},
    ]}


def test_refine_keep_the_old_name():
    """After "rename radius to r" and "add a docstring", "keep the old name" gives radius back."""
    first = request(AREA, "rename radius to r")
    body = conversation(first, answer(first), "add a docstring and keep the old name")
    earlier, latest = followup.split_conversation(body)
    reply = followup.continue_answer(earlier, latest, origin=followup.origin_region(body))
    assert reply == "```\n" + AREA.replace("):\n", '):\n    """Area."""\n', 1).removesuffix("\n") + "\n```"


def test_refine_keep_the_old_name_over_a_chain():
    """Continuing by previous_response_id, the emulator remembers the region the answer rewrote."""
    emulator = Emulator()
    first = {"input": request(AREA, "rename radius to r")}
    text, _ = emulator.answer_for(first, "fenced")
    emulator.remember_answer("resp_1", text)
    refine = {"previous_response_id": "resp_1", "input": f"{REVISE}keep the old name\n\n{ANSWER_AGAIN}"}
    assert emulator.answer_for(refine, "fenced")[0] == "```\n" + AREA.removesuffix("\n") + "\n```"


def test_refine_words_it_cannot_follow():
    """Words it cannot follow, as a refine, get the one line too."""
    first = request(AREA, "rename radius to r")
    body = conversation(first, answer(first), "make it faster")
    earlier, latest = followup.split_conversation(body)
    assert followup.continue_answer(earlier, latest) == not_understood("make it faster")


# -- on the wire ----------------------------------------------------------------------


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


@pytest.mark.parametrize("lane", [None, "edit-1"])
async def test_not_understood_is_a_wire_true_text_reply_over_websocket(emulator, lane):
    """The one line streams as an ordinary message, every event valid for the SDK (lanes too)."""
    body = {"model": "spark", "input": request(AREA, "make it faster"), **({"stream_id": lane} if lane else {})}
    events = await ws_events(emulator.ws_url, body)
    problems = [p for event in events for p in check_ws_event(event)] + response_invariants(events)
    assert problems == []
    done = [e for e in events if e["type"] == "response.output_text.done"]
    assert [e["text"] for e in done] == [not_understood("make it faster")]


async def test_not_understood_is_a_wire_true_text_reply_over_sse(emulator):
    """Over SSE the same line arrives, every event valid for the SDK."""
    import json

    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/responses", json={"model": "spark", "stream": True, "input": request(AREA, "make it faster")})
    events = [json.loads(data) for _, data in parse_sse(reply.text)[0]]
    assert [p for event in events for p in check_sse_event(event)] + response_invariants(events) == []
    assert [e["text"] for e in events if e["type"] == "response.output_text.done"] == [not_understood("make it faster")]


def test_a_fix_that_empties_the_region_answers_an_empty_block():
    """F401 on a lone `import os` (the region is that line): the answer is an empty
    block, which sparkls applies by deleting the line."""
    message = "`os` imported but unused"
    reply = answer(request("import os\n", f"Fix this problem: {message}", diagnostics=[(message, "Ruff", "F401")]))
    assert reply.strip("\n") == "```\n\n```"


def test_python_rules_stay_out_of_other_languages():
    """A Rust file gets no Python import fix: the words are not understood."""
    message = "`os` imported but unused"
    text = request("fn main() {}\n", f"Fix this problem: {message}", path="main.ts", diagnostics=[(message, "Ruff", "F401")])
    assert answer(text.replace("File: main.ts", "File: main.rs")).startswith(NOT_UNDERSTOOD_START)


def test_words_with_an_emulate_shape():
    """`rename radius to r EMULATE diff` renames, and answers in the diff shape."""
    from sparkls.emulator.control import Faults

    text = request(AREA, "rename radius to r EMULATE diff")
    reply = answer(text, reply=Faults().for_request(text).reply)
    assert reply.startswith("```diff") and "+def area(r, scale=1.0):" in reply


def test_docs_quote_the_line_word_for_word():
    """docs/emulator.md shows the not-understood line exactly as the emulator says it."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "emulator.md").read_text(encoding="utf-8")
    assert f"```\n{not_understood('make it faster')}\n```" in page


def test_inline_completion_request_is_answered_as_before():
    """sparkls's completion instruction is no user's words: without COMPLETE, the region comes back."""
    from sparkls.completion.service import COMPLETION_INSTRUCTION

    assert edited(AREA, COMPLETION_INSTRUCTION) == AREA
