"""Benchmark: warm before the first keystroke.

For each run, a fresh `sparkls --stdio` starts against the emulator (plain and TLS);
the client sends `initialized` and waits for the fast tier's `sparkls/status` to say
"ready" (sockets open and warmed with `generate: false`): that is the time from
`initialized` to a warm socket. Then it runs ten `sparkls.edit`s and records each one's
time to first token (from the server's summary). For contrast, a cold request: a new
connection per request (handshake, then `response.create`), timed to the first delta.

    python bench/warmup.py [--runs 10] [--json out.json]

Prints p50/p95. Timings, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import emulator, make_certificate, pct  # bench/common.py
from rawlsp import SPARKLS, LspProcess, edit_command  # bench/rawlsp.py
from sparkls.config import TierSettings
from sparkls.guard import Wire, fixed_wire
from sparkls.models.events import TextDelta, Where, response_create
from sparkls.models.transports import ssl_context_for
from sparkls.models.websocket import ResponsesSocket

SOURCE = "".join(f"def f{i}(x):\n    total = x\n    return total\n\n\n" for i in range(20))



async def one_run(url: str, ca_file: str | None) -> dict[str, Any]:
    """Start sparkls, time initialized -> ready, then ten edits' TTFT."""
    root = Path(tempfile.mkdtemp(prefix="sparkls-warm-"))
    path = root / "m.py"
    path.write_text(SOURCE)
    client = await LspProcess.spawn(SPARKLS)
    ready = client.expect("sparkls/status", lambda params: params["tiers"]["fast"]["state"] == "ready")
    fast: dict[str, Any] = {"baseUrl": url, "apiKey": "bench"}
    if ca_file:
        fast["caFile"] = ca_file
    await client.initialize(root, {"fast": fast, "context": {"index": False}}, initialized=False)
    sent = time.perf_counter()
    client.notify("initialized", {})
    warm_ms = ((await asyncio.wait_for(ready, 30))[0] - sent) * 1000
    editor = client.open(path.as_uri(), SOURCE)
    ttfts = []
    for i in range(10):  # a different function each time, so every edit changes something
        summary = await client.request("workspace/executeCommand", edit_command(editor.uri, 5 * i + 1, "REPLACE total WITH acc"))
        if not summary.get("applied"):
            raise SystemExit(f"edit {i} failed: {summary}")
        ttfts.append(summary["timings_ms"]["ttft"])
    await client.stop()
    return {"warm_ms": warm_ms, "ttft": ttfts}


async def cold_ttft(url: str, ca_file: str | None, runs: int) -> list[float]:
    """A new connection per request: handshake + response.create, to the first delta."""
    tier = TierSettings(model="gpt-5.3-codex-spark", base_url=url, ca_file=ca_file)
    prompt = fixed_wire("instructions", "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE 1 WITH 2")
    out = []
    for _ in range(runs):
        sock = ResponsesSocket(tier.websocket_url, "bench", Where("fast", tier.host, tier.model), ssl_context=ssl_context_for(tier, "fast"))
        started = time.perf_counter()
        first = None
        async for event in sock.stream(response_create(tier.model, prompt)):
            if first is None and isinstance(event, TextDelta):
                first = time.perf_counter()
        out.append(((first or time.perf_counter()) - started) * 1000)
        await sock.close()
    return out


async def measure(label: str, url: str, ca_file: str | None, runs: int) -> dict[str, Any]:
    results = [await one_run(url, ca_file) for _ in range(runs)]
    warm = [r["warm_ms"] for r in results]
    first = [r["ttft"][0] for r in results]
    tenth = [r["ttft"][9] for r in results]
    cold = await cold_ttft(url, ca_file, max(runs, 20))
    figures = {"warm": warm, "first": first, "tenth": tenth, "cold": cold}
    print(f"\n{label} ({runs} server starts; ms)")
    print(f"  {'figure':<44}{'p50':>8}{'p95':>8}")
    names = {
        "warm": "initialized -> warm pool (sparkls/status)",
        "first": "1st edit: time to first token",
        "tenth": "10th edit: time to first token",
        "cold": "cold request (new connection): TTFT",
    }
    for key, name in names.items():
        print(f"  {name:<44}{pct(figures[key], 50):>8.2f}{pct(figures[key], 95):>8.2f}")
    print(f"  1st / 10th TTFT (p50): {statistics.median(first) / statistics.median(tenth):.2f}x;"
          f" cold / warm 1st (p50): {statistics.median(cold) / statistics.median(first):.2f}x")
    return {k: {"p50": pct(v, 50), "p95": pct(v, 95)} for k, v in figures.items()}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with emulator() as emu:
        out["plain"] = await measure("plain ws://", emu.url, None, args.runs)
    if shutil.which("openssl"):
        folder = Path(tempfile.mkdtemp(prefix="sparkls-cert-"))
        cert, key = make_certificate(folder)
        with emulator("--tls-cert", str(cert), "--tls-key", str(key)) as emu:
            out["tls"] = await measure("TLS wss://", emu.url, str(cert), args.runs)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
