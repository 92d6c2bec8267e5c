"""Benchmark: the round trip of `sparkls.edit`, request to applied edit, against the emulator.

For a 200-line and a 5,000-line Python file (generated, fixed), it runs N edits
through a real sparkls process over stdio, each followed by the editor applying the
edit and sending didChange. Before each edit, a bare WebSocket client sends the same
prompt to the same emulator on its own kept-open connection: that is the emulator's
own time for the same reply. The difference is what sparkls adds.

    python bench/edit_loop.py [--edits 60] [--warmup 5] [--pause-ms 50] [--json out.json]

`--pause-ms` is the time between one edit and the next (a user reading the diff);
with 0 the edits run back to back and each pays for the reparse of the previous
edit's change (reported on its own line either way).

Prints p50/p95 of each figure and the ratio sparkls / bare. Timings, not assertions.
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

from websockets.asyncio.client import connect

from common import emulator, pct  # bench/common.py
from generated import make_source  # bench/generated.py
from sparkls.context.builder import build_edit_context
from sparkls.context.prompt import render_edit_prompt
from sparkls.guard import Guard
from sparkls.tools.devclient import edit_params, start_session, stop_session
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.models.events import response_create

class BareClient:
    """The emulator's own time: one kept-open WebSocket, no LSP, no context work."""

    def __init__(self, ws_url: str) -> None:
        self.ws_url = ws_url
        self.ws: Any = None

    async def __aenter__(self) -> BareClient:
        self.ws = await connect(
            self.ws_url, additional_headers=[("Authorization", "Bearer bench")], compression=None, max_size=None
        )
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.ws.close()

    async def time_request(self, message: dict[str, Any]) -> float:
        payload = json.dumps(message)
        started = time.perf_counter()
        await self.ws.send(payload)
        while True:
            event = json.loads(await self.ws.recv())
            if event["type"] in ("response.completed", "error"):
                break
        return (time.perf_counter() - started) * 1000


def _reparse_ms(doc: Any, new_text: str, version: int) -> float:
    """What the server does off the request path after didChange: an incremental reparse.

    Mirrors the edit as the same kind of change (the span between common prefix and
    suffix) so the tree is edited, not rebuilt.
    """
    old = doc.text
    head = 0
    while head < min(len(old), len(new_text)) and old[head] == new_text[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new_text)) - head and old[-1 - tail] == new_text[-1 - tail]:
        tail += 1
    start, end = doc.position(head), doc.position(len(old) - tail)
    started = time.perf_counter()
    doc.apply([TextChange(new_text[head : len(new_text) - tail], (start, end))], version)
    assert doc.tree is not None
    return (time.perf_counter() - started) * 1000


def prompt_for(text: str, uri: str, line: int, instruction: str, root: Path) -> dict[str, Any]:
    """The `response.create` sparkls would send for this edit (same code path)."""
    doc = DocumentStore().open(uri, text, 1)
    offset = doc.lines.starts[line]
    ctx = build_edit_context(doc, offset, offset, path=Path(uri[7:]).relative_to(root).as_posix(), max_region_lines=300)
    return response_create("gpt-5.3-codex-spark", Guard(root).seal(render_edit_prompt(ctx, instruction)))


async def run_file(
    url: str, ws_url: str, lines: int, edits: int, warmup: int, pause_ms: float, profile: str | None = None
) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="sparkls-bench-"))
    path = root / f"module_{lines}.py"
    path.write_text(make_source(lines))
    command = None
    if profile:
        command = [sys.executable, "-m", "cProfile", "-o", f"{profile}.{lines}", "-m", "sparkls", "--stdio"]
    client, editor = await start_session(
        root, path, {"fast": {"baseUrl": url, "apiKey": "bench"}}, server_command=command
    )
    keys = ("bare", "sparkls", "overhead", "net", "context", "model", "edit", "apply", "editor", "reparse")
    samples: dict[str, list[float]] = {k: [] for k in keys}
    reparse_doc = DocumentStore().open(editor.uri, editor.text, 1)
    assert reparse_doc.tree is not None
    async with BareClient(ws_url) as bare:
        targets = [i for i, text in enumerate(editor.text.splitlines()) if text == "    total = 0"]
        for i in range(warmup + edits):
            await asyncio.sleep(pause_ms / 1000)
            line = targets[(i * 37) % len(targets)]
            body = editor.text.splitlines()[line + 5]
            old, new = ("total", "acc") if "total" in body else ("acc", "total")
            instruction = f"Rename the accumulator: REPLACE {old} WITH {new}"
            bare_ms = await bare.time_request(prompt_for(editor.text, editor.uri, line, instruction, root))
            started = time.perf_counter()
            summary = await client.workspace_execute_command_async(edit_params(editor.uri, line, instruction))
            rtt = (time.perf_counter() - started) * 1000
            if not summary.get("applied"):
                raise SystemExit(f"edit {i} failed: {summary}")
            reparse_ms = _reparse_ms(reparse_doc, editor.text, editor.version)
            if i < warmup:
                continue
            t = summary["timings_ms"]
            editor_ms = editor.apply_ms[-1]
            for key, value in (
                ("bare", bare_ms), ("sparkls", rtt), ("overhead", rtt - bare_ms),
                ("net", rtt - bare_ms - editor_ms), ("context", t["context"]), ("model", t["model"]), ("edit", t["edit"]),
                ("apply", t["apply"]), ("editor", editor_ms), ("reparse", reparse_ms),
            ):
                samples[key].append(value)
    await stop_session(client)
    return {"lines": lines, "edits": edits, **{k: {"p50": pct(v, 50), "p95": pct(v, 95), "mean": statistics.fmean(v)} for k, v in samples.items()}}


def report(result: dict[str, Any]) -> None:
    print(f"\n{result['lines']}-line file, {result['edits']} edits (ms)")
    print(f"  {'figure':<38}{'p50':>9}{'p95':>9}")
    labels = {
        "bare": "emulator alone (bare WebSocket)",
        "sparkls": "sparkls.edit round trip",
        "overhead": "round trip - bare",
        "editor": "  the test editor's own apply work",
        "net": "added by sparkls (- editor's work)",
        "context": "  server: context + prompt",
        "model": "  server: model request (send to completed)",
        "edit": "  server: parse reply, check, diff",
        "apply": "  server: applyEdit round trip",
        "reparse": "off-path: reparse after didChange",
    }
    for key, label in labels.items():
        print(f"  {label:<38}{result[key]['p50']:>9.2f}{result[key]['p95']:>9.2f}")
    ratio = result["sparkls"]["p50"] / result["bare"]["p50"]
    print(f"  ratio sparkls / bare (p50): {ratio:.2f}x")


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    with emulator() as emu:
        return [
            await run_file(emu.url, emu.ws_url, lines, args.edits, args.warmup, args.pause_ms, args.profile_server)
            for lines in (200, 5000)
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--pause-ms", type=float, default=50.0, help="time between edits (default 50)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--profile-server", metavar="PREFIX", help="run the server under cProfile, stats to PREFIX.<lines>")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print(f"python {sys.version.split()[0]}, unpaced emulator on loopback, {args.pause_ms:g} ms between edits")
    for result in results:
        report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
