"""Figures: how much of what the emulator sends was validated against the openai SDK.

Runs every behaviour over every transport — WebSocket mode, Responses SSE, Responses
JSON, Chat Completions streamed and whole in each chat flavour — and every reply shape
over WebSocket, SSE and OpenAI chat streaming, and every lanes-and-steering scenario
(client messages and frames alike), against an in-process emulator on
loopback, with the strict checks of bench/kit/sdk_conformance.py (each event, chunk or body
validated against the SDK's pydantic models in strict mode, no undeclared key outside
the justified allowlist, stream invariants). Prints the events validated per
transport × behaviour, the totals, and every failure. Figures, not assertions.

    python bench/sdk_conformance.py [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.kit.sdk_conformance

import openai  # noqa: E402

from sparkls.emulator import Emulator  # noqa: E402
from sparkls.emulator.behaviours import BEHAVIOURS  # noqa: E402
from sparkls.emulator.shapes import REPLY_STYLES  # noqa: E402
from bench.kit.sdk_conformance import LANE_CASES, TRANSPORTS, CaseResult, check_case, check_lane_case  # noqa: E402

SHAPE_TRANSPORTS = ("websocket", "sse", "chat-stream:openai")
SHORT = {
    "websocket": "ws", "sse": "sse", "http": "json",
    "chat-stream:openai": "cs:oai", "chat-stream:llama.cpp": "cs:lcpp", "chat-stream:ollama": "cs:olm",
    "chat-stream:vllm": "cs:vllm", "chat:openai": "c:oai", "chat:llama.cpp": "c:lcpp",
    "chat:ollama": "c:olm", "chat:vllm": "c:vllm",
}


async def run() -> tuple[list[CaseResult], list[CaseResult], list[CaseResult]]:
    async with Emulator() as emulator:
        behaviours = [await check_case(emulator, t, b) for b in BEHAVIOURS for t in TRANSPORTS]
        shapes = [
            await check_case(emulator, t, "final_answer", reply=shape)
            for shape in REPLY_STYLES
            for t in SHAPE_TRANSPORTS
        ]
        lanes = [await check_lane_case(emulator, name) for name in LANE_CASES]
    for result, shape in zip(shapes, [s for s in REPLY_STYLES for _ in SHAPE_TRANSPORTS]):
        result.behaviour = f"reply={shape}"
    return behaviours, shapes, lanes


def table(results: list[CaseResult], rows: list[str], columns: tuple[str, ...]) -> None:
    cell = {(r.behaviour, r.transport): r for r in results}
    print(f"  {'':<27}" + "".join(f"{SHORT[c]:>8}" for c in columns) + f"{'total':>8}")
    for row in rows:
        counts = [cell[(row, c)].events for c in columns]
        marks = ["*" if cell[(row, c)].problems else "" for c in columns]
        print(f"  {row:<27}" + "".join(f"{n:>7}{m or ' '}" for n, m in zip(counts, marks)) + f"{sum(counts):>8}")
    totals = [sum(cell[(row, c)].events for row in rows) for c in columns]
    print(f"  {'total':<27}" + "".join(f"{n:>7} " for n in totals) + f"{sum(totals):>8}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    started = time.perf_counter()
    behaviours, shapes, lanes = asyncio.run(run())
    elapsed = time.perf_counter() - started
    everything = behaviours + shapes + lanes
    failing = [r for r in everything if r.problems]
    print(f"python {sys.version.split()[0]}, openai {openai.__version__}, in-process emulator on loopback")
    print("\nevents validated, behaviour x transport (* = a problem; see below)")
    table(behaviours, list(BEHAVIOURS), TRANSPORTS)
    print("\nevents validated, reply shape x transport")
    table(shapes, [f"reply={s}" for s in REPLY_STYLES], SHAPE_TRANSPORTS)
    print("\nframes and client messages validated, lanes and steering (WebSocket)")
    for result in lanes:
        mark = "*" if result.problems else " "
        print(f"  {result.behaviour:<48}{result.events:>7}{mark}")
    print(f"  {'total':<48}{sum(r.events for r in lanes):>7}")
    total = sum(r.events for r in everything)
    print(f"\n{len(everything)} replies, {total} events/chunks/bodies validated in {elapsed:.1f} s; "
          f"{len(failing)} replies with problems, {sum(len(r.problems) for r in failing)} problems")
    for result in failing:
        for problem in result.problems:
            print(f"  {result.transport} / {result.behaviour}: {problem}")
    if args.json:
        figures: dict[str, Any] = {
            "openai": openai.__version__,
            "replies": len(everything),
            "validated": total,
            "cases": [{"transport": r.transport, "behaviour": r.behaviour, "events": r.events,
                       "problems": r.problems} for r in everything],
        }
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
