"""Positions in every negotiated encoding, on text that trips naive column counting;
and an editor that rejects a versioned edit is left with none of it."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import start

# Tabs, CRLF line endings, an emoji (2 UTF-16 units, 4 UTF-8 bytes), CJK (3 UTF-8 bytes
# each) before the word the edit changes, and no final newline.
SAMPLE = 'def greet(name):\r\n\tlabel = "😀 你好" + nmae\r\n\treturn label'
EXPECTED = SAMPLE.replace("+ nmae", "+ name")


def _column(line: str, character_index: int, encoding: str) -> int:
    prefix = line[:character_index]
    return {"utf-16": len(prefix.encode("utf-16-le")) // 2, "utf-8": len(prefix.encode()), "utf-32": len(prefix)}[
        encoding
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
async def test_an_edit_lands_on_the_right_characters_in_each_encoding(client, emulator, tmp_path, encoding):
    """The range (in the negotiated encoding) finds the region; the edit comes back in the same units."""
    uri = (tmp_path / "greet.py").as_uri()
    result = await start(client, emulator, tmp_path, position_encodings=[encoding])
    assert (result.capabilities.position_encoding or "utf-16") == encoding
    client.editor.open(uri, SAMPLE)
    line = SAMPLE.split("\r\n")[1]
    column = _column(line, line.index("nmae"), encoding)
    summary = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="sparkls.edit",
            arguments=[{"uri": uri, "range": {"start": {"line": 1, "character": column},
                                              "end": {"line": 1, "character": column + 4}},
                        "instruction": "REPLACE nmae WITH name"}],
        )
    )
    assert summary["applied"] is True, summary
    assert client.editor.text(uri) == EXPECTED
    [edit] = client.editor.applied
    [change] = edit.document_changes
    [text_edit] = change.edits  # minimal: "nmae" -> "name" is "ma" -> "am", after the emoji and CJK
    assert (text_edit.range.start, text_edit.range.end, text_edit.new_text) == (
        types.Position(line=1, character=column + 1), types.Position(line=1, character=column + 3), "am"
    )


async def test_an_editor_that_rejects_the_versioned_edit_keeps_its_text(client, emulator, tmp_path):
    """The buffer moved on before applyEdit arrived: the editor refuses it whole; the user is told."""
    uri = (tmp_path / "greet.py").as_uri()
    await start(client, emulator, tmp_path)
    client.editor.open(uri, SAMPLE)
    apply = client.editor.apply_workspace_edit

    def typing_first(edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        client.editor.type_text(uri, 0, 0, "# late\r\n")  # a keystroke that wins the race
        return apply(edit)

    client.editor.apply_workspace_edit = typing_first
    summary = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="sparkls.edit",
            arguments=[{"uri": uri, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                        "instruction": "REPLACE nmae WITH name"}],
        )
    )
    assert summary["applied"] is False and summary["error"]["code"] == "edit_rejected"
    assert client.editor.text(uri) == "# late\r\n" + SAMPLE
    assert any("did not apply" in m.message for m in client.messages if m.type == types.MessageType.Error)
