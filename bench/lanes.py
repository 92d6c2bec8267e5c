"""Benchmark: lanes (one WebSocket, many requests) against a pool of sockets and new HTTPS connections.

The fast tier (`TierSession`) runs concurrent requests on lanes of one WebSocket
connection (`stream_id`); with `lanes: false`, or against a server that refuses
`stream_id`, on a pool of `pool_size` sockets, one response each at a time (what
sparkls did before). Against `sparkls emulate` in its own process, serving TLS
(https/wss, a self-signed P-256 certificate made with the openssl CLI), paced
(`--tokens-per-second`, default 1,000; `--delay-ms` before the first token, default
20), behind `latency_proxy.py` (its own process) at each `--rtts`:

1. **Concurrency**: 1, 4 and 8 concurrent edits (each a 3-10 line region), and the
   realistic mix (a quick-fix menu: 3 speculative fixes sharing one long stable
   prefix, with 1 inline completion and 1 next-edit question, started together),
   round-robin over (a) lanes (the default `TierSession`), (b) a pool of N sockets
   (`lanes: false`, `pool_size` N, at most 8), and for 4, 8 and the mix also a pool
   of 2 (the old default), (c) a new `HTTPStreamer(keep_alive=False)` per request (a
   new TCP + TLS connection each). Per request: first token from when it was asked
   (`wait_ms + ttft_ms`), `wait_ms` alone (asked -> sent: waiting for a socket, a lane
   or a connection), and the last token from when it was asked; connections the
   emulator accepted (its `ws_connections` / `tcp_connections`).
2. **A scripted hour**, compressed (30 ms between episodes): one user's fast-tier
   traffic: 60 typing bursts of 5 keystrokes (300 inline completions; the first four
   of each burst superseded after 2-6 deltas, or 250 ms without any), 80 next-edit
   questions (after each burst and half of the edits; a quarter superseded), 40 edits (10 of
   them refined: `TierSession.follow`), 20 quick-fix menus of 3 speculative fixes;
   through (a) lanes, (b) a server without lanes (`--no-lanes`; default settings:
   the session must fall back to the pool by itself) and (c) the pool by setting
   (`lanes: false`, `pool_size` 2: the behaviour before lanes). Figures: handshakes,
   bytes, wasted output, failures, refines sent as a short turn.
3. **Steering vs abandon-and-resend**: an edit whose reply is a 60-line region; at 30%
   of its deltas the user adds words: (a) `Steering.steer` (the response is steered
   and its successor answers), (b) the request is cancelled and the whole
   conversation plus the words sent as a new request (on the same lanes session).
   Time from the words to the reply, bytes the client sent for the words, output
   deltas generated in all.

    python bench/lanes.py [--rtts 20,80] [--rounds 15] [--steer-rounds 20] [--hour-rtt 20]
                          [--tokens-per-second 1000] [--delay-ms 20] [--quick] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from common import Emulator, emulator, make_certificate, pct, rtts  # bench/common.py
from sparkls.config import Settings
from sparkls.context.prompt import FAST_INSTRUCTIONS
from sparkls.guard import Draft, Earlier, Guard, Section, Wire, fixed_wire
from sparkls.models.chain import FollowUp
from sparkls.models.collect import Reply
from sparkls.models.events import Completed, TextDelta, Where, responses_body
from sparkls.models.http import HTTPStreamer
from sparkls.models.progress import STREAM_PROGRESS
from sparkls.models.session import TierSession
from sparkls.models.steering import Steering
from sparkls.nextedit.prompt import NEXT_EDIT_INSTRUCTIONS

MODEL = "gpt-5.3-codex-spark"
API_KEY = "sk-bench-lanes"
GUARD = Guard(None)

# -- prompts ---------------------------------------------------------------------


def _function(k: int, lines: int, name: str = "amount") -> list[str]:
    body = [f"    {name} = {name} + item{i} * {k}" for i in range(max(1, lines - 2))]
    return [f"def step{k}({name}, items):", *body, f"    return {name}"][:lines]


def edit_wire(k: int, lines: int) -> Wire:
    """An edit of a `lines`-line region (a rename: the whole region comes back)."""
    region = "\n".join(_function(k, lines))
    return fixed_wire(
        FAST_INSTRUCTIONS,
        f"File: orders.py\n\nExcerpt (lines {10 * k + 1}-{10 * k + lines}):\n```python\n"
        f"<|editable_region_start|>\n{region}\n<|editable_region_end|>\n```\n\n"
        "Instruction: clearer name: REPLACE amount WITH total\n",
    )


# The stable prefix of a quick-fix menu's three speculative fixes: the file around the
# diagnostic (~150 lines) and the diagnostics list, the same for all three.
_MODULE = "\n".join(line for k in range(30) for line in (*_function(k, 4, "value"), ""))
FIXES = ("REPLACE raduis WITH radius", "REPLACE raduis WITH r", "REPLACE raduis WITH self.radius")


def fix_wire(menu: int, j: int) -> Wire:
    return fixed_wire(
        FAST_INSTRUCTIONS,
        f"File: shapes.py\n\nThe file around the region:\n```python\n{_MODULE}\n```\n\n"
        "Diagnostics:\n- line 160: Cannot find name 'raduis'. Did you mean 'radius'?\n\n"
        f"Excerpt (lines 158-162):\n```python\n<|editable_region_start|>\ndef area{menu}(radius):\n"
        '    """Area of a circle."""\n    half = raduis / 2\n    return math.pi * raduis ** 2\n'
        f"<|editable_region_end|>\n```\n\nInstruction: quick fix {j + 1}: {FIXES[j]}\n",
    )


COMPLETIONS = ("total += item * factor", "return sum(items) * factor", "result.append(item + factor)",
               "count = len(items) // factor")


def completion_wire(k: int) -> Wire:
    return fixed_wire(
        FAST_INSTRUCTIONS,
        f"File: orders.py\n\nExcerpt (lines {k + 1}-{k + 3}):\n```python\n<|editable_region_start|>\n"
        f"def collect{k}(items, factor):\n    result = []\n    <|cursor|>\n<|editable_region_end|>\n```\n\n"
        "Instruction: Complete the code at the cursor: write the editable line with what most likely "
        f'comes next. COMPLETE "{COMPLETIONS[k % len(COMPLETIONS)]}"\n',
    )


def next_edit_wire(k: int) -> Wire:
    return fixed_wire(
        NEXT_EDIT_INSTRUCTIONS,
        f"File: shapes.py\n\nRecent edits (oldest first):\n```diff\n@@ -{k + 4},1 +{k + 4},1 @@\n"
        f"-def area{k}(raduis):\n+def area{k}(radius):\n```\n\nCursor: line {k + 4}\n\n"
        f"Region 1 (lines {k + 6}-{k + 8}, use of raduis (now radius)):\n```python\n"
        f'    """Area of a circle."""\n<|editable_region_start|>\n    half = raduis / 2\n'
        f"    return math.pi * raduis ** 2\n<|editable_region_end|>\n```\n",
    )


def long_wire(k: int, lines: int = 60) -> Wire:
    """An edit whose reply is a `lines`-line region (steering)."""
    region = "\n".join([f"def tally{k}(amount):", *(f"    amount += {i}" for i in range(lines - 2)), "    return amount"])
    return fixed_wire(
        FAST_INSTRUCTIONS,
        f"File: tally.py\n\nExcerpt (lines 1-{lines}):\n```python\n<|editable_region_start|>\n{region}\n"
        "<|editable_region_end|>\n```\n\nInstruction: REPLACE amount WITH total\n",
    )


WORDS = "Instruction: and then REPLACE total WITH grand_total\n"


# -- the emulator's counters ---------------------------------------------------------


class Stats:
    """The emulator's counters over one kept-alive loopback connection (the control
    routes are not counted, but a new TCP connection would be)."""

    def __init__(self, emu: Emulator, ctx: ssl.SSLContext) -> None:
        self.client = httpx.AsyncClient(base_url=emu.root, verify=ctx, limits=httpx.Limits(keepalive_expiry=3600))

    async def get(self) -> dict[str, Any]:
        return (await self.client.get("/_emulator/stats")).json()

    async def quiet(self, timeout: float = 20.0) -> dict[str, Any]:
        """The counters once nothing streams (abandoned responses ran to their end)."""
        deadline = time.perf_counter() + timeout
        while (stats := await self.get())["streaming"] and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)
        return stats

    async def aclose(self) -> None:
        await self.client.aclose()


def delta(after: dict[str, Any], before: dict[str, Any], *keys: str) -> dict[str, int]:
    return {key: int(after[key]) - int(before[key]) for key in keys}


# -- the ways a request goes ------------------------------------------------------------


def tier_settings(url: str, cert: Path, **fast: Any) -> Settings:
    return Settings.model_validate(
        {"fast": {"model": MODEL, "base_url": url, "api_key": API_KEY, "ca_file": str(cert), **fast}}
    )


@dataclass
class Sample:
    first_ms: float  # asked -> first text
    wait_ms: float | None  # asked -> sent (None: not separable, a new connection per request)
    last_ms: float  # asked -> last text (the response completed)
    kind: str = "edit"


class SessionWay:
    """A `TierSession` (lanes, or a pool by setting)."""

    def __init__(self, url: str, cert: Path, **fast: Any) -> None:
        self.session = TierSession("fast", tier_settings(url, cert, **fast), warm=fixed_wire(FAST_INSTRUCTIONS))

    async def start(self) -> None:
        await self.session.warm()
        if self.session.status.state != "ready":
            raise RuntimeError(f"the tier did not start: {self.session.status}")

    async def ask(self, wire: Wire, kind: str) -> Sample:
        reply = await self.session.complete(wire)
        return Sample(reply.wait_ms + reply.ttft_ms, reply.wait_ms, reply.total_ms, kind)

    async def close(self) -> None:
        await self.session.close()


class NewHttpsWay:
    """A new `HTTPStreamer(keep_alive=False)` per request: TCP + TLS + the request."""

    def __init__(self, url: str, cert: Path) -> None:
        self.url, self.ctx = url, ssl.create_default_context(cafile=str(cert))
        self.where = Where("fast", url.split("://", 1)[1].split("/", 1)[0], MODEL)

    async def start(self) -> None:
        pass

    async def ask(self, wire: Wire, kind: str) -> Sample:
        streamer = HTTPStreamer(self.url, API_KEY, self.where, api="responses", verify=self.ctx, keep_alive=False)
        try:
            asked, first, done = time.perf_counter(), None, None
            async for event in streamer.stream(responses_body(MODEL, wire)):
                if first is None and isinstance(event, TextDelta):
                    first = time.perf_counter()
                if isinstance(event, Completed):
                    done = time.perf_counter()
            if first is None or done is None:
                raise RuntimeError("the stream ended without text or without completing")
            return Sample((first - asked) * 1000, None, (done - asked) * 1000, kind)
        finally:
            await streamer.aclose()

    async def close(self) -> None:
        pass


# -- 1. concurrency -------------------------------------------------------------------------


def cell_wires(cell: str, k: int) -> list[tuple[Wire, str]]:
    if cell == "mix":
        return [(fix_wire(k, j), "fix") for j in range(3)] + [(completion_wire(k), "completion"),
                                                               (next_edit_wire(k), "next edit")]
    return [(edit_wire(k + i, 3 + (k + i) % 8), "edit") for i in range(int(cell))]


def cell_ways(cell: str, url: str, cert: Path) -> dict[str, Any]:
    n = 5 if cell == "mix" else int(cell)
    ways: dict[str, Any] = {"lanes": SessionWay(url, cert), f"pool {min(n, 8)}": SessionWay(url, cert, lanes=False, pool_size=min(n, 8))}
    if n > 2:
        ways["pool 2 (old default)"] = SessionWay(url, cert, lanes=False, pool_size=2)
    ways["new HTTPS each"] = NewHttpsWay(url, cert)
    return ways


def summary(samples: list[Sample]) -> dict[str, Any]:
    first = [s.first_ms for s in samples]
    last = [s.last_ms for s in samples]
    waits = [s.wait_ms for s in samples if s.wait_ms is not None]
    out: dict[str, Any] = {"n": len(samples), "first_p50": pct(first, 50), "first_p95": pct(first, 95),
                           "last_p50": pct(last, 50), "last_p95": pct(last, 95)}
    if waits:
        out |= {"wait_p50": pct(waits, 50), "wait_p95": pct(waits, 95)}
    return out


async def concurrency(url: str, cert: Path, stats: Stats, args: argparse.Namespace, seq: list[int]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for cell in ("1", "4", "8", "mix"):
        ways = cell_ways(cell, url, cert)
        samples: dict[str, list[Sample]] = {name: [] for name in ways}
        opened: dict[str, dict[str, int]] = {name: {"ws_connections": 0, "tcp_connections": 0} for name in ways}
        at_start: dict[str, int] = {}
        for name, way in ways.items():
            before = await stats.get()
            await way.start()
            at_start[name] = delta(await stats.get(), before, "tcp_connections")["tcp_connections"]
        rounds = args.rounds * (2 if cell == "1" else 1)
        try:
            for r in range(1 + rounds):  # round 0 untimed
                for name, way in ways.items():
                    seq[0] += 1
                    wires = cell_wires(cell, seq[0] * 10)
                    before = await stats.get()
                    got = await asyncio.gather(*(way.ask(wire, kind) for wire, kind in wires))
                    after = await stats.get()
                    if r:
                        samples[name] += got
                        for key, value in delta(after, before, "ws_connections", "tcp_connections").items():
                            opened[name][key] += value
                    await asyncio.sleep(0.02)
        finally:
            for way in ways.values():
                await way.close()
        results[cell] = {}
        for name in ways:
            row = summary(samples[name]) | {"rounds": rounds, "connections_at_start": at_start[name],
                                            "ws_handshakes_in_rounds": opened[name]["ws_connections"],
                                            "tcp_connections_in_rounds": opened[name]["tcp_connections"]}
            if cell == "mix":
                row["by_kind"] = {kind: summary([s for s in samples[name] if s.kind == kind])
                                  for kind in ("fix", "completion", "next edit")}
            results[cell][name] = row
    lone, eight = results["1"]["lanes"]["first_p95"], results["8"]["lanes"]["first_p95"]
    results["lanes_8_over_1_first_p95"] = eight / lone
    return results


def report_concurrency(name: str, res: dict[str, Any]) -> None:
    print(f"\n{name}: concurrency (ms; first = asked -> first token, wait = asked -> sent, last = asked -> last token)")
    print(f"  {'cell':<6}{'way':<22}{'first p50':>10}{'p95':>7}{'wait p50':>10}{'p95':>7}{'last p50':>10}{'p95':>7}"
          f"{'n':>5}   connections (start + rounds)")
    for cell in ("1", "4", "8", "mix"):
        for way, row in res[cell].items():
            wait = f"{row['wait_p50']:>10.1f}{row['wait_p95']:>7.1f}" if "wait_p50" in row else f"{'-':>10}{'-':>7}"
            print(f"  {cell:<6}{way:<22}{row['first_p50']:>10.1f}{row['first_p95']:>7.1f}{wait}"
                  f"{row['last_p50']:>10.1f}{row['last_p95']:>7.1f}{row['n']:>5}   "
                  f"{row['connections_at_start']} + {row['tcp_connections_in_rounds']}"
                  f" (ws handshakes in rounds: {row['ws_handshakes_in_rounds']})")
    print("  mix, first token by kind (p50 / p95):")
    for way, row in res["mix"].items():
        parts = ", ".join(f"{kind} {f['first_p50']:.1f} / {f['first_p95']:.1f}" for kind, f in row["by_kind"].items())
        print(f"    {way:<22}{parts}")
    print(f"  lanes, 8 concurrent / lone, first-token p95: {res['lanes_8_over_1_first_p95']:.3f}x (target <= 1.1)")


# -- 2. a scripted hour ---------------------------------------------------------------------


@dataclass
class Hour:
    """One user's requests through one `TierSession`, and what became of them."""

    session: TierSession
    asked: dict[str, int] = field(default_factory=dict)
    cancelled: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    read_deltas: int = 0  # text deltas the client read, of every request
    completed_deltas: int = 0  # ... of the requests that completed
    refines: int = 0
    refines_short: int = 0
    modes: set[str] = field(default_factory=set)
    first_ms: dict[str, list[float]] = field(default_factory=dict)

    async def run(self, kind: str, wire: Wire, *, supersede: int | None = None, settle: bool = False,
                  follow: FollowUp | None = None) -> Reply | None:
        """Send one request; with `supersede`, cancel it after that many deltas (or
        250 ms without them): the next keystroke. None if cancelled or failed."""
        self.asked[kind] = self.asked.get(kind, 0) + 1
        count, enough = 0, asyncio.Event()

        def progress(n: int) -> None:
            nonlocal count
            count += n
            if supersede is not None and count >= supersede:
                enough.set()

        async def call() -> Reply:
            STREAM_PROGRESS.set(progress)  # this task's own context
            if settle:
                await self.session.settled()  # as the next-edit handler does
            if follow is not None:
                return await self.session.follow(follow)
            return await self.session.complete(wire)

        task = asyncio.ensure_future(call())
        try:
            if supersede is not None:
                waiter = asyncio.ensure_future(enough.wait())
                await asyncio.wait({task, waiter}, timeout=0.25, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    self.cancelled[kind] = self.cancelled.get(kind, 0) + 1
                    return None
            reply = await task
        except Exception as exc:  # noqa: BLE001 - counted, the hour goes on
            self.failed.append(f"{kind}: {type(exc).__name__}: {exc}")
            return None
        finally:
            self.read_deltas += count
        self.completed_deltas += count
        self.modes.add(reply.mode)
        self.first_ms.setdefault(kind, []).append(reply.wait_ms + reply.ttft_ms)
        return reply


def hour_script(scale: float, seed: int) -> list[tuple[str, bool]]:
    rng = random.Random(seed)
    episodes = ([("type", False)] * round(60 * scale) + [("edit", False)] * round(30 * scale)
                + [("edit", True)] * round(10 * scale) + [("fix", False)] * round(20 * scale))
    rng.shuffle(episodes)
    return episodes


async def scripted_hour(session: TierSession, scale: float, seed: int) -> Hour:
    rng = random.Random(seed + 1)
    hour, background, k, edits = Hour(session), set(), 0, 0

    def ask_next_edit() -> None:
        nonlocal k
        k += 1
        supersede = rng.randint(2, 6) if rng.random() < 0.25 else None
        task = asyncio.ensure_future(hour.run("next edit", next_edit_wire(k), supersede=supersede, settle=True))
        background.add(task)
        task.add_done_callback(background.discard)

    for kind, refine in hour_script(scale, seed):
        k += 1
        if kind == "type":
            for key in range(5):
                last = key == 4
                await hour.run("completion", completion_wire(k * 5 + key), supersede=None if last else rng.randint(2, 6))
            ask_next_edit()
        elif kind == "edit":
            wire = edit_wire(k, rng.randint(3, 10))
            reply = await hour.run("edit", wire)
            if refine and reply is not None:
                session.hold(reply.chain)  # as the refine book does: the pool keeps the socket
                short = fixed_wire(FAST_INSTRUCTIONS, "Instruction: shorter: REPLACE total WITH t\n")
                full = GUARD.seal(Draft(FAST_INSTRUCTIONS, (Section.of(short.input),),
                                        (Earlier("user", wire.input), Earlier("assistant", reply.text))))
                try:
                    refined = await hour.run("refine", full, follow=FollowUp(reply.chain, short, full))
                finally:
                    session.release(reply.chain)
                hour.refines += 1
                hour.refines_short += bool(refined is not None and refined.chained)
            edits += 1
            if edits % 2:  # a next-edit question after half of the edits (80 in all, with the bursts')
                ask_next_edit()
        else:
            await asyncio.gather(*(hour.run("fix", fix_wire(k, j)) for j in range(3)))
        await asyncio.sleep(0.03)
    while background:
        await asyncio.gather(*background)
    return hour


HOUR_KEYS = ("ws_connections", "tcp_connections", "responses", "bytes_in", "bytes_out", "deltas", "abandoned",
             "errors", "lanes", "chained")


async def hour_mode(url: str, cert: Path, stats: Stats, scale: float, seed: int, **fast: Any) -> dict[str, Any]:
    before = await stats.get()
    session = TierSession("fast", tier_settings(url, cert, **fast), warm=fixed_wire(FAST_INSTRUCTIONS))
    started = time.perf_counter()
    await session.warm()
    try:
        hour = await scripted_hour(session, scale, seed)
        await session.settled()
        after = await stats.quiet()
        wall = time.perf_counter() - started
        mode, wasted = session.mode, session.wasted_tokens
    finally:
        await session.close()
    counters = delta(after, before, *HOUR_KEYS)
    return {
        "mode": mode, "modes_served": sorted(hour.modes), "lanes_off": session.status.lanes_off,
        "wall_s": wall, "asked": hour.asked, "cancelled": hour.cancelled, "failed": len(hour.failed),
        "failures": hour.failed[:10], "refines": hour.refines, "refines_short": hour.refines_short,
        "ws_handshakes": counters["ws_connections"], "tcp_connections": counters["tcp_connections"],
        "bytes_in": counters["bytes_in"], "bytes_out": counters["bytes_out"],
        "responses": counters["responses"], "lanes_served": counters["lanes"], "chained": counters["chained"],
        "emulator_errors": counters["errors"], "emulator_abandoned": counters["abandoned"],
        "deltas_sent": counters["deltas"], "deltas_read": hour.read_deltas,
        "deltas_of_completed": hour.completed_deltas,
        "deltas_after_cancel": counters["deltas"] - hour.read_deltas,
        "session_wasted_tokens": wasted,
        "first_p50_p95": {kind: [pct(v, 50), pct(v, 95)] for kind, v in hour.first_ms.items()},
    }


def report_hour(res: dict[str, Any], rtt: float) -> None:
    print(f"\nscripted hour, RTT {rtt:g} ms (compressed)")
    names = list(res)
    print(f"  {'':38}" + "".join(f"{n:>24}" for n in names))
    any_row = res[names[0]]
    asked = ", ".join(f"{k} {v}" for k, v in any_row["asked"].items())
    rows = [
        ("mode at the end (served)", lambda r: f"{r['mode']} ({'/'.join(r['modes_served'])})"),
        ("wall time, s", lambda r: f"{r['wall_s']:.1f}"),
        ("requests failed", lambda r: str(r["failed"])),
        ("cancelled (superseded)", lambda r: str(sum(r["cancelled"].values()))),
        ("WebSocket handshakes", lambda r: str(r["ws_handshakes"])),
        ("TCP connections", lambda r: str(r["tcp_connections"])),
        ("bytes in (client -> emulator)", lambda r: f"{r['bytes_in']:,}"),
        ("bytes out (emulator -> client)", lambda r: f"{r['bytes_out']:,}"),
        ("model responses", lambda r: str(r["responses"])),
        ("text deltas sent", lambda r: f"{r['deltas_sent']:,}"),
        ("  read by the client", lambda r: f"{r['deltas_read']:,}"),
        ("  sent after the client cancelled", lambda r: f"{r['deltas_after_cancel']:,}"),
        ("responses cut by closing a socket", lambda r: str(r["emulator_abandoned"])),
        ("TierSession.wasted_tokens", lambda r: str(r["session_wasted_tokens"])),
        ("refines sent as a short turn", lambda r: f"{r['refines_short']}/{r['refines']}"),
        ("completion first token p50/p95", lambda r: "{:.1f} / {:.1f}".format(*r["first_p50_p95"].get("completion", [0, 0]))),
        ("next edit first token p50/p95", lambda r: "{:.1f} / {:.1f}".format(*r["first_p50_p95"].get("next edit", [0, 0]))),
        ("fix first token p50/p95", lambda r: "{:.1f} / {:.1f}".format(*r["first_p50_p95"].get("fix", [0, 0]))),
    ]
    print(f"  asked: {asked}")
    for label, fmt in rows:
        print(f"  {label:<38}" + "".join(f"{fmt(res[n]):>24}" for n in names))
    for name in names:
        for failure in res[name]["failures"]:
            print(f"  {name} failure: {failure}")


# -- 3. steering vs abandon-and-resend ------------------------------------------------------


async def reply_deltas(session: TierSession, wire: Wire) -> int:
    """The text deltas of `wire`'s whole reply (read through `STREAM_PROGRESS`)."""
    count = 0

    def progress(n: int) -> None:
        nonlocal count
        count += n

    async def call() -> None:
        STREAM_PROGRESS.set(progress)
        await session.complete(wire)

    await asyncio.ensure_future(call())
    return count


async def steer_round(session: TierSession, stats: Stats, k: int, way: str, lines: int, whole: int) -> dict[str, Any]:
    wire = long_wire(k, lines)
    start = await stats.quiet()
    count, at = 0, asyncio.Event()
    threshold = round(0.3 * whole)  # 30% of the reply's deltas

    def progress(n: int) -> None:
        nonlocal count
        count += n
        if count >= threshold:
            at.set()

    steering = Steering() if way == "steer" else None

    async def call() -> Reply:
        STREAM_PROGRESS.set(progress)
        return await session.complete(wire, steering=steering)

    task = asyncio.ensure_future(call())
    await at.wait()
    words_at = await stats.get()
    said = time.perf_counter()
    committed = None
    if steering is not None:
        committed = await steering.steer(fixed_wire(FAST_INSTRUCTIONS, WORDS))
        reply = await task
    else:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        full = GUARD.seal(Draft(FAST_INSTRUCTIONS, (Section.of(WORDS),), (Earlier("user", wire.input),)))
        reply = await session.complete(full)
    applied = (time.perf_counter() - said) * 1000
    end = await stats.quiet()
    return {
        "ms": applied, "bytes_words": end["bytes_in"] - words_at["bytes_in"], "bytes_round": end["bytes_in"] - start["bytes_in"],
        "deltas": end["deltas"] - start["deltas"], "committed": committed, "steered": reply.steered,
        "answered_words": "grand_total" in reply.text, "output_tokens_reply": reply.usage.get("output_tokens"),
    }


async def steering_bench(url: str, cert: Path, stats: Stats, rounds: int, seq: list[int]) -> dict[str, Any]:
    session = TierSession("fast", tier_settings(url, cert), warm=fixed_wire(FAST_INSTRUCTIONS))
    await session.warm()
    out: dict[str, list[dict[str, Any]]] = {"steer": [], "resend": []}
    try:
        whole = await reply_deltas(session, long_wire(0, 60))
        for r in range(1 + rounds):
            for way in out:
                seq[0] += 1
                got = await steer_round(session, stats, seq[0], way, 60, whole)
                if r:
                    out[way].append(got)
    finally:
        await session.close()
    figures: dict[str, Any] = {}
    for way, rows in out.items():
        figures[way] = {key: {"p50": pct([row[key] for row in rows], 50), "p95": pct([row[key] for row in rows], 95)}
                        for key in ("ms", "bytes_words", "bytes_round", "deltas")}
        figures[way]["n"] = len(rows)
        figures[way]["reply_deltas"] = whole
        figures[way]["answered_words"] = sum(row["answered_words"] for row in rows)
        figures[way]["committed"] = sum(bool(row["committed"]) for row in rows)
    return figures


def report_steering(name: str, res: dict[str, Any]) -> None:
    print(f"\n{name}: words added at 30% of a 60-line reply of {res['steer']['reply_deltas']} deltas (p50 / p95)")
    print(f"  {'':26}{'words -> reply, ms':>22}{'bytes for the words':>22}{'bytes, whole round':>22}"
          f"{'deltas generated':>20}  answered the words")
    labels = {"steer": "(a) steer", "resend": "(b) abandon and resend"}
    for way, f in res.items():
        cols = "".join(f"{f[k]['p50']:>13.0f} / {f[k]['p95']:<6.0f}" for k in ("ms", "bytes_words", "bytes_round"))
        print(f"  {labels[way]:<26}{cols}{f['deltas']['p50']:>11.0f} / {f['deltas']['p95']:<6.0f}"
              f"  {f['answered_words']}/{f['n']}" + (f" (committed {f['committed']})" if way == "steer" else ""))


# -- main ---------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    cert, key = make_certificate(folder)
    ctx = ssl.create_default_context(cafile=str(cert))
    paced = ["--api-key", API_KEY, "--tls-cert", str(cert), "--tls-key", str(key),
             "--tokens-per-second", str(args.tokens_per_second), "--delay-ms", str(args.delay_ms)]
    results: dict[str, Any] = {"tokens_per_second": args.tokens_per_second, "delay_ms": args.delay_ms,
                               "rounds": args.rounds, "steer_rounds": args.steer_rounds, "openssl": ssl.OPENSSL_VERSION}
    seq = [0]
    with emulator(*paced) as emu:
        stats = Stats(emu, ctx)
        try:
            for rtt in rtts(args.rtts):
                name = f"RTT {rtt:g} ms"
                with emu.proxied(rtt) as url:
                    if not args.skip_concurrency:
                        results[f"{name}: concurrency"] = res = await concurrency(url, cert, stats, args, seq)
                        report_concurrency(name, res)
                    if not args.skip_steering:
                        results[f"{name}: steering"] = res = await steering_bench(url, cert, stats, args.steer_rounds, seq)
                        report_steering(name, res)
            if not args.skip_hour:
                hour: dict[str, Any] = {}
                with emu.proxied(args.hour_rtt) as url:
                    hour["(a) lanes"] = await hour_mode(url, cert, stats, args.hour_scale, args.seed)
                    hour["(c) pool by setting"] = await hour_mode(url, cert, stats, args.hour_scale, args.seed,
                                                                  lanes=False, pool_size=2)
                with emulator(*paced, "--no-lanes") as old:
                    old_stats = Stats(old, ctx)
                    try:
                        with old.proxied(args.hour_rtt) as url:
                            hour["(b) no-lanes server"] = await hour_mode(url, cert, old_stats, args.hour_scale, args.seed)
                    finally:
                        await old_stats.aclose()
                hour = {k: hour[k] for k in ("(a) lanes", "(b) no-lanes server", "(c) pool by setting")}
                results[f"scripted hour, RTT {args.hour_rtt:g} ms"] = hour
                report_hour(hour, args.hour_rtt)
        finally:
            await stats.aclose()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtts", default="20,80", help="round-trip times in ms, comma-separated")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per concurrency cell (twice as many alone)")
    parser.add_argument("--steer-rounds", type=int, default=20, help="timed rounds per steering way and RTT")
    parser.add_argument("--hour-rtt", type=float, default=20, help="the RTT of the scripted hour, ms")
    parser.add_argument("--hour-scale", type=float, default=1.0, help="the share of the scripted hour to run")
    parser.add_argument("--tokens-per-second", type=int, default=1000, help="the emulator's pace")
    parser.add_argument("--delay-ms", type=int, default=20, help="the emulator's time to first token")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-concurrency", action="store_true")
    parser.add_argument("--skip-steering", action="store_true")
    parser.add_argument("--skip-hour", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 rounds, a tenth of the hour")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steer_rounds, args.hour_scale = 3, 3, 0.1
    if shutil.which("openssl") is None:
        print("skipped: the openssl command is not on PATH (needed for the TLS certificate)")
        return 0
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    print(f"sparkls {head.stdout.strip()}; python {sys.version.split()[0]}; {ssl.OPENSSL_VERSION}; emulator over TLS, "
          f"{args.tokens_per_second} tokens/s, delay_ms {args.delay_ms}; RTTs {args.rtts} ms; "
          f"load average {os.getloadavg()[0]:.2f}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sparkls-bench-lanes-") as folder:
        results = asyncio.run(main_async(args, Path(folder)))
    results["load_average_after"] = os.getloadavg()[0]
    print(f"\n(whole run {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
