"""The futures pygls files for running handlers leave when they are done (protocol.py).

pygls keeps every running handler's future in `_request_futures` and removes only a
request's own entry: a notification's handler and each step of a generator handler
(`didChange`, `workspace/executeCommand`) stayed for the whole session. These tests
fail when pygls changes under the fix: when it stops keeping them (the override can
go), or when the names the override hooks move (the leak would be back).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pygls.protocol.json_rpc import JsonRPCProtocol

from sparkls.lsp import build_server


class Capture:
    """A pygls writer that keeps what is sent."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass


def msg(**fields) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


INITIALIZE = msg(id=0, method="initialize", params={"capabilities": {}, "processId": None, "rootUri": None})
URI = "file:///leak.py"


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    asyncio.set_event_loop(None)


def echo_server():
    """sparkls's server writing to a `Capture`, with a command `test.echo` that answers its argument."""
    server = build_server()
    writer = Capture()
    server.protocol.set_writer(writer)

    @server.command("test.echo")
    async def echo(ls, value: int) -> int:
        return value

    return server, writer


async def settled(protocol) -> dict:
    """Wait until every future pygls files is done (each round may start the next step)."""
    for _ in range(20):
        pending = [f for f in protocol._request_futures.values() if not f.done()]
        if not pending:
            break
        await asyncio.wait([asyncio.wrap_future(f) if not isinstance(f, asyncio.Future) else f for f in pending])
    # The futures' own done callbacks ran before `asyncio.wait`'s; one more turn of the
    # loop runs those of futures that finished in the last round.
    await asyncio.wait([asyncio.ensure_future(asyncio.sleep(0))])
    return protocol._request_futures


async def finished(protocol, future) -> None:
    """Wait for `future`, then for the callbacks scheduled with it."""
    await asyncio.wait([future])
    await asyncio.wait([asyncio.ensure_future(asyncio.sleep(0))])


def test_pygls_still_keeps_a_notification_handlers_future(loop):
    """pygls's own `_execute_handler` keeps a finished handler's future: the fix is still needed."""
    protocol = build_server().protocol

    async def handler() -> None:
        return None

    async def run() -> None:
        JsonRPCProtocol._execute_handler(protocol, "made-up-id", handler, callback=lambda f: None)
        await finished(protocol, protocol._request_futures["made-up-id"])

    loop.run_until_complete(run())
    assert "made-up-id" in protocol._request_futures, "pygls no longer keeps it: protocol.py's _execute_handler can go"


def test_our_protocol_drops_a_finished_handlers_future(loop):
    """The same call through SparkProtocol leaves nothing behind."""
    protocol = build_server().protocol

    async def handler() -> None:
        return None

    async def run() -> None:
        protocol._execute_handler("made-up-id", handler, callback=lambda f: None)
        await finished(protocol, protocol._request_futures["made-up-id"])

    loop.run_until_complete(run())
    assert protocol._request_futures == {}


def test_a_request_is_still_answered_and_then_forgotten(loop):
    """A request's future stays until pygls has answered from it (its callback runs first)."""
    server, writer = echo_server()

    async def run() -> None:
        server.protocol.receive(INITIALIZE)
        server.protocol.receive(msg(id=7, method="workspace/executeCommand", params={"command": "test.echo", "arguments": [41]}))
        await settled(server.protocol)

    loop.run_until_complete(run())
    assert writer.sent[-1] == {"jsonrpc": "2.0", "id": 7, "result": 41}
    assert server.protocol._request_futures == {}


def test_a_long_session_keeps_no_future(loop):
    """didChange, executeCommand and an async notification, 200 of each: nothing kept."""
    server, writer = echo_server()

    @server.feature("test/noted")
    async def noted(ls, params) -> None:
        return None

    async def run() -> dict:
        receive = server.protocol.receive
        receive(INITIALIZE)
        opened = {"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": "x = 0\n"}}
        receive(msg(method="textDocument/didOpen", params=opened))
        for n in range(200):
            change = {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}, "text": str(n % 10)}
            receive(msg(method="textDocument/didChange", params={"textDocument": {"uri": URI, "version": n + 2}, "contentChanges": [change]}))
            receive(msg(id=n + 1, method="workspace/executeCommand", params={"command": "test.echo", "arguments": [n]}))
            receive(msg(method="test/noted", params={"n": n}))
        return await settled(server.protocol)

    assert loop.run_until_complete(run()) == {}
    assert len([m for m in writer.sent if m.get("id") not in (None, 0)]) == 200
    assert server.documents.get(URI).text == "x = 9\n"


# -- shutdown with requests in flight ----------------------------------------------


async def bounded(work):
    """`work`, failed after 10 s rather than hung (a request that never ends)."""
    return await asyncio.wait_for(work, 10)


def waiting_server():
    """`echo_server` plus `test.wait`, a command that waits for `gate` (never set here)."""
    server, writer = echo_server()
    gate = asyncio.Event()

    @server.command("test.wait")
    async def wait(ls) -> int:
        await gate.wait()
        return 1

    return server, writer


def test_pygls_shutdown_still_iterates_the_live_futures(loop):
    """pygls's own `lsp_shutdown` cancels while iterating `_request_futures`, and a
    cancelled command's callbacks remove entries: the override is still needed."""
    from pygls.protocol import LanguageServerProtocol

    server, _ = waiting_server()

    async def run() -> None:
        server.protocol.receive(INITIALIZE)
        for n in range(3):
            server.protocol.receive(msg(id=10 + n, method="workspace/executeCommand", params={"command": "test.wait"}))
        await asyncio.sleep(0)
        steps = LanguageServerProtocol.lsp_shutdown(server.protocol)
        next(steps)  # the user's shutdown handler, not run here
        with pytest.raises(RuntimeError, match="changed size during iteration"):
            steps.send(None)

    loop.run_until_complete(bounded(run()))


def test_shutdown_cancels_the_requests_in_flight_and_answers_null(loop):
    """Ten commands in flight: each is answered "cancelled", then `shutdown` answers null."""
    server, writer = waiting_server()

    async def run() -> None:
        server.protocol.receive(INITIALIZE)
        for n in range(10):
            server.protocol.receive(msg(id=10 + n, method="workspace/executeCommand", params={"command": "test.wait"}))
        await asyncio.sleep(0)
        server.protocol.receive(msg(id=99, method="shutdown"))
        await settled(server.protocol)

    loop.run_until_complete(bounded(run()))
    answers = {m["id"]: m for m in writer.sent if m.get("id") not in (None, 0)}
    assert answers[99] == {"jsonrpc": "2.0", "id": 99, "result": None}
    assert [answers[10 + n]["error"]["code"] for n in range(10)] == [-32800] * 10
    assert list(answers)[-1] == 99  # the cancellations went first
    assert server.protocol._request_futures == {}


def test_shutdown_withdraws_our_requests_awaiting_the_editor(loop):
    """A `workspace/configuration` the editor never answered: withdrawn with
    `$/cancelRequest`, and whoever awaited it is cancelled."""
    server, writer = echo_server()

    async def run() -> BaseException | None:
        server.protocol.receive(INITIALIZE)
        asked = asyncio.ensure_future(server.protocol.send_request_async("workspace/configuration", types.ConfigurationParams(items=[])))
        await asyncio.sleep(0)
        server.protocol.receive(msg(id=99, method="shutdown"))
        await settled(server.protocol)
        await asyncio.wait([asked])
        return asked.exception() if not asked.cancelled() else None

    assert loop.run_until_complete(bounded(run())) is None  # cancelled
    request = next(m for m in writer.sent if m.get("method") == "workspace/configuration")
    assert {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request["id"]}} in writer.sent
    assert writer.sent[-1] == {"jsonrpc": "2.0", "id": 99, "result": None}


def test_a_command_that_ends_cancelled_answers_cancelled(loop):
    """A command whose work was cancelled from inside (a newer request took over) is
    answered "cancelled": pygls alone never answered it."""
    server, writer = echo_server()

    @server.command("test.superseded")
    async def superseded(ls) -> int:
        raise asyncio.CancelledError

    async def run() -> None:
        server.protocol.receive(INITIALIZE)
        server.protocol.receive(msg(id=5, method="workspace/executeCommand", params={"command": "test.superseded"}))
        await settled(server.protocol)

    loop.run_until_complete(bounded(run()))
    assert writer.sent[-1]["id"] == 5 and writer.sent[-1]["error"]["code"] == -32800
    assert server.protocol._request_futures == {}
