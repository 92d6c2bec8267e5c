"""Document churn: what a long session leaves behind of documents it has closed.

A real `sparkls --stdio` against the emulator opens 200 distinct documents of about
100 KB, one after another, and for each: types a few keys (ranged `didChange`), pauses
(`--pause-ms`, 100: the server reparses in the background), asks for an inline
completion at the cursor (explicitly invoked, so the model answers),
lists the code actions there, and closes it. VmRSS is read once the server is quiet
after the first 20 documents (the warm baseline: modules, caches, the pool) and after
all of them; the growth is what stays behind. `--compare DIR` runs the same against
another checkout's server (PYTHONPATH=DIR/server) in the same run.

    python bench/churn.py [--documents 200] [--kb 100] [--pause-ms 100] [--compare DIR] [--no-index] [--no-next-edit] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from common import each_build  # bench/common.py
from generated import make_source
from rawlsp import SPARKLS, LspProcess, code_action, rng

WARM = 20  # documents before the baseline is read
CAPABILITIES: dict[str, Any] = {
    "window": {"workDoneProgress": False},
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}, "configuration": False},
    "textDocument": {"synchronization": {"dynamicRegistration": False}, "inlineCompletion": {},
                     "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}},
}


def document(n: int, kb: int) -> str:
    """A distinct module of about `kb` KB (its names carry `n`)."""
    lines = kb * 1024 // 40
    return make_source(lines).replace("step_", f"d{n}_step_")


async def churn(server: LspProcess, root: Path, documents: int, kb: int, skip: dict[str, bool], pause: float) -> dict[str, float]:
    rss: dict[str, float] = {}
    for n in range(documents):
        uri = (root / f"m{n}.py").as_uri()
        text = document(n, kb)
        buffer = server.open(uri, text)
        line = len(buffer.lines) // 2
        column = len(buffer.lines[line].rstrip("\n"))
        for key in "x = ":
            column = buffer.type_key(line, column, key)[1]
        await asyncio.sleep(pause)  # a typing pause: the server reparses in the background
        if not skip.get("completion"):
            await server.request("textDocument/inlineCompletion", {
                "textDocument": {"uri": uri}, "position": {"line": line, "character": column},
                "context": {"triggerKind": 1},
            })
        if not skip.get("actions"):
            await server.request("textDocument/codeAction", code_action(uri, line, column, trigger=1))
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        server.buffers.pop(uri, None)
        if n + 1 == WARM:
            await server.settle(quiet=0.5, timeout=20)
            rss["warm_mb"] = server.status("VmRSS") / 1024
        if (n + 1) % 50 == 0:
            rss[f"after_{n + 1}_mb"] = server.status("VmRSS") / 1024
    await server.settle(quiet=0.5, timeout=30)
    rss["end_mb"] = server.status("VmRSS") / 1024
    rss["growth_mb"] = rss["end_mb"] - rss["warm_mb"]
    rss["peak_mb"] = server.status("VmHWM") / 1024
    return rss


async def run(name: str, env: dict[str, str | None], url: str, args: argparse.Namespace) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix=f"sparkls-churn-{name}-"))
    server = await LspProcess.spawn(SPARKLS, env=env)
    options: dict[str, Any] = {"fast": {"baseUrl": url, "apiKey": "sk-bench"}}
    if args.no_index:
        options["context"] = {"index": False}
    if args.no_next_edit:
        options["nextEdit"] = {"enabled": False}
    documents, kb = args.documents, args.kb
    try:
        await server.initialize(root, options, CAPABILITIES)
        return await churn(server, root, documents, kb, {"completion": args.no_completion, "actions": args.no_actions},
                           args.pause_ms / 1000)
    finally:
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--kb", type=int, default=100, help="size of each document")
    parser.add_argument("--pause-ms", type=float, default=100, help="the pause after typing, before the completion")
    parser.add_argument("--compare", help="another checkout, measured in the same run")
    parser.add_argument("--no-index", action="store_true", help="context.index = false (no workspace index)")
    parser.add_argument("--no-next-edit", action="store_true", help="next_edit.enabled = false")
    parser.add_argument("--no-completion", action="store_true", help="no inline completion request")
    parser.add_argument("--no-actions", action="store_true", help="no code-action request")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    results = asyncio.run(each_build(run, args))
    print(f"{args.documents} documents of ~{args.kb} KB opened, typed in, completed, closed")
    print("| build | RSS after 20, MB | RSS after all, MB | growth, MB | peak, MB |")
    print("|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['warm_mb']:.1f} | {r['end_mb']:.1f} | {r['growth_mb']:+.1f} | {r['peak_mb']:.1f} |")
    for name, r in results.items():
        steps = ", ".join(f"{key[6:-3]}: {value:.0f}" for key, value in r.items() if key.startswith("after_"))
        print(f"{name}: RSS by documents done, MB: {steps}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
