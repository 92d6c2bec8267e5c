"""Benchmark: next-edit suggestions on a scripted 20-step rename/refactor session.

A real sparkls process over stdio, the emulator paced at `--tokens-per-second`
behind the latency proxy in its own process (`--rtt-ms`, bench/latency_proxy.py), `next_edit` on with
its default debounce. The file is generated and fixed: functions whose misspelt
parameter `valeu` is used on two separate lines of the body, and enums each with two
`match` statements over their members. The user, at `--key-ms` per keystroke:

- renames a parameter (deletes `valeu`, types `value` key by key): two places follow,
  the two uses;
- adds a member to an enum (types `    MEDIUM = 3` after the last member): two places
  follow, the two `match` statements.

A *step* is one place where the next edit is due: 8 renames x 2 uses + 2 enum members x
2 matches = 20 steps. For each, the user needs time to get there after their last
edit: `--move-ms` plus `--ms-per-line` per line of distance (a model of finding the
place, not a measurement). The suggestion was *ready* when `sparkls/nextEdit` named
that place before the user got there. The user then takes it from the code actions
("Spark: next edit at line N", applied as the editor applies a code action's edit),
which starts the question for the next place; a suggestion that does not come within
`--give-up-ms` after the user arrives, or names another place, is a miss, and the user
makes that edit by hand.

    python bench/next_edit.py [--tokens-per-second 1000] [--rtt-ms 80] [--key-ms 60] [--move-ms 600] [--json out.json]

Prints the share of steps ready before the user got there, the time from the user's
last edit to the suggestion (p50/p95), and model calls (the emulator's own count) per
accepted suggestion. Timings, not assertions.
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

from common import Emulator, emulator, pct  # bench/common.py
from sparkls.tools.devclient import start_session, stop_session

RENAMES, ENUMS = 8, 2
FUNCTION = '''def scale_{k}(valeu, factor):
    doubled = valeu * 2
    note = "step {k}"
    return doubled + valeu * factor


'''
ENUM = '''class Mode{j}(Enum):
    FAST = 1
    SLOW = 2


def describe_{j}(mode):
    match mode:
        case Mode{j}.FAST:
            return "fast"
        case Mode{j}.SLOW:
            return "slow"


def cost_{j}(mode):
    match mode:
        case Mode{j}.FAST:
            return 1
        case Mode{j}.SLOW:
            return 2


'''


def make_source() -> str:
    return "from enum import Enum\n\n\n" + "".join(FUNCTION.format(k=k) for k in range(RENAMES)) + "".join(
        ENUM.format(j=j) for j in range(ENUMS)
    )


class Session:
    """The editor's side: the buffer, keystrokes as didChange, `sparkls/nextEdit` as they come."""

    def __init__(self, args: argparse.Namespace, emu: Emulator) -> None:
        self.args, self.emu = args, emu
        self.offers: list[tuple[float, dict[str, Any] | None]] = []
        self.offered = asyncio.Event()
        self.client: Any = None
        self.editor: Any = None

    def on_next_edit(self, params: Any) -> None:
        suggestion = getattr(params, "suggestion", None)
        self.offers.append((time.perf_counter(), suggestion))
        self.offered.set()

    def responses(self) -> int:
        return self.emu.stats()["responses"]

    def line_of(self, needle: str, after: int = 0) -> int:
        lines = self.editor.text.split("\n")
        return next(i for i in range(after, len(lines)) if needle in lines[i])

    def change(self, line: int, start: int, end: int, text: str) -> None:
        rng = types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=end))
        self.editor.apply(types.WorkspaceEdit(changes={self.editor.uri: [types.TextEdit(range=rng, new_text=text)]}))

    async def type(self, line: int, column: int, text: str) -> None:
        """Type `text` at (line, column) one key at a time (Enter moves to the next line)."""
        for ch in text:
            self.change(line, column, column, ch)
            line, column = (line + 1, 0) if ch == "\n" else (line, column + 1)
            await asyncio.sleep(self.args.key_ms / 1000)

    async def place(self, line: int, last_edit: float, expected: str, by_hand: Any) -> dict[str, Any]:
        """The user moves to `line` after their last edit; they take the suggestion for
        that place (its first changed line is `line`) if it is there, else `by_hand()`."""
        arrive = last_edit + (self.args.move_ms + self.args.ms_per_line * abs(line - self.cursor)) / 1000
        give_up = arrive + self.args.give_up_ms / 1000
        found: tuple[float, Any] | None = None
        while found is None and time.perf_counter() < give_up:
            found = next(((t, s) for t, s in self.offers if s is not None and t >= last_edit and s.line == line), None)
            if found is None:
                self.offered.clear()
                try:
                    await asyncio.wait_for(self.offered.wait(), give_up - time.perf_counter())
                except TimeoutError:
                    break
        if (now := time.perf_counter()) < arrive:
            await asyncio.sleep(arrive - now)  # the user is still on the way
        self.cursor = line
        step: dict[str, Any] = {"line": line, "ready": found is not None and found[0] <= arrive}
        if found is not None:
            step["suggestion_ms"] = (found[0] - last_edit) * 1000
        step["accepted"] = found is not None and await self.accept(line, expected)
        if not step["accepted"]:
            by_hand()
        return step

    async def accept(self, line: int, expected: str) -> bool:
        pos = types.Position(line=line, character=0)
        actions = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.editor.uri),
                range=types.Range(start=pos, end=pos),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        action = next((a for a in actions or [] if a.title == f"Spark: next edit at line {line + 1}"), None)
        if action is None or action.edit is None or not self.editor.apply(action.edit).applied:
            return False
        return expected in self.editor.text.split("\n")[line : line + 3]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with emulator("--tokens-per-second", str(args.tokens_per_second)) as emu, emu.proxied(args.rtt_ms) as proxied:
        return await run_session(args, emu, proxied)


async def run_session(args: argparse.Namespace, emu: Emulator, proxied: str) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="sparkls-bench-next-edit-"))
    path = root / "refactor.py"
    path.write_text(make_source())
    session = Session(args, emu)
    options = {"fast": {"baseUrl": proxied, "apiKey": "bench", "lanes": not args.no_lanes}, "next_edit": {"enabled": True}}
    steps: list[dict[str, Any]] = []
    client = None
    try:
        client, editor = await start_session(root, path, options, notifications={"sparkls/nextEdit": session.on_next_edit})
        session.client, session.editor, session.cursor = client, editor, 0
        await editor.fast_tier_settled(timeout=30)
        before = session.responses()
        wire_before = {k: emu.stats()[k] for k in ("bytes_in", "successors", "steers_accepted", "deltas")}
        for k in range(RENAMES):
            line = session.line_of(f"def scale_{k}(")
            column = editor.text.split("\n")[line].index("valeu")
            session.cursor = line
            session.change(line, column, column + 5, "")
            await session.type(line, column, "value")
            last = time.perf_counter()
            for use in (line + 1, line + 3):
                old = editor.text.split("\n")[use]
                expected = old.replace("valeu", "value")
                by_hand = lambda use=use, old=old, expected=expected: session.change(use, 0, len(old), expected)
                steps.append({"kind": "rename", **await session.place(use, last, expected, by_hand)})
                last = time.perf_counter()
        for j in range(ENUMS):
            line = session.line_of(f"class Mode{j}(") + 2
            session.cursor = line
            end = len(editor.text.split("\n")[line])
            await session.type(line, end, "\n    MEDIUM = 3")
            last = time.perf_counter()
            for function, body in ((f"def describe_{j}(", '"medium"'), (f"def cost_{j}(", "2")):
                slow = session.line_of(f"case Mode{j}.SLOW:", session.line_of(function))
                expected = f"        case Mode{j}.MEDIUM:"
                end = len(editor.text.split("\n")[slow + 1])
                by_hand = lambda at=slow + 1, end=end, body=body: session.change(at, end, end, f"\n{expected}\n            return {body}")
                # The new arm goes after the SLOW arm: its first line is the place.
                steps.append({"kind": "enum", **await session.place(slow + 2, last, expected, by_hand)})
                last = time.perf_counter()
        model_calls = session.responses() - before
        after = emu.stats()
        wire = {k: after[k] - v for k, v in wire_before.items()}
    finally:
        if client is not None:
            await stop_session(client)
    accepted = sum(s["accepted"] for s in steps)
    ready = [s for s in steps if s["ready"]]
    waits = [s["suggestion_ms"] for s in steps if "suggestion_ms" in s]
    return {
        "steps": len(steps),
        "ready_before_user": len(ready) / len(steps),
        "accepted": accepted,
        "offered": sum(s is not None for _, s in session.offers),
        "not_taken": [(s.line, s.reason) for _, s in session.offers if s is not None and s.line not in {st["line"] for st in steps}],
        "model_calls": model_calls,
        # With lanes, newer typing is steered into a question still streaming: its
        # successor answers (counted in model_calls) but no new request is sent.
        "requests_sent": model_calls - wire["successors"],
        "steers_accepted": wire["steers_accepted"],
        "bytes_sent": wire["bytes_in"],
        "deltas_streamed": wire["deltas"],
        "model_calls_per_accepted": model_calls / accepted if accepted else None,
        "suggestion_ms": {"n": len(waits), "p50": pct(waits, 50), "p95": pct(waits, 95)} if waits else None,
        "by_kind": {
            kind: {"steps": len(ks), "ready": sum(s["ready"] for s in ks), "accepted": sum(s["accepted"] for s in ks)}
            for kind in ("rename", "enum")
            if (ks := [s for s in steps if s["kind"] == kind])
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens-per-second", type=float, default=1000)
    parser.add_argument("--rtt-ms", type=float, default=80, help="the latency proxy's round trip (default 80)")
    parser.add_argument("--key-ms", type=float, default=60, help="time between keystrokes (default 60)")
    parser.add_argument("--move-ms", type=float, default=600, help="the user's time to get to the next place (default 600)")
    parser.add_argument("--ms-per-line", type=float, default=10, help="plus this per line of distance (default 10)")
    parser.add_argument("--give-up-ms", type=float, default=3000, help="how long the user waits there (default 3000)")
    parser.add_argument("--no-lanes", action="store_true", help="the fast tier on a pool (setting lanes = false): superseded questions are cancelled, not steered")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    print(
        f"python {sys.version.split()[0]}, emulator at {args.tokens_per_second:g} tokens/s behind a {args.rtt_ms:g} ms RTT proxy, "
        f"{args.key_ms:g} ms per key, the user needs {args.move_ms:g} ms + {args.ms_per_line:g} ms/line to get to a place"
    )
    print(f"  steps: {figures['steps']} ({', '.join(f'{k}: {v}' for k, v in figures['by_kind'].items())})")
    print(f"  ready before the user got there: {figures['ready_before_user']:.0%}")
    if figures["suggestion_ms"]:
        s = figures["suggestion_ms"]
        print(f"  last edit -> suggestion (ms): p50 {s['p50']:.0f}, p95 {s['p95']:.0f} (n={s['n']})")
    per = figures["model_calls_per_accepted"]
    print(f"  suggestions offered: {figures['offered']}, for places no step was at: {figures['not_taken']}")
    print(
        f"  accepted: {figures['accepted']}/{figures['steps']}; model calls: {figures['model_calls']}"
        f" ({per:.2f} per accepted suggestion)" if per is not None else ""
    )
    print(
        f"  fast tier on {'a pool' if args.no_lanes else 'lanes'}: requests sent {figures['requests_sent']}, "
        f"newer questions steered in {figures['steers_accepted']}, bytes sent {figures['bytes_sent']:,}, "
        f"deltas streamed {figures['deltas_streamed']:,}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
