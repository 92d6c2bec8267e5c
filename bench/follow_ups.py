"""Benchmark: what a follow-up in other files costs, through a real LSP session.

On a copy of a real package (Python `schedule` 1.2.2, as in `next_edit_oracles.py`:
`schedule/__init__.py` and `test_schedule.py`), a real `sparkls --stdio` with the
workspace index on and next edit on, the emulator paced at `--tokens-per-second` behind
the latency proxy (`--rtt-ms`). For each of `--renames` functions or methods of
`schedule/__init__.py` that jedi says other files use (`next_edit_oracles_refs.py`,
cached; picked with a fixed seed), in a fresh copy and a fresh session:

1. the user opens `schedule/__init__.py`, deletes the name at its definition and types
   `<name>Next` key by key (`didChange`, `--key-ms` apart);
2. the editor asks for code actions on that line every 20 ms until "Spark: update N
   ... in M files" is listed (time from the last keystroke: *listed*);
3. the user runs it (`sparkls.followUps`; *command* time, as the client sees it); the
   edit comes back as `workspace/applyEdit`: the open buffer's part goes in as
   `didChange`, a file not open is written to disk, as an editor saves it.

Then per rename: the server's own figures (model calls, regions rewritten, tokens),
and against jedi: the oracle's locations in other files that now read the new name,
and the changed hunks holding at least one of the oracle's locations (*accepted*: a
rewritten region the oracle confirms), in other files and in the edited file (the
action also takes the edited file's uses beyond the next-edit window). Figures from one run, no assertions.

    python bench/follow_ups.py [--renames 6] [--rtt-ms 80] [--tokens-per-second 1000] [--key-ms 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from common import emulator, pct  # bench/common.py
from next_edit_oracles import files_of, oracle_locations, packages
from next_edit_oracles_refs import references
from next_edit_oracles_sites import sites
from sparkls.documents.positions import LineIndex, Position
from sparkls.documents.store import DocumentStore
from sparkls.tools.devclient import SERVER_COMMAND, BufferEditor, editor_capabilities, stop_session

EDITED = "schedule/__init__.py"


def pick(count: int) -> tuple[Path, dict[str, str], list[tuple[Any, list[tuple[str, int, int]]]]]:
    """The package, its files, and `count` renames with the oracle's other-file locations."""
    package = next(p for p in packages("python") if p.name == "schedule")
    texts = files_of(package)
    store = DocumentStore()
    pool = [s for s in sites("python", EDITED, store.open(f"file:///bench/{EDITED}", texts[EDITED], 1))
            if s.kind in ("function", "method")]
    pool.sort(key=lambda s: (s.row, s.col))
    answers = references(package, texts, [(s.rel, s.row, s.col) for s in pool])
    chosen = []
    for site, refs in zip(pool, answers):
        locations = oracle_locations(site, refs, texts)  # the edited line left out
        if any(loc[0] != EDITED for loc in locations):
            chosen.append((site, locations))
    random.Random(25).shuffle(chosen)
    return package.root, texts, chosen[:count]


class Workspace:
    """The editor's side: one open buffer, other files on disk, edits applied like an editor."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.root = root
        path = root / EDITED
        self.buffer = BufferEditor(client, path.as_uri(), path.read_text())
        self.index_built = asyncio.Event()
        self.messages: list[str] = []  # window/showMessage

    def apply(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        others: dict[str, list[types.TextEdit]] = {}
        for change in edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit) and change.text_document.uri != self.buffer.uri:
                others.setdefault(change.text_document.uri, []).extend(change.edits)
        for uri, edits in (edit.changes or {}).items():
            if uri != self.buffer.uri:
                others.setdefault(uri, []).extend(edits)
        result = self.buffer.apply(edit)
        if not result.applied:
            return result
        for uri, edits in others.items():
            path = Path(uri.removeprefix("file://"))
            text = path.read_text()
            lines = LineIndex(text)
            spans = sorted(((lines.offset(Position(e.range.start.line, e.range.start.character), "utf-16"),
                             lines.offset(Position(e.range.end.line, e.range.end.character), "utf-16"), e.new_text)
                            for e in edits), reverse=True)
            for start, end, new in spans:
                text = text[:start] + new + text[end:]
            path.write_text(text)
        return result


async def start(root: Path, options: dict[str, Any]) -> tuple[LanguageClient, Workspace]:
    client = LanguageClient("sparkls-bench-follow-ups", "1")
    workspace = Workspace(client, root)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return workspace.apply(params.edit)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log_message(params: types.LogMessageParams) -> None:
        if params.message.startswith("workspace index:"):
            workspace.index_built.set()

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show_message(params: types.ShowMessageParams) -> None:
        workspace.messages.append(params.message)

    @client.feature("sparkls/status")
    def status(params: Any) -> None:
        workspace.buffer.on_status(params)

    await client.start_io(*SERVER_COMMAND)
    await client.initialize_async(types.InitializeParams(
        capabilities=editor_capabilities(), root_uri=root.as_uri(),
        initialization_options={**options, "notifications": ["status"]}))  # not `nextEdit`: this client shows no suggestion
    client.initialized(types.InitializedParams())
    workspace.buffer.open()
    return client, workspace


async def follow_up_action(client: LanguageClient, uri: str, line: int, timeout: float) -> types.CodeAction | types.Command | None:
    pos = types.Position(line=line, character=0)
    params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=pos, end=pos),
                                    context=types.CodeActionContext(diagnostics=[]))
    give_up = time.perf_counter() + timeout
    while time.perf_counter() < give_up:
        found = [a for a in await client.text_document_code_action_async(params) or [] if a.title.startswith("Spark: update")]
        if found:
            return found[0]
        await asyncio.sleep(0.02)
    return None


async def one_rename(args: argparse.Namespace, source: Path, site: Any, oracle: list[tuple[str, int, int]], api: str) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="sparkls-bench-follow-ups-"))
    shutil.copytree(source, root, dirs_exist_ok=True)
    before = {rel: (root / rel).read_text() for rel in {r for r, _, _ in oracle} if rel != EDITED}
    options = {"fast": {"baseUrl": api, "apiKey": "bench"}, "next_edit": {"enabled": True}, "context": {"index": True}}
    client, workspace = await start(root, options)
    row: dict[str, Any] = {"name": site.name, "kind": site.kind, "line": site.row + 1,
                           "oracle_other": sum(rel != EDITED for rel, _, _ in oracle)}
    try:
        await workspace.buffer.fast_tier_settled(timeout=30)
        try:
            await asyncio.wait_for(workspace.index_built.wait(), 60)
        except TimeoutError:
            row["note"] = "no 'workspace index:' log line within 60 s"
        buffer = workspace.buffer
        new = site.name + "Next"
        rng = lambda a, b: types.Range(start=types.Position(line=site.row, character=a), end=types.Position(line=site.row, character=b))  # noqa: E731
        buffer.apply(types.WorkspaceEdit(changes={buffer.uri: [types.TextEdit(range=rng(site.col, site.col + len(site.name)), new_text="")]}))
        for i, ch in enumerate(new):
            await asyncio.sleep(args.key_ms / 1000)
            buffer.apply(types.WorkspaceEdit(changes={buffer.uri: [types.TextEdit(range=rng(site.col + i, site.col + i), new_text=ch)]}))
        last_key = time.perf_counter()
        before[EDITED] = buffer.text  # the edited file: its uses beyond the next-edit window are follow-ups too
        action = await follow_up_action(client, buffer.uri, site.row, args.give_up_s)
        if action is None:
            row["listed_ms"] = None
            return row
        row["listed_ms"] = (time.perf_counter() - last_key) * 1000
        row["title"] = action.title
        # The action runs `sparkls.followUps {"uri"}` (its documented command). pygls's client reads a
        # CodeAction of the `Command | CodeAction` union as a Command, its `command` a string: not read from it.
        name, arguments = "sparkls.followUps", [{"uri": buffer.uri}]
        started = time.perf_counter()
        result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=name, arguments=arguments))
        row["command_ms"] = (time.perf_counter() - started) * 1000
        row.update({k: result.get(k) for k in ("applied", "model_calls", "regions_rewritten", "input_tokens", "output_tokens")})
    finally:
        row["messages"] = workspace.messages
        await stop_session(client)
    changed, hunks, confirmed = 0, 0, 0
    for rel, text in before.items():
        after = (buffer.text if rel == EDITED else (root / rel).read_text()).split("\n")
        rows = {r for f, r, _ in oracle if f == rel}
        changed += sum(1 for f, r, c in oracle if f == rel != EDITED and after[r][c:].startswith(new))
        for tag, a1, a2, _, _ in difflib.SequenceMatcher(None, text.split("\n"), after, autojunk=False).get_opcodes():
            if tag != "equal":
                hunks += 1
                confirmed += any(a1 <= r < max(a2, a1 + 1) for r in rows)
    row.update({"oracle_changed": changed, "hunks": hunks, "accepted": confirmed})
    shutil.rmtree(root, ignore_errors=True)
    return row


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    source, _, chosen = pick(args.renames)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="sparkls-bench-cache-")  # the servers' index files
    rows = []
    with emulator("--tokens-per-second", str(args.tokens_per_second)) as emu, emu.proxied(args.rtt_ms) as api:
        for site, oracle in chosen:
            rows.append(await one_rename(args, source, site, oracle, api))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renames", type=int, default=6)
    parser.add_argument("--tokens-per-second", type=float, default=1000)
    parser.add_argument("--rtt-ms", type=float, default=80, help="the latency proxy's round trip (default 80)")
    parser.add_argument("--key-ms", type=float, default=60, help="time between keystrokes (default 60)")
    parser.add_argument("--give-up-s", type=float, default=20, help="how long to wait for the action (default 20)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    rows = asyncio.run(run(args))
    print(f"python {sys.version.split()[0]}, schedule 1.2.2 copy, emulator at {args.tokens_per_second:g} tokens/s behind "
          f"a {args.rtt_ms:g} ms RTT proxy, {args.key_ms:g} ms per key; oracle jedi")
    print(f"  {'rename':<28}{'listed ms':>10}{'command ms':>11}{'calls':>6}{'regions':>8}{'accepted':>9}"
          f"{'in tok':>8}{'out tok':>8}  oracle other-file locations changed")
    for r in rows:
        name = f"{r['kind']} {r['name']} (:{r['line']})"
        if r.get("listed_ms") is None:
            print(f"  {name:<28}{'never':>10}  (no 'Spark: update' action within {args.give_up_s:g} s) {r.get('note', '')}")
            continue
        print(f"  {name:<28}{r['listed_ms']:>10.0f}{r['command_ms']:>11.0f}{r['model_calls']:>6}{r['regions_rewritten']:>8}"
              f"{r['accepted']:>9}{r['input_tokens']:>8}{r['output_tokens']:>8}  {r['oracle_changed']}/{r['oracle_other']}"
              f"  {r['title']!r}")
    done = [r for r in rows if r.get("listed_ms") is not None]
    if done:
        listed, command = [r["listed_ms"] for r in done], [r["command_ms"] for r in done]
        accepted = sum(r["accepted"] for r in done)
        regions = sum(r["regions_rewritten"] for r in done)
        calls, tin, tout = (sum(r[k] for r in done) for k in ("model_calls", "input_tokens", "output_tokens"))
        print(f"  last key -> action listed: p50 {pct(listed, 50):.0f} ms, p95 {pct(listed, 95):.0f} ms (n={len(done)})")
        print(f"  command: p50 {pct(command, 50):.0f} ms, p95 {pct(command, 95):.0f} ms")
        for label, n in (("accepted (changed hunks holding an oracle location)", accepted), ("regions rewritten", regions)):
            if n:
                print(f"  per {label} ({n}): model calls {calls / n:.2f}, input tokens {tin / n:.0f}, output tokens {tout / n:.0f}")
        print(f"  oracle other-file locations changed: {sum(r['oracle_changed'] for r in done)}/{sum(r['oracle_other'] for r in done)}")
    for message in sorted({m for r in rows for m in r.get("messages", [])}):
        print(f"  the server said: {message[:160]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
