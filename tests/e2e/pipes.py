"""sparkls served in this process on a pair of pipes, and a bare LSP client for it.

`served()` runs the real `stdio.serve` in a thread of its own, on its own event loop,
as `sparkls --stdio` does, so that a test can see what the exit leaves behind in this
process (threads, tasks the exit had to abandon). `PipeClient` speaks LSP over the
pipes with nothing in between: it sends what the test says, answers the server's
requests only when told to (`answer`), and keeps every message it received.

`shut_down_with(emulator, root, n)` is one session shut down with `n` requests in
flight (tests/e2e/test_shutdown.py asserts on it, bench/shutdown.py times it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from sparkls.lsp import build_server
from sparkls.lsp.stdio import serve


@dataclass
class Served:
    thread: threading.Thread
    exit_code: list[int] = field(default_factory=list)


class PipeClient:
    """One LSP client over `reader` (the server's stdout) and `write_fd` (its stdin)."""

    def __init__(self, reader: asyncio.StreamReader, write_fd: int) -> None:
        self._reader = reader
        self._fd = write_fd
        self._ids = 0
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.asked: dict[str, asyncio.Queue[dict[str, Any]]] = {}  # the server's requests, by method
        self.notes: list[dict[str, Any]] = []  # the server's notifications
        self.auto: dict[str, Any] = {}  # method -> result: server requests answered at once
        self._reading = asyncio.ensure_future(self._read())

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        os.write(self._fd, b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None) -> asyncio.Future[dict[str, Any]]:
        """Send a request; the future is its whole response message."""
        self._ids += 1
        future = asyncio.get_running_loop().create_future()
        self._answers[self._ids] = future
        self._write({"id": self._ids, "method": method, "params": params})
        return future

    def notify(self, method: str, params: Any = None) -> None:
        self._write({"method": method, "params": params})

    def answer(self, request: dict[str, Any], result: Any) -> None:
        self._write({"id": request["id"], "result": result})

    def queue(self, method: str) -> asyncio.Queue[dict[str, Any]]:
        return self.asked.setdefault(method, asyncio.Queue())

    async def _read(self) -> None:
        while True:
            try:
                head = await self._reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return  # the server closed its stdout: it exited
            length = next(int(v) for k, _, v in (ln.partition(b":") for ln in head.split(b"\r\n")) if k.strip().lower() == b"content-length")
            message = json.loads(await self._reader.readexactly(length))
            if "method" not in message:
                future = self._answers.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message)
            elif "id" in message:
                if message["method"] in self.auto:
                    self.answer(message, self.auto[message["method"]])
                else:
                    self.queue(message["method"]).put_nowait(message)
            else:
                self.notes.append(message)

    async def ended(self) -> None:
        """Wait until the server has closed its end."""
        await self._reading


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[tuple[PipeClient, Served]]:
    """A fresh `SparkServer` on `stdio.serve` in a thread, and a client on its pipes.
    After the block the client's end is closed and the thread joined."""
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    done = Served(threading.Thread(target=lambda: None))
    loop = asyncio.get_running_loop()
    finished = loop.create_future()

    def run() -> None:
        stdin, stdout = os.fdopen(to_server_r, "rb", buffering=0), os.fdopen(from_server_w, "wb", buffering=0)
        try:
            done.exit_code.append(serve(build_server(), stdin, stdout))
        finally:
            for end in (stdin, stdout):
                with contextlib.suppress(OSError):
                    end.close()
            loop.call_soon_threadsafe(finished.set_result, None)

    done.thread = threading.Thread(target=run, name="sparkls-under-test")
    done.thread.start()
    reader = asyncio.StreamReader(limit=2**24)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(from_server_r, "rb", buffering=0))
    client = PipeClient(reader, to_server_w)
    try:
        yield client, done
    finally:
        os.close(to_server_w)
        await asyncio.wait_for(finished, 30)
        done.thread.join()
        client._reading.cancel()
        transport.close()


SAMPLE = "def area(radius):\n    a = radius * radius\n    return 3.14 * a\n"


def _initialize(root: Any, emulator: Any, index: bool) -> dict[str, Any]:
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
    """Put `count` requests in flight: from 3 on, an edit at its applyEdit and a
    configuration pull, both left unanswered; the rest edits streaming. The client's
    requests, and the server's it left unanswered."""
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


@dataclass
class ShutDown:
    exit_code: int
    shutdown_answer: dict[str, Any]
    in_flight_answers: list[dict[str, Any]]  # the client's requests in flight, as answered
    unanswered: list[Any]  # ids of the server's requests the client sat on
    withdrawn: list[Any]  # ids the server sent `$/cancelRequest` for
    shutdown_ms: float  # `shutdown` sent -> answered
    exit_ms: float  # `exit` sent -> the server's end closed


async def shut_down_with(emulator: Any, root: Any, in_flight: int, *, index: bool) -> ShutDown:
    """One session against `emulator` (a tests.conftest.EmulatorHandle), its workspace
    `root` holding area.py, shut down with `in_flight` requests in flight, then exited."""
    async with served() as (client, done):
        client.auto["client/registerCapability"] = None
        await client.request("initialize", _initialize(root, emulator, index))
        client.notify("initialized", {})
        client.answer(await client.queue("workspace/configuration").get(), [None])
        uri = (root / "area.py").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SAMPLE}})
        edits, unanswered = await _in_flight(client, emulator, uri, in_flight)
        asked = time.perf_counter()
        answer = await client.request("shutdown")
        shutdown_ms = (time.perf_counter() - asked) * 1000
        answers = [e.result() if e.done() else {"pending": True} for e in edits]
        withdrawn = [n["params"]["id"] for n in client.notes if n["method"] == "$/cancelRequest"]
        asked = time.perf_counter()
        client.notify("exit")
        await client.ended()
        exit_ms = (time.perf_counter() - asked) * 1000
    return ShutDown(done.exit_code[0], answer, answers, [r["id"] for r in unanswered], withdrawn, shutdown_ms, exit_ms)
