"""Benchmark: `shutdown` and `exit` with 0, 1 and 10 requests in flight.

The real server (`stdio.serve`, in a thread of this process, on pipes: tests/e2e/pipes.py)
against `sparkls emulate`, shut down with nothing in flight, one edit streaming, or ten
requests in flight (eight edits streaming, an edit whose `workspace/applyEdit` the
editor sits on, a `workspace/configuration` pull it sits on), `--sessions` times each.
For each: how many sessions answered `shutdown` with null after every request in
flight was answered "cancelled" (and the server's own withdrawn), exit codes, and the
time from `shutdown` to its answer and from `exit` to the server's end (p50 / max).

    python bench/shutdown.py [--sessions 20] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.e2e

from common import emulator  # noqa: E402
from tests.conftest import EmulatorHandle  # noqa: E402
from tests.e2e.pipes import SAMPLE, shut_down_with  # noqa: E402

CANCELLED = -32800


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sparkls-shutdown-"))
    (root / "area.py").write_text(SAMPLE)
    rows = []
    with emulator("--api-key", "sk-bench") as emu:
        handle = EmulatorHandle(emu.url, "sk-bench")
        await shut_down_with(handle, root, 1, index=False)  # loads what every session shares
        for in_flight in (0, 1, 10):
            runs = [await shut_down_with(handle, root, in_flight, index=False) for _ in range(args.sessions)]
            clean = sum(
                r.shutdown_answer.get("result", "x") is None and r.exit_code == 0 and r.withdrawn == r.unanswered
                and all(a.get("error", {}).get("code") == CANCELLED for a in r.in_flight_answers)
                for r in runs
            )
            rows.append({
                "in_flight": in_flight, "sessions": len(runs), "clean": clean,
                "shutdown_ms_p50": round(statistics.median(r.shutdown_ms for r in runs), 1),
                "shutdown_ms_max": round(max(r.shutdown_ms for r in runs), 1),
                "exit_ms_p50": round(statistics.median(r.exit_ms for r in runs), 1),
                "exit_ms_max": round(max(r.exit_ms for r in runs), 1),
            })
    print("in flight  sessions  clean  shutdown p50 / max ms  exit p50 / max ms")
    for r in rows:
        print(f"{r['in_flight']:9}  {r['sessions']:8}  {r['clean']:5}  {r['shutdown_ms_p50']:>9} / {r['shutdown_ms_max']:<9}"
              f"  {r['exit_ms_p50']:>7} / {r['exit_ms_max']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
