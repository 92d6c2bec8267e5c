"""Speculative quick fixes: computed when listed, served by codeAction/resolve."""

from __future__ import annotations

import asyncio

import attrs
import pytest
from lsprotocol import types

from sparkls.fastedit.speculation import rebase_outcome
from tests.e2e.conftest import run_edit, start, wait_emulator, wait_status

SAMPLE = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + name
'''
FIXED = SAMPLE.replace("raduis", "radius")
DIAGNOSTIC = types.Diagnostic(
    range=types.Range(start=types.Position(line=5, character=21), end=types.Position(line=5, character=27)),
    message="undefined name 'raduis'; REPLACE raduis WITH radius",
    source="pyflakes",
)


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(SAMPLE)
    return path.as_uri()


async def list_fix(client, uri, trigger_kind=types.CodeActionTriggerKind.Invoked) -> types.CodeAction:
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=DIAGNOSTIC.range,
            context=types.CodeActionContext(
                diagnostics=[DIAGNOSTIC], only=[types.CodeActionKind.QuickFix], trigger_kind=trigger_kind
            ),
        )
    )
    (fix,) = actions
    return fix


async def job_done(client) -> None:
    """The speculative request has completed (its `sparkls/status` carries `last`)."""
    await wait_status(client, lambda fast: fast.get("last") is not None)


async def resolve_and_apply(client, fix) -> None:
    resolved = await client.code_action_resolve_async(fix)
    assert resolved.edit is not None, client.messages
    assert client.editor.apply_workspace_edit(resolved.edit).applied


async def test_resolve_serves_the_speculative_fix(client, emulator, tmp_path, sample):
    """Listing starts the fix; resolving it makes no new model request."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    await job_done(client)
    before = emulator.stats()["responses"]
    assert before == 1
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == before
    assert client.editor.text(sample) == FIXED


async def test_resolve_awaits_a_running_job(client, emulator, tmp_path, sample):
    """Resolved at once after listing, the fix still costs one model request in all."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    await resolve_and_apply(client, fix)
    assert client.editor.text(sample) == FIXED
    assert emulator.stats()["responses"] == 1


async def test_speculation_off_resolve_calls_the_model(client, emulator, tmp_path, sample):
    """With `speculation.enabled = false`, listing is free and resolve asks the model."""
    await start(client, emulator, tmp_path, options={"speculation": {"enabled": False}})
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    assert emulator.stats()["responses"] == 0
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == 1
    assert client.editor.text(sample) == FIXED


async def test_a_lightbulb_request_speculates_nothing(client, emulator, tmp_path, sample):
    """VS Code's automatic requests (the lightbulb, at each cursor move) start no model call;
    the fix is computed when chosen."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample, types.CodeActionTriggerKind.Automatic)
    # An edit elsewhere, sent after the listing: had the listing started a job, the
    # emulator would have seen its request before this one's.
    assert (await run_edit(client, sample, 9, "REPLACE name WITH who"))["applied"] is True
    assert emulator.stats()["responses"] == 1
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == 2
    assert client.editor.text(sample) == FIXED.replace("name", "who")


async def test_a_request_without_trigger_kind_speculates_nothing(client, emulator, tmp_path, sample):
    """A request that does not say the user asked (lsp-mode's modeline and sideline ask at
    every cursor move, with no `triggerKind`) starts no model call; picked, the fix is computed."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample, None)
    assert (await run_edit(client, sample, 9, "REPLACE name WITH who"))["applied"] is True
    assert emulator.stats()["responses"] == 1
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == 2
    assert client.editor.text(sample) == FIXED.replace("name", "who")


async def test_a_menu_the_user_opened_speculates(client, emulator, tmp_path, sample):
    """An invoked request (the user opened the menu) starts the fix at once."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await list_fix(client, sample, types.CodeActionTriggerKind.Invoked)
    await job_done(client)
    assert emulator.stats()["responses"] == 1


async def test_a_menu_left_unpicked_costs_max_fixes_calls(client, emulator, tmp_path, sample):
    """Opening a menu of four fixes and picking none costs `speculation.max_fixes` (3) model calls."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    diagnostics = [attrs.evolve(DIAGNOSTIC, message=f"{DIAGNOSTIC.message} ({n})") for n in range(4)]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=sample),
            range=DIAGNOSTIC.range,
            context=types.CodeActionContext(
                diagnostics=diagnostics, only=[types.CodeActionKind.QuickFix],
                trigger_kind=types.CodeActionTriggerKind.Invoked,
            ),
        )
    )
    assert len(actions) == 4
    await wait_emulator(emulator, lambda stats: stats["responses"] >= 3)
    # An edit sent after the listing: a fourth job would have reached the emulator before it.
    assert (await run_edit(client, sample, 9, "REPLACE name WITH who"))["applied"] is True
    assert emulator.stats()["responses"] == 4


async def test_a_resolved_fix_says_where_its_time_went(client, emulator, tmp_path, sample):
    """The resolved action's data carries the fix's timings, as sparkls.edit's summary does."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    resolved = await client.code_action_resolve_async(await list_fix(client, sample))
    assert {"context", "ttft", "stream", "edit", "total"} <= set(resolved.data["timings_ms"])


async def test_same_diagnostic_listed_twice_is_one_request(client, emulator, tmp_path, sample):
    """Two code-action requests for one diagnostic share one speculative job."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await list_fix(client, sample)
    fix = await list_fix(client, sample)
    await job_done(client)
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == 1
    assert client.editor.text(sample) == FIXED


async def test_expired_fix_is_computed_afresh(client, emulator, tmp_path, sample):
    """A fix not chosen within `ttl_seconds` is dropped; resolving it asks the model again."""
    await start(client, emulator, tmp_path, options={"speculation": {"ttlSeconds": 0.001}})
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    async with asyncio.timeout(30):
        while not any("was not chosen in time" in m.message for m in client.log_messages):
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    before = emulator.stats()["responses"]
    await resolve_and_apply(client, fix)
    assert emulator.stats()["responses"] == before + 1
    assert client.editor.text(sample) == FIXED


async def test_typing_elsewhere_keeps_the_fix(client, emulator, tmp_path, sample):
    """A change above the function leaves the fix usable: served, shifted, no new request."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    await job_done(client)
    client.editor.type_text(sample, 0, 0, "# 😀 units: metres\n")
    await resolve_and_apply(client, fix)
    assert client.editor.text(sample) == "# 😀 units: metres\n" + FIXED
    # Rebased onto the new version when the engine can (`edits.tail.rebase_outcome`).
    assert emulator.stats()["responses"] == (1 if rebase_outcome is not None else 2)


async def test_typing_in_the_region_drops_the_fix(client, emulator, tmp_path, sample):
    """A change inside the function makes the speculative edit stale: resolve computes anew."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    await job_done(client)
    client.editor.type_text(sample, 4, 4, "# in metres\n    ")
    await resolve_and_apply(client, fix)
    assert client.editor.text(sample) == FIXED.replace('"""Area', '# in metres\n    """Area')
    assert emulator.stats()["responses"] == 2


async def test_command_fallback_serves_the_speculative_fix(client, emulator, tmp_path, sample):
    """Emacs/eglot (no resolve): the fix's sparkls.edit command uses the job too."""
    await start(client, emulator, tmp_path, editor="emacs")
    client.editor.open(sample, SAMPLE)
    fix = await list_fix(client, sample)
    assert fix.command is not None and fix.command.command == "sparkls.edit"
    await job_done(client)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=fix.command.command, arguments=fix.command.arguments)
    )
    assert result["applied"] is True, result
    assert emulator.stats()["responses"] == 1
    assert client.editor.text(sample) == FIXED
