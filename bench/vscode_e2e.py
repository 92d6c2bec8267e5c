"""Benchmark: what the real VS Code tests (tests/vscode/) add to `make test` and CI.

    python bench/vscode_e2e.py [--cold]

Times, in one run:

1. `scripts/vscode_tools.py`: with the cache in place, the check alone; with `--cold`,
   a first install into an empty cache folder (Node 24 already in `.tools/node`;
   code-server and playwright-core downloaded and built: network and CPU bound), the
   folder removed afterwards;
2. each `tests/vscode/*.test.mjs` file on its own (`node --test`, as `make
   test-vscode-e2e` runs them one at a time), and each test's time as the runner
   reports it.

Needs the `.vsix` that `make test-vscode` builds, Chromium, and root or user
namespaces (the key test). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
TOOLS = ROOT / "scripts" / "vscode_tools.py"
_TEST_LINE = re.compile(r"^[✔✖] (.+?) \((\d+(?:\.\d+)?)ms\)$")


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def tools_json(env: dict[str, str]) -> tuple[float, str]:
    seconds, done = timed([str(PYTHON), str(TOOLS)], env)
    if done.returncode != 0:
        sys.exit(f"scripts/vscode_tools.py failed:\n{done.stderr}")
    return seconds, done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cold", action="store_true", help="also time a first install into an empty cache")
    args = parser.parse_args()
    env = dict(os.environ)
    rows: list[tuple[str, float]] = []
    if args.cold:
        cache = tempfile.mkdtemp(prefix="sparkls-bench-vscode-cache-")
        try:
            seconds, _ = tools_json({**env, "XDG_CACHE_HOME": cache})
            rows.append(("install code-server + playwright-core (cold cache)", seconds))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    seconds, paths = tools_json(env)
    rows.append(("vscode_tools.py, cached (check only)", seconds))
    node = json.loads(paths)["node"]
    tests: list[tuple[str, str, float]] = []
    total = 0.0
    failed = []
    for test_file in sorted((ROOT / "tests" / "vscode").glob("*.test.mjs")):
        seconds, done = timed(
            [node, "--test", "--test-reporter=spec", str(test_file)], {**env, "SPARKLS_VSCODE_TOOLS": paths}
        )
        rows.append((f"{test_file.name} (whole file: code-server, Chromium, tests)", seconds))
        total += seconds
        if done.returncode != 0:
            failed.append(test_file.name)
        for line in done.stdout.splitlines():
            match = _TEST_LINE.match(line.strip())
            if match:
                tests.append((test_file.name, match.group(1), float(match.group(2)) / 1000))
    print(f"{'step':<72} {'seconds':>8}")
    for name, seconds in rows:
        print(f"{name:<72} {seconds:>8.1f}")
    print(f"{'all test files':<72} {total:>8.1f}")
    print()
    print(f"{'test':<96} {'seconds':>8}")
    for file, name, seconds in tests:
        print(f"{file + ': ' + name:<96.96} {seconds:>8.1f}")
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
