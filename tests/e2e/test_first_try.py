"""A first try with no key, as docs/emulator.md tells it: plain words and a quick fix on
ruff's diagnostic change the code; words the emulator cannot follow tell the user
what it follows."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import run_edit
from tests.e2e.editor import capabilities

SAMPLE = "from os import path, sep\nimport sys\n\n\ndef area(radius):\n    return 3.14 * radius ** 2\n\n\nprint(area(2), sys.argv)\n"
F401 = types.Diagnostic(
    range=types.Range(start=types.Position(line=0, character=21), end=types.Position(line=0, character=24)),
    message="`os.sep` imported but unused",
    source="Ruff",
    code="F401",
)


async def _start(client, emulator, root) -> str:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities("neovim"),
            initialization_options={"localBaseUrl": emulator.url},
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )
    path = root / "shapes.py"
    path.write_text(SAMPLE)
    client.editor.open(path.as_uri(), SAMPLE)
    return path.as_uri()


async def test_plain_words_change_the_code(client, keyless_emulator, tmp_path):
    """"rename radius to r" then "add a docstring": both apply."""
    uri = await _start(client, keyless_emulator, tmp_path)
    assert (await run_edit(client, uri, 5, "rename radius to r"))["applied"] is True, client.messages
    assert (await run_edit(client, uri, 5, "add a docstring"))["applied"] is True, client.messages
    assert client.editor.text(uri) == SAMPLE.replace("radius", "r").replace('(r):\n', '(r):\n    """Area."""\n')


async def test_quick_fix_on_ruff_f401_removes_the_import(client, keyless_emulator, tmp_path):
    """"Fix with Spark" on ruff's "`os.sep` imported but unused" removes that import."""
    uri = await _start(client, keyless_emulator, tmp_path)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=F401.range,
            context=types.CodeActionContext(diagnostics=[F401], only=[types.CodeActionKind.QuickFix]),
        )
    )
    (fix,) = actions
    resolved = await client.code_action_resolve_async(fix)
    assert resolved.edit is not None, client.messages
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == SAMPLE.replace(", sep", "")


async def test_a_fix_that_deletes_the_line_is_applied_as_one_edit(client, keyless_emulator, tmp_path):
    """"Fix with Spark" on ruff's F401 for a lone `import sys` (the region is that line):
    the answer deletes it, and the line goes, in one edit (one undo step)."""
    uri = await _start(client, keyless_emulator, tmp_path)
    f401 = types.Diagnostic(
        range=types.Range(start=types.Position(line=1, character=7), end=types.Position(line=1, character=10)),
        message="`sys` imported but unused", source="Ruff", code="F401",
    )
    client.editor.replace_text(uri, 8, 0, len("print(area(2), sys.argv)"), "print(area(2))")
    (fix,) = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=f401.range,
            context=types.CodeActionContext(diagnostics=[f401], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert fix.title == "Fix with Spark: `sys` imported but unused"
    resolved = await client.code_action_resolve_async(fix)
    assert resolved.edit is not None, [m.message for m in client.messages]
    edits = resolved.edit.document_changes[0].edits if resolved.edit.document_changes else resolved.edit.changes[uri]
    assert client.editor.apply_workspace_edit(resolved.edit).applied
    assert client.editor.text(uri) == SAMPLE.replace("import sys\n", "").replace("print(area(2), sys.argv)", "print(area(2))")
    assert len(edits) == 1


async def test_words_it_cannot_follow_say_what_it_follows(client, keyless_emulator, tmp_path):
    """"make it faster" changes nothing, and the user is shown, whole, what the emulator
    does not understand and what it follows; never a model's failure."""
    uri = await _start(client, keyless_emulator, tmp_path)
    result = await run_edit(client, uri, 5, "make it faster")
    assert result["applied"] is False and client.editor.text(uri) == SAMPLE
    shown = [m.message for m in client.messages]
    told = [m for m in shown if 'The sparkls emulator does not understand "make it faster"; it follows:' in m]
    assert told and "`add a docstring`" in told[0] and told[0].endswith('(docs/emulator.md)."'), shown
    assert not any("no complete code block" in m or "model" in m.lower() for m in shown), shown
