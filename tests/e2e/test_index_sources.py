"""Issue 27, item 1, through two real servers on one repository: one server's unsaved
buffer goes into the shared index, and neither server sends a definition from that
file at another version's lines."""

from __future__ import annotations

import asyncio
import sqlite3

from sparkls.context.index import default_db_path
from tests.e2e.conftest import second_server, start
from tests.e2e.test_context import _context_params, _index_ready

UTILS = 'def helper(x):\n    """Twice x."""\n    return 2 * x\n\n\ndef other():\n    return 0\n'
MAIN = "def run(v):\n    return helper(v) + 1\n"


async def _buffer_rows_written(root, path: str) -> None:
    """Until the shared index holds rows of `path` from a buffer (the other server's)."""
    async with asyncio.timeout(30):
        while True:
            with sqlite3.connect(default_db_path(root)) as db:
                row = db.execute("SELECT buffer FROM files WHERE path = ?", (path,)).fetchone()
            if row is not None and row[0] is not None:
                return
            await asyncio.sleep(0.1)


async def _helper(client, uri: str) -> tuple[dict, str]:
    """The `helper` snippet of an edit of main.py (lines 1-based) and the prompt it is in."""
    result = await client.workspace_execute_command_async(_context_params(uri, 1))
    (snippet,) = [s for s in result["snippets"] if s["path"] == "utils.py"]
    return snippet, result["prompt"]["input"]


async def test_an_unsaved_buffer_in_one_server_is_shown_at_its_own_lines_by_both(client, emulator, tmp_path):
    (tmp_path / "utils.py").write_text(UTILS)
    (tmp_path / "main.py").write_text(MAIN)
    await start(client, emulator, tmp_path)
    async with second_server(emulator, tmp_path) as second:
        await asyncio.gather(_index_ready(client), _index_ready(second))
        utils, main = (tmp_path / "utils.py").as_uri(), (tmp_path / "main.py").as_uri()
        second.editor.open(utils, UTILS)
        second.editor.type_text(utils, 0, 0, "import os\n\n")  # unsaved
        await _buffer_rows_written(tmp_path, "utils.py")
        for each in (client, second):
            each.editor.open(main, MAIN)
        snippet, prompt = await _helper(client, main)  # the first server: the disk
        assert snippet["start_line"] == 1 and "utils.py (lines 1-3):\n```python\ndef helper(x):" in prompt
        snippet, prompt = await _helper(second, main)  # the second: its buffer
        assert snippet["start_line"] == 3 and "utils.py (lines 3-5):\n```python\ndef helper(x):" in prompt
        second.editor.close(utils)  # closed unsaved: the disk again
        snippet, _ = await _helper(second, main)
        assert snippet["start_line"] == 1
    assert emulator.stats()["responses"] == 0
