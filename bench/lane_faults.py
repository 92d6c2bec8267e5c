"""Benchmark: faults on the lane connection, and how long each request in flight took to end.

Each fault of tests/peer/lane_faults.py (a silent peer, a malformed, truncated or
binary frame, a half-closed socket, a connection cut, a close frame, an event naming
an unknown lane or none, a duplicated response id, frames after `response.completed`,
a failed response or an error on one lane) strikes an independent lane peer (not the
emulator) once 1, 3 and 8 requests stream on one connection, read by sparkls's real
tier session (`TierSession.complete`). For each:
what the requests got (the whole answer, sent again once where the fault cut it),
model requests and connections it took, and the time from asking to the end of each
request in flight (p50 and max over the requests, and over `--runs`). The stall limit
is `keepalive_timeout` = 0.6 s here (20 s by default), so a silent peer's row scales
with it. Then the same faults on a pool socket (`lanes = false`, one request; a
pool of one socket, so that the next request meets what the fault left on it).

    python bench/lane_faults.py [--runs 3] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.peer

from tests.peer.lane_faults import FAULTS, LANE_ONLY, STALL, run_fault  # noqa: E402
from tests.peer.variants import ANSWER  # noqa: E402


def _outcome(outcomes, fault) -> str:
    texts = [t for o in outcomes for t in o.texts]
    whole = sum(t == ANSWER for t in texts)
    attempts = {getattr(r, "attempts", None) for o in outcomes for r in o.replies}
    nexts = all(getattr(o.next_reply, "text", None) == ANSWER for o in outcomes)
    resent = sum(a == 2 for o in outcomes for a in (getattr(r, "attempts", None) for r in o.replies))
    said = "resent once" if attempts == {2} else "answered" if attempts == {1} else f"{resent} resent once"
    next_attempts = {getattr(o.next_reply, "attempts", None) for o in outcomes}
    return f"{whole}/{len(texts)} whole, {said}, next {'ok' if nexts else 'FAILED'}{' (resent)' if next_attempts == {2} else ''}"


async def _row(fault, in_flight: int, runs: int, **tier) -> dict:
    outcomes = [await run_fault(fault, in_flight, **tier) for _ in range(runs)]
    seconds = [s for o in outcomes for s in o.seconds]
    return {
        "fault": fault.name,
        "in_flight": in_flight,
        "mode": "pool" if tier.get("lanes") is False else "lanes",
        "outcome": _outcome(outcomes, fault),
        "requests": outcomes[-1].requests,
        "connections": outcomes[-1].connections,
        "end_ms_p50": round(statistics.median(seconds) * 1000, 1),
        "end_ms_max": round(max(seconds) * 1000, 1),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [await _row(fault, n, args.runs) for fault in FAULTS for n in (1, 3, 8)]
    rows += [await _row(f, 1, args.runs, lanes=False, pool_size=1) for f in FAULTS if not f.name.startswith(LANE_ONLY)]
    width = max(len(r["fault"]) for r in rows)
    print(f"stall limit (keepalive_timeout): {STALL:g} s; {args.runs} run(s) per row; times: asked -> ended, per request")
    print(f"{'fault':{width}}  mode   in flight  req  conn  end p50 ms  end max ms  outcome")
    for r in rows:
        print(f"{r['fault']:{width}}  {r['mode']:5}  {r['in_flight']:9}  {r['requests']:3}  {r['connections']:4}  "
              f"{r['end_ms_p50']:10}  {r['end_ms_max']:10}  {r['outcome']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
