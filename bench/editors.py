"""Benchmark: sparkls as Neovim sees it, from a cold start.

Runs the Neovim flow of tests/editors/ (headless Neovim, the documented set-up from
docs/editors/neovim.md, a real `sparkls` process, the emulator on loopback) several
times. Each run starts a fresh server; times are measured inside Neovim from the
moment it spawns the server:

- to the `initialize` result (process start, imports, initialize);
- to a warm fast tier: the first `sparkls/status` whose fast state is "ready" (pool
  open and warmed with `generate: false`). The server coalesces status notifications
  for up to 50 ms, so this includes up to 50 ms of that delay.

Then the flow's two `sparkls.edit`s give the server's own total (request to applied
edit, from its summary).

    python bench/editors.py [--runs 5] [--json out.json]

Prints p50 (and min/max). Timings, not assertions. Needs `nvim` on PATH.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.editors (the flow is shared with the tests)

from common import emulator  # bench/common.py
from tests.editors.nvim_driver import run_flow
from tests.editors.workspace import EXPECTED


def measure(nvim: str, runs: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {"initialize_ms": [], "warm_ms": [], "edit_total_ms": []}
    with emulator() as emu:  # no key: local tiers need none
        for n in range(runs):
            with tempfile.TemporaryDirectory(prefix="sparkls-bench-nvim-") as tmp:
                run, path = run_flow(nvim, Path(tmp), emu.url)
                if run.returncode != 0 or "error" in run.result or path.read_text(encoding="utf-8") != EXPECTED:
                    raise SystemExit(f"run {n + 1} failed:\n{run.explain()}")
                figures["initialize_ms"].append(run.result["timings_ms"]["initialize"])
                figures["warm_ms"].append(run.result["timings_ms"]["warm"])
                figures["edit_total_ms"] += [c["result"]["timings_ms"]["total"] for c in run.result["commands"]]
                print(
                    f"  run {n + 1}: initialize {figures['initialize_ms'][-1]:7.1f} ms, "
                    f"warm {figures['warm_ms'][-1]:7.1f} ms",
                    flush=True,
                )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    nvim = shutil.which("nvim")
    if nvim is None:
        print("bench/editors.py: nvim is not on PATH (apt-get install neovim)", file=sys.stderr)
        return 1
    print(f"Neovim flow x{args.runs} (cold server each run), ms from spawning sparkls:")
    figures = measure(nvim, args.runs)
    labels = {
        "initialize_ms": "spawn -> initialize result",
        "warm_ms": "spawn -> fast tier warm (status ready)",
        "edit_total_ms": "sparkls.edit total (server summary)",
    }
    print(f"{'':42} {'p50':>8} {'min':>8} {'max':>8}   n")
    for key, label in labels.items():
        values = figures[key]
        print(f"{label:42} {statistics.median(values):8.1f} {min(values):8.1f} {max(values):8.1f}   {len(values)}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
