"""The scripted fast tier takes a diagnostic's "Did you mean" suggestion in a quick fix.

Requests are rendered by sparkls's own fast-tier prompt, so the rule is tested against
the shape sparkls sends, not a hand-written imitation of it.
"""

from sparkls.context.builder import DiagnosticInfo, EditContext
from sparkls.context.prompt import render_edit_prompt
from sparkls.context.region import Region
from sparkls.emulator.model import answer, responses_request_text
from sparkls.emulator.phrasings import NOT_UNDERSTOOD_START
from sparkls.emulator.suggestions import Rename, suggested_renames
from tests.sealing import seal

AREA = "function area(radius: number): number {\n  return Math.PI * raduis ** 2;\n}\n"


def quick_fix(region: str, *messages: str, source: str | None = "ts", code: str | None = "2552") -> str:
    """The request text of "Fix with Spark" on the first message, as the emulator reads it."""
    lines = region.count("\n")
    ctx = EditContext(
        path="shapes.ts",
        language_id="typescript",
        region=Region(0, lines - 1, 0, len(region), "definition"),
        region_text=region,
        cursor=None,
        diagnostics=[DiagnosticInfo(line=1, message=m, source=source, code=code) for m in messages],
    )
    prompt = seal(render_edit_prompt(ctx, f"Fix this problem: {messages[0]}"))
    return responses_request_text({"instructions": prompt.instructions, "input": prompt.input})


def fenced(region: str) -> str:
    return f"```\n{region.removesuffix(chr(10))}\n```"


def test_cannot_find_name_takes_the_suggestion():
    """TypeScript's "Cannot find name 'raduis'. Did you mean 'radius'?" renames raduis."""
    text = quick_fix(AREA, "Cannot find name 'raduis'. Did you mean 'radius'?")
    assert answer(text) == fenced(AREA.replace("raduis", "radius"))


def test_property_variant_takes_the_suggestion_not_the_type():
    """The first quoted name is the property; the quoted type after it is left alone."""
    region = "function count(names: string[]): number {\n  return names.lenght;\n}\n"
    text = quick_fix(region, "Property 'lenght' does not exist on type 'string[]'. Did you mean 'length'?", code="2551")
    assert answer(text) == fenced(region.replace("lenght", "length"))


def test_name_inside_a_longer_identifier_is_not_renamed():
    """Only the whole identifier changes: raduisSquared and $raduis stay as they are."""
    region = "function area(radius: number): number {\n  const raduisSquared = raduis * $raduis;\n  return raduisSquared;\n}\n"
    text = quick_fix(region, "Cannot find name 'raduis'. Did you mean 'radius'?")
    expected = region.replace("= raduis *", "= radius *")
    assert answer(text) == fenced(expected)


def test_replace_directive_wins_over_the_suggestion():
    """With a REPLACE directive in the request, only the directive applies."""
    text = quick_fix(AREA, "Cannot find name 'raduis'. Did you mean 'radius'? REPLACE raduis WITH r")
    assert answer(text) == fenced(AREA.replace("raduis", "r"))


def test_message_without_suggestion_suggests_nothing():
    """pyright's '"raduis" is not defined' suggests nothing (the emulator's quick-fix
    rules, fixes.py, find the close name themselves)."""
    text = quick_fix(AREA, '"raduis" is not defined', source="Pyright", code="reportUndefinedVariable")
    assert suggested_renames(text) == ()
    assert answer(text) == fenced(AREA.replace("raduis", "radius"))


def test_double_quoted_suggestion_is_taken():
    """The double-quoted form ('Did you mean "X"?') counts too."""
    text = quick_fix(AREA, '"raduis" is not defined. Did you mean "radius"?', source="Pyright", code=None)
    assert answer(text) == fenced(AREA.replace("raduis", "radius"))


def test_suggestion_outside_a_diagnostics_block_is_ignored():
    """A suggestion only in the instruction (no Diagnostics: block) is not a diagnostic:
    nothing is renamed (the words are not understood, and the answer says so)."""
    text = (
        "<|editable_region_start|>\nx = raduis\n<|editable_region_end|>\n"
        "Instruction: Cannot find name 'raduis'. Did you mean 'radius'?"
    )
    assert suggested_renames(text) == ()
    assert answer(text).startswith(NOT_UNDERSTOOD_START)


def test_quoted_module_path_is_not_the_name():
    """In "Module '"./shapes"' has no exported member 'raduis'" the member is the name."""
    text = quick_fix(AREA, "Module '\"./shapes\"' has no exported member 'raduis'. Did you mean 'radius'?")
    assert suggested_renames(text) == (Rename("raduis", "radius"),)
