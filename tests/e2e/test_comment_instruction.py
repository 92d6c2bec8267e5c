"""`spark:` comments: "Spark: apply instruction" edits the code and removes the comment."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import start

PYTHON = '''import math


def area(radius):
    # spark: REPLACE raduis WITH radius
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + name
'''
PYTHON_DONE = '''import math


def area(radius):
    return math.pi * radius ** 2


def label(name):
    return "😀 名前: " + name
'''

TYPESCRIPT = """// spark: REPLACE greet WITH welcome
export function greet(name: string): string {
  return "Hello, " + name;
}

export const other = 1;
"""
TYPESCRIPT_DONE = """export function welcome(name: string): string {
  return "Hello, " + name;
}

export const other = 1;
"""


async def actions_at(client, uri, line, character=0, only=None) -> list[types.CodeAction]:
    pos = types.Position(line=line, character=character)
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=pos, end=pos),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


def instruction_actions(actions) -> list[types.CodeAction]:
    return [a for a in actions if a.title.startswith("Spark: apply instruction")]


async def test_python_comment_instruction_applied(client, emulator, tmp_path):
    """On a `# spark:` comment: the action rewrites the function and drops the comment."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, PYTHON)
    (action,) = instruction_actions(await actions_at(client, uri, 4, 8))
    assert action.kind == types.CodeActionKind.RefactorRewrite and action.edit is None
    assert emulator.stats()["responses"] == 0  # listing is free
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None, client.messages
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == PYTHON_DONE


async def test_typescript_comment_instruction_from_inside_the_function(client, emulator, tmp_path):
    """`// spark:` above a function is offered from inside it, and applied."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "greet.ts").as_uri()
    client.editor.open(uri, TYPESCRIPT, language_id="typescript")
    (action,) = instruction_actions(await actions_at(client, uri, 2, 4, only=[types.CodeActionKind.RefactorRewrite]))
    resolved = await client.code_action_resolve_async(action)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == TYPESCRIPT_DONE


async def test_not_offered_away_from_the_comment(client, emulator, tmp_path):
    """Another function, or a quick-fix-only request, gets no instruction action."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, PYTHON)
    assert instruction_actions(await actions_at(client, uri, 9, 4)) == []
    assert instruction_actions(await actions_at(client, uri, 4, 8, only=[types.CodeActionKind.QuickFix])) == []


async def test_comment_instruction_follows_typing(client, emulator, tmp_path):
    """Lines typed above the comment after listing: the comment is found again and applied."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, PYTHON)
    (action,) = instruction_actions(await actions_at(client, uri, 4))
    client.editor.type_text(uri, 1, 0, "import cmath\n")
    resolved = await client.code_action_resolve_async(action)
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == PYTHON_DONE.replace("import math\n", "import math\nimport cmath\n")


async def test_comment_instruction_command_without_resolve(client, emulator, tmp_path):
    """Emacs/eglot cannot resolve edits: the action runs sparkls.applyInstruction."""
    await start(client, emulator, tmp_path, editor="emacs")
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, PYTHON)
    (action,) = instruction_actions(await actions_at(client, uri, 5, 4))
    assert action.command is not None and action.command.command == "sparkls.applyInstruction"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=action.command.command, arguments=action.command.arguments)
    )
    assert result["applied"] is True, result
    assert client.editor.text(uri) == PYTHON_DONE


async def test_removed_comment_is_reported(client, emulator, tmp_path):
    """If the comment is gone by the time the action runs, the user is told; nothing changes."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, PYTHON)
    (action,) = instruction_actions(await actions_at(client, uri, 4))
    client.editor.apply_workspace_edit(
        types.WorkspaceEdit(
            changes={
                uri: [
                    types.TextEdit(
                        range=types.Range(start=types.Position(line=4, character=0), end=types.Position(line=5, character=0)),
                        new_text="",
                    )
                ]
            }
        )
    )
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is None
    assert any("no longer there" in m.message for m in client.messages)  # sent before the answer
    assert emulator.stats()["responses"] == 0


async def test_a_comment_whose_change_touches_several_places(client, emulator, tmp_path):
    """An instruction that changes two separate lines lands whole, comment removed."""
    await start(client, emulator, tmp_path)
    uri = (tmp_path / "scale.py").as_uri()
    source = "def scale(valeu, factor):\n    # spark: REPLACE valeu WITH value\n    print(factor)\n    return valeu * factor\n"
    client.editor.open(uri, source)
    (action,) = instruction_actions(await actions_at(client, uri, 1, 8))
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None, client.messages
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == "def scale(value, factor):\n    print(factor)\n    return value * factor\n"
