"""Benchmark: sparkls against the floor (bench/floor_server.py), same client, same emulator, one run.

The floor is the thinnest pygls server doing the same `sparkls.edit` against the same
model; sparkls ÷ floor is what sparkls adds. Both are real processes behind raw pipes
(bench/rawlsp.py) against one unpaced emulator. Inputs are generated, fixed Python files
of small 11-line functions, the same every run.

- **edits**: back-to-back `sparkls.edit`s at 200 / 5,000 / 50,000 / 200,000 lines, each
  a one-line change (`REPLACE "(step k)" WITH "(stage k)"` on function k's docstring,
  and back), the client applying each edit and sending didChange before the next;
  with a client sending ranged changes and one sending the whole text (full sync).
  The two servers run in alternating blocks of 5 edits; before a block, the other
  server is left to finish its background work (no CPU tick for 150 ms). Also printed:
  each server's CPU time per edit over its timed blocks, and the round trip split by
  the servers' own `timings_ms` (context, model, after the reply, the rest).
  `--cprofile DIR` profiles each server's timed blocks alone (bench/cprofile_server.py).
- **typing**: at 50,000 and 200,000 lines, a line typed into the middle function one
  key at a time, each key a ranged didChange and a lightbulb (`textDocument/codeAction`
  at the cursor, triggerKind Automatic); a key every 30 ms, but never before the last
  lightbulb answered (a slow server slows the typist rather than queueing). Figure:
  key sent → lightbulb answered. Alternating blocks of 20 keys.
- **index** (sparkls only): edits on a 5,000-line file while sparkls builds a cold
  workspace index (fresh `XDG_CACHE_HOME`) of 1,000 / 10,000 generated files, then the
  same edits once it is built (from `$/progress` end).
- **start**: spawn → `initialize` result, median of N, for sparkls, the floor and
  jedi-language-server (when installed in this Python's bin folder), round-robin, after
  one untimed round.
- **rss**: VmRSS of a fresh server with one file open at each size, after one edit
  and once it is quiet.

    python bench/vs_floor.py [--only edits,typing,index,start,rss] [--edits 40] [--keys 120]
        [--sizes 200,5000,50000,200000] [--typing-sizes 50000,200000] [--index-files 1000,10000]
        [--kinds ranged,full] [--starts 7] [--json out.json] [--py-spy DIR [--py-spy-rate 250]] [--cprofile DIR]

With `PYTHONPATH=DIR` (a `server/` folder, e.g. from `git archive REV server`), the
bench, the emulator and sparkls all run that build: the way to measure one commit
exactly while the checkout has work in progress.

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import emulator, pct  # bench/common.py
from generated import FIRST, FUNCTION_LINES, functions_in, make_source, make_workspace
from rawlsp import CAPABILITIES, SPARKLS, Buffer, LspProcess, code_action, edit_command  # bench/rawlsp.py

KEY = "sk-bench-floor"
BENCH = Path(__file__).resolve().parent
COMMANDS = {
    "floor": [sys.executable, str(BENCH / "floor_server.py")],
    "sparkls": SPARKLS,
}
JEDI = Path(sys.executable).parent / "jedi-language-server"
TYPED = "    seen = len(items) + factor\n"


def edit_params(buffer: Buffer, k: int) -> dict[str, Any]:
    """Function k's one-line edit: its docstring's `(step k)` to `(stage k)`, or back."""
    line = next(i for i in range(FIRST + k * FUNCTION_LINES, len(buffer.lines)) if buffer.lines[i].startswith('    """'))
    old, new = (f"(step {k})", f"(stage {k})") if f"(step {k})" in buffer.lines[line] else (f"(stage {k})", f"(step {k})")
    return edit_command(buffer.uri, line, f'REPLACE "{old}" WITH "{new}"')


class Run:
    """The emulator, a scratch folder, and every sample taken."""

    def __init__(self, url: str, scratch: Path, profiles: Path | None = None, *, rate: int = 250,
                 cprofile: Path | None = None) -> None:
        self.url, self.scratch, self.profiles, self.rate, self.cprofile = url, scratch, profiles, rate, cprofile
        self.failures: list[str] = []
        self.profilers: list[subprocess.Popen[bytes]] = []

    def profile(self, server: LspProcess, label: str) -> None:
        """py-spy records the server (collapsed stacks in PROFILES/label.txt) until it exits."""
        if self.profiles is None:
            return
        self.profiles.mkdir(parents=True, exist_ok=True)
        command = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(server.proc.pid), "--rate", str(self.rate),
                   "--format", "raw", "--threads", "-o", str(self.profiles / f"{label}.txt")]
        self.profilers.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def command(self, name: str, label: str) -> list[str]:
        """The server's command line; under `cprofile_server.py` (its timed spans in
        CPROFILE/label-name.prof) when asked."""
        if self.cprofile is None or name not in COMMANDS:
            return COMMANDS[name]
        self.cprofile.mkdir(parents=True, exist_ok=True)
        return [sys.executable, str(BENCH / "cprofile_server.py"), str(self.cprofile / f"{label}-{name}.prof"),
                *COMMANDS[name][1:]]

    async def timing(self, server: LspProcess, name: str, on: bool) -> None:
        """A timed span of a server's starts (on) or ends: its profile, if any, follows."""
        if self.cprofile is not None:
            os.kill(server.proc.pid, signal.SIGUSR1 if on else signal.SIGUSR2)
            await asyncio.sleep(0.01)  # the handler runs before the next request is read

    def options(self, *, index: bool = False) -> dict[str, Any]:
        return {"fast": {"baseUrl": self.url, "apiKey": KEY}, "context": {"index": index}}

    async def start(self, name: str, root: Path, label: str, *, index: bool = False, env: dict[str, str] | None = None,
                    capabilities: dict[str, Any] | None = None) -> LspProcess:
        server = await LspProcess.spawn(self.command(name, label), env=env, stderr=self.scratch / f"{name}.stderr.log")
        if name == "sparkls":
            self.profile(server, label)
        await server.initialize(root, self.options(index=index), capabilities)
        return server

    def file(self, lines: int, name: str | None = None) -> tuple[Path, str]:
        folder = self.scratch / (name or f"edits_{lines}")
        folder.mkdir(exist_ok=True)
        text = make_source(lines)
        (folder / "module.py").write_text(text)
        return folder, text

    async def edit(self, server: LspProcess, buffer: Buffer, k: int) -> tuple[float, float, dict[str, float]]:
        """(round trip ms, the client's own apply + didChange ms, the server's own `timings_ms`) of one edit."""
        applied = len(buffer.apply_ms)
        started = time.perf_counter()
        result = await server.request("workspace/executeCommand", edit_params(buffer, k))
        elapsed = (time.perf_counter() - started) * 1000
        if not (result or {}).get("applied"):
            self.failures.append(f"edit of step_{k}: {json.dumps(result)[:200]}")
        client = buffer.apply_ms[-1] if len(buffer.apply_ms) > applied else 0.0
        return elapsed, client, (result or {}).get("timings_ms") or {}


SPLIT = {  # an edit's round trip, from the server's own timings_ms
    "context": "context + prompt",
    "model": "model request to its reply (sparkls: read and parse-checked)",
    "after": "after the reply: check, diff, applyEdit round trip",
    "rest": "the rest: JSON-RPC in and out, dispatch, queueing",
}


def split(ms: float, client: float, timings: dict[str, float]) -> dict[str, float]:
    """One edit's round trip in SPLIT's parts. sparkls's summary says context, model, edit
    (parse, check, diff) and apply (applyEdit round trip, the client's work in it); the
    floor's context, model and apply (from the reply to the applyEdit answer)."""
    if "model" not in timings:
        return {}
    after = timings.get("edit", 0.0) + timings.get("apply", 0.0)
    return {"context": timings.get("context", 0.0), "model": timings["model"], "after": after,
            "rest": ms - timings.get("context", 0.0) - timings["model"] - after}


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"p50": pct(values, 50), "p95": pct(values, 95), "max": max(values), "n": len(values)}


async def edits(run: Run, sizes: list[int], count: int, kinds: list[str], block: int = 5) -> dict[str, Any]:
    results: dict[str, Any] = {}
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    for lines in sizes:
        n = max(block, count if lines <= 5_000 else count // 2 if lines <= 50_000 else count // 4)
        root, text = run.file(lines)
        functions = functions_in(lines)
        order = [(i * 37 + 3) % functions for i in range(n + 3)]
        for kind in kinds:
            servers = {name: await run.start(name, root, f"edits-{lines}-{kind}") for name in ("floor", "sparkls")}
            buffers = {name: s.open((root / "module.py").as_uri(), text, full=kind == "full") for name, s in servers.items()}
            samples: dict[str, dict[str, list[float]]] = {name: {"ms": [], "client": [], **{part: [] for part in SPLIT}}
                                                          for name in servers}
            cpu_ticks = {name: 0 for name in servers}  # the server's CPU during its own timed blocks
            try:
                for name, server in servers.items():  # warm-up: sockets, first parse
                    for k in order[-3:]:
                        await run.edit(server, buffers[name], k)
                for b, first in enumerate(range(0, n, block)):
                    names = list(servers) if b % 2 == 0 else list(reversed(servers))
                    for name in names:
                        other = next(x for x in servers if x != name)
                        await servers[other].settle()
                        await run.timing(servers[name], name, on=True)
                        ticks = servers[name].cpu_ticks()
                        for k in order[first : first + block]:
                            ms, client, timings = await run.edit(servers[name], buffers[name], k)
                            samples[name]["ms"].append(ms)
                            samples[name]["client"].append(client)
                            for part, value in split(ms, client, timings).items():
                                samples[name][part].append(value)
                        cpu_ticks[name] += servers[name].cpu_ticks() - ticks
                        await run.timing(servers[name], name, on=False)
            finally:
                for server in servers.values():
                    await server.stop()
            same = buffers["floor"].text == buffers["sparkls"].text
            results[f"{lines}/{kind}"] = {
                "lines": lines, "kind": kind, "same_text": same,
                **{name: {"ms": summary(s["ms"]), "client": summary(s["client"]), "split": {part: summary(s[part]) for part in SPLIT},
                          "cpu_ms_per_edit": cpu_ticks[name] * tick_ms / max(1, len(s["ms"]))} for name, s in samples.items()},
            }
            print(f"  edits {lines:>7,} lines, {kind:<6}: floor {results[f'{lines}/{kind}']['floor']['ms']['p50']:.1f}, "
                  f"sparkls {results[f'{lines}/{kind}']['sparkls']['ms']['p50']:.1f} ms p50", file=sys.stderr)
    return results


async def typing(run: Run, sizes: list[int], keys: int, block: int = 20, interval: float = 0.030) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for lines in sizes:
        n = max(block, keys if lines <= 50_000 else keys // 2)
        root, text = run.file(lines, f"typing_{lines}")
        servers = {name: await run.start(name, root, f"typing-{lines}") for name in ("floor", "sparkls")}
        buffers = {name: s.open((root / "module.py").as_uri(), text) for name, s in servers.items()}
        start_line = FIRST + (functions_in(lines) // 2) * FUNCTION_LINES + 2  # the middle function's `total = 0`
        cursors = {name: (start_line, 0) for name in servers}
        samples: dict[str, list[float]] = {name: [] for name in servers}
        keystrokes = [TYPED[i % len(TYPED)] for i in range(n + 10)]

        async def type_keys(name: str, chunk: list[str], record: bool) -> None:
            server, buffer = servers[name], buffers[name]
            for key in chunk:
                started = time.perf_counter()
                cursors[name] = buffer.type_key(*cursors[name], key)
                await server.request("textDocument/codeAction", code_action(buffer.uri, *cursors[name], trigger=2))
                elapsed = time.perf_counter() - started
                if record:
                    samples[name].append(elapsed * 1000)
                await asyncio.sleep(max(0.0, interval - elapsed))

        try:
            for name in servers:
                await type_keys(name, keystrokes[:10], record=False)
            for b, first in enumerate(range(10, n + 10, block)):
                for name in (list(servers) if b % 2 == 0 else list(reversed(servers))):
                    await servers[next(x for x in servers if x != name)].settle()
                    await type_keys(name, keystrokes[first : first + block], record=True)
        finally:
            for server in servers.values():
                await server.stop()
        results[str(lines)] = {"lines": lines, "keys": n, "same_text": buffers["floor"].text == buffers["sparkls"].text,
                               **{name: summary(s) for name, s in samples.items()}}
        print(f"  typing {lines:>7,} lines: floor {results[str(lines)]['floor']['p50']:.1f}, "
              f"sparkls {results[str(lines)]['sparkls']['p50']:.1f} ms p50", file=sys.stderr)
    return results


async def index(run: Run, file_counts: list[int], lines: int = 5_000) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for files in file_counts:
        root = run.scratch / f"workspace_{files}"
        make_workspace(root, files)
        text = make_source(lines)
        (root / "edited.py").write_text(text)
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=run.scratch))  # a cold index
        capabilities = {**CAPABILITIES, "window": {"workDoneProgress": True}}
        started = time.perf_counter()
        server = await LspProcess.spawn(COMMANDS["sparkls"], env={"XDG_CACHE_HOME": str(cache)},
                                        stderr=run.scratch / "sparkls-index.stderr.log")
        run.profile(server, f"index-{files}")
        done = server.expect("$/progress", lambda params: (params or {}).get("value", {}).get("kind") == "end")
        logs: list[str] = []
        server.watched["window/logMessage"] = lambda params: logs.append(str((params or {}).get("message", "")))
        await server.initialize(root, run.options(index=True), capabilities)
        buffer = server.open((root / "edited.py").as_uri(), text)
        functions = functions_in(lines)
        during: list[float] = []
        idle: list[float] = []
        try:
            await run.edit(server, buffer, 1)  # waits for the warm socket
            i = 0
            while not done.done() and i < 5_000:
                during.append((await run.edit(server, buffer, (i * 37 + 3) % functions))[0])
                i += 1
            built, _ = await asyncio.wait_for(done, 600)
            await server.settle(quiet=0.3, timeout=10)
            for j in range(max(30, min(len(during), 60))):
                idle.append((await run.edit(server, buffer, (j * 37 + 3) % functions))[0])
        finally:
            await server.stop()
        no_index: list[float] = []  # the same edits in a server that keeps no index: no build, no lookups
        server = await run.start("sparkls", root, f"no-index-{files}")
        buffer = server.open((root / "edited.py").as_uri(), text)
        try:
            await run.edit(server, buffer, 1)
            for j in range(len(idle)):
                no_index.append((await run.edit(server, buffer, (j * 37 + 3) % functions))[0])
        finally:
            await server.stop()
        stats = next((m for m in logs if m.startswith("workspace index")), "")
        results[str(files)] = {"files": files, "index_s": built - started, "during": summary(during), "idle": summary(idle),
                               "no_index": summary(no_index), "server_says": stats}
        print(f"  index {files:>6,} files: built in {built - started:.1f} s, {len(during)} edits during ({stats})", file=sys.stderr)
    return results


async def start(run: Run, rounds: int) -> dict[str, Any]:
    commands = dict(COMMANDS)
    if JEDI.exists():
        commands["jedi-language-server"] = [str(JEDI)]
    root = run.scratch / "start"
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text(make_source(50))
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for r in range(rounds + 1):
        names = list(commands)
        for name in names[r % len(names) :] + names[: r % len(names)]:
            started = time.perf_counter()
            server = await LspProcess.spawn(commands[name])
            options = {} if name == "jedi-language-server" else run.options()
            await server.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": CAPABILITIES,
                                                "initializationOptions": options})
            elapsed = (time.perf_counter() - started) * 1000
            await server.stop()  # before `initialized`: no model connection is opened
            if r > 0:
                samples[name].append(elapsed)
    result: dict[str, Any] = {name: {"median": statistics.median(s), "min": min(s), "max": max(s), "n": len(s)}
                              for name, s in samples.items()}
    if not JEDI.exists():
        result["note"] = f"jedi-language-server not installed ({JEDI}): `pip install jedi-language-server` to compare"
    return result


async def rss(run: Run, sizes: list[int]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for lines in sizes:
        root, text = run.file(lines, f"rss_{lines}")
        results[str(lines)] = {}
        for name in ("floor", "sparkls"):
            server = await run.start(name, root, f"rss-{lines}")
            try:
                buffer = server.open((root / "module.py").as_uri(), text)
                await run.edit(server, buffer, functions_in(lines) // 2)
                await server.settle(quiet=0.5, timeout=15)
                results[str(lines)][name] = {"rss_mb": server.status("VmRSS") / 1024, "peak_mb": server.status("VmHWM") / 1024}
            finally:
                await server.stop()
    return results


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def p(row: dict[str, float]) -> str:
    return f"{row['p50']:,.1f} / {row['p95']:,.1f}" if row.get("n") else "-"


def header(*columns: str) -> None:
    """A markdown table's first two lines, after an empty line."""
    print("\n| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))


def report(results: dict[str, Any]) -> None:
    print(f"\nsparkls {results['commit']} vs the floor; python {sys.version.split()[0]}; 1-minute load average "
          f"{results['load_average_before']:.2f} before, {results['load_average_after']:.2f} after; ms, p50 / p95")
    if "edits" in results:
        header('back-to-back edits', 'client', 'floor', 'sparkls', '× (p50)', 'target', "client's own work",
               "server CPU per edit, floor / sparkls")
        for row in results["edits"].values():
            target = {5_000: "≤ 1.5", 50_000: "≤ 2"}.get(row["lines"], "")
            kind = "ranged" if row["kind"] == "ranged" else "whole text"
            print(f"| {row['lines']:,} lines | {kind} | {p(row['floor']['ms'])} | {p(row['sparkls']['ms'])} | "
                  f"{ratio(row['sparkls']['ms']['p50'], row['floor']['ms']['p50'])} | {target} | "
                  f"{row['floor']['client']['p50']:.1f}{'' if row['same_text'] else ' (texts differ!)'} | "
                  f"{row['floor']['cpu_ms_per_edit']:.1f} / {row['sparkls']['cpu_ms_per_edit']:.1f} |")
        header("where an edit's time goes, p50 ms (server's own timings)", 'floor', 'sparkls', 'sparkls − floor')
        for row in results["edits"].values():
            kind = "ranged" if row["kind"] == "ranged" else "whole text"
            for part, label in SPLIT.items():
                f, s = row["floor"]["split"][part], row["sparkls"]["split"][part]
                if f.get("n") and s.get("n"):
                    print(f"| {row['lines']:,} lines, {kind}: {label} | {f['p50']:.2f} | {s['p50']:.2f} | {s['p50'] - f['p50']:+.2f} |")
    if "typing" in results:
        header('lightbulb while typing (30 ms a key)', 'floor', 'sparkls', '× (p50)', 'target')
        for row in results["typing"].values():
            target = "≤ 2" if row["lines"] == 50_000 else ""
            print(f"| {row['lines']:,} lines, {row['keys']} keys | {p(row['floor'])} | {p(row['sparkls'])} | "
                  f"{ratio(row['sparkls']['p50'], row['floor']['p50'])} | {target} |")
    if "index" in results:
        header('edits on a 5,000-line file during a cold index', 'index built', 'during: p50 / p95 / max (n)', 'after: p50 / p95 / max',
               '× after', 'no index at all: p50 / p95 / max', '× no index')
        for row in results["index"].values():
            d, i, o = row["during"], row["idle"], row["no_index"]
            during = f"{p(d)} / {d['max']:,.1f} ({d['n']})" if d.get("n") else "- (built before the first edit)"
            print(f"| {row['files']:,} files | {row['index_s']:.1f} s | {during} | {p(i)} / {i['max']:,.1f} | "
                  f"{ratio(d['p50'], i['p50']) if d.get('n') else '-'} | {p(o)} / {o['max']:,.1f} | "
                  f"{ratio(d['p50'], o['p50']) if d.get('n') else '-'} |")
    if "start" in results:
        header('spawn → `initialize` result', 'median', 'min', 'max')
        for name, row in results["start"].items():
            if name != "note":
                print(f"| {name} | {row['median']:,.0f} | {row['min']:,.0f} | {row['max']:,.0f} |")
        if "note" in results["start"]:
            print(results["start"]["note"])
    if "rss" in results:
        header('RSS, one file open, MB', 'floor', 'sparkls', '×', 'sparkls peak (VmHWM)')
        for lines, row in results["rss"].items():
            f, s = row["floor"], row["sparkls"]
            target = " (target ≤ 2)" if int(lines) == 50_000 else ""
            print(f"| {int(lines):,} lines | {f['rss_mb']:.0f} | {s['rss_mb']:.0f} | {ratio(s['rss_mb'], f['rss_mb'])}{target} | {s['peak_mb']:.0f} |")
    for failure in results.get("failures", []):
        print(f"failed: {failure}")


def commit() -> str:
    """Which sparkls was measured: this checkout's commit (and whether server/ has uncommitted
    changes), or the folder PYTHONPATH points at (`git archive REV server | tar -x -C DIR`)."""
    import sparkls

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, capture_output=True, text=True).stdout.strip()
    source = Path(sparkls.__file__).resolve().parents[1]
    if source != BENCH.parent / "server":
        return f"sparkls from {source} (this checkout: {head})"
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "server"], cwd=BENCH.parent, capture_output=True, text=True).stdout
    return head + (f" + uncommitted changes to {len(dirty.splitlines())} file(s) in server/" if dirty.strip() else "")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only.split(","))
    ints = lambda text: [int(x) for x in text.split(",") if x]  # noqa: E731
    results: dict[str, Any] = {"commit": commit(), "load_average_before": os.getloadavg()[0]}
    with emulator("--api-key", KEY) as emu, tempfile.TemporaryDirectory(prefix="sparkls-vs-floor-") as scratch:
        run = Run(emu.url, Path(scratch), args.py_spy, rate=args.py_spy_rate, cprofile=args.cprofile)
        if "start" in only:
            results["start"] = await start(run, args.starts)
        if "edits" in only:
            results["edits"] = await edits(run, ints(args.sizes), args.edits, args.kinds.split(","))
        if "typing" in only:
            results["typing"] = await typing(run, ints(args.typing_sizes), args.keys)
        if "rss" in only:
            results["rss"] = await rss(run, ints(args.sizes))
        if "index" in only:
            results["index"] = await index(run, ints(args.index_files))
        results["failures"] = run.failures
        results["load_average_after"] = os.getloadavg()[0]
        for profiler in run.profilers:
            profiler.wait(timeout=30)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="edits,typing,index,start,rss", help="parts to run, comma-separated")
    parser.add_argument("--sizes", default="200,5000,50000,200000", help="file sizes in lines (edits, rss)")
    parser.add_argument("--edits", type=int, default=40, help="timed edits per server up to 5,000 lines (half at 50,000, a quarter above)")
    parser.add_argument("--typing-sizes", default="50000,200000")
    parser.add_argument("--keys", type=int, default=120, help="timed keys per server at 50,000 lines (half above)")
    parser.add_argument("--index-files", default="1000,10000")
    parser.add_argument("--starts", type=int, default=7, help="timed cold starts per server")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--kinds", default="ranged,full", help="edits: the clients, ranged changes and/or whole text (full)")
    parser.add_argument("--py-spy", type=Path, metavar="DIR", help="record each sparkls process with py-spy (raw stacks in DIR)")
    parser.add_argument("--py-spy-rate", type=int, default=250, help="py-spy samples per second (default 250)")
    parser.add_argument("--cprofile", type=Path, metavar="DIR",
                        help="edits: profile both servers' timed edits with cProfile (DIR/<part>-<server>.prof)")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
