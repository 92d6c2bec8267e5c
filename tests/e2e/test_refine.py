"""Refine the last edit end to end: real sparkls process, real LSP, emulator on loopback."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator

SAMPLE = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + nme
'''
FIXED = SAMPLE.replace("raduis", "radius")


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(SAMPLE)
    return path.as_uri()


async def code_actions(client, uri: str, line: int, character: int = 0) -> list[types.CodeAction]:
    point = types.Position(line=line, character=character)
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=point, end=point),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


async def refine(client, uri: str, instruction: str) -> dict:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.refine", arguments=[{"uri": uri, "instruction": instruction}])
    )


async def test_refine_continues_the_response_with_the_new_turn_only(client, emulator, tmp_path, sample):
    """A refine chains on the warm socket (previous_response_id), sends only the new
    instruction, and applies one versioned edit over the previous edit's text."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 5, "Fix the typo: REPLACE raduis WITH radius"))["applied"] is True
    assert client.editor.text(sample) == FIXED
    version = client.editor.buffers[sample].version
    result = await refine(client, sample, "Shorter names: REPLACE radius WITH r")
    assert result["applied"] is True and result["chained"] is True
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    stats = emulator.stats()
    assert stats["chained"] == 1 and stats["responses"] == 2
    sent = emulator.prompts()[-1]
    assert "Shorter names: REPLACE radius WITH r" in sent
    assert "Excerpt" not in sent and "editable_region_start|>\n" not in sent and "import math" not in sent
    refine_edit = client.editor.applied[-1]  # one WorkspaceEdit: one undo step back to before the refine
    (doc_edit,) = refine_edit.document_changes
    assert doc_edit.text_document.version == version


async def test_refine_after_the_user_changed_the_region_sends_its_text(client, emulator, tmp_path, sample):
    """Lines the user changed since the edit go with the refine, and the result keeps them."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    client.editor.type_text(sample, 5, 0, "    # the user's note\n")
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is True and result["chained"] is True
    expected = FIXED.replace("    return math.pi", "    # the user's note\n    return math.pi").replace("radius", "r")
    assert client.editor.text(sample) == expected
    sent = emulator.prompts()[-1]
    assert "<|editable_region_start|>" in sent and "# the user's note" in sent and "import math" not in sent


async def test_refine_after_the_socket_closed_resends_in_full(client, emulator, tmp_path, sample):
    """When the connection that served the edit is gone, the whole conversation is resent:
    the result is the same, and the request carries the original context and reply."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    assert emulator.disconnect() >= 1
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is True and result["chained"] is False
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    sent = emulator.prompts()[-1]
    assert "Excerpt" in sent and "REPLACE raduis WITH radius" in sent and "REPLACE radius WITH r" in sent
    assert emulator.stats()["chained"] == 0


async def test_refine_of_a_refine_chains_again(client, emulator, tmp_path, sample):
    """A refine is itself the last edit: the next refine continues it."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    await refine(client, sample, "REPLACE radius WITH r")
    result = await refine(client, sample, "REPLACE ** WITH *")
    assert result["applied"] is True and result["chained"] is True
    assert client.editor.text(sample) == FIXED.replace("radius", "r").replace("** 2", "* 2")
    assert emulator.stats()["chained"] == 2


async def test_nothing_to_refine_is_a_message_and_sends_nothing(client, emulator, tmp_path, sample):
    """Without a sparkls edit in the document, refine says so and asks the model nothing."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is False and result["error"]["code"] == "nothing_to_refine"
    assert any("no Spark edit" in m.message for m in client.messages)  # shown before the command answered
    assert emulator.stats()["responses"] == 0 and client.editor.text(sample) == SAMPLE


async def test_refine_after_the_edited_lines_were_deleted_is_refused(client, emulator, tmp_path, sample):
    """When the user deleted the lines the edit wrote, there is nothing to refine."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    client.editor._apply_edits(
        sample,
        [types.TextEdit(range=types.Range(start=types.Position(line=3, character=0), end=types.Position(line=6, character=0)), new_text="")],
    )
    before = client.editor.text(sample)
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is False and result["error"]["code"] == "nothing_to_refine"
    assert client.editor.text(sample) == before and emulator.stats()["responses"] == 1


async def test_refine_after_emoji_and_cjk_lands_at_utf16_columns(client, emulator, tmp_path, sample):
    """On a line with an emoji and CJK text, the refine's edit lands at the right UTF-16 column."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 9, "REPLACE nme WITH name")
    result = await refine(client, sample, 'REPLACE "+ name" WITH "+ name.title()"')
    assert result["applied"] is True
    assert client.editor.text(sample) == SAMPLE.replace("+ nme", "+ name.title()")
    (text_edit,) = client.editor.applied[-1].document_changes[0].edits
    assert text_edit.range.start.character == 27  # after "name": the emoji counts two UTF-16 units, CJK one each


@pytest.mark.parametrize(("store", "chained"), [(False, False), (True, True)])
async def test_refine_over_http_follows_store(client, emulator, tmp_path, sample, store, chained):
    """Over SSE, a stored response is continued by id; without store the conversation is resent."""
    await start(client, emulator, tmp_path, fast={"transport": "http", "store": store})
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is True and result["chained"] is chained
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    assert emulator.stats()["chained"] == (1 if chained else 0)


async def test_vscode_gets_a_refine_code_action_on_the_edited_lines(client, emulator, tmp_path, sample):
    """VS Code is offered "Spark: Refine last edit…" on the edit's lines, and not elsewhere."""
    await start(client, emulator, tmp_path, client_name="Visual Studio Code")
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")

    async def titles(line: int) -> list[str]:
        return [a.title for a in await code_actions(client, sample, line)]

    assert "Spark: Refine last edit…" in await titles(5)
    assert "Spark: Refine last edit…" not in await titles(9)


async def test_refine_after_a_quick_fix_the_editor_applied(client, emulator, tmp_path, sample):
    """A quick fix resolved by the server and applied by the editor is the edit a refine revises."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    where = types.Range(start=types.Position(line=5, character=21), end=types.Position(line=5, character=27))
    diagnostic = types.Diagnostic(range=where, message="\"raduis\" is not defined. Did you mean 'radius'?")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=sample), range=where,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    fix = next(a for a in actions if a.title.startswith("Fix with Spark"))
    resolved = await client.code_action_resolve_async(fix)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(sample) == FIXED
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result["applied"] is True and result["chained"] is True
    assert client.editor.text(sample) == FIXED.replace("radius", "r")


async def _comment_refine(client, uri: str, line: int) -> list[types.CodeAction]:
    return [a for a in await code_actions(client, uri, line, 4) if a.title.startswith("Spark: refine last edit:")]


@pytest.mark.parametrize("editor", ["emacs", "visual_studio_code"])
async def test_a_spark_comment_on_the_edited_lines_refines_the_last_edit(client, emulator, tmp_path, sample, editor):
    """Without an input box, a `spark:` comment on the edit's lines is offered as a refine
    (a command for clients without resolve, an edit for the others), continues the
    response, and the comment goes with the same edit."""
    await start(client, emulator, tmp_path, editor=editor)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    client.editor.type_text(sample, 5, 0, "    # spark: REPLACE radius WITH r\n")
    (action,) = await _comment_refine(client, sample, 5)
    if action.command is not None:
        assert action.command.command == "sparkls.refine"
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=action.command.command, arguments=action.command.arguments)
        )
        assert result["applied"] is True and result["chained"] is True
    else:
        resolved = await client.code_action_resolve_async(action)
        assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    assert emulator.stats()["chained"] == 1


async def test_a_spark_comment_elsewhere_is_no_refine(client, emulator, tmp_path, sample):
    """A `spark:` comment away from the last edit's lines is only an instruction, not a refine."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await run_edit(client, sample, 5, "REPLACE raduis WITH radius")
    client.editor.type_text(sample, 9, 0, "    # spark: REPLACE nme WITH name\n")
    assert await _comment_refine(client, sample, 9) == []


async def test_a_refine_while_the_edit_streams_steers_it(client, emulator, tmp_path, sample):
    """Words added while the edit is still being written go into that response
    (`response.steer`): one edit lands, answering both; no second request."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)  # the edit streams for a while
    editing = asyncio.ensure_future(run_edit(client, sample, 3, "REPLACE raduis WITH radius", end_line=6))
    await wait_emulator(emulator, lambda s: s["deltas"] >= 3)
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert result == {"applied": False, "steered": True}
    edited = await editing
    assert edited["applied"] is True and len(client.editor.applied) == 1
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    stats = emulator.stats()
    assert stats["steers_accepted"] == 1 and stats["successors"] == 1
    assert stats["responses"] == 2  # one request sent, and the successor that continued it
    assert any("added to the edit still being written" in m.message for m in client.messages)


async def test_a_refine_that_cannot_steer_waits_for_the_edit_and_revises_it(client, emulator, tmp_path, sample):
    """Steering refused (a server without it): the refine waits for the edit to land,
    then revises it as usual."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, steer="unsupported", count=1)
    editing = asyncio.ensure_future(run_edit(client, sample, 3, "REPLACE raduis WITH radius", end_line=6))
    await wait_emulator(emulator, lambda s: s["deltas"] >= 3)
    result = await refine(client, sample, "REPLACE radius WITH r")
    assert (await editing)["applied"] is True
    assert result["applied"] is True and result["chained"] is True
    assert client.editor.text(sample) == FIXED.replace("radius", "r")
    assert emulator.stats()["steers_failed"] == 1 and emulator.stats()["responses"] == 2
