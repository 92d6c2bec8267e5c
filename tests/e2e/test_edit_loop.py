"""The fast edit end to end: real sparkls process, real LSP, emulator on loopback."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start

SAMPLE = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + nme
'''


async def _actions_for(client, uri: str, diagnostic: types.Diagnostic) -> list:
    """The code actions the server lists at `diagnostic`, with it in the context."""
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(SAMPLE)
    return path.as_uri()


async def test_edit_command_applies_minimal_edit(client, emulator, tmp_path, sample):
    """sparkls.edit streams a reply and applies a small versioned edit to the buffer."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, 5, "Fix the typo: REPLACE raduis WITH radius")
    assert result["applied"] is True
    assert result["tier"] == "fast" and result["model"] == "gpt-5.3-codex-spark"
    assert set(result["timings_ms"]) >= {"context", "ttft", "stream", "total"}
    assert client.editor.text(sample) == SAMPLE.replace("raduis", "radius")
    (edit,) = client.editor.applied
    (doc_edit,) = edit.document_changes
    assert doc_edit.text_document.version == 1
    (text_edit,) = doc_edit.edits
    # Minimal: "raduis" -> "radius" replaces just "ui" with "iu".
    assert text_edit.new_text == "iu" and text_edit.range.start == types.Position(line=5, character=24)


async def test_edit_after_emoji_and_cjk_uses_utf16_columns(client, emulator, tmp_path, sample):
    """On a line with an emoji and CJK text, the edit lands at the right UTF-16 column."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, 9, "REPLACE nme WITH name")
    assert result["applied"] is True
    assert client.editor.text(sample) == SAMPLE.replace("+ nme", "+ name")
    (text_edit,) = client.editor.applied[0].document_changes[0].edits
    assert text_edit.new_text == "a"  # "nme" -> "name" inserts one letter
    assert text_edit.range.start.character == 24  # "😀" counts two UTF-16 units


async def test_utf8_position_encoding_is_negotiated(client, emulator, tmp_path, sample):
    """A client that prefers UTF-8 gets UTF-8 columns, and the edit still lands right."""
    result = await start(client, emulator, tmp_path, position_encodings=["utf-8", "utf-16"])
    assert result.capabilities.position_encoding == "utf-8"
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 9, "REPLACE nme WITH name"))["applied"] is True
    assert client.editor.text(sample) == SAMPLE.replace("+ nme", "+ name")
    (text_edit,) = client.editor.applied[0].document_changes[0].edits
    assert text_edit.range.start.character == 30  # emoji 4 bytes, each CJK character 3


async def test_five_edits_share_one_websocket(client, emulator, tmp_path, sample):
    """Five edits in a row travel over a single WebSocket connection (pool of one)."""
    await start(client, emulator, tmp_path, fast={"poolSize": 1})
    client.editor.open(sample, SAMPLE)
    words = ["r1", "r2", "r3", "r4", "r5"]
    previous = "raduis"
    for word in words:
        result = await run_edit(client, sample, 5, f"REPLACE {previous} WITH {word}")
        assert result["applied"] is True
        previous = word
    assert "math.pi * r5 ** 2" in client.editor.text(sample)
    stats = emulator.stats()
    assert stats["ws_connections"] == 1
    assert stats["responses"] == 5


async def test_lanes_run_on_one_warm_connection(client, emulator, tmp_path, sample):
    """By default (lanes), five edits go on lanes of the one warm connection."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    for old, new in [("raduis", "r1"), ("r1", "r2"), ("r2", "r3"), ("r3", "r4"), ("r4", "r5")]:
        assert (await run_edit(client, sample, 5, f"REPLACE {old} WITH {new}"))["applied"] is True
    stats = emulator.stats()
    assert stats["ws_connections"] == 1 and stats["lanes"] == 5
    assert stats["warmups"] == 1 and stats["responses"] == 5, str(stats)


async def test_pool_keeps_its_connections_without_lanes(client, emulator, tmp_path, sample):
    """With lanes off, the pool of two: five edits open no connection beyond the two warm ones."""
    await start(client, emulator, tmp_path, fast={"lanes": False})
    client.editor.open(sample, SAMPLE)
    for old, new in [("raduis", "r1"), ("r1", "r2"), ("r2", "r3"), ("r3", "r4"), ("r4", "r5")]:
        assert (await run_edit(client, sample, 5, f"REPLACE {old} WITH {new}"))["applied"] is True
    stats = emulator.stats()
    assert stats["ws_connections"] == 2 and stats["lanes"] == 0
    assert stats["warmups"] == 2 and stats["responses"] == 5, str(stats)


async def test_edits_follow_typing_between_requests(client, emulator, tmp_path, sample):
    """After the user types (incremental didChange), the next edit sees the new text."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    client.editor.type_text(sample, 9, 4, "# 😀 note\n    ")
    result = await run_edit(client, sample, 10, "REPLACE nme WITH name")
    assert result["applied"] is True
    assert client.editor.text(sample).endswith('    # 😀 note\n    return "😀 名前: " + name\n')


async def test_quick_fix_resolves_lazily(client, emulator, tmp_path, sample):
    """VS Code: the quick fix is listed without a model call and resolved into an edit.

    With speculation off; tests/e2e/test_speculation.py covers fixes computed ahead."""
    await start(client, emulator, tmp_path, editor="visual_studio_code", options={"speculation": {"enabled": False}})
    client.editor.open(sample, SAMPLE)
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=5, character=21), end=types.Position(line=5, character=27)),
        message="undefined name 'raduis'; REPLACE raduis WITH radius",
        source="pyflakes",
    )
    actions = await _actions_for(client, sample, diagnostic)
    assert emulator.stats()["responses"] == 0  # listing is free
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert fix.title.startswith("Fix with Spark: undefined name") and list(fix.diagnostics) == [diagnostic]
    assert fix.edit is None and fix.command is None
    resolved = await client.code_action_resolve_async(fix)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(sample) == SAMPLE.replace("raduis", "radius")


async def test_quick_fix_follows_a_typescript_suggestion(client, emulator, tmp_path):
    """A real tsserver diagnostic, no directive: the fix takes its "Did you mean" name."""
    source = "export function area(radius: number): number {\n  return Math.PI * raduis ** 2;\n}\n"
    uri = (tmp_path / "shapes.ts").as_uri()
    (tmp_path / "shapes.ts").write_text(source)
    await start(client, emulator, tmp_path, editor="visual_studio_code", options={"speculation": {"enabled": False}})
    client.editor.open(uri, source, language_id="typescript")
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=1, character=19), end=types.Position(line=1, character=25)),
        message="Cannot find name 'raduis'. Did you mean 'radius'?",
        source="ts",
        code=2552,
    )
    actions = await _actions_for(client, uri, diagnostic)
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    resolved = await client.code_action_resolve_async(fix)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == source.replace("raduis", "radius")


async def test_quick_fix_without_resolve_support_runs_command(client, emulator, tmp_path, sample):
    """Emacs/eglot (no edit resolve, UTF-32 positions): the quick fix runs sparkls.edit."""
    result = await start(client, emulator, tmp_path, editor="emacs")
    assert result.capabilities.position_encoding == "utf-32"
    client.editor.open(sample, SAMPLE)
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=9, character=26), end=types.Position(line=9, character=29)),
        message="undefined name 'nme'; REPLACE nme WITH name",
    )
    actions = await _actions_for(client, sample, diagnostic)
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert fix.command is not None and fix.command.command == "sparkls.edit"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=fix.command.command, arguments=fix.command.arguments)
    )
    assert result["applied"] is True
    assert client.editor.text(sample) == SAMPLE.replace("+ nme", "+ name")


async def test_client_without_document_changes_gets_plain_changes(client, emulator, tmp_path, sample):
    """Neovim 0.6 cannot take versioned edits: it gets `changes`, and the edit lands."""
    await start(client, emulator, tmp_path, editor="neovim@v0.6.1")
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 5, "REPLACE raduis WITH radius"))["applied"] is True
    (edit,) = client.editor.applied
    assert edit.document_changes is None and list(edit.changes) == [sample]
    assert client.editor.text(sample) == SAMPLE.replace("raduis", "radius")


async def test_rewrite_presets_on_selection(client, emulator, tmp_path, sample):
    """A selection offers docstring, type-hint and simplify rewrites; none without one."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)

    async def actions_for(end_line):
        rng = types.Range(start=types.Position(line=8, character=0), end=types.Position(line=end_line, character=0))
        return await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=sample),
                range=rng,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )

    def rewrites(actions):  # not "Show Spark context" nor "Spark: Explain", offered on a selection too
        return [a for a in actions if a.kind not in ("source.sparkls.showContext", "refactor.sparkls.explain")]

    titles = {a.title for a in rewrites(await actions_for(10))}
    assert titles == {"Spark: Add a docstring", "Spark: Add type hints", "Spark: Simplify"}
    assert all(a.kind == types.CodeActionKind.RefactorRewrite for a in rewrites(await actions_for(10)))
    assert rewrites(await actions_for(8)) == []
