"""Edits answered with a patch, end to end: real sparkls process, real LSP, the emulator's
ideal model on loopback (it knows each edit's true result and answers in the shape asked).

A region longer than a patch is asked for as a patch: through the `apply_patch` tool on
the Responses API (WebSocket), as V4A text on Chat Completions; a patch that cannot be
applied is asked again once as the whole region; a refine chained on a tool-call edit
answers that call first (the emulator refuses the continuation otherwise, as the
service does).
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start

HEAD = "import math\n\n\n"
FUNCTION = '''def report(shapes, unit="cm"):
    """Print the area and the perimeter of every shape, one line each."""
    total_area = 0.0
    total_perimeter = 0.0
    for shape in shapes:
        area = math.pi * shape.radius ** 2
        perimeter = 2 * math.pi * shape.radius
        total_area += area
        total_perimeter += perimeter
        print(f"{shape.name}: area {area:.2f} {unit}2, perimeter {perimeter:.2f} {unit}")
    print(f"total area: {total_area:.2f} {unit}2")
    print(f"total perimeter: {total_perimeter:.2f} {unit}")
    return total_area, total_perimeter
'''
TAIL = "\n\ndef unit_name(unit):\n    return {'cm': 'centimetres', 'm': 'metres'}.get(unit, unit)\n"
SAMPLE = HEAD + FUNCTION + TAIL
FIRST, LAST = 3, 3 + FUNCTION.count("\n") - 1  # the function's lines
NEW = FUNCTION.replace('unit="cm"', 'unit="mm"')
REFINED = NEW.replace("total_perimeter", "total_length")
BROKEN_PATCH = "@@\n-    this line is not in the region\n+    neither is this one\n"


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def known(new: str = NEW, **scripted: str) -> dict:
    """The edit of the function the ideal model knows (its old text as the request shows it)."""
    return {"old": FUNCTION, "new": new, "path": "shapes.py", **scripted}


async def edit_function(client, uri: str, instruction: str = "Use millimetres") -> dict:
    return await run_edit(client, uri, FIRST, instruction, end_line=LAST + 1)


async def test_an_edit_is_answered_by_the_apply_patch_tool_on_the_websocket(client, emulator, tmp_path, sample):
    """The request offers the apply_patch tool; the model's apply_patch_call is applied exactly, one undo step."""
    await start(client, emulator, tmp_path)
    emulator.set_ideal([known()])
    client.editor.open(sample, SAMPLE)
    version = client.editor.buffers[sample].version
    result = await edit_function(client, sample)
    assert result["applied"] is True
    assert client.editor.text(sample) == HEAD + NEW + TAIL
    stats = emulator.stats()
    assert stats["tool_offers"] == 1 and stats["patch_calls"] == 1 and stats["responses"] == 1
    assert stats["by_model"] and all("websocket" in t for t in stats["by_model"].values())
    (change,) = client.editor.applied[-1].document_changes  # one WorkspaceEdit of the version edited
    assert change.text_document.version == version


async def test_a_chat_completions_tier_is_asked_for_a_v4a_text_patch(client, emulator, tmp_path, sample):
    """A local server (Chat Completions) is shown the V4A envelope and answers with it; no tool is offered."""
    await start(client, emulator, tmp_path, fast={"api": "chat"})
    emulator.set_ideal([known()])
    client.editor.open(sample, SAMPLE)
    result = await edit_function(client, sample)
    assert result["applied"] is True
    assert client.editor.text(sample) == HEAD + NEW + TAIL
    stats = emulator.stats()
    assert stats["tool_offers"] == 0 and stats["patch_calls"] == 0
    assert all("chat" in t for t in stats["by_model"].values())
    assert "*** Begin Patch" in emulator.prompts()[-1]


async def test_a_patch_that_does_not_apply_is_asked_again_as_the_whole_region(client, emulator, tmp_path, sample):
    """The tool's patch quotes lines the region does not have: asked once more for the whole region, applied."""
    await start(client, emulator, tmp_path)
    emulator.set_ideal([known(patch=BROKEN_PATCH)])
    client.editor.open(sample, SAMPLE)
    result = await edit_function(client, sample)
    assert result["applied"] is True
    assert client.editor.text(sample) == HEAD + NEW + TAIL
    stats = emulator.stats()
    assert stats["responses"] == 2 and stats["tool_offers"] == 1 and stats["patch_calls"] == 1
    assert [m.message for m in client.messages if m.type == types.MessageType.Error] == []  # the user hears nothing


async def test_when_the_whole_region_fails_too_the_user_hears_and_nothing_changes(client, emulator, tmp_path, sample):
    """A patch that does not apply, then a whole-region answer with no code block: a clear message, the buffer as it was."""
    await start(client, emulator, tmp_path)
    emulator.set_ideal([known(patch=BROKEN_PATCH, whole="I would rather not rewrite this.")])
    client.editor.open(sample, SAMPLE)
    result = await edit_function(client, sample)
    assert result["applied"] is False
    assert client.editor.text(sample) == SAMPLE and client.editor.applied == []
    (error,) = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert "not code" in error and "nothing was changed" in error
    assert emulator.stats()["responses"] == 2


async def test_a_refine_after_a_tool_call_edit_answers_the_call_first(client, emulator, tmp_path, sample):
    """The refine continues the response that made the apply_patch_call: it sends the call's
    apply_patch_call_output (the emulator, like the service, refuses the continuation otherwise)."""
    await start(client, emulator, tmp_path)
    emulator.set_ideal([known()])
    client.editor.open(sample, SAMPLE)
    assert (await edit_function(client, sample))["applied"] is True
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="sparkls.refine",
            arguments=[{"uri": sample, "instruction": "REPLACE total_perimeter WITH total_length"}],
        )
    )
    assert result["applied"] is True and result["chained"] is True
    assert client.editor.text(sample) == HEAD + REFINED + TAIL
    stats = emulator.stats()
    assert stats["chained"] == 1 and stats["patch_outputs"] == 1


async def test_a_quick_fix_is_answered_by_a_patch(client, emulator, tmp_path, sample):
    """A quick fix for a diagnostic in a long function: the tool's patch, applied on resolve."""
    broken = FUNCTION.replace("shape.radius ** 2", "shape.raduis ** 2")
    text = HEAD + broken + TAIL
    (tmp_path / "shapes.py").write_text(text)
    await start(client, emulator, tmp_path, options={"speculation": {"enabled": False}})
    emulator.set_ideal([{"old": broken, "new": FUNCTION, "path": "shapes.py"}])
    client.editor.open(sample, text)
    line = FIRST + broken.split("\n").index("        area = math.pi * shape.raduis ** 2")
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=line, character=30), end=types.Position(line=line, character=36)),
        message="undefined attribute 'raduis'; REPLACE raduis WITH radius",
        source="pyflakes",
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=sample), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    resolved = await client.code_action_resolve_async(fix)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(sample) == SAMPLE
    assert emulator.stats()["patch_calls"] == 1
