"""Benchmark: the reversal ratio of next-edit suggestions, in sessions with undo and redo.

A suggestion must never damage code. This plays scripted sessions against a real
sparkls (next edit on, the emulator as the model) in which the user renames by
typing, lets Spark rename by an edit, undoes and redoes both, refines a Spark edit
("running" made "run") and undoes and redoes the refine (its undo puts back four
characters in each use: lsp-mode sends them one at a time), and pauses half way
through a word; the editor sends each change as that editor does:

- `vscode`: an undo or a redo as one ranged change;
- `neovim`: one change, the changed part of the line (common prefix and suffix left out);
- `helix`: one didChange holding every changed run, in document order, each positioned
  in the text the ones before it made;
- `eglot`: one didChange per changed run, the last run first (Emacs undoes its
  records in reverse);
- `lsp-mode`: one didChange per character, the last first (what lsp-mode sends for an
  undo of an edit it applied: one-character insertions and deletions).

Every suggestion offered (`sparkls/nextEdit`, for the text as it is then) is judged
against the user's last change, which the script knows: it *reverses* it when
accepting it would bring back a name the user's last change took away, and
*corrupts* when it would write a name that appears nowhere else in the file. The
reversal ratio is (reversing + corrupting) / offered: it should be 0.

    python bench/next_edit_reversals.py [--editor lsp-mode ...] [--compare PATH] [--json out.json]

`--compare PATH`: also another checkout's server (its `server/` on PYTHONPATH).
Figures, not assertions; waits in real time for the debounced questions.
"""

from __future__ import annotations

import argparse
import asyncio
import builtins
import difflib
import json
import keyword
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types

from common import emulator  # bench/common.py
from sparkls.documents.positions import LineIndex
from sparkls.tools.devclient import SERVER_COMMAND, start_session, stop_session

EDITORS = ("vscode", "neovim", "helix", "eglot", "lsp-mode")
SOURCE = '''def checkout(prices, tax):
    subtotal = 0
    for p in prices:
        subtotal = subtotal + p
    total = subtotal * (1 + tax)
    return round(total, 2)


def refund(amount):
    return -amount
'''
REGION = {"start": {"line": 1, "character": 0}, "end": {"line": 5, "character": 0}}  # checkout's body
QUIET_S = 1.2  # next_edit.debounce_ms (300) plus the emulator's answer, with room
_WORD = re.compile(r"(?<![\w$])[A-Za-z_]\w*")
KNOWN = set(dir(builtins)) | set(keyword.kwlist)


def runs(old: str, new: str) -> list[tuple[int, int, str]]:
    """The changed runs turning `old` into `new`: (start, end in old, inserted)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def changes_for(editor: str, old: str, new: str) -> list[list[tuple[int, int, str]]]:
    """The didChange events (each a list of (start, end, text) in the text as it is when
    that change applies) that `editor` sends to turn `old` into `new`."""
    found = runs(old, new)
    if editor == "vscode":
        start, end = found[0][0], found[-1][1]
        return [[(start, end, new[start : len(new) - (len(old) - end)])]]
    if editor == "neovim":
        prefix = len(os.path.commonprefix([old, new]))
        suffix = len(os.path.commonprefix([old[prefix:][::-1], new[prefix:][::-1]]))
        return [[(prefix, len(old) - suffix, new[prefix : len(new) - suffix])]]
    if editor == "helix":
        shift, events = 0, []
        for start, end, text in found:
            events.append((start + shift, end + shift, text))
            shift += len(text) - (end - start)
        return [events]
    if editor == "eglot":
        return [[run] for run in reversed(found)]
    singles = []  # lsp-mode: a character at a time, the last run first
    for start, end, text in reversed(found):
        singles += [[(start + k, start + k + 1, "")] for k in reversed(range(end - start))]
        singles += [[(start + k, start + k, ch)] for k, ch in enumerate(text)]
    return singles


class Session:
    def __init__(self, editor: str) -> None:
        self.editor_name = editor
        self.offers: list[tuple[int, Any]] = []  # (the buffer's version then, the suggestion)
        self.client: Any = None
        self.buffer: Any = None

    def on_next_edit(self, params: Any) -> None:
        suggestion = getattr(params, "suggestion", None)
        if suggestion is not None:
            self.offers.append((self.buffer.version, self.buffer.text, suggestion))

    def send(self, events: list[tuple[int, int, str]]) -> None:
        """One didChange of `events` (offsets in the text as the ones before left it)."""
        lines = LineIndex(self.buffer.text)
        text, changes = self.buffer.text, []
        for start, end, inserted in events:
            lines = LineIndex(text)
            rng = types.Range(start=_pos(lines, start, self.buffer.encoding), end=_pos(lines, end, self.buffer.encoding))
            changes.append(types.TextDocumentContentChangePartial(range=rng, text=inserted))
            text = text[:start] + inserted + text[end:]
        self.buffer.text = text
        self.buffer.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.buffer.uri, version=self.buffer.version),
            content_changes=changes))

    def become(self, new: str) -> None:
        """The editor turns the buffer into `new` (an undo, a redo) its own way."""
        for events in changes_for(self.editor_name, self.buffer.text, new):
            self.send(events)

    def type_over(self, word: str, new: str, *, stop_after: int | None = None) -> None:
        """Select the first whole `word` and type `new` key by key (stopping after `stop_after` keys)."""
        at = re.search(rf"\b{re.escape(word)}\b", self.buffer.text).start()
        self.send([(at, at + len(word), "")])
        for k, ch in enumerate(new[:stop_after]):
            self.send([(at + k, at + k, ch)])


def _pos(lines: LineIndex, offset: int, encoding: str) -> types.Position:
    p = lines.position(offset, encoding)
    return types.Position(line=p.line, character=p.character)


def judge(text: str, suggestion: Any, last: tuple[str, str]) -> str:
    """What accepting `suggestion` on `text` would do to the user's last change
    (`last`: the name it took away, the name it put): "ok", "reverses", "corrupts"."""
    lines = LineIndex(text)
    rng = suggestion.range
    start = lines.offset(_plain(rng.start), "utf-16")
    end = lines.offset(_plain(rng.end), "utf-16")
    after = text[:start] + suggestion.newText + text[end:]
    words_before, words_after = _WORD.findall(text), _WORD.findall(after)
    if last[0] and words_after.count(last[0]) > words_before.count(last[0]):
        return "reverses"
    elsewhere = set(_WORD.findall(text[:start] + "\n" + text[end:]))
    if any(w not in elsewhere and w not in KNOWN for w in set(_WORD.findall(suggestion.newText)) - set(_WORD.findall(text[start:end]))):
        return "corrupts"
    return "ok"


def _plain(p: Any):
    from sparkls.documents.positions import Position

    return Position(p.line, p.character)


async def play(editor: str, url: str, server: list[str]) -> dict[str, Any]:
    """One editor's scripted session; each step's offers judged against its last change."""
    root = Path(tempfile.mkdtemp(prefix=f"sparkls-bench-reversals-{editor}-"))
    path = root / "checkout.py"
    path.write_text(SOURCE)
    session = Session(editor)
    options = {"localBaseUrl": url, "next_edit": {"enabled": True}}
    client, buffer = await start_session(root, path, options, server_command=server,
                                         notifications={"sparkls/nextEdit": session.on_next_edit})
    session.client, session.buffer = client, buffer
    verdicts: dict[str, list[str]] = {}

    async def run_command(command: str, argument: dict[str, Any]) -> Any:
        """A sparkls command on the buffer, then the quiet time for what it sets off."""
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[{"uri": buffer.uri, **argument}]))
        await asyncio.sleep(QUIET_S)
        return answer

    async def step(name: str, last: tuple[str, str], act) -> None:
        seen = len(session.offers)
        act()
        await asyncio.sleep(QUIET_S)  # the debounced question, and its answer
        verdicts[name] = [judge(text, s, last) for version, text, s in session.offers[seen:] if version == buffer.version]

    try:
        await buffer.fast_tier_settled(timeout=30)
        original = buffer.text
        await step("rename typed", ("subtotal", "net"), lambda: session.type_over("subtotal", "net"))
        renamed = buffer.text
        await step("undo of the rename", ("net", "subtotal"), lambda: session.become(original))
        await step("redo of the rename", ("subtotal", "net"), lambda: session.become(renamed))
        await step("undo again", ("net", "subtotal"), lambda: session.become(original))
        before_edit = buffer.text
        result = await run_command("sparkls.edit", {"range": REGION, "instruction": "rename subtotal to running"})
        edited = buffer.text
        await step("undo of Spark's edit", ("running", "subtotal"), lambda: session.become(before_edit))
        await step("redo of Spark's edit", ("subtotal", "running"), lambda: session.become(edited))
        await step("undo of Spark's edit again", ("running", "subtotal"), lambda: session.become(before_edit))
        # A Spark edit, refined, and the refine undone (what lsp-mode sends as a few
        # one-character insertions); then the edit undone, back to the text before it.
        await run_command("sparkls.edit", {"range": REGION, "instruction": "rename subtotal to running"})
        edited = buffer.text
        refine = await run_command("sparkls.refine", {"instruction": "REPLACE running WITH run"})
        refined = buffer.text
        await step("undo of the refine", ("run", "running"), lambda: session.become(edited))
        await step("redo of the refine", ("running", "run"), lambda: session.become(refined))
        await step("undo of the refine again", ("run", "running"), lambda: session.become(edited))
        await step("undo of the edit under it", ("running", "subtotal"), lambda: session.become(before_edit))
        await step("half a word, a pause", ("subtotal", "tot"), lambda: session.type_over("subtotal", "totals", stop_after=3))
        await step("the word finished", ("subtotal", "totals"),
                   lambda: session.send([(buffer.text.index("tot = 0") + 3, buffer.text.index("tot = 0") + 3, "als")]))
    finally:
        await stop_session(client)
    offered = sum(len(v) for v in verdicts.values())
    bad = sum(v != "ok" for vs in verdicts.values() for v in vs)
    return {"edit_applied": result.get("applied"), "refine_applied": refine.get("applied"), "steps": verdicts, "offered": offered, "bad": bad}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    builds = {"this": SERVER_COMMAND}
    if args.compare:
        server = Path(args.compare).resolve() / "server"
        builds["compared"] = ["env", f"PYTHONPATH={server}", *SERVER_COMMAND]
    out: dict[str, Any] = {}
    with emulator() as emu:
        for build, command in builds.items():
            for editor in args.editor or EDITORS:
                figures = out.setdefault(build, {})[editor] = await play(editor, emu.url, command)
                ratio = figures["bad"] / figures["offered"] if figures["offered"] else 0.0
                print(f"{build:8} {editor:9} suggestions offered {figures['offered']:2}, reversing or corrupting "
                      f"{figures['bad']:2}: reversal ratio {ratio:.2f}   {figures['steps']}", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--editor", choices=EDITORS, action="append")
    parser.add_argument("--compare", help="another checkout: its server too")
    parser.add_argument("--json")
    args = parser.parse_args()
    out = asyncio.run(main_async(args))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
