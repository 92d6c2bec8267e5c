""""Spark: Explain": a code action on a selection that asks the fast tier to explain the
code and shows the answer (a document where the editor opens one, a message otherwise)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start

SAMPLE = '''import math


class Circle:
    def area(self, radius):
        print(radius)
        return math.pi * radius ** 2
'''
FAKE_KEY = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"  # built in pieces: no scanner flags this file
SELECTION = types.Range(start=types.Position(line=4, character=4), end=types.Position(line=6, character=40))


async def _open(client, emulator, tmp_path: Path, editor: str, text: str = SAMPLE, name: str = "circle.py") -> str:
    path = tmp_path / name
    path.write_text(text)
    await start(client, emulator, tmp_path, editor=editor)
    client.editor.open(path.as_uri(), text)
    return path.as_uri()


async def _actions(client, uri: str, selection: types.Range) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=selection,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


def _explain(uri: str, selection: types.Range = SELECTION) -> types.ExecuteCommandParams:
    rng = {"start": {"line": selection.start.line, "character": selection.start.character},
           "end": {"line": selection.end.line, "character": selection.end.character}}
    return types.ExecuteCommandParams(command="sparkls.explain", arguments=[{"uri": uri, "range": rng}])


def _private(shown: types.ShowDocumentParams) -> Path:
    path = Path(shown.uri.removeprefix("file://"))
    assert path.name == "explain.md" and path.parent.name.startswith("sparkls-")
    assert path.parent.stat().st_mode & 0o077 == 0 and path.stat().st_mode & 0o077 == 0
    return path


async def test_vscode_resolves_the_action_to_a_document(client, emulator, tmp_path):
    """VS Code: "Spark: Explain" on a selection resolves to no edit and opens the answer, in the
    emulator's own words, as markdown in a private file; the code is untouched."""
    uri = await _open(client, emulator, tmp_path, "visual_studio_code")
    (action,) = [a for a in await _actions(client, uri, SELECTION) if a.title == "Spark: Explain"]
    assert action.kind == "refactor.sparkls.explain" and action.edit is None and action.data is not None
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is None
    (shown,) = client.shown_documents
    text = _private(shown).read_text()
    assert text.startswith("# circle.py, lines 5-7\n")
    assert "The sparkls emulator read lines 5-7 (python). It is not a model" in text
    assert "`area(self, radius)` (def)" in text and "Returns `math.pi * radius ** 2`" in text and "Calls `print`" in text
    assert client.editor.text(uri) == SAMPLE
    assert emulator.stats()["responses"] == 1
    (prompt,) = [p for p in emulator.prompts() if "Selected code" in p]
    assert "Selected code (lines 5-7):" in prompt and "import math" in prompt


async def test_neovim_runs_the_command_and_is_shown_the_document(client, emulator, tmp_path):
    """Neovim: `sparkls.explain` returns the answer and opens it as a document."""
    uri = await _open(client, emulator, tmp_path, "neovim")
    assert [a.title for a in await _actions(client, uri, SELECTION) if a.title.startswith("Spark: Explain")] == ["Spark: Explain"]
    result = await client.workspace_execute_command_async(_explain(uri))
    assert result["explained"] is True and result["markdown"].startswith("The sparkls emulator read lines 5-7")
    (shown,) = client.shown_documents
    assert result["path"] == str(_private(shown)) and result["markdown"] in _private(shown).read_text()


@pytest.mark.parametrize("editor", ["neovim@v0.7.0", "emacs"], ids=["neovim-0.7", "eglot"])
async def test_without_show_document_the_answer_is_a_message(client, emulator, tmp_path, editor):
    """An editor without window/showDocument is told the answer in a message; nothing is written."""
    uri = await _open(client, emulator, tmp_path, editor)
    (action,) = [a for a in await _actions(client, uri, SELECTION) if a.title == "Spark: Explain"]
    if editor == "emacs":  # no resolve: the action runs the command
        assert action.command is not None and action.command.command == "sparkls.explain"
    result = await client.workspace_execute_command_async(_explain(uri))
    assert result["explained"] is True and result["path"] is None
    (message,) = [m for m in client.messages if "emulator read" in m.message]
    assert message.type == types.MessageType.Info
    assert message.message.startswith("Spark: circle.py, lines 5-7: The sparkls emulator read lines 5-7")
    assert client.shown_documents == []


async def test_no_action_without_a_selection(client, emulator, tmp_path):
    """With the cursor only (no selection), "Spark: Explain" is not offered."""
    uri = await _open(client, emulator, tmp_path, "visual_studio_code")
    cursor = types.Range(start=types.Position(line=5, character=8), end=types.Position(line=5, character=8))
    assert [a for a in await _actions(client, uri, cursor) if a.title == "Spark: Explain"] == []


async def test_a_secret_in_the_selection_is_redacted_before_it_is_sent(client, emulator, tmp_path):
    """The selection is read, not rewritten: a key in it is redacted in the request, and the
    explanation still comes."""
    code = f'def client():\n    key = "{FAKE_KEY}"\n    return connect(key)\n'
    uri = await _open(client, emulator, tmp_path, "neovim", text=code, name="client.py")
    selection = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=2, character=23))
    result = await client.workspace_execute_command_async(_explain(uri, selection))
    assert result["explained"] is True and "Calls `connect`" in result["markdown"]
    (prompt,) = [p for p in emulator.prompts() if "Selected code" in p]
    assert "Selected code (lines 1-3):" in prompt and FAKE_KEY not in prompt and FAKE_KEY[:12] not in prompt


async def test_a_file_that_is_never_sent_is_not_explained(client, emulator, tmp_path):
    """An excluded file: a clear refusal, nothing sent, nothing shown."""
    uri = await _open(client, emulator, tmp_path, "visual_studio_code", name=".env.py")
    result = await client.workspace_execute_command_async(_explain(uri))
    assert result["applied"] is False and "does not send" in result["error"]["message"]
    assert emulator.stats()["responses"] == 0 and client.shown_documents == []
