"""Benchmark: model requests nobody asked for, per minute of cursor movement.

Editors ask for code actions by themselves as the cursor moves: lsp-mode's modeline
after each idle pause (no `triggerKind`), VS Code's lightbulb (`triggerKind`
Automatic). On a line with a diagnostic those requests list "Fix with Spark", and a
server that computed fixes ahead for them would pay a model request each time, for a
menu nobody opened. This moves the cursor through a file full of ruff's diagnostics,
opening no menu, and counts the model requests a key-backed endpoint (the emulator
with `--api-key`) received.

    python bench/unasked_requests.py [--moves 120] [--pace-ms 500] [--compare PATH] [--json out.json]

lsp-mode here (Emacs 28, Debian's lsp-mode 8, docs/editors/lsp-mode.md's set-up beside
ruff, bench/lsp_mode_cursor.el); VS Code through the real extension in code-server,
bench/unasked_vscode.mjs (`make vscode-tools` first; see bench/README.md). A minute of
cursor stop lasts `--pace-ms` of real time (half a second: lsp-mode's `lsp-idle-delay`),
and the minute is the run's own time. `--compare PATH`: also another checkout's server (its `server/` on
PYTHONPATH), with this checkout's editor pages. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.editors: the documented blocks, the editor's environment

from common import emulator  # bench/common.py
from tests.editors.docs import block
from tests.editors.driver import SPARKLS_BIN, editor_env, run_editor

KEY = "sk-sparkls-bench-unasked-4f1d9c"
# ruff finds a problem on most lines: every stop lists "Fix with Spark" there.
SOURCE = "".join(
    f"import os{n}\n\n\ndef area{n}(radius):\n    return 3.14 * raduis{n} ** 2\n\n\n" for n in range(8)
)


def _bin(tmp: Path, compare: str | None) -> Path:
    """A folder with `sparkls` (this build, or `compare`'s server) and ruff."""
    if compare is None:
        return SPARKLS_BIN
    folder = tmp / "bin"
    folder.mkdir()
    server = Path(compare).resolve() / "server"
    (folder / "sparkls").write_text(f'#!/bin/sh\nPYTHONPATH="{server}" exec "{sys.executable}" -m sparkls "$@"\n')
    (folder / "sparkls").chmod(0o755)
    (folder / "ruff").symlink_to(SPARKLS_BIN / "ruff")
    return folder


def lsp_mode(url: str, moves: int, pace_ms: float, compare: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sparkls-bench-unasked-") as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "project"
        root.mkdir()
        path = root / "shapes.py"
        path.write_text(SOURCE)
        setup = block("lsp-mode.md", "elisp", "Set-up").replace(
            ":initialization-options '(:notifications",
            f":initialization-options '(:fast (:baseUrl \"{url}\" :apiKeyEnv \"SPARKLS_BENCH_KEY\")"
            f" :deep (:baseUrl \"{url}\" :apiKeyEnv \"SPARKLS_BENCH_KEY\") :notifications",
        )
        docs = tmp / "docs.el"
        docs.write_text("\n".join([setup, block("lsp-mode.md", "elisp", "Beside ruff"), block("lsp-mode.md", "elisp", "Commands")]))
        result = tmp / "result.json"
        env = editor_env(
            tmp / "home", sparkls_bin=_bin(tmp, compare), SPARKLS_BENCH_KEY=KEY, SPARKLS_BENCH_DOCS=str(docs),
            SPARKLS_BENCH_FILE=str(path), SPARKLS_BENCH_MOVES=str(moves), SPARKLS_BENCH_PACE_MS=str(pace_ms),
            SPARKLS_BENCH_RESULT=str(result),
        )
        run = run_editor(["emacs", "--batch", "-q", "-l", str(ROOT / "bench" / "lsp_mode_cursor.el")], env, result,
                         cwd=root, timeout=600)
        if "error" in run.result or run.returncode != 0:
            raise SystemExit(f"lsp-mode run failed:\n{run.explain()}")
        return run.result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=120)
    parser.add_argument("--pace-ms", type=float, default=500.0, help="the time between two cursor stops")
    parser.add_argument("--compare", help="another checkout: its server too")
    parser.add_argument("--json")
    args = parser.parse_args()
    if shutil.which("emacs") is None:
        print("bench/unasked_requests.py: emacs is not on PATH (apt-get install emacs-nox elpa-lsp-mode)", file=sys.stderr)
        return 1
    out: dict[str, Any] = {}
    builds = {"this": None, **({"compared": args.compare} if args.compare else {})}
    with emulator("--api-key", KEY) as emu:
        for name, compare in builds.items():
            before = emu.stats()["responses"]
            figures = lsp_mode(emu.url, args.moves, args.pace_ms, compare)
            model = emu.stats()["responses"] - before
            figures["model_requests"] = model
            figures["model_requests_per_minute"] = model / figures["seconds"] * 60
            out[name] = figures
            print(f"lsp-mode 8.0 ({name} build): {args.moves} cursor stops, {figures['code_action_requests']} code-action "
                  f"requests (no menu opened), {model} model requests: "
                  f"{figures['model_requests_per_minute']:.1f} per minute of cursor movement "
                  f"({figures['seconds']:.0f} s, a stop every {args.pace_ms:.0f} ms)", flush=True)
    if os.environ.get("SPARKLS_VSCODE_TOOLS") is None:
        print("VS Code: bench/unasked_vscode.mjs (see bench/README.md)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
