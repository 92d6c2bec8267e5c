"""Open buffers reach the workspace index from their documents' own symbols.

Definition snippets are read from disk (`WorkspaceIndex.file_lines`), so each test
writes the buffer's text to disk too, after the build and without telling the server:
only the buffer's refresh can bring the definition into the index.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.e2e.conftest import start
from tests.e2e.test_context import _context_params, _index_ready

MAIN = "def double(v):\n    return triple(v) - v\n"
TRIPLE = "def triple(x):\n    return 3 * x\n"


async def _snippet_paths(client, uri: str) -> set[str]:
    result = await client.workspace_execute_command_async(_context_params(uri, 1))
    return {s["path"] for s in result["snippets"]}


async def _wait_for_snippet(client, uri: str, path: str) -> None:
    """Ask for the context until a snippet from `path` is in it (the refresh is in the background)."""
    async with asyncio.timeout(30):
        while path not in await _snippet_paths(client, uri):
            await asyncio.sleep(0.05)


async def test_saved_buffer_is_indexed_from_the_buffer(client, emulator, tmp_path):
    """On didSave, the open buffer's definitions are in the index at once."""
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "more.py").write_text("def other(x):\n    return x\n")
    await start(client, emulator, tmp_path)
    await _index_ready(client)
    client.editor.open((tmp_path / "main.py").as_uri(), MAIN)
    client.editor.open((tmp_path / "more.py").as_uri(), TRIPLE)
    (tmp_path / "more.py").write_text(TRIPLE)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=(tmp_path / "more.py").as_uri())))
    await _wait_for_snippet(client, (tmp_path / "main.py").as_uri(), "more.py")


async def test_edited_buffer_is_indexed_after_a_pause(client, emulator, tmp_path):
    """A definition typed into an open buffer reaches the index once typing pauses, with no save."""
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "more.py").write_text("\n")
    await start(client, emulator, tmp_path)
    await _index_ready(client)
    client.editor.open((tmp_path / "main.py").as_uri(), MAIN)
    client.editor.open((tmp_path / "more.py").as_uri(), "\n")
    client.editor.type_text((tmp_path / "more.py").as_uri(), 0, 0, TRIPLE)
    (tmp_path / "more.py").write_text(TRIPLE + "\n")
    await _wait_for_snippet(client, (tmp_path / "main.py").as_uri(), "more.py")
