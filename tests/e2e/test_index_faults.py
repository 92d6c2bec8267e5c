"""The real server with its index file at fault: a folder in the index's place, a write
lock held by another process, a symlink loop in the workspace. Edits never wait on the
index, the user is told once, and the index comes back by itself."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
import sqlite3

from lsprotocol import types

from sparkls.context.index import SymbolIndex, default_db_path
from tests.e2e.conftest import run_edit, second_server, start, wait_status
from tests.e2e.test_context import _context_params, _index_ready

SAMPLE = "def area(raduis):\n    return 3.14 * raduis ** 2\n"
MAIN = "def double(v):\n    return triple(v) - v\n"
TRIPLE = "def triple(x):\n    return 3 * x\n"


def _index_messages(client) -> list[str]:
    return [m.message for m in client.messages if "workspace index" in m.message]


async def _until_snippet_from(client, uri: str, path: str) -> None:
    async with asyncio.timeout(60):
        while True:  # the index catches up in the background: ask until it has
            result = await client.workspace_execute_command_async(_context_params(uri, 1))
            if any(s["path"] == path for s in result["snippets"]):
                return
            await asyncio.sleep(0.1)


async def test_an_index_path_that_is_a_folder_stops_nothing(client, emulator, tmp_path):
    """The index file's place holds a folder: `initialized` still pulls the settings
    (the tier is only in `workspace/configuration`), an edit works, the user is told
    once which path and what to do, and the index comes back once the folder goes."""
    db = default_db_path(tmp_path)
    db.mkdir(parents=True)
    (tmp_path / "more.py").write_text(TRIPLE)
    client.set_configuration({"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}}, section="sparkls")
    await start(client, emulator, tmp_path, editor="neovim", fast={"baseUrl": "http://127.0.0.1:9/v1"})
    await wait_status(client, lambda s: s["state"] == "ready" and s["host"] == emulator.host)
    async with asyncio.timeout(30):
        while not _index_messages(client):
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    (told,) = _index_messages(client)
    assert str(db) in told and "a folder is in its place" in told
    sample = (tmp_path / "a.py").as_uri()
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
    db.rmdir()
    await _index_ready(client)
    main = tmp_path / "main.py"
    main.write_text(MAIN)
    client.editor.open(main.as_uri(), MAIN)
    await _until_snippet_from(client, main.as_uri(), "more.py")
    assert len(_index_messages(client)) == 1


async def test_a_held_write_lock_holds_up_no_edit_and_loses_no_update(client, emulator, tmp_path):
    """Another process holds the index's write lock (as a suspended editor's server
    would): an edit is applied meanwhile, and a file created meanwhile is indexed once
    the lock goes. A symlink loop in the workspace does not turn the index off."""
    (tmp_path / "loop_a.py").symlink_to("loop_b.py")
    (tmp_path / "loop_b.py").symlink_to("loop_a.py")
    main = tmp_path / "main.py"
    main.write_text(MAIN)
    await start(client, emulator, tmp_path)
    await _index_ready(client)
    await wait_status(client, lambda s: s["state"] == "ready")
    holder = sqlite3.connect(default_db_path(tmp_path), isolation_level=None, timeout=30)
    holder.execute("BEGIN IMMEDIATE")
    try:
        created = tmp_path / "more.py"
        created.write_text(TRIPLE)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=created.as_uri(), type=types.FileChangeType.Created)])
        )
        client.editor.open(main.as_uri(), MAIN)
        sample = (tmp_path / "a.py").as_uri()
        client.editor.open(sample, SAMPLE)
        assert (await run_edit(client, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
        result = await client.workspace_execute_command_async(_context_params(main.as_uri(), 1))
        assert not any(s["path"] == "more.py" for s in result["snippets"])  # not written while the lock is held
        # held past SQLite's own wait in the worker (where the update used to be lost), as a
        # suspended server would hold it: no event to wait for, the fault is the duration
        await asyncio.sleep(inspect.signature(SymbolIndex).parameters["busy_timeout"].default + 1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    await _until_snippet_from(client, main.as_uri(), "more.py")


async def test_two_servers_on_one_repository_hold_up_neither(client, emulator, tmp_path):
    """A second real server on the same repository, the two sharing one index file:
    both build, each applies an edit, and a file created and reported to the second
    is found by the first; then `sparkls context` on the same index while both edit
    again: the CLI finds it too, and neither edit waits for the other."""
    main = tmp_path / "main.py"
    main.write_text(MAIN)
    await start(client, emulator, tmp_path)
    async with second_server(emulator, tmp_path) as second:
        await asyncio.gather(_index_ready(client), _index_ready(second))
        sample = (tmp_path / "a.py").as_uri()
        for each in (client, second):
            each.editor.open(sample, SAMPLE)
            assert (await run_edit(each, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
        created = tmp_path / "more.py"
        created.write_text(TRIPLE)
        second.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=created.as_uri(), type=types.FileChangeType.Created)])
        )
        client.editor.open(main.as_uri(), MAIN)
        await _until_snippet_from(client, main.as_uri(), "more.py")
        # the CLI on the same repository and index file, while both servers run and edit
        cli = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "sparkls", "context", str(main), "--line", "2", "--root", str(tmp_path), "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        edits = [run_edit(each, sample, 1, "REPLACE radius WITH r") for each in (client, second)]
        (out, err), *applied = await asyncio.gather(cli.communicate(), *edits)
        assert cli.returncode == 0, err.decode()
        assert any(s["path"] == "more.py" for s in json.loads(out)["snippets"])
        assert [result["applied"] for result in applied] == [True, True]
