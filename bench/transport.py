"""Benchmark: what one request costs on each of sparkls's transports, with TLS and without.

Against the unpaced emulator (its own process, loopback), a small fixed prompt whose
reply is a 3-line region (~20 deltas), so the time measured is per-request overhead,
not streaming. Each mode — plain (http/ws) and TLS (https/wss, a self-signed
certificate made with the openssl CLI) — times, per request:

  (a) WebSocket, warm: one `ResponsesSocket`, connected once; `stream()` until Completed.
  (b) SSE, kept-alive: one `HTTPStreamer(keep_alive=True)` reused for every request.
  (c) SSE, new connection: a new `HTTPStreamer(keep_alive=False)` per request, so each
      request pays TCP (+ TLS) set-up. The streamer is built before and closed after
      the timed span: building an httpx client is not connection set-up (its cost is
      printed on its own line).
  (d) WebSocket connect: a new `ResponsesSocket`: `connect()` (TCP + TLS + upgrade),
      then `warm()` (a `generate: false` request), timed separately and together.

(a), (b) and (c) run round-robin, one request each per round, so drift on a shared
machine touches all three alike. Prints p50 / p95 in ms and the ratios a/c and a/b at
p50, and how many TCP connections (b) opened (from the emulator's counters: 1 if its
connection really is kept alive). Figures, not assertions.

    python bench/transport.py [--requests 200] [--warmup 10] [--connects 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import ssl
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from common import emulator, make_certificate, pct  # bench/common.py
from sparkls.guard import Wire, fixed_wire
from sparkls.models.events import Completed, TextDelta, Where, response_create, responses_body
from sparkls.models.http import HTTPStreamer
from sparkls.models.websocket import ResponsesSocket

MODEL = "gpt-5.3-codex-spark"
API_KEY = "sk-bench-transport"
INSTRUCTIONS = "Answer with the complete new text of the editable region in one fenced code block."
PROMPT = fixed_wire(
    INSTRUCTIONS,
    "File: bench.py\n\nExcerpt (lines 1-3):\n```python\n<|editable_region_start|>\n"
    "def a(x):\n    y = a(x - 1)\n    return y\n<|editable_region_end|>\n```\n\n"
    "Instruction: REPLACE a WITH b\n",
)
EXPECTED_REPLY = "```\ndef b(x):\n    y = b(x - 1)\n    return y\n```"
ROWS = {
    "ws_warm": "(a) WebSocket, warm",
    "sse_keepalive": "(b) SSE, kept-alive connection",
    "sse_new_connection": "(c) SSE, new connection per request",
    "sse_client_build": "    building a new HTTPStreamer (not in c)",
    "ws_connect": "(d) WebSocket connect (TCP [+TLS] + upgrade)",
    "ws_connect_warm": "(d) WebSocket connect + warm()",
}



async def _timed(events: Any) -> float:
    """Milliseconds to read a stream to its end (generators start on first read)."""
    started, parts, completed = time.perf_counter(), [], False
    async for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        completed = completed or isinstance(event, Completed)
    elapsed = (time.perf_counter() - started) * 1000
    if not completed or "".join(parts) != EXPECTED_REPLY:
        raise RuntimeError(f"unexpected reply {''.join(parts)!r} (completed: {completed})")
    return elapsed


class Transports:
    """The request paths against one emulator, each timed in ms."""

    def __init__(self, base_url: str, ctx: ssl.SSLContext | None) -> None:
        self.where = Where("fast", base_url.split("://", 1)[1].split("/", 1)[0], MODEL)
        self.base_url, self.ctx = base_url, ctx
        self.ws_url = "ws" + base_url[len("http"):] + "/responses"
        self.message, self.body = response_create(MODEL, PROMPT), responses_body(MODEL, PROMPT)
        self.sock = ResponsesSocket(self.ws_url, API_KEY, self.where, ssl_context=ctx)
        self.kept = self._streamer(keep_alive=True)

    def _streamer(self, *, keep_alive: bool) -> HTTPStreamer:
        verify: ssl.SSLContext | bool = self.ctx if self.ctx is not None else True
        return HTTPStreamer(self.base_url, API_KEY, self.where, api="responses", verify=verify, keep_alive=keep_alive)

    async def sse_new_connection(self) -> tuple[float, float]:
        """(request ms, client build ms)."""
        built = time.perf_counter()
        streamer = self._streamer(keep_alive=False)
        build_ms = (time.perf_counter() - built) * 1000
        try:
            return await _timed(streamer.stream(self.body)), build_ms
        finally:
            await streamer.aclose()

    async def ws_connect(self) -> tuple[float, float]:
        """(handshake ms, handshake + warm ms) on a new socket."""
        sock = ResponsesSocket(self.ws_url, API_KEY, self.where, ssl_context=self.ctx)
        started = time.perf_counter()
        try:
            await sock.connect()
            connected = time.perf_counter()
            await sock.warm(MODEL, fixed_wire(INSTRUCTIONS))
            warmed = time.perf_counter()
        finally:
            await sock.close()
        return (connected - started) * 1000, (warmed - started) * 1000

    async def aclose(self) -> None:
        await self.sock.close()
        await self.kept.aclose()


async def tcp_connections(base_url: str, ctx: ssl.SSLContext | None) -> int:
    """The emulator's count of accepted TCP connections, this request's own included."""
    async with httpx.AsyncClient(verify=ctx if ctx is not None else True) as client:
        response = await client.get(base_url.removesuffix("/v1") + "/_emulator/stats")
    return int(response.json()["tcp_connections"])


async def run_mode(base_url: str, ctx: ssl.SSLContext | None, args: argparse.Namespace) -> dict[str, Any]:
    paths = Transports(base_url, ctx)
    samples: dict[str, Any] = {key: [] for key in ROWS}
    rounds = args.warmup + args.requests
    try:
        await paths.sock.connect()
        for i in range(rounds):
            a = await _timed(paths.sock.stream(paths.message))
            b = await _timed(paths.kept.stream(paths.body))
            c, build = await paths.sse_new_connection()
            if i >= args.warmup:
                for key, value in (("ws_warm", a), ("sse_keepalive", b), ("sse_new_connection", c),
                                   ("sse_client_build", build)):
                    samples[key].append(value)
        # Everything since start: (a)'s one socket, one per (c) request, this query, and (b)'s.
        samples["sse_keepalive_connections"] = await tcp_connections(base_url, ctx) - 1 - rounds - 1
        samples["rounds"] = rounds
        for i in range(args.warmup + args.connects):
            handshake, warmed = await paths.ws_connect()
            if i >= args.warmup:
                samples["ws_connect"].append(handshake)
                samples["ws_connect_warm"].append(warmed)
    finally:
        await paths.aclose()
    return samples


def summarize(samples: dict[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {key: {"p50": pct(samples[key], 50), "p95": pct(samples[key], 95), "n": len(samples[key])}
                               for key in ROWS}
    figures["sse_keepalive_connections"] = {"connections": samples["sse_keepalive_connections"],
                                            "requests": samples["rounds"]}
    a, b, c = (figures[k]["p50"] for k in ("ws_warm", "sse_keepalive", "sse_new_connection"))
    figures["ratios_p50"] = {"a/c": a / c, "a/b": a / b}
    return figures


def report(mode: str, figures: dict[str, Any]) -> None:
    print(f"\n{mode}  (ms)")
    print(f"  {'figure':<44}{'p50':>8}{'p95':>8}{'n':>6}")
    for key, label in ROWS.items():
        row = figures[key]
        print(f"  {label:<44}{row['p50']:>8.2f}{row['p95']:>8.2f}{row['n']:>6}")
    ratios = figures["ratios_p50"]
    print(f"  ratios at p50: a/c = {ratios['a/c']:.3f}   a/b = {ratios['a/b']:.3f}")
    kept = figures["sse_keepalive_connections"]
    print(f"  (b) opened {kept['connections']} TCP connection(s) for {kept['requests']} requests")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator("--api-key", API_KEY) as emu:
        results["plain"] = summarize(await run_mode(emu.url, None, args))
    report("plain: http:// and ws://", results["plain"])
    if shutil.which("openssl") is None:
        print("\ntls: skipped (the openssl command is not on PATH)")
        return results
    with tempfile.TemporaryDirectory(prefix="sparkls-bench-tls-") as folder:
        cert, key = make_certificate(Path(folder))
        ctx = ssl.create_default_context(cafile=str(cert))
        with emulator("--api-key", API_KEY, "--tls-cert", str(cert), "--tls-key", str(key)) as emu:
            results["tls"] = summarize(await run_mode(emu.url, ctx, args))
    report(f"tls: https:// and wss:// ({ssl.OPENSSL_VERSION}, P-256 certificate)", results["tls"])
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="timed requests per path (default 200)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests first (default 10)")
    parser.add_argument("--connects", type=int, default=30, help="timed new WebSocket connections (default 30)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, unpaced emulator on loopback, {args.requests} requests per path")
    results = asyncio.run(main_async(args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
