"""A raw-bytes LSP client for the benchmarks: any server behind pipes, and an editor buffer.

`LspProcess` spawns a server, frames JSON-RPC by hand (no client library: the client
costs the same whatever the server), answers the server's own requests (applyEdit
through a `Buffer`, the rest with `null`) and keeps the notifications it is told to
watch. `Buffer` is one open document kept as a list of lines, as an editor keeps it:
it applies `workspace/applyEdit` (refusing a stale version) and sends `didChange`,
either as the ranged edits (`full=False`) or as the whole new text (`full=True`, what
a full-sync client sends). Texts are ASCII here, so LSP columns are string indexes.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


class LspProcess:
    """One language server process; requests by id, answered by a reader task."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 1
        self.buffers: dict[str, Buffer] = {}
        self.watched: dict[str, Callable[[Any], None]] = {}  # notification method -> callback
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, command: list[str], *, env: dict[str, str] | None = None, stderr: Path | None = None) -> LspProcess:
        err = stderr.open("ab") if stderr is not None else asyncio.subprocess.DEVNULL
        proc = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
            env={**os.environ, **(env or {})},
        )
        return cls(proc)

    async def initialize(self, root: Path | None, options: dict[str, Any], capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        """`initialize` (its result returned), then `initialized`."""
        params = {"processId": os.getpid(), "rootUri": root.as_uri() if root else None,
                  "capabilities": capabilities or CAPABILITIES, "initializationOptions": options,
                  "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}] if root else None}
        result = await self.request("initialize", params)
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
                for future in self.pending.values():
                    if not future.done():
                        future.set_exception(ConnectionError("the server closed its output"))
                return
            message = json.loads(await out.readexactly(length))
            if "method" in message and "id" in message:
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": self._answer(message)})
            elif "method" in message:
                if (callback := self.watched.get(message["method"])) is not None:
                    callback(message.get("params"))
            elif (future := self.pending.pop(message.get("id"), None)) is not None and not future.done():
                future.set_result(message)

    def _answer(self, message: dict[str, Any]) -> Any:
        if message["method"] == "workspace/applyEdit":
            return apply_workspace_edit(self.buffers, message["params"]["edit"])
        if message["method"] == "workspace/configuration":
            return [None for _ in message["params"].get("items", [])]
        return None

    def _write(self, payload: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(payload))

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def send(self, method: str, params: Any) -> asyncio.Future[dict[str, Any]]:
        """Send a request now; the future is its whole response message."""
        msg_id, self.next_id = self.next_id, self.next_id + 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return future

    async def request(self, method: str, params: Any) -> Any:
        message = await self.send(method, params)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result")

    def open(self, uri: str, text: str, *, full: bool = False) -> Buffer:
        buffer = Buffer(self, uri, text, full=full)
        self.buffers[uri] = buffer
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
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

    async def stop(self) -> None:
        if self.proc.returncode is None:
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
