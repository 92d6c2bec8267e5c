"""Soak: what a long session of mixed requests leaves behind in the server process.

A real `sparkls --stdio` (raw JSON-RPC over pipes, bench/rawlsp.py) against the unpaced
emulator, on a workspace of 20 generated modules of 100 lines (index and next edit on,
as by default). One *request* is one message of a fixed, repeating mix of 12:

- 6 keystrokes (ranged `didChange`: a character typed, then taken back);
- 2 inline completions at the cursor, explicitly invoked (the model answers);
- 2 `sparkls.edit` through `workspace/executeCommand` (`REPLACE total = 0 WITH total = 1`
  and back), applied by the client's `workspace/applyEdit`;
- 2 code-action lists at the cursor (the quick fixes are computed ahead);

and every 120 requests the document is closed and the next module opened (2 more).
Each request is awaited before the next is sent. After `--warmup` requests (1,000) the
server is left to go quiet and the baseline is read from `/proc/<pid>/`: VmRSS, open
file descriptors, threads, sockets; then again, each time once the server is quiet,
after 1,000 / 5,000 / 10,000 more (`--checkpoints`). `--compare DIR` runs the same
against another checkout's server (PYTHONPATH=DIR/server), e.g. the commit before a
fix: `git archive <rev> server | tar -x -C /tmp/before`.

    python bench/soak.py [--warmup 1000] [--checkpoints 1000,5000,10000] [--compare DIR] [--json out.json]

Figures, not assertions (the target: RSS growth <= 5 MB after the warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from common import each_build  # bench/common.py
from generated import make_source
from rawlsp import SPARKLS, Buffer, LspProcess, code_action, edit_command

MODULES, LINES = 20, 100
MIX = ("key", "undo", "completion", "key", "undo", "edit", "key", "undo", "actions", "completion", "edit", "actions")
REOPEN_EVERY = 120  # requests between a document's close and the next one's open
CAPABILITIES: dict[str, Any] = {
    "window": {"workDoneProgress": False},
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}, "configuration": False},
    "textDocument": {"synchronization": {"dynamicRegistration": False}, "inlineCompletion": {},
                     "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}},
}


def process_figures(pid: int) -> dict[str, float]:
    """RSS (MB), open fds, threads and sockets of process `pid`, from /proc."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    fd_dir = Path(f"/proc/{pid}/fd")
    links = []
    for fd in os.listdir(fd_dir):
        try:
            links.append(os.readlink(fd_dir / fd))
        except OSError:  # closed meanwhile
            pass
    return {
        "rss_mb": int(status["VmRSS"].split()[0]) / 1024,
        "fds": len(links),
        "threads": int(status["Threads"]),
        "sockets": sum(link.startswith("socket:") for link in links),
    }


class Session:
    """The editor's side: one open document at a time, a cursor, the mix in order."""

    def __init__(self, server: LspProcess, root: Path) -> None:
        self.server, self.root = server, root
        self.sent = 0  # messages sent (a close and an open are two)
        self.step = 0  # place in the mix
        self.opened = 0
        self.outcomes: dict[str, int] = {}
        self.buffer: Buffer = self._open()

    def _open(self) -> Buffer:
        uri = (self.root / f"m{self.opened % MODULES}.py").as_uri()
        self.opened += 1
        return self.server.open(uri, (self.root / f"m{(self.opened - 1) % MODULES}.py").read_text())

    def _cursor(self) -> tuple[int, int]:
        """The end of the `total = 0` / `total = 1` line of a function picked by the count."""
        lines = self.buffer.lines
        rows = [n for n, text in enumerate(lines) if text.strip().startswith("total = ")]
        row = rows[(self.step // len(MIX)) % len(rows)]
        return row, len(lines[row].rstrip("\n"))

    def _count(self, what: str, ok: bool) -> None:
        key = f"{what}_{'ok' if ok else 'not'}"
        self.outcomes[key] = self.outcomes.get(key, 0) + 1

    async def one(self) -> None:
        """The next request of the mix (or a close and an open)."""
        server, uri = self.server, self.buffer.uri
        if self.sent and self.sent % REOPEN_EVERY == 0:
            server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            server.buffers.pop(uri, None)
            self.buffer = self._open()
            self.sent += 2
            return
        kind = MIX[self.step % len(MIX)]
        line, column = self._cursor()
        self.sent += 1
        self.step += 1
        if kind == "key":
            self.buffer.type_key(line, column, "x")
        elif kind == "undo":
            self.buffer.change([({"start": {"line": line, "character": column - 1}, "end": {"line": line, "character": column}}, "")])
        elif kind == "completion":
            reply = await server.send("textDocument/inlineCompletion", {
                "textDocument": {"uri": uri}, "position": {"line": line, "character": column}, "context": {"triggerKind": 1}})
            self._count(kind, "error" not in reply)
        elif kind == "edit":
            old, new = ("total = 0", "total = 1") if "total = 0" in self.buffer.lines[line] else ("total = 1", "total = 0")
            reply = await server.send("workspace/executeCommand", edit_command(uri, line, f"REPLACE \"{old}\" WITH \"{new}\""))
            self._count(kind, bool((reply.get("result") or {}).get("applied")))
        else:
            reply = await server.send("textDocument/codeAction", code_action(uri, line, column, trigger=1))
            self._count(kind, "error" not in reply)


async def run(name: str, env: dict[str, str | None], url: str, args: argparse.Namespace) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix=f"sparkls-soak-{name}-"))
    for n in range(MODULES):
        (root / f"m{n}.py").write_text(make_source(LINES).replace("step_", f"m{n}_step_"))
    server = await LspProcess.spawn(SPARKLS, env=env)
    figures: dict[str, Any] = {"rows": []}
    try:
        await server.initialize(root, {"fast": {"baseUrl": url, "apiKey": "sk-bench"}}, CAPABILITIES)
        session = Session(server, root)
        started = time.perf_counter()
        while session.sent < args.warmup:
            await session.one()
        await server.settle(quiet=0.5, timeout=30)
        base = process_figures(server.proc.pid)
        figures["rows"].append({"after": 0, **base})
        for mark in args.checkpoints:
            while session.sent < args.warmup + mark:
                await session.one()
            await server.settle(quiet=0.5, timeout=30)
            figures["rows"].append({"after": mark, **process_figures(server.proc.pid)})
        figures["seconds"] = time.perf_counter() - started
        figures["outcomes"] = session.outcomes
        figures["growth_mb"] = figures["rows"][-1]["rss_mb"] - base["rss_mb"]
    finally:
        await server.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warmup", type=int, default=1000, help="requests before the baseline")
    parser.add_argument("--checkpoints", default="1000,5000,10000", help="requests after the warm-up at which to read /proc")
    parser.add_argument("--compare", help="another checkout, measured in the same run")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    args.checkpoints = sorted(int(c) for c in args.checkpoints.split(",") if c)
    results = asyncio.run(each_build(run, args))
    print(f"mixed requests after a warm-up of {args.warmup:,} (keystrokes, completions, edits, code actions, open/close)")
    print("| build | requests after warm-up | RSS, MB | growth, MB | fds | threads | sockets |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        base = r["rows"][0]["rss_mb"]
        for row in r["rows"]:
            print(f"| {name} | {row['after']:,} | {row['rss_mb']:.1f} | {row['rss_mb'] - base:+.1f} | {row['fds']} | {row['threads']} | {row['sockets']} |")
    for name, r in results.items():
        print(f"{name}: {r['seconds']:.0f} s; outcomes: {r['outcomes']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
