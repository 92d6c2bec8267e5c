"""Benchmark: sparkls as Helix sees it, through the Helix replay client, from a cold start.

Runs the helix.md flow of bench/kit/editors/helix_flow.py (bench/kit/editors/helix_client.py
replays Helix's client behaviour from its source; a real `sparkls` process, the
emulator on loopback) several times, each with a fresh server, and prints: the steps
that passed, the time from spawning the server to its `initialize` result and to the
first code-action answer (`space a`), the slow rewrite's resolve while Helix blocks,
and the lines the server wrote on stderr (0 in a healthy session).

    python bench/editors_helix.py [--runs 5]

Timings, not assertions. Helix itself is not run: it is not packaged here.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for bench.kit.editors (the flow the tests assert on)

from common import emulator  # bench/common.py
from bench.kit.editors.helix_flow import _flow


class _Faults:
    """What the flow uses of the tests' emulator handle: its URL and its faults."""

    def __init__(self, running) -> None:
        self.url = running.url
        self._running = running

    def set_faults(self, **faults) -> None:
        self._running.faults(faults)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {"initialize_ms": [], "first_code_action_ms": [], "resolve_ms": []}
    worst_steps, worst_stderr, total_steps = None, 0, 0
    with emulator() as running:
        print(f"Helix replay flow x{args.runs} (cold server each run), ms from spawning sparkls:")
        for run in range(1, args.runs + 1):
            with tempfile.TemporaryDirectory(prefix="sparkls-helix-bench-") as tmp:
                root = Path(tmp) / "project"
                root.mkdir()
                out = asyncio.run(asyncio.wait_for(_flow(root, _Faults(running)), 120))
            timings = out["client"].timings
            passed = sum(out["steps"].values())
            total_steps = len(out["steps"])
            stderr = len(out["client"].stderr)
            worst_steps = passed if worst_steps is None else min(worst_steps, passed)
            worst_stderr = max(worst_stderr, stderr)
            figures["initialize_ms"].append(timings["initialize_ms"])
            figures["first_code_action_ms"].append(timings["first_code_action_ms"])
            figures["resolve_ms"].append(out["rewrite_resolve_ms"])
            print(
                f"  run {run}: {passed}/{total_steps} steps, initialize {timings['initialize_ms']:7.1f} ms, "
                f"first code action {timings['first_code_action_ms']:7.1f} ms, stderr {stderr}"
            )
    print(f"steps passed {worst_steps}/{total_steps} (worst run); stderr lines {worst_stderr} (worst run)")
    print(f"{'':44}{'p50':>8} {'min':>8} {'max':>8}")
    labels = {
        "initialize_ms": "spawn -> initialize result",
        "first_code_action_ms": "spawn -> first code-action answer",
        "resolve_ms": "slow rewrite (700 ms model) resolve, blocked",
    }
    for key, label in labels.items():
        values = figures[key]
        print(f"  {label:<42}{statistics.median(values):8.1f} {min(values):8.1f} {max(values):8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
