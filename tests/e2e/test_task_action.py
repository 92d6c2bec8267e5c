"""The "Spark: multi-file task…" code action: offered where an input box can follow it."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import start

SAMPLE = "def area(radius):\n    return 3.14 * radius ** 2\n"


async def _refactor_actions(client, uri: str) -> list[types.CodeAction]:
    where = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1, character=0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Refactor]),
        )
    )
    return [a for a in actions or [] if isinstance(a, types.CodeAction)]


async def test_vscode_gets_the_multi_file_task_action(client, emulator, tmp_path):
    """In VS Code the action runs the extension's command, which asks for the instruction."""
    uri = (tmp_path / "area.py").as_uri()
    await start(client, emulator, tmp_path, client_name="Visual Studio Code")
    client.editor.open(uri, SAMPLE)
    [task] = [a for a in await _refactor_actions(client, uri) if a.kind == "refactor.sparkls.task"]
    assert task.title == "Spark: multi-file task…"
    assert task.command.command == "spark.multiFileTask"
    assert task.command.arguments[0]["uris"] == [uri]


async def test_other_editors_do_not_get_it(client, emulator, tmp_path):
    """Without an input box behind code actions (Neovim, Helix) the task comes from a keymap instead."""
    uri = (tmp_path / "area.py").as_uri()
    await start(client, emulator, tmp_path, editor="neovim", client_name="Neovim")
    client.editor.open(uri, SAMPLE)
    assert not [a for a in await _refactor_actions(client, uri) if a.kind == "refactor.sparkls.task"]
