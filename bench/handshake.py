"""Benchmark: what a persistent WebSocket saves under real network latency, with TLS.

On loopback a handshake costs almost nothing, so the requests go through
`latency_proxy.py` (its own process; each direction delayed RTT/2 per chunk, each new
connection one RTT) at 20 and 80 ms RTT to the emulator serving TLS (a self-signed
P-256 certificate made with the openssl CLI), with the client allowing TLS 1.3 (a
one-round-trip handshake) and, to show an older service, at most TLS 1.2 (two round
trips). sparkls's real clients, round-robin, one request each per round, a small
prompt whose reply is a 3-line region:

  (a) `ResponsesSocket`, warm: connected and warmed (`generate: false`) before timing;
  (b) `HTTPStreamer(keep_alive=True)`: one kept-alive SSE connection, opened before timing;
  (c) a new HTTPS connection per request: a new `HTTPStreamer(keep_alive=False)` (built
      before the timed span: building an httpx client is not the network);
  (d) a new WebSocket per request: a new `ResponsesSocket`, `connect()` then the request.

Figure: overhead = time to first token (the call to the first text delta) minus the
model's own time to first token (the emulator's `delay_ms`, 0 by default), p50 / p95;
and the ratio warm WebSocket ÷ new connection per request (target ≤ 0.2). Without the
proxy, (a) is the emulator's own time to first token on loopback (printed too).

    python bench/handshake.py [--rtts 20,80] [--tls 1.3,1.2] [--requests 30] [--warmup 3] [--delay-ms 0] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import sparkls
from common import emulator, make_certificate, pct, rtts  # bench/common.py
from sparkls.guard import Wire, fixed_wire
from sparkls.models.events import Completed, Event, TextDelta, Where, response_create, responses_body
from sparkls.models.http import HTTPStreamer
from sparkls.models.websocket import ResponsesSocket

MODEL = "gpt-5.3-codex-spark"
API_KEY = "sk-bench-handshake"
INSTRUCTIONS = "Answer with the complete new text of the editable region in one fenced code block."
PROMPT = fixed_wire(
    INSTRUCTIONS,
    "File: bench.py\n\nExcerpt (lines 1-3):\n```python\n<|editable_region_start|>\n"
    "def a(x):\n    y = a(x - 1)\n    return y\n<|editable_region_end|>\n```\n\n"
    "Instruction: REPLACE a WITH b\n",
)
ROWS = {
    "ws_warm": "(a) WebSocket, warm",
    "sse_keepalive": "(b) SSE, kept-alive connection",
    "https_new": "(c) new HTTPS connection per request",
    "ws_new": "(d) new WebSocket per request",
}


async def first_token_ms(events: AsyncIterator[Event], started: float) -> float:
    """Milliseconds from `started` to the first text delta; the stream is read to its end."""
    first, completed = None, False
    async for event in events:
        if first is None and isinstance(event, TextDelta):
            first = time.perf_counter()
        completed = completed or isinstance(event, Completed)
    if first is None or not completed:
        raise RuntimeError("the stream ended without text or without completing")
    return (first - started) * 1000


class Paths:
    """sparkls's request paths to one API root (through the proxy or not)."""

    def __init__(self, base_url: str, ctx: ssl.SSLContext) -> None:
        self.base_url, self.ctx = base_url, ctx
        self.where = Where("fast", base_url.split("://", 1)[1].split("/", 1)[0], MODEL)
        self.ws_url = "wss" + base_url[len("https"):] + "/responses"
        self.message, self.body = response_create(MODEL, PROMPT), responses_body(MODEL, PROMPT)
        self.sock = ResponsesSocket(self.ws_url, API_KEY, self.where, ssl_context=ctx)
        self.kept = self.streamer(keep_alive=True)

    def streamer(self, *, keep_alive: bool) -> HTTPStreamer:
        return HTTPStreamer(self.base_url, API_KEY, self.where, api="responses", verify=self.ctx, keep_alive=keep_alive)

    async def open(self) -> None:
        await self.sock.connect()
        await self.sock.warm(MODEL, fixed_wire(INSTRUCTIONS))
        await self.sse_keepalive()  # opens the kept-alive connection

    async def ws_warm(self) -> float:
        return await first_token_ms(self.sock.stream(self.message), time.perf_counter())

    async def sse_keepalive(self) -> float:
        return await first_token_ms(self.kept.stream(self.body), time.perf_counter())

    async def https_new(self) -> float:
        streamer = self.streamer(keep_alive=False)
        try:
            return await first_token_ms(streamer.stream(self.body), time.perf_counter())
        finally:
            await streamer.aclose()

    async def ws_new(self) -> float:
        sock = ResponsesSocket(self.ws_url, API_KEY, self.where, ssl_context=self.ctx)
        try:
            started = time.perf_counter()
            await sock.connect()
            return await first_token_ms(sock.stream(self.message), started)
        finally:
            await sock.close()

    async def close(self) -> None:
        await self.sock.close()
        await self.kept.aclose()


async def measure(base_url: str, ctx: ssl.SSLContext, rounds: int, warmup: int, delay_ms: float) -> dict[str, Any]:
    paths = Paths(base_url, ctx)
    samples: dict[str, list[float]] = {key: [] for key in ROWS}
    try:
        await paths.open()
        for i in range(warmup + rounds):
            for key in ROWS:
                ms = await getattr(paths, key)()
                if i >= warmup:
                    samples[key].append(ms - delay_ms)
    finally:
        await paths.close()
    figures: dict[str, Any] = {k: {"p50": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for k, v in samples.items()}
    figures["ratio_ws_warm_to_https_new_p50"] = figures["ws_warm"]["p50"] / figures["https_new"]["p50"]
    figures["ratio_ws_warm_to_sse_keepalive_p50"] = figures["ws_warm"]["p50"] / figures["sse_keepalive"]["p50"]
    return figures


def report(rtt: str, figures: dict[str, Any]) -> None:
    print(f"\n{rtt}: overhead = time to first token - the model's own, ms")
    print(f"  {'path':<40}{'p50':>8}{'p95':>8}{'n':>5}")
    for key, label in ROWS.items():
        row = figures[key]
        print(f"  {label:<40}{row['p50']:>8.1f}{row['p95']:>8.1f}{row['n']:>5}")
    print(f"  warm WebSocket / new HTTPS connection (p50): {figures['ratio_ws_warm_to_https_new_p50']:.3f} (target <= 0.2);"
          f" warm WebSocket / kept-alive SSE: {figures['ratio_ws_warm_to_sse_keepalive_p50']:.3f}")


def client_context(cert: Path, version: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(cert))
    if version == "1.2":
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2  # a 2-round-trip handshake, as older services need
    return ctx


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"openssl": ssl.OPENSSL_VERSION, "delay_ms": args.delay_ms}
    with tempfile.TemporaryDirectory(prefix="sparkls-bench-handshake-") as folder:
        cert, key = make_certificate(Path(folder))
        with emulator("--api-key", API_KEY, "--tls-cert", str(cert), "--tls-key", str(key),
                      "--delay-ms", str(args.delay_ms)) as emu:
            for version in args.tls.split(","):
                ctx = client_context(cert, version)
                for rtt, url in emu.networks(rtts(args.rtts)):
                    name = f"TLS {version}, " + ("loopback, no proxy" if rtt is None else f"RTT {rtt:g} ms")
                    results[name] = await measure(url, ctx, args.requests, args.warmup, args.delay_ms)
                    report(name, results[name])
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtts", default="20,80", help="round-trip times in ms, comma-separated")
    parser.add_argument("--requests", type=int, default=30, help="timed requests per path and RTT")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--delay-ms", type=int, default=0, help="the emulator's own time to first token")
    parser.add_argument("--tls", default="1.3,1.2", help="TLS versions the client allows at most, comma-separated")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if shutil.which("openssl") is None:
        print("skipped: the openssl command is not on PATH (needed for the TLS certificate)")
        return 0
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    print(f"sparkls from {Path(sparkls.__file__).resolve().parents[1]} (this checkout: {head.stdout.strip()}); "
          f"python {sys.version.split()[0]}, {ssl.OPENSSL_VERSION}, emulator over TLS, delay_ms {args.delay_ms}")
    results = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
