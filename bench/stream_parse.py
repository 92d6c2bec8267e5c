"""Benchmark: how fast the client turns a streamed reply into text, in deltas per second.

One long reply — an editable region of `--lines` generated lines (200 by default,
about 3,000 deltas) with a `REPLACE` directive that changes most lines — from the
unpaced emulator (its own process, loopback). Three figures:

  1. parsing alone: the reply's raw WebSocket text frames are captured once by a bare
     `websockets` client, then `json.loads` + `sparkls.models.events.classify` +
     collecting `TextDelta.text` (and joining) runs over all frames, repeated for
     `--parse-seconds` of work on one core; deltas / CPU-bound wall time.
  2. end to end: `ResponsesSocket.stream` of the same request on one warm connection,
     deltas / wall time from send to `Completed`, p50 over `--runs`; also the client
     process's own CPU time per delta. The emulator generates on the other core, so
     this is bounded by whichever side is slower.
  3. for reference, the same request read by a bare `websockets` client that does not
     parse the frames: what the emulator and the socket deliver.

    python bench/stream_parse.py [--lines 200] [--runs 20] [--parse-seconds 1.5] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from common import emulator, pct  # bench/common.py
from sparkls.guard import Wire, fixed_wire
from sparkls.models.events import TextDelta, Where, classify, response_create
from sparkls.models.websocket import ResponsesSocket

MODEL = "gpt-5.3-codex-spark"
API_KEY = "sk-bench-stream"
INSTRUCTIONS = "Answer with the complete new text of the editable region in one fenced code block."



def long_prompt(lines: int) -> Wire:
    """A region of `lines` generated lines; the directive renames `old` on every line."""
    body = ["def scale(old, factor):"]
    body += [f"    value_{i} = old * {i} + factor  # step {i} of old" for i in range(lines)]
    body.append("    return old")
    region = "\n".join(body)
    text = (
        "File: long.py\n\nExcerpt (lines 1-%d):\n```python\n<|editable_region_start|>\n%s\n"
        "<|editable_region_end|>\n```\n\nInstruction: REPLACE old WITH new\n" % (len(body), region)
    )
    return fixed_wire(INSTRUCTIONS, text)


async def capture_frames(ws_url: str, message: dict[str, Any]) -> list[str]:
    """The raw text frames of one response, read by a bare client."""
    headers = [("Authorization", f"Bearer {API_KEY}")]
    async with connect(ws_url, additional_headers=headers, compression=None, max_size=None) as ws:
        await ws.send(json.dumps(message))
        frames: list[str] = []
        while True:
            frame = await ws.recv()
            assert isinstance(frame, str)
            frames.append(frame)
            if json.loads(frame)["type"] in ("response.completed", "error"):
                return frames


def parse_frames(frames: list[str], where: Where) -> tuple[str, int]:
    """What the client does with each frame: the reply text and its number of deltas."""
    parts: list[str] = []
    for frame in frames:
        event = classify(json.loads(frame), where)
        if isinstance(event, TextDelta):
            parts.append(event.text)
    return "".join(parts), len(parts)


def bench_parsing(frames: list[str], where: Where, seconds: float) -> dict[str, Any]:
    passes, deltas = 0, 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        deltas += parse_frames(frames, where)[1]
        passes += 1
    return {"passes": passes, "deltas": deltas, "seconds": elapsed, "deltas_per_s": deltas / elapsed,
            "us_per_delta": elapsed / deltas * 1e6}


async def bench_end_to_end(ws_url: str, message: dict[str, Any], where: Where, runs: int) -> dict[str, Any]:
    sock = ResponsesSocket(ws_url, API_KEY, where)
    rates, cpu_us = [], []
    try:
        await sock.connect()
        for i in range(runs + 2):
            wall, cpu, deltas = time.perf_counter(), time.process_time(), 0
            async for event in sock.stream(message):
                deltas += isinstance(event, TextDelta)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if i >= 2:  # two untimed runs first
                rates.append(deltas / wall)
                cpu_us.append(cpu / deltas * 1e6)
    finally:
        await sock.close()
    return {"runs": runs, "deltas": deltas, "deltas_per_s_p50": pct(rates, 50), "deltas_per_s_p05": pct(rates, 5),
            "client_cpu_us_per_delta_p50": pct(cpu_us, 50)}


async def bench_bare(ws_url: str, message: dict[str, Any], runs: int) -> dict[str, Any]:
    headers = [("Authorization", f"Bearer {API_KEY}")]
    payload, rates = json.dumps(message), []
    async with connect(ws_url, additional_headers=headers, compression=None, max_size=None) as ws:
        for i in range(runs + 2):
            started, frames = time.perf_counter(), 0
            await ws.send(payload)
            while '"response.completed"' not in (frame := await ws.recv()):
                frames += '"response.output_text.delta"' in frame
            if i >= 2:
                rates.append(frames / (time.perf_counter() - started))
    return {"runs": runs, "deltas_per_s_p50": pct(rates, 50)}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with emulator("--api-key", API_KEY) as emu:
        ws_url = emu.ws_url
        where = Where("fast", emu.target, MODEL)
        message = response_create(MODEL, long_prompt(args.lines))
        frames = await capture_frames(ws_url, message)
        text, deltas = parse_frames(frames, where)
        if "old" in text or deltas < 2000:
            print(f"warning: the reply has {deltas} deltas; 'old' left: {'old' in text}", file=sys.stderr)
        reply = {"frames": len(frames), "deltas": deltas, "chars": len(text), "frame_bytes": sum(map(len, frames))}
        return {
            "reply": reply,
            "parsing": bench_parsing(frames, where, args.parse_seconds),
            "end_to_end": await bench_end_to_end(ws_url, message, where, args.runs),
            "bare_recv": await bench_bare(ws_url, message, args.runs),
        }


def report(results: dict[str, Any]) -> None:
    reply, parsing, e2e, bare = (results[k] for k in ("reply", "parsing", "end_to_end", "bare_recv"))
    print(f"reply: {reply['deltas']:,} deltas in {reply['frames']:,} frames "
          f"({reply['frame_bytes'] / 1e3:,.0f} kB of JSON), {reply['chars']:,} characters of text")
    print(f"\n  {'figure':<52}{'deltas/s':>12}")
    print(f"  {'(1) parsing alone: json.loads + classify + join':<52}{parsing['deltas_per_s']:>12,.0f}"
          f"   ({parsing['us_per_delta']:.2f} us/delta, {parsing['passes']} passes in {parsing['seconds']:.2f} s)")
    print(f"  {'(2) end to end: ResponsesSocket.stream, p50':<52}{e2e['deltas_per_s_p50']:>12,.0f}"
          f"   (p05 {e2e['deltas_per_s_p05']:,.0f}; client CPU {e2e['client_cpu_us_per_delta_p50']:.2f} us/delta)")
    print(f"  {'(3) bare websockets recv, no parsing, p50':<52}{bare['deltas_per_s_p50']:>12,.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200, help="lines in the generated region (default 200)")
    parser.add_argument("--runs", type=int, default=20, help="timed end-to-end runs (default 20)")
    parser.add_argument("--parse-seconds", type=float, default=1.5, help="parsing work to time (default 1.5)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, unpaced emulator on loopback, target >= 50,000 deltas/s")
    results = asyncio.run(main_async(args))
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
