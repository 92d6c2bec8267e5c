"""Benchmark: a refine that continues the response vs one that resends the conversation.

A generated Python module (the same every run: imports, a class, one small function
per round, each calling the one before) is edited and refined by sparkls's own code (`run_fast_edit`,
`RefineBook`, `run_refine`, a `TierSession` with one warm WebSocket) against `sparkls
emulate` in its own process, directly on loopback and through `latency_proxy.py` (its
own process) at each RTT. Each round edits the next function (a rename directive),
then refines that edit (another rename of the same name) in one of three ways,
round-robin:

  (a) chained: the refine continues the edit's response on the warm socket that
      served it (`previous_response_id`), sending the new turn only;
  (b) full, warm socket: another request went over that socket in between, so the
      chain is gone and the conversation (the edit's prompt, the model's reply, the
      new turn) is resent on the same warm socket;
  (c) full, new connection: the socket closed before the refine (rotated, replaced,
      the service's 60-minute limit): the conversation is resent on a new connection.

Figures per way, p50 / p95: the bytes the emulator received for the refine (its
`bytes_in`: the `response.create` frame; in (c) also the new connection's upgrade
request and its warm-up), and the time to first token, from the call to `run_refine`
to the first text delta (waiting for the socket, connecting, sending, the model); the
ratios (a) / (b) and (a) / (c) of the medians. The emulator answers at once
(`delay_ms` 0) and does no work per input token, so its TTFT differences are the
transport's; a real model also spends prefill time on the resent input.

    python bench/refine.py [--rtts 20,80] [--rounds 30] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from common import emulator, pct, rtts  # bench/common.py
from sparkls.config import Settings
from sparkls.context.prompt import FAST_INSTRUCTIONS
from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.edits.tail import EditOutcome
from sparkls.fastedit.engine import EditRequest, run_fast_edit
from sparkls.guard import Guard, fixed_wire
from sparkls.models.session import TierSession
from sparkls.refine.service import RefineBook, run_refine
from sparkls.request.environment import RequestEnv

API_KEY = "sk-bench-refine"
URI = "file:///bench/orders.py"
WAYS = {
    "chained": "(a) chained, warm socket",
    "full_warm": "(b) full resend, warm socket",
    "full_new": "(c) full resend, new connection",
}


def module(functions: int) -> str:
    """The edited file: imports, a class, and functions that call the one before (one
    per round, so that every round's edit and refine find their names)."""
    lines = ["import math", "from dataclasses import dataclass", "", "", "@dataclass", "class Order:",
             "    amount: float", "    rate: float", "", ""]
    for n in range(functions):
        prev = f"step{n - 1}(order)" if n else "order.amount"
        lines += [
            f"def step{n}(order: Order) -> float:",
            f'    """Step {n} of the pricing."""',
            f"    value{n} = {prev} * order.rate",
            f"    if value{n} > {100 + n}:",
            f"        value{n} = math.floor(value{n})",
            f"    return value{n}",
            "",
            "",
        ]
    return "\n".join(lines)


def function_line(n: int) -> int:
    return 10 + 8 * n + 2  # the `value{n} = ...` line of step{n}


def apply(store: DocumentStore, outcome: EditOutcome) -> None:
    """Apply `outcome` as an editor would: bottom-up, one didChange."""
    doc = store.get(outcome.uri)
    changes = [TextChange(e.text, (e.start, e.end)) for e in sorted(outcome.edits, key=lambda e: (e.start.line, e.start.character), reverse=True)]
    store.change(outcome.uri, changes, doc.version + 1)


def bytes_in(control: httpx.Client) -> int:
    return control.get("/_emulator/stats").json()["bytes_in"]


async def measure(base_url: str, control_root: str, rounds: int, warmup: int) -> dict[str, Any]:
    settings = Settings.model_validate(
        {"fast": {"model": "gpt-5.3-codex-spark", "base_url": base_url, "api_key": API_KEY, "pool_size": 1}}
    )
    session = TierSession("fast", settings, warm=fixed_wire(FAST_INSTRUCTIONS))
    await session.warm()
    store, book = DocumentStore(), RefineBook()
    env = RequestEnv(store=store, settings=settings, guard=Guard(None), fast=session)
    ways = list(WAYS)
    total = warmup + rounds * len(ways)
    store.open(URI, module(total + 1), 1, "python")
    figures: dict[str, dict[str, list[float]]] = {way: {"bytes": [], "ttft_ms": [], "chained": []} for way in WAYS}
    with httpx.Client(base_url=control_root) as control:
        for n in range(warmup + rounds * len(ways)):
            way = ways[n % len(ways)]
            step = n
            line = function_line(step)
            edit = await run_fast_edit(
                env,
                EditRequest(URI, Position(line, 0), Position(line, 0), f"Clearer name: REPLACE value{step} WITH amount{step}"),
            )
            book.remember(store, edit, session, "orders.py")
            apply(store, edit)
            if way == "full_warm":  # another request over the only socket: the chain is gone
                other = function_line(step + 1)
                await run_fast_edit(env, EditRequest(URI, Position(other, 0), Position(other, 0), "REPLACE nothing WITH nada"))
            elif way == "full_new" and edit.turn and edit.turn.chain and edit.turn.chain.socket:
                await edit.turn.chain.socket.close()
            before = bytes_in(control)
            refined = await run_refine(env, book, URI, f"Shorter: REPLACE amount{step} WITH a{step}")
            sent = bytes_in(control) - before
            apply(store, refined)
            if n < warmup:
                continue
            figures[way]["bytes"].append(sent)
            t = refined.timings_ms  # the call to the first text delta: checkout, connecting, sending, the model
            figures[way]["ttft_ms"].append(t["total"] - t["stream"] - t["edit"])
            figures[way]["chained"].append(float(bool(refined.turn and refined.turn.chained)))
    await session.close()
    return figures


def report(name: str, figures: dict[str, Any]) -> None:
    print(f"\n{name}")
    print(f"  {'':34} {'bytes p50':>10} {'p95':>8} {'TTFT ms p50':>12} {'p95':>8}  chained")
    for way, label in WAYS.items():
        f = figures[way]
        print(f"  {label:34} {pct(f['bytes'], 50):>10.0f} {pct(f['bytes'], 95):>8.0f} "
              f"{pct(f['ttft_ms'], 50):>12.2f} {pct(f['ttft_ms'], 95):>8.2f}  {sum(f['chained']):.0f}/{len(f['chained'])}")
    a = figures["chained"]
    for other in ("full_warm", "full_new"):
        b = figures[other]
        print(f"  (a)/{WAYS[other][:3]} bytes {pct(a['bytes'], 50) / pct(b['bytes'], 50):.3f}, "
              f"TTFT {pct(a['ttft_ms'], 50) / pct(b['ttft_ms'], 50):.3f}")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator("--api-key", API_KEY) as emu:
        for rtt, url in emu.networks(rtts(args.rtts)):
            name = "loopback" if rtt is None else f"RTT {rtt:g} ms"
            results[name] = await measure(url, emu.root, args.rounds, args.warmup)
            report("loopback, no proxy" if rtt is None else name, results[name])
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtts", default="20,80", help="round-trip times in ms, comma-separated")
    parser.add_argument("--rounds", type=int, default=30, help="timed refines per way and RTT")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    print(f"sparkls {head.stdout.strip()}; python {sys.version.split()[0]}; emulator on loopback, delay_ms 0, "
          f"one warm WebSocket (pool_size 1)")
    results = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
