"""Benchmark: no request waits behind another file's redaction or a huge one-line file.

Four parts, figures only:

1. **Redaction at 1 MB**, in this process: `redact` (what the guard runs on every
   part) on 1 MB of each input of `INPUTS`: ordinary code, one long line of words, and
   the adversarial ones (minified `{token:a,secret:b,...}`, `password=` repeated,
   `Bearer ` repeated, a URL's userinfo repeated, quotes, private-key markers...). Each
   runs in a child process with a time limit (`--redact-limit`, s): an input that takes
   longer is printed as over it. The worst one is the figure.
2. **The event loop while a big draft is sealed**: `Guard.seal_async` of a 1 MB and a
   50 MB draft (ordinary code, and the minified line), which redacts in a worker thread,
   with a probe on the loop (a task that sleeps 1 ms and records how long each sleep
   really took): the seal's time and the loop's longest wait. The loop gets the GIL
   back only between two calls into the regex engine: this says how long one call holds it.
3. **A code action while a task reads a 200 KB minified line**: a real `sparkls
   --stdio` under `loop_probe.py` (every event-loop callback of `--threshold-ms` or
   more is recorded), against the unpaced emulator, with its defaults (next edits on,
   the workspace index on), a workspace with a small open Python file A, `min.js`
   (one line of 200 KB of minified JavaScript: the issue's `{token:a,secret:b,...}`
   and, apart, plain `{k0:0,k1:1,...}`) and `huge.js` (one line of 50 MB).
   `textDocument/codeAction` on A idle, then one after another while a `sparkls.task`
   naming `min.js` runs, from its sending to its answer (so they meet its reading,
   redaction and sending): p50 / p95 / max ms, and the longest loop callback
   meanwhile. The same while a task names `huge.js`.
4. **A 50 MB one-line open document**: `didOpen` of `huge.js` with a code action on A
   right behind it; a one-character `didChange` in it (likewise: its next-edit question
   follows); then, on its line, `codeAction`, `inlineCompletion`, `sparkls.edit`, and a
   task naming it: each one's latency and what it answered, and the longest loop
   callback of each step until the server is quiet.

    python bench/loop_lag.py [--rounds 1] [--actions 40] [--minified token,plain] [--threshold-ms 5]
                             [--redact-limit 20] [--skip-redact] [--skip-seal] [--json out.json]

Timings on a shared machine move with its load; the longest callback is the figure
that says whether a request can wait behind the work.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import emulator, pct  # bench/common.py
from loop_probe import read_report  # bench/loop_probe.py
from rawlsp import LspProcess, code_action, edit_command, rng  # bench/rawlsp.py

KEY = "sk-bench"
DEEP_MODEL = "gpt-5.3-codex"
MB = 1_000_000
SMALL = "".join(f"def f_{k}(a, b):\n    total = a + b * {k}\n    return total\n\n\n" for k in range(40))
CAPABILITIES: dict[str, Any] = {
    "window": {"workDoneProgress": False},
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}, "configuration": False},
    "textDocument": {"synchronization": {"dynamicRegistration": False}, "inlineCompletion": {},
                     "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}},
}


def repeated(piece: str, size: int) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def minified(size: int, kind: str = "token") -> str:
    """One line of minified JavaScript: an object of `token`/`secret` keys (the issue's
    input, `kind="token"`), or of plain keys (`"plain"`)."""
    if kind == "token":
        return "window.cfg={" + repeated("token:a,secret:b,", size - 14) + "};"
    pairs, total, n = [], 0, 0
    while total < size:
        pairs.append(f"k{n}:{n}")
        total, n = total + len(pairs[-1]) + 1, n + 1
    return "window.cfg={" + ",".join(pairs) + "};"


def huge_line(size: int) -> str:
    return "var d=[" + repeated("{id:1,name:\"x\",on:!0},", size - 9) + "];"


INPUTS: dict[str, str] = {
    "ordinary code (this repository's Python)": "code",
    "one line of words": "alpha beta gamma delta ",
    "minified {token:a,secret:b,...}": "{token:a,secret:b,",
    "password= repeated": "password=",
    "password = \" repeated": 'password = "',
    "Bearer repeated": "Bearer ",
    "URL userinfo ://a:b repeated": "://a:b",
    "sk- repeated": "sk-",
    "eyJ repeated": "eyJ",
    "quotes and backslashes": "\"'\\",
    "private key markers": "-----BEGIN RSA PRIVATE KEY-----\n",
    "base64 with a BEGIN": "-----BEGIN PRIVATE KEY-----" + "QUJD" * 20,
    "x repeated": "x",
}


def _input(name: str, size: int) -> str:
    piece = INPUTS[name]
    if piece == "code":
        source = "".join(p.read_text() for p in sorted((Path(__file__).parents[1] / "server/sparkls/guard").glob("*.py")))
        return repeated(source, size)
    return repeated(piece, size)


def _time_redact(name: str, size: int, out: Any) -> None:
    from sparkls.guard.secrets import redact  # what the guard runs on every part

    text = _input(name, size)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        redact(text)
        best = min(best, time.perf_counter() - started)
    out.put(best * 1000)


def redaction(limit: float) -> dict[str, float | None]:
    """Milliseconds to redact 1 MB of each input (best of 3), None when over `limit` s."""
    found: dict[str, float | None] = {}
    context = multiprocessing.get_context("spawn")
    for name in INPUTS:
        queue = context.Queue()
        child = context.Process(target=_time_redact, args=(name, MB, queue))
        child.start()
        child.join(limit)
        if child.is_alive():
            child.kill()
            child.join()
            found[name] = None
        else:
            found[name] = queue.get()
        shown = f"{found[name]:,.1f} ms" if found[name] is not None else f"over {limit:g} s"
        print(f"  redact 1 MB, {name}: {shown}", flush=True)
    return found


async def seal_lag(text: str) -> tuple[float, float]:
    """(ms to seal a draft of `text` with `Guard.seal_async`, the loop's longest wait
    meanwhile in ms), with a 1 ms ticker on the loop as the probe."""
    from sparkls.guard import Draft, FromUser, Guard, Section

    draft = Draft("Instructions.", (Section.of("Task: ", FromUser(text)),))
    guard = Guard(None)
    waits: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            waits.append(now - last)
            last = now

    probe = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.02)
    waits.clear()
    started = time.perf_counter()
    await guard.seal_async(draft)
    took = time.perf_counter() - started
    done.set()
    await probe
    return took * 1000, max(waits, default=0.0) * 1000


async def sealing(figures: dict[str, Any]) -> None:
    sys.setswitchinterval(0.001)  # as the server sets it
    code = _input("ordinary code (this repository's Python)", MB)
    for size in (MB, 50 * MB):
        for label, text in (("ordinary code", repeated(code, size)), ("plain minified line", minified(size, "plain"))):
            took, wait = await seal_lag(text)
            name = f"seal_async of {size // MB} MB of {label}"
            figures[name] = {"seal_ms": took, "longest_loop_wait_ms": wait}
            print(f"  {name}: {took:,.1f} ms; the loop's longest wait meanwhile {wait:,.1f} ms", flush=True)
    _, idle = await seal_lag("x")
    figures["idle loop's longest wait"] = idle
    print(f"  (a tiny draft, sealed inline: the loop's longest wait {idle:,.1f} ms)", flush=True)


async def start(root: Path, url: str, report: Path, threshold_ms: float) -> LspProcess:
    command = [sys.executable, str(Path(__file__).with_name("loop_probe.py")), str(report), str(threshold_ms),
               "--stdio", "--log-level", "WARNING"]
    server = await LspProcess.spawn(command, env={"XDG_CACHE_HOME": str(root.parent / "cache")})  # its own index
    deep = {"baseUrl": url, "apiKey": KEY, "transport": "http"}
    options = {"fast": {"baseUrl": url, "apiKey": KEY}, "deep": deep}  # next edits and the index: on, as by default here
    await server.initialize(root, options, CAPABILITIES)
    return server


def task(uri: str, instruction: str = "Tidy it up.") -> dict[str, Any]:
    return {"command": "sparkls.task", "arguments": [{"instruction": instruction, "uris": [uri]}]}


def longest(report: Path, since: float, until: float) -> tuple[float, str]:
    entries = read_report(str(report), since, until)
    if not entries:
        return 0.0, "-"
    worst = max(entries, key=lambda e: e["ms"])
    return worst["ms"], worst["what"]


def outcome(message: dict[str, Any]) -> str:
    """What a response said, in a few words."""
    if "error" in message:
        return f"error: {message['error'].get('message', '')[:160]}"
    result = message.get("result")
    if isinstance(result, dict) and "applied" in result:
        error = result.get("error") or {}
        warnings = result.get("warnings") or []
        said = error.get("message") or "; ".join(warnings) or ""
        return f"applied={result['applied']} {said[:200]}".strip()
    if isinstance(result, dict) and "items" in result:
        return f"{len(result['items'])} items"
    if isinstance(result, list):
        return f"{len(result)} actions"
    return json.dumps(result)[:160]


async def actions_while(server: LspProcess, lightbulb: dict[str, Any], pending: asyncio.Future[Any]) -> list[float]:
    """Code actions on A one after another until `pending` is done: their latencies."""
    during = []
    while not pending.done():
        during.append(await server.timed("textDocument/codeAction", lightbulb))
    return during


async def step(server: LspProcess, report: Path, label: str, send: Any, lightbulb: dict[str, Any],
               figures: dict[str, Any]) -> None:
    """One request (or notification, answered by a code action on A behind it): its
    latency, what it said, the longest loop callback from its sending to a quiet server."""
    started_mono, started = time.monotonic(), time.perf_counter()
    future = send()
    if future is None:  # a notification: a code action on A right behind it says when it was taken in
        await server.timed("textDocument/codeAction", lightbulb)
        said = "-"
    else:
        said = outcome(await future)
    took = (time.perf_counter() - started) * 1000
    await server.settle(quiet=0.3, timeout=20)
    ms, what = longest(report, started_mono, time.monotonic())
    figures.setdefault(label, []).append({"ms": took, "longest_callback_ms": ms, "what": what, "said": said})
    print(f"  {label}: {took:,.1f} ms; longest loop callback {ms:,.1f} ms ({what}); {said}", flush=True)


async def one_round(url: str, args: argparse.Namespace, figures: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        (root / "a.py").write_text(SMALL)
        for kind in args.minified.split(","):
            (root / f"min_{kind}.js").write_text(minified(200_000, kind))
        huge = huge_line(50 * MB)
        (root / "huge.js").write_text(huge)
        report = Path(folder) / "probe.jsonl"
        server = await start(root, url, report, args.threshold_ms)
        a_uri, huge_uri = (root / "a.py").as_uri(), (root / "huge.js").as_uri()
        lightbulb = code_action(a_uri, 3, trigger=1)
        try:
            server.did_open(a_uri, SMALL)
            for _ in range(5):
                await server.timed("textDocument/codeAction", lightbulb)
            idle = [await server.timed("textDocument/codeAction", lightbulb) for _ in range(args.actions)]
            figures.setdefault("codeAction on A, idle", []).extend(idle)
            named = [(f"200 KB minified line ({kind})", (root / f"min_{kind}.js").as_uri()) for kind in args.minified.split(",")]
            for label, uri in (*named, ("50 MB one-line file", huge_uri)):
                since = time.monotonic()
                pending = server.send("workspace/executeCommand", task(uri))
                during = await actions_while(server, lightbulb, pending)
                ms, what = longest(report, since, time.monotonic())
                said = outcome(pending.result())
                figures.setdefault(f"codeAction on A while a task reads the {label}", []).extend(during)
                figures.setdefault(f"longest loop callback, task on the {label}", []).append(ms)
                print(f"  task on the {label}: {len(during)} code actions meanwhile, p50 {pct(during, 50):.1f} / "
                      f"p95 {pct(during, 95):.1f} / max {max(during):.1f} ms; longest loop callback {ms:,.1f} ms "
                      f"({what}); {said}", flush=True)
                await server.settle(quiet=0.3, timeout=20)
            column = 1_000
            at_line = {"textDocument": {"uri": huge_uri}, "position": {"line": 0, "character": column},
                       "context": {"triggerKind": 1}}
            await step(server, report, "didOpen of the 50 MB line (then a code action on A)",
                       lambda: server.did_open(huge_uri, huge, "javascript"), lightbulb, figures)
            change = {"textDocument": {"uri": huge_uri, "version": 2},
                      "contentChanges": [{"range": rng(0, column), "text": "x"}]}
            await step(server, report, "didChange, one character in the 50 MB line (then a code action on A)",
                       lambda: server.notify("textDocument/didChange", change), lightbulb, figures)
            await step(server, report, "codeAction in the 50 MB line",
                       lambda: server.send("textDocument/codeAction", code_action(huge_uri, 0, column, trigger=1)),
                       lightbulb, figures)
            await step(server, report, "inlineCompletion in the 50 MB line",
                       lambda: server.send("textDocument/inlineCompletion", at_line), lightbulb, figures)
            await step(server, report, "sparkls.edit in the 50 MB line",
                       lambda: server.send("workspace/executeCommand", edit_command(huge_uri, 0, "Tidy.", column)),
                       lightbulb, figures)
            await step(server, report, "task naming the open 50 MB line",
                       lambda: server.send("workspace/executeCommand", task(huge_uri)), lightbulb, figures)
        finally:
            await server.stop()


def show(label: str, values: list[Any]) -> str:
    if values and isinstance(values[0], dict):
        worst = max(values, key=lambda v: v["longest_callback_ms"])
        took = [v["ms"] for v in values]
        return (f"{label}: {', '.join(f'{t:,.1f}' for t in took)} ms; longest loop callback "
                f"{worst['longest_callback_ms']:,.1f} ms; said: {worst['said']}")
    if len(values) < 5:
        return f"{label}: " + ", ".join(f"{v:,.1f}" for v in values) + " ms"
    return f"{label}: p50 {pct(values, 50):,.2f} / p95 {pct(values, 95):,.2f} / max {max(values):,.2f} ms (n={len(values)})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--actions", type=int, default=40, help="idle code actions per round")
    parser.add_argument("--threshold-ms", type=float, default=5.0, help="loop callbacks recorded from this long")
    parser.add_argument("--redact-limit", type=float, default=20.0, help="seconds before a redaction counts as over")
    parser.add_argument("--minified", default="token,plain", help="the 200 KB lines a task reads: token, plain")
    parser.add_argument("--skip-redact", action="store_true")
    parser.add_argument("--skip-seal", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    if not args.skip_redact:
        print("Redaction, 1 MB of each input (best of 3):")
        report["redact_ms"] = redaction(args.redact_limit)
        done = {k: v for k, v in report["redact_ms"].items() if v is not None}
        over = [k for k, v in report["redact_ms"].items() if v is None]
        worst = max(done.items(), key=lambda kv: kv[1]) if done else None
        print(f"  worst: {over[0] + f' (over {args.redact_limit:g} s)' if over else f'{worst[1]:,.1f} ms ({worst[0]})'}")
    if not args.skip_seal:
        print("\nSealing a big draft (off the loop), with a probe on the loop:")
        report["seal"] = {}
        await sealing(report["seal"])
    figures: dict[str, Any] = {}
    with emulator("--api-key", KEY) as emu:
        for n in range(args.rounds):
            print(f"\nServer, round {n + 1}:")
            await one_round(emu.url, args, figures)
    print("\nSummary:")
    for label, values in figures.items():
        print("  " + show(label, values))
    report["server"] = figures
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
