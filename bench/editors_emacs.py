"""Benchmark: sparkls as Emacs sees it, through eglot and through lsp-mode, from a cold start.

Runs the Emacs flows of bench/kit/editors/ (the ones tests/editors/ asserts on;
batch Emacs, the documented set-ups from docs/editors/emacs.md and docs/editors/lsp-mode.md, a real `sparkls` process, the
emulator on loopback) several times, each with a fresh server, and prints for each
client: the steps that passed, the time from starting the server to its
`initialize` result and to a warm fast tier (the first `sparkls/status` "ready"),
and the lines the server wrote on stderr (0 in a healthy session).

    python bench/editors_emacs.py [--runs 3] [--client eglot|lsp-mode] [--json out.json]

Timings, not assertions. Needs `emacs` with eglot (elpa-eglot) and lsp-mode (elpa-lsp-mode).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for bench.kit.editors (the flows the tests assert on)

from common import emulator  # bench/common.py
from bench.kit.editors import emacs_driver, lsp_mode_driver

FLOWS = {"eglot": emacs_driver.run_flow, "lsp-mode": lsp_mode_driver.run_flow}


def measure(emacs: str, client: str, runs: int, *, verbose: bool) -> dict[str, Any]:
    figures: dict[str, Any] = {"initialize_ms": [], "warm_ms": [], "stderr_lines": [], "steps": []}
    with emulator() as emu:  # no key: local tiers need none
        for n in range(runs):
            with tempfile.TemporaryDirectory(prefix=f"sparkls-bench-{client}-") as tmp:
                run, _ = FLOWS[client](emacs, Path(tmp), emu.url)
                if verbose:
                    print(run.explain())
                if run.returncode != 0 or "error" in run.result:
                    raise SystemExit(f"{client} run {n + 1} failed:\n{run.explain()}")
                for key in ("initialize_ms", "warm_ms", "stderr_lines"):
                    figures[key].append(run.result[key])
                figures["steps"] = run.result["steps"]
                print(
                    f"  {client} run {n + 1}: initialize {figures['initialize_ms'][-1]:7.1f} ms, "
                    f"warm {figures['warm_ms'][-1]:7.1f} ms, stderr {figures['stderr_lines'][-1]} lines",
                    flush=True,
                )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--client", choices=sorted(FLOWS), action="append")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--verbose", action="store_true", help="print each run's result")
    args = parser.parse_args()
    emacs = shutil.which("emacs")
    if emacs is None:
        print("bench/editors_emacs.py: emacs is not on PATH (apt-get install emacs-nox)", file=sys.stderr)
        return 1
    out = {}
    for client in args.client or sorted(FLOWS):
        print(f"{client} flow x{args.runs} (cold server each run), ms from starting sparkls:")
        figures = out[client] = measure(emacs, client, args.runs, verbose=args.verbose)
        print(f"  steps passed: {len(figures['steps'])} ({', '.join(figures['steps'])})")
        print(f"  {'':38} {'p50':>8} {'min':>8} {'max':>8}")
        for key, label in (("initialize_ms", "start -> initialize result"), ("warm_ms", "start -> status ready")):
            values = figures[key]
            print(f"  {label:38} {statistics.median(values):8.1f} {min(values):8.1f} {max(values):8.1f}")
        print(f"  stderr lines: {max(figures['stderr_lines'])} (worst run)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
