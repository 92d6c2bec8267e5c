"""JSON-RPC and the LSP lifecycle, spoken in raw bytes to the real `sparkls --stdio`.

No LSP client library here: it would frame messages for us and hide exactly the bugs
these tests look for. Each test writes bytes to the server's stdin (a pipe, as editors
use) and reads what comes back; "nothing else was sent" is checked by a sentinel
request sent last, whose answer comes after anything the earlier input caused.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from sparkls.lsp.rpc import MAX_CONTENT_LENGTH

COMMAND = [sys.executable, "-m", "sparkls", "--stdio"]
TIMEOUT = 30  # seconds: a bound on a hang, not a measurement


def frame(payload: Any) -> bytes:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(method: str, msg_id: Any, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    return frame(message if params is None else {**message, "params": params})


def notification(method: str, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "method": method}
    return frame(message if params is None else {**message, "params": params})


INITIALIZE = request("initialize", 0, {"processId": None, "rootUri": None, "capabilities": {}})
SHUTDOWN = request("shutdown", "shutdown")
EXIT = notification("exit")
SENTINEL = request("sparkls/sentinel", "sentinel", {})
URI = "file:///nowhere/a.py"
DID_OPEN = notification("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": "x = 1\n"}})
DID_CHANGE = notification("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "y = 2\n"}]})


class RawServer:
    """The real server behind pipes; stderr goes to a file (a full pipe would stall it)."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr: Path) -> None:
        self.proc = proc
        self.stderr = stderr

    @classmethod
    async def start(cls, tmp_path: Path) -> RawServer:
        stderr = tmp_path / "stderr.log"
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        with stderr.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                *COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err, env=env
            )
        return cls(proc, stderr)

    async def send(self, *chunks: bytes) -> None:
        for chunk in chunks:
            self.proc.stdin.write(chunk)
            await self.proc.stdin.drain()

    async def message(self) -> dict[str, Any]:
        length = None
        while (line := await self.proc.stdout.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert length is not None, "the server's output ended or had no Content-Length"
        return json.loads(await self.proc.stdout.readexactly(length))

    async def until(self, msg_id: Any) -> list[dict[str, Any]]:
        """Every message up to and including the response to `msg_id`."""
        seen: list[dict[str, Any]] = []
        async with asyncio.timeout(TIMEOUT):
            while not (seen and "method" not in seen[-1] and seen[-1].get("id") == msg_id):
                seen.append(await self.message())
        return seen

    async def exit_code(self) -> int:
        async with asyncio.timeout(TIMEOUT):
            return await self.proc.wait()

    def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()


@pytest.fixture
async def server(tmp_path):
    raw = await RawServer.start(tmp_path)
    yield raw
    raw.kill()
    await raw.proc.wait()


async def initialized(server: RawServer) -> None:
    await server.send(INITIALIZE)
    await server.until(0)


def popups(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("method") == "window/showMessage"]


def logs(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("method") == "window/logMessage" and text in m["params"]["message"]]


async def test_a_request_before_initialize_is_server_not_initialized(server):
    """-32002 for a request sent before initialize."""
    await server.send(request("textDocument/codeAction", 1, {}))
    (answer,) = await server.until(1)
    assert answer["error"]["code"] == -32002


async def test_a_notification_before_initialize_is_dropped(server):
    """A didOpen before initialize is not handled: a later didChange finds no document."""
    await server.send(DID_OPEN, INITIALIZE, DID_CHANGE, SENTINEL)
    assert logs(await server.until("sentinel"), "not open")


async def test_a_request_after_shutdown_is_an_invalid_request(server):
    """After shutdown, requests are answered -32600."""
    await initialized(server)
    await server.send(SHUTDOWN)
    await server.until("shutdown")
    await server.send(request("textDocument/codeAction", 2, {}))
    (answer,) = await server.until(2)
    assert answer["error"]["code"] == -32600


async def test_a_notification_after_shutdown_is_ignored(server):
    """After shutdown a didChange is not handled (it would log "not open")."""
    await initialized(server)
    await server.send(SHUTDOWN)
    await server.until("shutdown")
    await server.send(DID_CHANGE, SENTINEL)
    seen = await server.until("sentinel")
    assert not logs(seen, "not open") and seen[-1]["error"]["code"] == -32600


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], 1.5, True], ids=["object", "array", "float", "bool"])
async def test_an_id_that_is_not_a_string_or_integer_is_an_invalid_request(server, bad_id):
    """-32600 with id null, never -32603 "unhashable type", and no popup."""
    await initialized(server)
    await server.send(request("textDocument/codeAction", bad_id, {}), SENTINEL)
    seen = await server.until("sentinel")
    assert [(m["id"], m["error"]["code"]) for m in seen[:-1]] == [(None, -32600)]


async def test_invalid_params_are_answered_naming_the_method(server):
    """-32602 to the request, with the method in the message, and no popup."""
    await initialized(server)
    await server.send(request("textDocument/codeAction", 5, {"x": 1}), SENTINEL)
    seen = await server.until("sentinel")
    answer = seen[0]
    assert answer["id"] == 5 and answer["error"]["code"] == -32602
    assert "textDocument/codeAction" in answer["error"]["message"]
    assert not popups(seen)


async def test_an_unknown_request_is_method_not_found(server):
    """-32601 for a method sparkls does not serve."""
    await initialized(server)
    await server.send(request("sparkls/nothing", 6))
    (answer,) = await server.until(6)
    assert answer["error"]["code"] == -32601


@pytest.mark.parametrize("method", ["sparkls/nothing", "$/somethingNew"])
async def test_an_unknown_notification_is_ignored_silently(server, method):
    """No answer and nothing else: the sentinel's answer is the only message."""
    await initialized(server)
    await server.send(notification(method, {}), SENTINEL)
    assert len(await server.until("sentinel")) == 1


BAD_HEADERS = {
    "garbage before Content-Length": b"garbage",
    "a garbage line": b"stray output from somewhere\r\n",
    "a header without Content-Length": b"Content-Type: application/json\r\n\r\n{}",
    "a non-numeric Content-Length": b"Content-Length: abc\r\n\r\n{}",
    "a negative Content-Length": b"Content-Length: -5\r\n\r\n{}",
}


@pytest.mark.parametrize("bad", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
async def test_the_reader_resyncs_after_a_bad_header(server, bad):
    """After a bad header the next well-framed request is answered, and nothing else is sent."""
    await initialized(server)
    await server.send(bad, SENTINEL)
    seen = await server.until("sentinel")
    assert [m["id"] for m in seen] == ["sentinel"]


LYING_LENGTHS = {
    "an absurd Content-Length": b"Content-Length: 99999999999\r\n\r\n",
    "a length over the limit with no such body": b"Content-Length: %d\r\n\r\n" % (MAX_CONTENT_LENGTH + 1),
    "a garbage length": b"Content-Length: 12abc\r\n\r\n{}",
    "a body shorter than announced": b"Content-Length: 4000\r\n\r\n" + json.dumps({"jsonrpc": "2.0", "id": 8, "method": "shutdown"}).encode(),
    "a length ending inside the next header": b"Content-Length: 20\r\n\r\n{}",
}


@pytest.mark.parametrize("bad", LYING_LENGTHS.values(), ids=LYING_LENGTHS.keys())
async def test_a_length_that_lies_never_swallows_the_session(server, bad):
    """The next well-framed request after a wrong Content-Length is answered, and so is the one after."""
    await initialized(server)
    await server.send(bad, request("sparkls/nothing", "next"), SENTINEL)
    seen = await server.until("sentinel")
    assert [m["id"] for m in seen] == ["next", "sentinel"]
    await server.send(SHUTDOWN)  # the skipped shutdown (a body cut short) was not handled
    await server.until("shutdown")
    await server.send(EXIT)
    assert await server.exit_code() == 0


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak RSS from /proc")
async def test_a_message_over_the_limit_is_skipped_without_holding_it(server):
    """A Content-Length above the limit: its bytes are passed over, not buffered, and serving goes on."""
    await initialized(server)
    before = peak_rss(server.proc.pid)
    size = MAX_CONTENT_LENGTH + 1
    await server.send(b"Content-Length: %d\r\n\r\n" % size)
    chunk = b"x" * 2**20
    for _ in range(size // len(chunk)):
        await server.send(chunk)
    await server.send(b"x" * (size % len(chunk)), SENTINEL)
    seen = await server.until("sentinel")
    assert [m["id"] for m in seen] == ["sentinel"]
    assert peak_rss(server.proc.pid) - before < MAX_CONTENT_LENGTH // 4


async def test_a_body_that_is_not_json_is_a_parse_error(server):
    """-32700 with id null, then serving goes on."""
    await initialized(server)
    await server.send(frame(b"{not json"), SENTINEL)
    seen = await server.until("sentinel")
    assert [(m["id"], m.get("error", {}).get("code")) for m in seen] == [(None, -32700), ("sentinel", -32601)]


MALFORMED = {
    "not an object": b"42",
    "a batch": json.dumps([{"jsonrpc": "2.0", "id": 9, "method": "shutdown"}]).encode(),
    "jsonrpc 1.0": json.dumps({"jsonrpc": "1.0", "id": 9, "method": "shutdown"}).encode(),
    "neither method nor id": json.dumps({"jsonrpc": "2.0", "foo": 1}).encode(),
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_message_is_an_invalid_request(server, body):
    """-32600 (nothing in it handled: a batched shutdown does not shut down), and no popup."""
    await initialized(server)
    await server.send(frame(body), SENTINEL)
    seen = await server.until("sentinel")
    assert [m.get("error", {}).get("code") for m in seen] == [-32600, -32601]


async def test_protocol_noise_is_never_a_popup(server):
    """Every kind of bad input in one session: answers and log lines, no window/showMessage."""
    await initialized(server)
    noise = [request("textDocument/codeAction", {"a": 1}, {}), request("textDocument/codeAction", 7, {"x": 1})]
    noise += [frame(body) for body in MALFORMED.values()] + list(BAD_HEADERS.values()) + [frame(b"{oops")]
    noise += [notification("textDocument/didChange", {"bad": True}), notification("$/unknown", {}), frame(b'{"jsonrpc":"2.0","id":3}')]
    await server.send(*noise, SENTINEL)
    assert not popups(await server.until("sentinel"))


async def test_exit_without_shutdown_exits_1(server):
    """LSP: exit without a prior shutdown ends the process with code 1."""
    await initialized(server)
    await server.send(EXIT)
    assert await server.exit_code() == 1


async def test_exit_after_shutdown_exits_0(server):
    """shutdown, then exit: code 0."""
    await initialized(server)
    await server.send(SHUTDOWN)
    await server.until("shutdown")
    await server.send(EXIT)
    assert await server.exit_code() == 0


async def test_end_of_input_without_shutdown_exits_1_without_a_traceback(server):
    """The editor closing stdin ends the process: code 1, nothing but log lines on stderr."""
    await initialized(server)
    server.proc.stdin.close()
    assert await server.exit_code() == 1
    assert "Traceback" not in server.stderr.read_text()


async def test_end_of_input_after_shutdown_exits_0(server):
    """After shutdown, closing stdin is a clean end."""
    await initialized(server)
    await server.send(SHUTDOWN)
    await server.until("shutdown")
    server.proc.stdin.close()
    assert await server.exit_code() == 0
