"""Benchmark: a newcomer's first ten minutes, from a fresh clone to an edit in Neovim.

Follows the README and docs/editors/neovim.md as written, with no API key:

1. `git clone` this repository (from the local checkout: no network time counted);
2. `make demo` in the clone (the README's first command: bootstraps `.venv` from the
   package registry, then runs the demo against the emulator);
3. `sparkls emulate --port 0` from the clone's `.venv` (the README's "try it in your
   editor without a key"), until it prints its `local_base_url`;
4. headless Neovim with the documented 0.7 set-up and commands, the clone's
   `.venv/bin` first on PATH (the documented "point cmd at .venv/bin/sparkls"), and
   the project's `.sparkls.toml` holding the line the emulator printed: a quick fix,
   then `<leader>se` with an instruction, until that edit is applied.

    python bench/newcomer.py [--keep] [--no-pip-cache]

Prints each step's wall time and the total. Step 2 depends on the package registry and
pip's cache (`--no-pip-cache` measures a cold one). Timings, not assertions. Needs
`git` and `make` on PATH, and Debian's Neovim 0.7 (`/usr/bin/nvim`, the flow's set-up).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for bench.kit.editors (the Neovim flow the tests assert on)

from common import emulator  # bench/common.py
from bench.kit.editors.nvim_driver import debian_nvim, run_flow
from bench.kit.editors.workspace import REFINED

_URL = re.compile(r"listening on (http://\S+/v1)")


def newcomer_env(no_pip_cache: bool) -> dict[str, str]:
    """A shell without a key and without this checkout's venv on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "VIRTUAL_ENV")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    if no_pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    return env


def timed(label: str, argv: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> float:
    start = time.perf_counter()
    with log.open("ab") as out:
        done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{label} failed (exit {done.returncode}); its output is in {log}")
    print(f"  {label:<52} {elapsed:8.1f} s", flush=True)
    return elapsed


def start_emulator(clone: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str, float]:
    """The clone's own `sparkls emulate` (not this checkout's, as `common.emulator` starts),
    timed to the line with its address."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(clone / ".venv" / "bin" / "sparkls"), "emulate", "--port", "0"],
        cwd=clone, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if match := _URL.search(line):
            elapsed = time.perf_counter() - start
            print(f"  {'sparkls emulate: prints local_base_url':<52} {elapsed:8.1f} s", flush=True)
            return proc, match.group(1), elapsed
    raise SystemExit("sparkls emulate exited without printing its address")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    parser.add_argument("--no-pip-cache", action="store_true", help="bootstrap .venv without pip's cache")
    args = parser.parse_args()
    missing = [tool for tool in ("git", "make") if shutil.which(tool) is None] + ([] if debian_nvim() else ["nvim"])
    if missing:
        print(f"bench/newcomer.py: not on PATH: {', '.join(missing)}", file=sys.stderr)
        return 1
    env = newcomer_env(args.no_pip_cache)
    tmp = Path(tempfile.mkdtemp(prefix="sparkls-newcomer-"))
    clone, log = tmp / "sparkls", tmp / "steps.log"
    print(f"A newcomer's path, no API key (clone in {tmp}):")
    steps: dict[str, float] = {}
    try:
        steps["clone"] = timed("git clone", ["git", "clone", "-q", str(ROOT), str(clone)], cwd=tmp, env=env, log=log)
        steps["demo"] = timed("make demo (bootstrap .venv + the demo)", ["make", "demo"], cwd=clone, env=env, log=log)
        proc, url, steps["emulate"] = start_emulator(clone, env)
        with emulator(started=(proc, url)):
            start = time.perf_counter()
            run, path = run_flow(debian_nvim() or "nvim", tmp / "nvim", url, sparkls_bin=clone / ".venv" / "bin")
            wall = time.perf_counter() - start
        if run.returncode != 0 or "error" in run.result or path.read_text(encoding="utf-8") != REFINED:
            raise SystemExit(f"the Neovim flow failed:\n{run.explain()}")
        first_edit = run.result["timings_ms"]["first_edit"] / 1000
        steps["nvim"] = first_edit
        print(f"  {'Neovim: server spawned -> first <leader>se applied':<52} {first_edit:8.1f} s")
        print(f"  {'  (whole flow incl. quick fix, 2 edits, task)':<52} {wall:8.1f} s")
        total = sum(steps.values())
        print(f"  {'total: clone -> first edit in Neovim':<52} {total:8.1f} s")
        print(f"  {'  of which the demo itself and .venv':<52} {steps['demo']:8.1f} s")
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
