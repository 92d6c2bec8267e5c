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
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from common import make_certificate, pct  # bench/common.py
from sparkls.config import TierSettings
from sparkls.context.prompt import Prompt
from sparkls.tools.devclient import BufferEditor, edit_params, editor_capabilities, start_emulator, stop_session
from sparkls.models.events import TextDelta, Where, response_create
from sparkls.models.session import ssl_context_for
from sparkls.models.websocket import ResponsesSocket

SOURCE = "".join(f"def f{i}(x):\n    total = x\n    return total\n\n\n" for i in range(20))



async def one_run(url: str, ca_file: str | None) -> dict[str, Any]:
    """Start sparkls, time initialized -> ready, then ten edits' TTFT."""
    root = Path(tempfile.mkdtemp(prefix="sparkls-warm-"))
    path = root / "m.py"
    path.write_text(SOURCE)
    client = LanguageClient("bench-warmup", "1")
    editor = BufferEditor(client, path.as_uri(), SOURCE)
    ready = asyncio.get_running_loop().create_future()

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.apply(params.edit)

    @client.feature("sparkls/status")
    def status(params: Any) -> None:
        if params.tiers.fast.state == "ready" and not ready.done():
            ready.set_result(time.perf_counter())

    await client.start_io(sys.executable, "-m", "sparkls", "--stdio", "--log-level", "WARNING")
    fast: dict[str, Any] = {"baseUrl": url, "apiKey": "bench"}
    if ca_file:
        fast["caFile"] = ca_file
    await client.initialize_async(
        types.InitializeParams(
            capabilities=editor_capabilities(),
            root_uri=root.as_uri(),
            initialization_options={"fast": fast, "context": {"index": False}},
        )
    )
    sent = time.perf_counter()
    client.initialized(types.InitializedParams())
    warm_ms = (await asyncio.wait_for(ready, 30) - sent) * 1000
    editor.open()
    ttfts = []
    for i in range(10):  # a different function each time, so every edit changes something
        summary = await client.workspace_execute_command_async(edit_params(editor.uri, 5 * i + 1, "REPLACE total WITH acc"))
        if not summary.get("applied"):
            raise SystemExit(f"edit {i} failed: {summary}")
        ttfts.append(summary["timings_ms"]["ttft"])
    await stop_session(client)
    return {"warm_ms": warm_ms, "ttft": ttfts}


async def cold_ttft(url: str, ca_file: str | None, runs: int) -> list[float]:
    """A new connection per request: handshake + response.create, to the first delta."""
    tier = TierSettings(model="gpt-5.3-codex-spark", base_url=url, ca_file=ca_file)
    prompt = Prompt("instructions", "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE 1 WITH 2")
    out = []
    for _ in range(runs):
        sock = ResponsesSocket(tier.websocket_url, "bench", Where("fast", tier.host, tier.model), ssl_context=ssl_context_for(tier))
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
    proc, url = start_emulator()
    try:
        out["plain"] = await measure("plain ws://", url, None, args.runs)
    finally:
        proc.terminate()
    if shutil.which("openssl"):
        folder = Path(tempfile.mkdtemp(prefix="sparkls-cert-"))
        cert, key = make_certificate(folder)
        proc, url = start_emulator("--tls-cert", str(cert), "--tls-key", str(key))
        try:
            out["tls"] = await measure("TLS wss://", url, str(cert), args.runs)
        finally:
            proc.terminate()
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
