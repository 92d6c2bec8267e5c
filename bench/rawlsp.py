"""The benchmarks' LSP client: any server behind pipes, raw JSON-RPC, and an editor buffer.

`LspProcess` spawns a server and frames JSON-RPC by hand (no client library: the client
costs the same whatever the server). One reader task per server reads every message:
a response resolves its request's future; a request from the server is answered at once
by `handlers` (`workspace/applyEdit` through the open `Buffer`s, `workspace/configuration`
with a null per item, anything else — `window/workDoneProgress/create`,
`client/registerCapability` — with null); a notification goes to its `watched` callback
and to whoever `expect`s it. `Buffer` is one open document kept as a list of lines, as
an editor keeps it: it applies `workspace/applyEdit` (refusing a stale version) and
sends `didChange`, either as the ranged edits (`full=False`) or as the whole new text
(`full=True`, what a full-sync client sends). Texts are ASCII here, so LSP columns are
string indexes.

The benchmarks that drive sparkls through typed LSP objects, as an editor would, use
`sparkls.tools.devclient` instead (pygls's client); the ones that count bytes, compare
servers or answer the server their own way use this.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sparkls.tools.devclient import SERVER_COMMAND

SPARKLS = SERVER_COMMAND  # `python -m sparkls --stdio --log-level WARNING`; PYTHONPATH picks the build
CAPABILITIES: dict[str, Any] = {
    "window": {"workDoneProgress": False},
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}, "configuration": False},
    "textDocument": {"synchronization": {"dynamicRegistration": False},
                     "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}},
}


def frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def rng(line: int, character: int, end_line: int | None = None, end_character: int | None = None) -> dict[str, Any]:
    return {"start": {"line": line, "character": character},
            "end": {"line": line if end_line is None else end_line, "character": character if end_character is None else end_character}}


def edit_command(uri: str, line: int, instruction: str, character: int = 0) -> dict[str, Any]:
    """`workspace/executeCommand` params of a `sparkls.edit` at a cursor."""
    return {"command": "sparkls.edit", "arguments": [{"uri": uri, "range": rng(line, character), "instruction": instruction}]}


def code_action(uri: str, line: int, character: int = 0, trigger: int | None = None) -> dict[str, Any]:
    """`textDocument/codeAction` params at a cursor, no diagnostics; `trigger` 1 = Invoked,
    2 = Automatic (the lightbulb), None = not said."""
    context: dict[str, Any] = {"diagnostics": []}
    if trigger is not None:
        context["triggerKind"] = trigger
    return {"textDocument": {"uri": uri}, "range": rng(line, character), "context": context}


class LspProcess:
    """One language server process; requests by id, answered by a reader task."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 1
        self.buffers: dict[str, Buffer] = {}
        self.watched: dict[str, Callable[[Any], None]] = {}  # notification method -> callback
        self.expected: list[tuple[str, Callable[[Any], bool], asyncio.Future[tuple[float, Any]]]] = []
        self.handlers: dict[str, Callable[[Any], Any]] = {  # the server's requests: method -> result
            "workspace/applyEdit": lambda params: apply_workspace_edit(self.buffers, params["edit"]),
            "workspace/configuration": lambda params: [None for _ in params.get("items", [])],
        }
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, command: list[str], *, env: dict[str, str | None] | None = None,
                    stderr: Path | None = None) -> LspProcess:
        """Start `command` with this environment plus `env` (a None value removes the
        variable); its stderr appended to the file `stderr`, else discarded."""
        environment = {**os.environ, **(env or {})}
        err = stderr.open("ab") if stderr is not None else asyncio.subprocess.DEVNULL
        proc = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
            env={k: v for k, v in environment.items() if v is not None},
        )
        return cls(proc)

    async def initialize(self, root: Path | None, options: dict[str, Any], capabilities: dict[str, Any] | None = None,
                         *, initialized: bool = True) -> dict[str, Any]:
        """`initialize` (its result returned), then `initialized` unless told not to."""
        params = {"processId": os.getpid(), "rootUri": root.as_uri() if root else None,
                  "capabilities": CAPABILITIES if capabilities is None else capabilities, "initializationOptions": options,
                  "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}] if root else None}
        result = await self.request("initialize", params)
        if initialized:
            self.notify("initialized", {})
        return result

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while (line := await out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                gone = ConnectionError("the server closed its output")
                for future in [*self.pending.values(), *(f for *_, f in self.expected)]:
                    if not future.done():
                        future.set_exception(gone)
                return
            message = json.loads(await out.readexactly(length))
            if "method" in message and "id" in message:
                handler = self.handlers.get(message["method"])
                result = handler(message.get("params") or {}) if handler is not None else None
                self.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": result}))
            elif "method" in message:
                self._notified(message["method"], message.get("params"))
            elif (future := self.pending.pop(message.get("id"), None)) is not None and not future.done():
                future.set_result(message)

    def _notified(self, method: str, params: Any) -> None:
        if (callback := self.watched.get(method)) is not None:
            callback(params)
        if self.expected:
            now = time.perf_counter()
            for entry in list(self.expected):
                wanted, test, future = entry
                if wanted == method and (future.done() or test(params)):
                    self.expected.remove(entry)
                    if not future.done():
                        future.set_result((now, params))

    def expect(self, method: str, test: Callable[[Any], bool] = lambda params: True) -> asyncio.Future[tuple[float, Any]]:
        """The first `method` notification from now on whose params pass `test`: a future
        of (its arrival, `time.perf_counter()`, and its params)."""
        future: asyncio.Future[tuple[float, Any]] = asyncio.get_running_loop().create_future()
        self.expected.append((method, test, future))
        return future

    def write(self, data: bytes) -> None:
        """Raw bytes to the server's stdin (one or more whole frames)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def notify(self, method: str, params: Any) -> None:
        self.write(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def send(self, method: str, params: Any, *, before: bytes = b"") -> asyncio.Future[dict[str, Any]]:
        """Send a request now, right behind the raw frames `before` in the same write; the
        future is its whole response message."""
        msg_id, self.next_id = self.next_id, self.next_id + 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        self.write(before + frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))
        return future

    async def request(self, method: str, params: Any) -> Any:
        message = await self.send(method, params)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result")

    async def timed(self, method: str, params: Any, *, before: bytes = b"") -> float:
        """Milliseconds from sending the request (behind `before`) to its response."""
        started = time.perf_counter()
        await self.send(method, params, before=before)
        return (time.perf_counter() - started) * 1000

    def did_open(self, uri: str, text: str, language: str = "python") -> None:
        """`didOpen` alone: the client keeps no buffer (the server's edits are not applied)."""
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})

    def open(self, uri: str, text: str, *, full: bool = False) -> Buffer:
        """`didOpen`, and a `Buffer` that takes the server's edits."""
        buffer = Buffer(self, uri, text, full=full)
        self.buffers[uri] = buffer
        self.did_open(uri, text)
        return buffer

    def status(self, field: str) -> int:
        """A `/proc/<pid>/status` figure in KiB (VmRSS, VmHWM)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def cpu_ticks(self) -> int:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    async def settle(self, quiet: float = 0.15, timeout: float = 5.0) -> None:
        """Wait until the process used no CPU tick for `quiet` seconds (background work done)."""
        deadline, last, since = time.monotonic() + timeout, self.cpu_ticks(), time.monotonic()
        while time.monotonic() < deadline:
            await asyncio.sleep(0.03)
            now = self.cpu_ticks()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return

    async def stop(self, *, kill: bool = False) -> None:
        """`shutdown` and `exit` (killed if it takes over 5 s), or `kill` at once."""
        if self.proc.returncode is None and not kill:
            try:
                await asyncio.wait_for(self.request("shutdown", None), 5)
                self.notify("exit", None)
                await asyncio.wait_for(self.proc.wait(), 5)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                pass
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


class Buffer:
    """One open document, as an editor holds it: lines, a version, applied edits."""

    def __init__(self, server: LspProcess, uri: str, text: str, *, full: bool) -> None:
        self.server, self.uri, self.full, self.version = server, uri, full, 1
        self.lines = text.splitlines(keepends=True)
        self.apply_ms: list[float] = []  # the client's own work per applied edit

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def _replace(self, r: dict[str, Any], new_text: str) -> None:
        lines = self.lines
        sl, el = r["start"]["line"], r["end"]["line"]
        head = lines[sl][: r["start"]["character"]] if sl < len(lines) else ""
        tail = lines[el][r["end"]["character"] :] if el < len(lines) else ""
        lines[sl : el + 1] = (head + new_text + tail).splitlines(keepends=True)

    def change(self, edits: list[tuple[dict[str, Any], str]]) -> None:
        """Apply `(range, text)` edits (non-overlapping, any order) and send didChange."""
        ordered = sorted(edits, key=lambda e: (e[0]["start"]["line"], e[0]["start"]["character"]), reverse=True)
        for r, new_text in ordered:
            self._replace(r, new_text)
        self.version += 1
        if self.full:
            changes: list[dict[str, Any]] = [{"text": self.text}]
        else:
            changes = [{"range": r, "text": t} for r, t in ordered]
        self.server.notify("textDocument/didChange", {"textDocument": {"uri": self.uri, "version": self.version},
                                                      "contentChanges": changes})

    def type_key(self, line: int, character: int, key: str) -> tuple[int, int]:
        """One keystroke at (line, character); returns the cursor after it."""
        self.change([(rng(line, character), key)])
        return (line + 1, 0) if key == "\n" else (line, character + 1)


def apply_workspace_edit(buffers: dict[str, Buffer], edit: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    by_uri: dict[str, list[tuple[dict[str, Any], str]]] = {}
    for change in edit.get("documentChanges") or []:
        doc = change.get("textDocument", {})
        buffer = buffers.get(doc.get("uri"))
        if buffer is None or doc.get("version") not in (None, buffer.version):
            return {"applied": False, "failureReason": "stale version or unknown document"}
        by_uri.setdefault(buffer.uri, []).extend((e["range"], e["newText"]) for e in change["edits"])
    for uri, edits in (edit.get("changes") or {}).items():
        by_uri.setdefault(uri, []).extend((e["range"], e["newText"]) for e in edits)
    for uri, edits in by_uri.items():
        buffers[uri].change(edits)
        buffers[uri].apply_ms.append((time.perf_counter() - started) * 1000)
    return {"applied": True}
