"""stdio.serve on input that is not a pipe (a file, as on Windows or in a test): the
worker-thread reader feeds the same parser and protocol, and the exit code is LSP's."""

from __future__ import annotations

import io
import json

from sparkls.lsp.rpc import encode_frame
from sparkls.lsp import build_server
from sparkls.lsp.stdio import serve


def frame(**fields) -> bytes:
    return encode_frame(json.dumps({"jsonrpc": "2.0", **fields}).encode())


INITIALIZE = frame(id=0, method="initialize", params={"capabilities": {}, "processId": None, "rootUri": None})


def replies(out: io.BytesIO) -> list[dict]:
    data, found = out.getvalue(), []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b"\r\n")[0].split(b":")[1])
        found.append(json.loads(rest[:length]))
        data = rest[length:]
    return found


class KeptBytesIO(io.BytesIO):
    def close(self) -> None:  # the protocol closes stdout at exit; keep it readable
        pass


def test_exit_without_shutdown_returns_1():
    """initialize, then exit: 1, and the initialize answer went out first."""
    out = KeptBytesIO()
    assert serve(build_server(), io.BytesIO(INITIALIZE + frame(method="exit")), out) == 1
    assert replies(out)[0]["id"] == 0


def test_end_of_input_returns_1():
    """Input ending without shutdown or exit: 1."""
    assert serve(build_server(), io.BytesIO(INITIALIZE), KeptBytesIO()) == 1


def test_a_bad_header_then_a_request_is_answered():
    """The thread reader resyncs like the pipe reader: same parser."""
    out = KeptBytesIO()
    data = INITIALIZE + b"Content-Length: nope\r\n\r\n{}" + frame(id="x", method="sparkls/none", params={})
    serve(build_server(), io.BytesIO(data), out)
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies(out)] == [(0, None), ("x", -32601)]


def test_a_task_that_will_not_end_does_not_hold_the_exit(monkeypatch, caplog):
    """A task that swallows its cancellation is named in the log and left behind: the
    server still exits (an editor waits for it), with LSP's code."""
    import asyncio
    import threading

    from sparkls.lsp import stdio

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue

    original = stdio._serve

    async def serve_with_a_stubborn_task(*args):
        asyncio.get_running_loop().create_task(stubborn(), name="stubborn")
        return await original(*args)

    monkeypatch.setattr(stdio, "_serve", serve_with_a_stubborn_task)
    monkeypatch.setattr(stdio, "EXIT_GRACE_SECONDS", 0.1)
    result: list[int] = []
    runner = threading.Thread(
        target=lambda: result.append(serve(build_server(), io.BytesIO(INITIALIZE + frame(method="exit")), KeptBytesIO())),
        daemon=True,
    )
    runner.start()
    runner.join(20)  # a liveness bound, not a timing: without the fix it never returns
    assert result == [1]
    assert "stubborn" in caplog.text
