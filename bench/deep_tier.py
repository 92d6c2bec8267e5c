"""A 5-file change by the deep tier alone versus plan, then delegate (figures only).

The emulator paces the deep tier's model at 70 tokens/s and the fast tier's at 1,000
tokens/s at the same time (per-model faults). Each run starts a fresh `sparkls
--stdio` on a fresh workspace of five Python files, waits for the fast tier's warm
pool, and times one `sparkls.task` (request -> applied WorkspaceEdit): a rename of a
function defined in one file and called in the four others. Modes: the deep tier
alone (SEARCH/REPLACE blocks), and `deep.delegate` with the fast pool at 2 sockets
(the default) and at 5 (one per step). Prints p50 (and min/max) of the wall time and
of the server's own split: the deep request (plan) and the fast-tier steps.

    .venv/bin/python bench/deep_tier.py [--runs 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from common import emulator, pct  # bench/common.py
from rawlsp import SPARKLS, LspProcess  # bench/rawlsp.py

DEEP_MODEL, FAST_MODEL = "gpt-5.3-codex", "gpt-5.3-codex-spark"
KEY = "sk-bench-deep"
CALLERS = ("billing", "reports", "exports", "alerts")


def make_workspace(root: Path) -> None:
    """core.py defines `compute_total`; four modules of ~40 lines call it twice each."""
    helpers = "".join(f"\n\ndef helper_{i}(x):\n    return x * {i} + 1\n" for i in range(6))
    (root / "core.py").write_text(
        '"""Core arithmetic."""\n\n\ndef compute_total(items):\n    return sum(items)\n' + helpers
    )
    for name in CALLERS:
        body = "".join(f"\n\ndef {name}_{i}(rows):\n    values = [r * {i} for r in rows]\n    return len(values)\n"
                       for i in range(5))
        (root / f"{name}.py").write_text(
            f'"""{name.title()}."""\n\nfrom core import compute_total\n{body}\n\n'
            f"def {name}_summary(rows):\n    return compute_total(rows)\n"
        )


def apply_to_disk(edit: dict[str, Any]) -> dict[str, Any]:
    """Apply a task's edit to files on disk (no buffers are open in this bench)."""
    for change in edit.get("documentChanges") or []:
        if change.get("kind") == "create":
            Path(to_fs_path(change["uri"])).write_text("")
            continue
        path = Path(to_fs_path(change["textDocument"]["uri"]))
        lines = path.read_text().split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        text = path.read_text()
        spans = sorted(
            ((starts[e["range"]["start"]["line"]] + e["range"]["start"]["character"],
              starts[e["range"]["end"]["line"]] + e["range"]["end"]["character"], e["newText"]) for e in change["edits"]),
            reverse=True,
        )
        for start, end, new in spans:  # ASCII files: UTF-16 units are characters
            text = text[:start] + new + text[end:]
        path.write_text(text)
    return {"applied": True}


async def run_once(url: str, *, delegate: bool, pool_size: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sparkls-deep-bench-") as folder:
        root = Path(folder)
        make_workspace(root)
        client = await LspProcess.spawn(SPARKLS)
        client.handlers["workspace/applyEdit"] = lambda params: apply_to_disk(params["edit"])
        ready = client.expect("sparkls/status", lambda params: ((params.get("tiers") or {}).get("fast") or {}).get("state") == "ready")
        tier = {"baseUrl": url, "apiKey": KEY}
        options = {
            "fast": {**tier, "poolSize": pool_size},
            "deep": {**tier, "transport": "http", "delegate": delegate, "confirm": False},
            "context": {"index": False},
        }
        caps = {"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create"]}}}
        await client.initialize(root, options, caps)
        await asyncio.wait_for(ready, 30)
        instruction = "Rename compute_total to grand_total everywhere: REPLACE compute_total WITH grand_total"
        params = {"command": "sparkls.task", "arguments": [{"instruction": instruction, "uris": [(root / "core.py").as_uri()]}]}
        started = time.perf_counter()
        result = await client.request("workspace/executeCommand", params) or {}
        wall = (time.perf_counter() - started) * 1000
        await client.stop()
        renamed = sum("grand_total" in (root / f"{n}.py").read_text() for n in ("core", *CALLERS))
    if not result.get("applied") or renamed != 5:
        raise RuntimeError(f"the task did not change the 5 files: {result}")
    timings = result["timings_ms"]
    return {"wall": wall, "deep": timings.get("plan", timings.get("deep")), "steps": timings.get("steps", 0.0)}


def _row(name: str, runs: list[dict[str, Any]]) -> str:
    def fig(key: str) -> str:
        values = [r[key] for r in runs]
        return f"{pct(values, 50):7.0f} ({min(values):.0f}-{max(values):.0f})"

    return f"| {name} | {fig('wall')} | {fig('deep')} | {fig('steps')} |"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with emulator("--api-key", KEY) as emu:
        emu.faults({"models": {DEEP_MODEL: {"tokens_per_second": 70}, FAST_MODEL: {"tokens_per_second": 1000}}})
        modes = {
            "deep tier alone": {"delegate": False, "pool_size": 2},
            "plan, then delegate (fast pool 2)": {"delegate": True, "pool_size": 2},
            "plan, then delegate (fast pool 5)": {"delegate": True, "pool_size": 5},
        }
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in modes}
        for _ in range(args.runs):  # round-robin, so machine drift hits every mode alike
            for name, mode in modes.items():
                results[name].append(await run_once(emu.url, **mode))
    print(f"5-file rename, deep tier at 70 tokens/s, fast tier at 1,000 tokens/s; p50 (min-max) of {args.runs} runs, ms")
    print("| mode | request -> applied | deep request (plan) | fast-tier steps |")
    print("|---|---|---|---|")
    for name, runs in results.items():
        print(_row(name, runs))
    alone = statistics.median(r["wall"] for r in results["deep tier alone"])
    for name in list(modes)[1:]:
        print(f"{name}: {alone / statistics.median(r['wall'] for r in results[name]):.2f}x faster than the deep tier alone")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
