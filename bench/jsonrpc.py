"""Benchmark: what the stdio reader and the JSON-RPC layer cost, end to end, in raw bytes.

A real `sparkls --stdio` behind pipes, no LSP client library, no model:

- **round trip**: a cheap real request (`textDocument/codeAction` on a document that is
  not open: pygls structures the params, the handler returns `[]`) sent one at a time;
- **typing burst**: on an open 5,000-line file, 200 one-character `didChange`
  notifications written at once, then one request: the time until it is answered;
- **big didOpen**: a 10 MB file opened, then one request: the time until it is answered;
- **in process, CPU per message** (`--in-process`): the same typing burst read and
  dispatched inside one process, no pipes, on a 50-line file: pygls's own reader (`run_async` over an
  asyncio StreamReader, what sparkls used before) against sparkls's (`FrameParser`,
  then the gate, then pygls's `handle_message`), in CPU microseconds per didChange.

    python bench/jsonrpc.py [--rounds 3] [--pings 1000] [--bursts 20] [--compare DIR] [--in-process] [--json out.json]

`--compare DIR` also measures the sparkls whose sources are in DIR (for example the
`server/` of `git archive HEAD~1`), alternating with this tree round by round so
machine drift hits both alike. Prints p50/p95 in ms. Timings, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from rawlsp import SPARKLS, LspProcess, code_action, frame, rng  # bench/rawlsp.py

HERE = str(Path(__file__).resolve().parents[1] / "server")
URI = "file:///bench/big.py"
SMALL_URI = "file:///bench/typing.py"


PING = code_action("file:///bench/not-open.py", 0)  # a cheap real request: the document is not open


def did_open(uri: str, text: str) -> bytes:
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    return frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}})


def did_change(uri: str, version: int, line: int) -> bytes:
    change = {"range": rng(line, 0), "text": "x"}
    params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
    return frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params})


def source(lines: int) -> str:
    block = "def f_{k}(a, b):\n    total = a + b * {k}\n    return total\n\n\n"
    out, k = [], 0
    while len(out) < lines:
        out.extend(block.format(k=k).splitlines(keepends=True))
        k += 1
    return "".join(out[:lines])


async def start(path: str) -> LspProcess:
    """sparkls from `path` (PYTHONPATH), no key in its environment, `initialize` answered
    (no `initialized`: it connects to no model)."""
    server = await LspProcess.spawn(SPARKLS, env={"PYTHONPATH": path, "OPENAI_API_KEY": None})
    await server.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    return server


async def timed_ping(server: LspProcess, before: bytes = b"") -> float:
    """A ping written right behind `before`: ms until it is answered."""
    return await server.timed("textDocument/codeAction", PING, before=before)


async def measure(path: str, args: argparse.Namespace, figures: dict[str, list[float]]) -> None:
    server = await start(path)
    try:
        for _ in range(20):  # warm-up
            await timed_ping(server)
        figures["round trip"] += [await timed_ping(server) for _ in range(args.pings)]
        await timed_ping(server, did_open(SMALL_URI, source(5000)))
        version = 1
        for _ in range(args.bursts):
            burst = b"".join(did_change(SMALL_URI, version + i + 1, (i * 37) % 5000) for i in range(200))
            version += 200
            figures["typing burst (200 changes)"].append(await timed_ping(server, burst))
        for _ in range(2):
            figures["big didOpen (10 MB)"].append(await timed_ping(server, did_open(URI, BIG)))
    finally:
        await server.stop(kill=True)


BIG = source(10 * 2**20 // 40)


async def in_process(rounds: int) -> dict[str, list[float]]:
    """CPU µs per didChange through each reader, in this process (this tree's sparkls)."""
    import threading

    from pygls.io_ import run_async

    from sparkls.lsp.rpc import FrameParser
    from sparkls.lsp import build_server

    class Sink:
        def write(self, data: bytes) -> None:
            pass

        def close(self) -> None:
            pass

    def fresh():
        server = build_server()
        server.protocol.set_writer(Sink())
        params = {"processId": None, "rootUri": None, "capabilities": {}}
        server.protocol.receive(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}).encode())
        server.documents.open(SMALL_URI, source(50), 1)  # small: the handler's share stays small
        return server

    burst = b"".join(did_change(SMALL_URI, i + 2, (i * 7) % 50) for i in range(200))
    figures: dict[str, list[float]] = {"pygls run_async": [], "sparkls FrameParser + gate": []}
    for _ in range(rounds * 10):
        server = fresh()
        stream = asyncio.StreamReader()
        stream.feed_data(burst)
        stream.feed_eof()
        start = time.process_time()
        await run_async(threading.Event(), stream, server.protocol)
        figures["pygls run_async"].append((time.process_time() - start) / 200 * 1e6)
        server, parser = fresh(), FrameParser()
        start = time.process_time()
        for at in range(0, len(burst), 65536):
            for body in parser.feed(burst[at : at + 65536]):
                server.protocol.receive(body)
        figures["sparkls FrameParser + gate"].append((time.process_time() - start) / 200 * 1e6)
    return figures


def summary(values: list[float]) -> str:
    q = statistics.quantiles(values, n=20) if len(values) > 1 else values * 19
    return f"p50 {statistics.median(values):8.3f}   p95 {q[18]:8.3f}   (n={len(values)})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pings", type=int, default=1000)
    parser.add_argument("--bursts", type=int, default=20)
    parser.add_argument("--compare", help="the server/ directory of another sparkls to measure alongside")
    parser.add_argument("--in-process", action="store_true", help="also compare the two readers inside one process")
    parser.add_argument("--json", help="write the raw figures here")
    args = parser.parse_args()
    builds = {"this tree": HERE, **({"compare": args.compare} if args.compare else {})}
    results: dict[str, dict[str, list[float]]] = {
        name: {"round trip": [], "typing burst (200 changes)": [], "big didOpen (10 MB)": []} for name in builds
    }
    for _ in range(args.rounds):
        for name, path in builds.items():
            await measure(path, args, results[name])
    for name, figures in results.items():
        print(f"{name} ({builds[name]}), ms:")
        for figure, values in figures.items():
            print(f"  {figure:28s} {summary(values)}")
    if args.in_process:
        sys.path.insert(0, HERE)
        figures = await in_process(args.rounds)
        print("in process, CPU µs per didChange (reading + dispatch + the handler):")
        for figure, values in figures.items():
            print(f"  {figure:28s} {summary(values)}")
        results["in process"] = figures
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
