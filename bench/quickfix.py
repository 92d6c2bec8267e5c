"""Benchmark: quick-fix `codeAction/resolve` latency, with and without speculation.

A real sparkls process over stdio, the emulator paced at 1,000 tokens/s (a Spark-tier
model's speed). Each trial lists the code actions for one diagnostic (a misspelt name
in a ~20-line function), waits `--pause-ms` (the user reading the menu; 300 ms by
default), then resolves the "Fix with Spark" action and times that request, from
sending it to its answer holding the edit. With speculation the edit was started
when the fixes were listed; without, resolve asks the model.

    python bench/quickfix.py [--trials 30] [--warmup 3] [--pause-ms 300] [--json out.json]

Prints p50/p95 per mode, and the model requests made. Timings, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from common import emulator, pct  # bench/common.py
from sparkls.tools.devclient import start_session, stop_session

FUNCTION = '''\
def summarise_{k}(records, threshold={k}):
    """Group the records above the threshold and report each group (case {k})."""
    groups = {{}}
    for record in records:
        value = record.get("value", 0)
        if value < threshold:
            continue
        key = record.get("group", "default")
        groups.setdefault(key, []).append(value)
    report = []
    for key, values in sorted(groups.items()):
        total = sum(values)
        mean = total / len(values)
        report.append((key, len(values), total, mean))
    lines = []
    for key, count, total, mean in report:
        lines.append(f"{{key}}: {{count}} items, total {{total}}, mean {{mean:.2f}}")
    return "\\n".join(lines) + misspelt_{k}


'''
FUNCTIONS = 12


def make_source() -> str:
    return '"""Generated benchmark input."""\n\n\n' + "".join(FUNCTION.format(k=k) for k in range(FUNCTIONS))


def diagnostic_for(text: str, k: int) -> types.Diagnostic:
    """The linter's report of `misspelt_k`, whose fix renames it back to `report_k`."""
    name = f"misspelt_{k}"
    for line, body in enumerate(text.splitlines()):
        column = body.find(name)
        if column >= 0:
            rng = types.Range(
                start=types.Position(line=line, character=column),
                end=types.Position(line=line, character=column + len(name)),
            )
            return types.Diagnostic(
                range=rng, message=f"undefined name '{name}'; REPLACE {name} WITH str(report)", source="pyflakes"
            )
    raise AssertionError(name)


async def run_mode(url: str, speculation: bool, trials: int, warmup: int, pause_ms: float) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="sparkls-bench-"))
    path = root / "reports.py"
    path.write_text(make_source())
    options = {"fast": {"baseUrl": url, "apiKey": "bench"}, "speculation": {"enabled": speculation}}
    client, editor = await start_session(root, path, options)
    listing: list[float] = []
    resolving: list[float] = []
    for i in range(warmup + trials):
        diagnostic = diagnostic_for(editor.text, i % FUNCTIONS)
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri),
            range=diagnostic.range,
            context=types.CodeActionContext(
                diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix],
                trigger_kind=types.CodeActionTriggerKind.Invoked,  # the user opened the menu
            ),
        )
        started = time.perf_counter()
        (fix,) = await client.text_document_code_action_async(params)
        listed = time.perf_counter()
        await asyncio.sleep(pause_ms / 1000)  # the user reads the menu
        chosen = time.perf_counter()
        resolved = await client.code_action_resolve_async(fix)
        done = time.perf_counter()
        if resolved.edit is None:
            raise SystemExit(f"trial {i}: resolve returned no edit")
        if i >= warmup:
            listing.append((listed - started) * 1000)
            resolving.append((done - chosen) * 1000)
    await stop_session(client)
    return {
        "speculation": speculation,
        "trials": trials,
        "list": {"p50": pct(listing, 50), "p95": pct(listing, 95)},
        "resolve": {"p50": pct(resolving, 50), "p95": pct(resolving, 95)},
    }


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    with emulator("--tokens-per-second", str(args.tokens_per_second)) as emu:
        results = []
        for speculation in (False, True):
            before = emu.stats()["responses"]
            result = await run_mode(emu.url, speculation, args.trials, args.warmup, args.pause_ms)
            result["model_requests"] = emu.stats()["responses"] - before
            results.append(result)
        return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--pause-ms", type=float, default=300.0, help="menu reading time (default 300)")
    parser.add_argument("--tokens-per-second", type=float, default=1000.0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print(
        f"python {sys.version.split()[0]}, emulator paced at {args.tokens_per_second:g} tokens/s, "
        f"{args.pause_ms:g} ms between listing and choosing, {args.trials} fixes per mode (ms)"
    )
    print(f"  {'':<22}{'list p50':>10}{'list p95':>10}{'resolve p50':>13}{'resolve p95':>13}{'model requests':>16}")
    for r in results:
        label = "with speculation" if r["speculation"] else "without speculation"
        print(
            f"  {label:<22}{r['list']['p50']:>10.2f}{r['list']['p95']:>10.2f}"
            f"{r['resolve']['p50']:>13.2f}{r['resolve']['p95']:>13.2f}{r['model_requests']:>16}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
