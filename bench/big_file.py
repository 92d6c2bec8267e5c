"""Benchmark: opening a big file never stalls the server for the other files.

A real `sparkls --stdio` (raw bytes over pipes, a minimal client that answers the
server's requests) against the unpaced emulator. A 200-line file A is open. Then:

- **idle**: `textDocument/codeAction` on A (a real request: it reads A's tree and
  comment instructions) and `sparkls.edit` on A, one at a time;
- **during a big open**: the big file B is sent (`didOpen`), a `sparkls.edit` on B's last
  function right behind it, and codeAction requests on A one after another until B's
  edit has answered: their latency is what another file sees while B is taken in;
- **time to first edit**: `didOpen` of B sent → B's `sparkls.edit` answered;
- **peak RSS** of the server process (`VmHWM`) before and after B.

B is generated Python: `--sizes` in MB (default 20, over the default
`context.max_file_bytes` of 2 MB: no tree, a line window; and 1.9, under it: parsed and
warmed in a worker thread). `--compare DIR` runs the same against the sparkls whose
`server/` is DIR (e.g. `git archive <rev> server | tar -x -C /tmp/old`), alternating.

    python bench/big_file.py [--sizes 20,1.9] [--rounds 2] [--compare DIR] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections import defaultdict
import time
from pathlib import Path
from typing import Any

from common import pct  # bench/common.py
from sparkls.tools.devclient import start_emulator

HERE = str(Path(__file__).resolve().parents[1] / "server")
KEY = "sk-bench"
A, B = "file:///bench/a.py", "file:///bench/big.py"
FIX = "REPLACE raduis WITH radius"


def frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def python_source(size: int) -> str:
    block = "def f_{k}(a, b):\n    total = a + b * {k}\n    return total\n\n\n"
    parts, total, k = [], 0, 0
    while total < size:
        piece = block.format(k=k)
        parts.append(piece)
        total, k = total + len(piece), k + 1
    return "".join(parts) + "def area(radius):\n    return 3.14 * raduis ** 2\n"


class Client:
    """Requests by id, answered by a reader task; the server's own requests answered."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 1
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, path: str, url: str) -> Client:
        env = {**os.environ, "PYTHONPATH": path}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "sparkls", "--stdio", "--log-level", "WARNING",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
        )
        client = cls(proc)
        caps = {"window": {"workDoneProgress": False}, "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}}
        options = {"fast": {"baseUrl": url, "apiKey": KEY}, "context": {"index": False}}
        await client.request("initialize", {"processId": None, "rootUri": None, "capabilities": caps,
                                             "initializationOptions": options})
        client.notify("initialized", {})
        return client

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while (line := await out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            message = json.loads(await out.readexactly(length))
            if "method" in message and "id" in message:  # the server asks: applyEdit and the like
                result = {"applied": True} if message["method"] == "workspace/applyEdit" else None
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif "id" in message and (future := self.pending.pop(message["id"], None)) is not None:
                future.set_result(message)

    def _write(self, payload: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(payload))

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        msg_id, self.next_id = self.next_id, self.next_id + 1
        future = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return (await future).get("result")

    async def timed(self, method: str, params: Any) -> float:
        started = time.perf_counter()
        await self.request(method, params)
        return (time.perf_counter() - started) * 1000

    def open(self, uri: str, text: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def stop(self) -> None:
        self.proc.kill()
        await self.proc.wait()
        self.reader.cancel()


def code_action(uri: str, line: int) -> dict[str, Any]:
    rng = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}
    return {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": [], "triggerKind": 1}}


def edit(uri: str, line: int) -> dict[str, Any]:
    rng = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}
    return {"command": "sparkls.edit", "arguments": [{"uri": uri, "range": rng, "instruction": FIX}]}


async def one_round(path: str, url: str, size_mb: float, figures: dict[str, list[float]]) -> None:
    small = python_source(6_000)
    big = python_source(int(size_mb * 1e6))
    client = await Client.start(path, url)
    try:
        client.open(A, small)
        last_a = small.count("\n") - 1
        for _ in range(5):  # warm-up
            await client.timed("textDocument/codeAction", code_action(A, 3))
        figures["idle: codeAction on A"] += [await client.timed("textDocument/codeAction", code_action(A, 3)) for _ in range(40)]
        figures["idle: sparkls.edit on A"] += [await client.timed("workspace/executeCommand", edit(A, last_a)) for _ in range(10)]
        figures["peak RSS before, MB"].append(client.peak_rss_mb())
        started = time.perf_counter()
        client.open(B, big)
        first = asyncio.ensure_future(client.request("workspace/executeCommand", edit(B, big.count("\n") - 1)))
        during = []
        while not first.done():
            during.append(await client.timed("textDocument/codeAction", code_action(A, 3)))
        result = first.result() or {}
        figures["during the open: codeAction on A"] += during
        figures["time to first edit on B, ms"].append((time.perf_counter() - started) * 1000)
        figures["first edit applied (1 = yes)"].append(1.0 if result.get("applied") else 0.0)
        await asyncio.sleep(1.0)  # background work settles
        figures["peak RSS after, MB"].append(client.peak_rss_mb())
    finally:
        await client.stop()


def show(label: str, values: list[float]) -> str:
    if not values:
        return f"{label}: -"
    if len(values) < 5:
        return f"{label}: " + ", ".join(f"{v:,.1f}" for v in values)
    return f"{label}: p50 {pct(values, 50):,.2f} / p95 {pct(values, 95):,.2f} / max {max(values):,.2f} ms (n={len(values)})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,1.9", help="sizes of B in MB, comma-separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--compare", help="the server/ directory of another sparkls to measure alongside")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    proc, url = start_emulator("--api-key", KEY)
    builds = {"this": HERE, **({"compare": args.compare} if args.compare else {})}
    report: dict[str, Any] = {}
    try:
        for size in [float(s) for s in args.sizes.split(",")]:
            for name, path in builds.items():
                report.setdefault(f"{size:g} MB", {}).setdefault(name, {})
            for _ in range(args.rounds):
                for name, path in builds.items():
                    got: defaultdict[str, list[float]] = defaultdict(list)
                    await one_round(path, url, size, got)
                    for key, values in got.items():
                        report[f"{size:g} MB"][name].setdefault(key, []).extend(values)
    finally:
        proc.terminate()
    for size, per_build in report.items():
        for name, figures in per_build.items():
            print(f"\nB = {size}, {name} build ({builds[name]})")
            for label, values in figures.items():
                print("  " + show(label, values))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
