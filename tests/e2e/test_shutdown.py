"""`shutdown` with requests in flight, then `exit`: fifty sessions in a row.

Each session is the real server (`stdio.serve`, in a thread of this process: see
pipes.py) against the emulator, shut down with 0, 1 or 10 requests in flight: edits
streaming, an edit whose `workspace/applyEdit` the editor has not answered, a
`workspace/configuration` pull the editor has not answered. `shutdown` answers null;
every request in flight is answered "cancelled" before it, and each of the server's
requests still awaiting the editor is withdrawn (`$/cancelRequest`); `exit` ends the
process's work with no task abandoned and no thread left behind.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.pipes import PipeClient, served

REQUEST_CANCELLED = -32800
SESSIONS = 50
SAMPLE = "def area(radius):\n    a = radius * radius\n    return 3.14 * a\n"


def _initialize(root: Path, emulator: Any, index: bool) -> dict[str, Any]:
    return {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {"workspace": {"configuration": True, "applyEdit": True, "workspaceEdit": {"documentChanges": True}}},
        "initializationOptions": {"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}, "context": {"index": index}},
    }


def _edit(uri: str, n: int) -> dict[str, Any]:
    command = {"uri": uri, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
               "instruction": f"REPLACE a WITH a{n}"}
    return {"command": "sparkls.edit", "arguments": [command]}


async def _streaming(emulator: Any, count: int) -> None:
    """Wait until `count` replies stream at the emulator (its counters, bounded)."""
    for _ in range(3000):
        if emulator.stats()["streaming"] >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never {count} streaming: {emulator.stats()}")


async def _in_flight(client: PipeClient, emulator: Any, uri: str, count: int) -> tuple[list[asyncio.Future], list[dict]]:
    """Put `count` requests in flight; the client's requests, and the server's it left unanswered."""
    edits: list[asyncio.Future] = []
    unanswered: list[dict] = []
    if count >= 3:
        emulator.set_faults()  # quick: this edit comes to its applyEdit, which the editor sits on
        edits.append(client.request("workspace/executeCommand", _edit(uri, 0)))
        unanswered.append(await client.queue("workspace/applyEdit").get())
        client.notify("workspace/didChangeConfiguration", {"settings": None})  # a pull, never answered
        unanswered.append(await client.queue("workspace/configuration").get())
    streaming = count - len(edits) - (len(unanswered) - len(edits))
    emulator.set_faults(tokens_per_second=4)
    edits += [client.request("workspace/executeCommand", _edit(uri, n)) for n in range(1, streaming + 1)]
    await _streaming(emulator, streaming)
    return edits, unanswered


async def _session(emulator: Any, root: Path, in_flight: int, *, index: bool) -> int:
    """One session shut down with `in_flight` requests in flight; its exit code."""
    async with served() as (client, done):
        client.auto["client/registerCapability"] = None
        assert "result" in await client.request("initialize", _initialize(root, emulator, index))
        client.notify("initialized", {})
        client.answer(await client.queue("workspace/configuration").get(), [None])
        uri = (root / "area.py").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SAMPLE}})
        edits, unanswered = await _in_flight(client, emulator, uri, in_flight)

        assert await client.request("shutdown") == {"jsonrpc": "2.0", "id": client._ids, "result": None}
        assert all(e.done() for e in edits), "shutdown answered before the requests in flight"
        assert [e.result().get("error", {}).get("code") for e in edits] == [REQUEST_CANCELLED] * len(edits)
        withdrawn = [n["params"]["id"] for n in client.notes if n["method"] == "$/cancelRequest"]
        assert withdrawn == [r["id"] for r in unanswered]
        client.notify("exit")
        await client.ended()
    return done.exit_code[0]


async def test_shutdown_with_requests_in_flight_fifty_times(emulator, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """0, 1 and 10 requests in flight, in turn, fifty sessions: each shuts down clean."""
    (tmp_path / "area.py").write_text(SAMPLE)
    caplog.set_level(logging.WARNING)
    caplog.set_level(logging.INFO, "sparkls.lsp.stdio")  # a task still running at exit
    await _session(emulator, tmp_path, 1, index=True)  # the first one loads what every session shares
    threads = set(threading.enumerate())
    counts = itertools.cycle([0, 1, 10])
    for n in range(SESSIONS):
        in_flight = next(counts)
        assert await _session(emulator, tmp_path, in_flight, index=n % 2 == 0) == 0
        for thread in set(threading.enumerate()) - threads:
            thread.join(10)  # one on its way out (a child's reaper) is not left behind
        left = {t for t in threading.enumerate() if t not in threads}
        assert not left, f"session {n} ({in_flight} in flight) left threads behind: {left}"
    problems = [r.getMessage() for r in caplog.records if r.name.startswith("sparkls.lsp") and "exit" in r.getMessage()]
    problems += [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("sparkls.lsp")]
    assert not problems, problems
