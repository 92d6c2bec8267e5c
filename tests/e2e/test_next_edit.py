"""Next-edit suggestions through a real LSP session: the user renames, Spark offers the rest."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator, wait_status

SAMPLE = '''import math


def area(raduis):
    """Area of a circle."""
    return "😀 名前" + str(math.pi * raduis ** 2)


def label(name):
    return "😀 名前: " + name
'''
RENAMED = SAMPLE.replace("raduis", "radius")
FAST = {"next_edit": {"debounce_ms": 50}}


async def open_sample(
    client, emulator, tmp_path, text: str = SAMPLE, *, options=FAST, name: str = "shapes.py", fast=None
) -> str:
    """A session against the emulator, its settings in force (the fast tier is ready), and `text` open."""
    await start(client, emulator, tmp_path, options=options, fast=fast)
    await wait_status(client, lambda fast: fast["state"] == "ready")
    uri = (tmp_path / name).as_uri()
    client.editor.open(uri, text)
    return uri


def rename_parameter(client, uri: str, new: str = "radius") -> None:
    """Select `raduis` on line 3 and type `new` over it, one key at a time."""
    client.editor.replace_text(uri, 3, 9, 15, "")
    for i, ch in enumerate(new):
        client.editor.type_text(uri, 3, 9 + i, ch)


async def offered(client, index: int = 0) -> dict:
    """The `index`-th suggestion offered (not withdrawn) in `sparkls/nextEdit`."""
    async with asyncio.timeout(30):
        while len([n for n in client.editor.next_edits if n["suggestion"]]) <= index:
            await client.wait_for_notification("sparkls/nextEdit")
    return [n for n in client.editor.next_edits if n["suggestion"]][index]["suggestion"]


async def withdrawn(client) -> None:
    async with asyncio.timeout(30):
        while not client.editor.next_edits or client.editor.next_edits[-1]["suggestion"] is not None:
            await client.wait_for_notification("sparkls/nextEdit")


async def actions_at(client, uri: str, line: int) -> list[types.CodeAction]:
    pos = types.Position(line=line, character=0)
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=pos, end=pos),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


def next_edit_actions(actions) -> list[types.CodeAction]:
    return [a for a in actions if a.title.startswith("Spark: next edit")]


async def test_a_renamed_parameter_offers_its_use_as_a_code_action(client, emulator, tmp_path):
    """Rename a parameter; "Spark: next edit at line 6" appears anywhere; applying it renames the use."""
    uri = await open_sample(client, emulator, tmp_path)
    rename_parameter(client, uri)
    suggestion = await offered(client)
    assert suggestion["line"] == 5 and "raduis" in suggestion["reason"]
    (action,) = next_edit_actions(await actions_at(client, uri, 9))
    assert action.title == "Spark: next edit at line 6"
    assert action.kind == types.CodeActionKind.RefactorRewrite
    assert client.editor.apply_workspace_edit(action.edit).applied
    assert client.editor.text(uri) == RENAMED
    assert emulator.stats()["responses"] == 1  # keystrokes coalesced: one question
    await withdrawn(client)  # taken: no longer on offer
    assert next_edit_actions(await actions_at(client, uri, 9)) == []


@pytest.mark.parametrize("completions", [True, False], ids=["completions on", "completions off"])
async def test_a_suggestion_at_the_cursor_comes_as_an_inline_completion_with_a_range(client, emulator, tmp_path, completions):
    """With the cursor on the suggested line (after an emoji: UTF-16), the ghost text
    replaces the region; also with inline completions turned off (`completion.enabled`
    is about completions, not next edits)."""
    uri = await open_sample(client, emulator, tmp_path, options={**FAST, "completion": {"enabled": completions}})
    rename_parameter(client, uri)
    await offered(client)
    result = await client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=5, character=12),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic),
        )
    )
    (item,) = result.items
    assert item.range is not None and item.range.start.line == item.range.end.line == 5
    client.editor.apply_workspace_edit(types.WorkspaceEdit(changes={uri: [types.TextEdit(range=item.range, new_text=item.insert_text)]}))
    assert client.editor.text(uri) == RENAMED
    assert emulator.stats()["responses"] == 1  # the inline item came from the suggestion, not a new request


async def test_typing_elsewhere_drops_the_suggestion(client, emulator, tmp_path):
    """A keystroke away from the suggestion withdraws it; its listed edit is refused as stale."""
    uri = await open_sample(client, emulator, tmp_path)
    rename_parameter(client, uri)
    await offered(client)
    (action,) = next_edit_actions(await actions_at(client, uri, 3))
    client.editor.type_text(uri, 9, 0, "#")
    await withdrawn(client)
    assert next_edit_actions(await actions_at(client, uri, 3)) == []
    assert not client.editor.apply_workspace_edit(action.edit).applied  # versioned: stale
    assert "raduis ** 2" in client.editor.text(uri)


async def test_accept_command_applies_the_suggestion(client, emulator, tmp_path):
    """`sparkls.nextEdit` describes the suggestion; `sparkls.acceptNextEdit` applies it."""
    uri = await open_sample(client, emulator, tmp_path)
    rename_parameter(client, uri)
    await offered(client)
    described = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.nextEdit", arguments=[{"uri": uri}])
    )
    assert described["oldText"] == "raduis" and described["newText"] == "radius"
    # The range is in UTF-16 units: the emoji before it counts two.
    assert described["range"]["start"] == {"line": 5, "character": SAMPLE.splitlines()[5].index("raduis") + 1}
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.acceptNextEdit", arguments=[{"uri": uri}])
    )
    assert result["applied"] is True
    assert client.editor.text(uri) == RENAMED
    again = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.acceptNextEdit", arguments=[{"uri": uri}])
    )
    assert again["applied"] is False and "No next-edit suggestion" in again["error"]["message"]


async def test_nothing_to_do_offers_nothing(client, emulator, tmp_path):
    """When the model answers NO_EDIT (forced by `NEXT_EDIT NONE`), nothing is offered."""
    uri = await open_sample(client, emulator, tmp_path, SAMPLE.replace('"""Area of a circle."""', '"""NEXT_EDIT NONE"""'))
    rename_parameter(client, uri)
    await wait_emulator(emulator, lambda s: s["responses"] == 1 and s["streaming"] == 0)
    # A request after it: had a suggestion been offered, its notification came first.
    assert (await run_edit(client, uri, 9, "REPLACE name WITH who"))["applied"] is True
    assert [n for n in client.editor.next_edits if n["suggestion"]] == []


@pytest.mark.parametrize("lanes", [True, False])
async def test_at_most_one_question_in_flight_per_document(client, emulator, tmp_path, lanes):
    """Renaming on while a slow answer streams: one question read at a time, and the
    suggestion is for the newest text. On lanes the newer questions are steered into
    the one streaming (`response.steer`: one request, each successor answering the
    newer question); on a pool the old stream is drained or its socket closed before
    the next question, never two streams at once."""
    # slow answers (about 2.5 s each): each rename comes while the previous answer, or
    # the successor a steer made, still streams, however loaded the machine
    emulator.set_faults(tokens_per_second=10)
    uri = await open_sample(client, emulator, tmp_path, options={"next_edit": {"debounce_ms": 0}},
                            fast={"lanes": lanes})
    for name in ("r1", "r2", "r3"):
        client.editor.replace_text(uri, 3, 9, 11 if name != "r1" else 15, name)
        # The question for this name is streaming (its first deltas came; a steered one's
        # successor was created and streams): the next rename comes while it streams.
        await wait_emulator(
            emulator, lambda s, n=int(name[1]): s["responses"] >= n and s["deltas"] >= 2 * n and s["streaming"] >= 1
        )
    suggestion = await offered(client)
    assert suggestion["newText"] == "r3"
    stats = emulator.stats()
    assert stats["responses"] == 3
    if lanes:
        assert stats["ws_connections"] == 1 and stats["steers_accepted"] == 2 and stats["successors"] == 2, stats
        assert stats["responses"] - stats["successors"] == 1  # one request sent
    else:
        assert stats["max_streaming"] == 1 and stats["steers_accepted"] == 0


async def test_setting_off_sends_nothing(client, emulator, tmp_path):
    """`next_edit.enabled = false`: a rename asks the model nothing."""
    uri = await open_sample(client, emulator, tmp_path, options={"next_edit": {"enabled": False, "debounce_ms": 0}})
    rename_parameter(client, uri)
    assert (await run_edit(client, uri, 9, "REPLACE name WITH who"))["applied"] is True
    assert emulator.stats()["responses"] == 1  # the edit's own
    assert client.editor.next_edits == [] or all(n["suggestion"] is None for n in client.editor.next_edits)


async def test_a_new_enum_member_offers_the_matching_branch(client, emulator, tmp_path):
    """Add `BLUE` to an enum: the `match` on it gets a `case Color.BLUE` arm."""
    source = (
        "from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n\n\n"
        "def name(c):\n    match c:\n        case Color.RED:\n            return \"red\"\n"
        "        case Color.GREEN:\n            return \"green\"\n"
    )
    uri = await open_sample(client, emulator, tmp_path, source, name="colors.py")
    client.editor.type_text(uri, 5, 13, "\n    BLUE = 3")
    suggestion = await offered(client)
    assert "branch on Color" in suggestion["reason"]
    (action,) = next_edit_actions(await actions_at(client, uri, 6))
    assert client.editor.apply_workspace_edit(action.edit).applied
    assert client.editor.text(uri).endswith('        case Color.BLUE:\n            return "blue"\n')


async def test_a_changed_signature_offers_its_call_site(client, emulator, tmp_path):
    """Add a parameter: the call of the function is the candidate (the answer forced by a REPLACE beside it)."""
    source = (
        "def area(radius):\n    return 3.14 * radius ** 2\n\n\n"
        "def total(r):\n    # REPLACE `area(r)` WITH `area(r, 'cm')`\n    return area(r) + 1\n"
    )
    uri = await open_sample(client, emulator, tmp_path, source, name="calls.py")
    client.editor.type_text(uri, 0, 15, ", unit")
    suggestion = await offered(client)
    assert suggestion["reason"] == "call of area" and suggestion["line"] == 6
    (action,) = next_edit_actions(await actions_at(client, uri, 0))
    assert client.editor.apply_workspace_edit(action.edit).applied
    assert client.editor.text(uri).endswith("    return area(r, 'cm') + 1\n")
