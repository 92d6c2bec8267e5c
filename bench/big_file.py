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
from collections import defaultdict
import time
from pathlib import Path
from typing import Any

from common import emulator, pct  # bench/common.py
from rawlsp import SPARKLS, LspProcess, code_action, edit_command  # bench/rawlsp.py

HERE = str(Path(__file__).resolve().parents[1] / "server")
KEY = "sk-bench"
A, B = "file:///bench/a.py", "file:///bench/big.py"
FIX = "REPLACE raduis WITH radius"


def python_source(size: int) -> str:
    block = "def f_{k}(a, b):\n    total = a + b * {k}\n    return total\n\n\n"
    parts, total, k = [], 0, 0
    while total < size:
        piece = block.format(k=k)
        parts.append(piece)
        total, k = total + len(piece), k + 1
    return "".join(parts) + "def area(radius):\n    return 3.14 * raduis ** 2\n"


async def start(path: str, url: str) -> LspProcess:
    """sparkls from `path` (PYTHONPATH), initialized; it is told its edits were applied
    (the client keeps no buffers and sends no didChange)."""
    server = await LspProcess.spawn(SPARKLS, env={"PYTHONPATH": path})
    server.handlers["workspace/applyEdit"] = lambda params: {"applied": True}
    caps = {"window": {"workDoneProgress": False}, "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}}
    options = {"fast": {"baseUrl": url, "apiKey": KEY}, "context": {"index": False}}
    await server.request("initialize", {"processId": None, "rootUri": None, "capabilities": caps,
                                        "initializationOptions": options})
    server.notify("initialized", {})
    return server


def peak_rss_mb(server: LspProcess) -> float:
    return server.status("VmHWM") / 1024 or float("nan")


async def one_round(path: str, url: str, size_mb: float, figures: dict[str, list[float]]) -> None:
    small = python_source(6_000)
    big = python_source(int(size_mb * 1e6))
    client = await start(path, url)
    lightbulb = code_action(A, 3, trigger=1)
    try:
        client.did_open(A, small)
        last_a = small.count("\n") - 1
        for _ in range(5):  # warm-up
            await client.timed("textDocument/codeAction", lightbulb)
        figures["idle: codeAction on A"] += [await client.timed("textDocument/codeAction", lightbulb) for _ in range(40)]
        figures["idle: sparkls.edit on A"] += [await client.timed("workspace/executeCommand", edit_command(A, last_a, FIX))
                                               for _ in range(10)]
        figures["peak RSS before, MB"].append(peak_rss_mb(client))
        started = time.perf_counter()
        client.did_open(B, big)
        first = client.send("workspace/executeCommand", edit_command(B, big.count("\n") - 1, FIX))
        during = []
        while not first.done():
            during.append(await client.timed("textDocument/codeAction", lightbulb))
        result = first.result().get("result") or {}
        figures["during the open: codeAction on A"] += during
        figures["time to first edit on B, ms"].append((time.perf_counter() - started) * 1000)
        figures["first edit applied (1 = yes)"].append(1.0 if result.get("applied") else 0.0)
        await asyncio.sleep(1.0)  # background work settles
        figures["peak RSS after, MB"].append(peak_rss_mb(client))
    finally:
        await client.stop(kill=True)


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
    builds = {"this": HERE, **({"compare": args.compare} if args.compare else {})}
    report: dict[str, Any] = {}
    with emulator("--api-key", KEY) as emu:
        for size in [float(s) for s in args.sizes.split(",")]:
            for name, path in builds.items():
                report.setdefault(f"{size:g} MB", {}).setdefault(name, {})
            for _ in range(args.rounds):
                for name, path in builds.items():
                    got: defaultdict[str, list[float]] = defaultdict(list)
                    await one_round(path, emu.url, size, got)
                    for key, values in got.items():
                        report[f"{size:g} MB"][name].setdefault(key, []).extend(values)
    for size, per_build in report.items():
        for name, figures in per_build.items():
            print(f"\nB = {size}, {name} build ({builds[name]})")
            for label, values in figures.items():
                print("  " + show(label, values))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
