"""Benchmark: time to the applied edit with patches vs whole regions, real edits, a real LSP session.

Each edit of the real-edit corpus (bench/kit/real_edits.py: small edits from public
projects' git histories, the commit subject as the instruction, the changed lines
selected), stratified by region size, is run as a `sparkls.edit` through a real
sparkls process over stdio (bench/rawlsp.py), against `sparkls emulate` behind
`latency_proxy.py` (RTT `--rtt-ms`), its ideal model told each edit's true result
(``POST /_emulator/ideal``) and paced like Spark (`--tps` tokens a second, `--first-token-ms`
before the first). Two servers run side by side in the same run, edit by edit:

- ``patch``: as shipped (`fast.patches` on): the request asks for the `apply_patch`
  tool's patch where it is shorter than the region (edits/ask.py), else the region;
- ``whole``: `fast.patches` off: always the region's whole new text.

Per stratum and over all, per server: edits applied exactly; time to the applied edit
(the `workspace/executeCommand` round trip, the client applying the edit inside it)
p50/p90, and per edit over the floor (RTT + first token + the smaller shape's
streaming time at the paced rate), p50/p90; characters streamed (the answer the ideal
model gave: the tool call's diff and path, or the fenced region) over the smaller
shape's, p50/p90; requests per edit (a patch asked again as the whole region shows here).

    python bench/patch_latency.py [--edits 160] [--rtt-ms 80] [--tps 1000] [--first-token-ms 150] [--json out.json]

Figures, not assertions; measured on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from common import emulator, pct  # bench/common.py
from rawlsp import CAPABILITIES, SPARKLS, Buffer, LspProcess, rng  # bench/rawlsp.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for bench.kit.real_edits

from sparkls.edits.ask import choose_ask  # noqa: E402
from sparkls.emulator.ideal import fenced  # noqa: E402
from sparkls.emulator.model import split_tokens  # noqa: E402
from sparkls.emulator.patches import v4a_diff  # noqa: E402
from bench.kit.real_edits import STRATA, RealEdit, load  # noqa: E402

API_KEY = "sk-bench-patches"
MODES = ("patch", "whole")
CAPS = {**CAPABILITIES, "general": {"positionEncodings": ["utf-32"]}}  # code points, as Python counts


def _mixed(edits: list[RealEdit]) -> list[RealEdit]:
    """`edits` taking each project in turn (corpus order within a project)."""
    projects: dict[str, list[RealEdit]] = {}
    for edit in edits:
        projects.setdefault(edit.project, []).append(edit)
    queues, out = list(projects.values()), []
    while any(queues):
        out += [queue.pop(0) for queue in queues if queue]
    return out


def chosen(edits: tuple[RealEdit, ...], n: int) -> list[RealEdit]:
    """Up to `n` edits, as even a share of each stratum (and in it, of each project) as
    the corpus allows."""
    by = [_mixed([e for e in edits if e.stratum == s]) for s in range(len(STRATA))]
    out: list[RealEdit] = []
    while len(out) < n and any(by):
        for bucket in by:
            if bucket and len(out) < n:
                out.append(bucket.pop(0))
    return out


def position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def shapes(edit: RealEdit) -> tuple[str | None, str]:
    """(the tool's answer: diff and path, the whole region's answer) as the ideal model writes them."""
    diff = v4a_diff(edit.old_region, edit.new_region)
    return (None if diff is None else diff + edit.path), fenced(edit.new_region)


async def run_one(server: LspProcess, root: Path, edit: RealEdit, index: int, mode: str) -> tuple[float, bool]:
    folder = root / mode / f"e{index}"
    folder.mkdir(parents=True)
    path = folder / Path(edit.path).name
    path.write_text(edit.text)
    uri = path.as_uri()
    buffer = server.buffers[uri] = Buffer(server, uri, edit.text, full=False)
    server.did_open(uri, edit.text, edit.language_id)
    (sl, sc), (el, ec) = position(edit.text, edit.selection[0]), position(edit.text, edit.selection[1])
    params = {"command": "sparkls.edit", "arguments": [{"uri": uri, "range": rng(sl, sc, el, ec), "instruction": edit.subject}]}
    started = time.perf_counter()
    reply = await server.request("workspace/executeCommand", params)
    elapsed = (time.perf_counter() - started) * 1000
    exact = isinstance(reply, dict) and reply.get("applied") is True and buffer.text == edit.new_text
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.buffers.pop(uri, None)
    return elapsed, exact


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    edits = chosen(load(), args.edits)
    rows: list[dict[str, Any]] = []
    with emulator("--api-key", API_KEY) as emu, emu.proxied(args.rtt_ms) as url, tempfile.TemporaryDirectory() as tmp:
        emu.faults({"tokens_per_second": args.tps, "delay_ms": int(args.first_token_ms)})
        root = Path(tmp)
        servers = {}
        for mode in MODES:
            server = await LspProcess.spawn(SPARKLS)
            await server.initialize(root, {"fast": {"baseUrl": url, "apiKey": API_KEY, "patches": mode == "patch"},
                                           "speculation": {"enabled": False}}, CAPS)
            servers[mode] = server
        control = httpx.Client(base_url=emu.root, timeout=10)
        for mode, server in servers.items():  # one untimed edit each: connections warm, imports done
            control.post("/_emulator/ideal", json={"edits": [{"old": edits[0].old_region, "new": edits[0].new_region}]})
            await run_one(server, root / "warm", edits[0], 0, mode)
        for i, edit in enumerate(edits):
            control.post("/_emulator/ideal", json={"edits": [{"old": edit.old_region, "new": edit.new_region}]})
            tool, whole = shapes(edit)
            smaller = whole if tool is None or len(whole) <= len(tool) else tool
            floor = args.rtt_ms + args.first_token_ms + len(split_tokens(smaller)) / args.tps * 1000
            row: dict[str, Any] = {"edit": edit.name, "stratum": STRATA[edit.stratum], "floor_ms": floor,
                                   "smaller_chars": len(smaller)}
            for mode in (MODES if i % 2 == 0 else MODES[::-1]):  # alternate who goes first
                before = control.get("/_emulator/stats").json()
                ms, exact = await run_one(servers[mode], root, edit, i + 1, mode)
                after = control.get("/_emulator/stats").json()
                called = after["patch_calls"] > before["patch_calls"]
                streamed = len(tool) if called and tool is not None else len(whole)
                row[mode] = {"ms": ms, "exact": exact, "chars": streamed, "requests": after["responses"] - before["responses"],
                             "asked": choose_ask(edit.old_region, edit.path, "responses", patches=mode == "patch")}
            rows.append(row)
        control.close()
        for server in servers.values():
            await server.stop()
    return {"rows": rows, "settings": vars(args) | {"json": None}}


def report(result: dict[str, Any]) -> None:
    rows = result["rows"]
    print(f"  {'stratum':9} {'n':>4} {'server':6} {'exact':>7} {'ms p50':>7} {'p90':>6} {'/floor p50':>10} {'p90':>5} "
          f"{'chars/smaller p50':>17} {'p90':>5} {'req/edit':>8} {'floor p50':>9}")
    for stratum in (*STRATA, "all"):
        group = [r for r in rows if stratum in ("all", r["stratum"])]
        if not group:
            continue
        for mode in MODES:
            f = [r[mode] for r in group]
            ratio = [r[mode]["ms"] / r["floor_ms"] for r in group]
            chars = [r[mode]["chars"] / r["smaller_chars"] for r in group]
            exact = sum(x["exact"] for x in f)
            print(f"  {stratum:9} {len(group):>4} {mode:6} {exact:>3}/{len(f):<3} {pct([x['ms'] for x in f], 50):>7.0f} "
                  f"{pct([x['ms'] for x in f], 90):>6.0f} {pct(ratio, 50):>10.2f} {pct(ratio, 90):>5.2f} "
                  f"{pct(chars, 50):>17.2f} {pct(chars, 90):>5.2f} {sum(x['requests'] for x in f) / len(f):>8.2f} "
                  f"{pct([r['floor_ms'] for r in group], 50):>9.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=160)
    parser.add_argument("--rtt-ms", type=float, default=80.0)
    parser.add_argument("--tps", type=float, default=1000.0)
    parser.add_argument("--first-token-ms", type=float, default=150.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    print(f"sparkls {head.stdout.strip()}; python {sys.version.split()[0]}; ideal model at {args.tps:g} tok/s, "
          f"first token {args.first_token_ms:g} ms, RTT {args.rtt_ms:g} ms (latency_proxy.py); WebSocket lanes")
    result = asyncio.run(measure(args))
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
