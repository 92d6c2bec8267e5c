"""`sparkls demo`: the quick start's main job, a short tour of what an editor gets.

Starts the emulator (or, when OPENAI_API_KEY is set, uses the real API), starts
`sparkls` over stdio as an editor would, opens a sample file in a temporary folder,
and drives real LSP requests: two `sparkls.edit` commands with an instruction, and a
quick fix through `codeAction` + `codeAction/resolve`. For each it prints the diff and
where the time went; then what the first edit paid once, and where to go next. The
temporary folder is removed at the end, on Ctrl-C too.

The emulator plays the model, and a script is how it does: each step has a one-line
directive it follows (`REPLACE raduis WITH radius`), sent after the words a user types
(or a linter reports), on a line of its own, and never printed. A real model gets the
words alone. This module is a client: it prints to stdout freely, unlike the server.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

import sparkls
from sparkls.tools.devclient import BufferEditor, edit_params, start_emulator, start_session, stop_session

SAMPLE = '''\
"""Shapes and greetings: a small file for the sparkls demo."""
import math


def area(radius: float) -> float:
    """Area of a circle."""
    return math.pi * raduis ** 2


def greet(name: str) -> str:
    return "Hello, " + name + "!"


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def bump(self, step: int = 1) -> int:
        self.count += stpe
        return self.count
'''


@dataclass(frozen=True)
class Step:
    kind: str  # "edit" (sparkls.edit with an instruction) or "quickfix" (a linter's diagnostic)
    line: int  # 0-based
    words: str  # the instruction a user types, or the diagnostic a linter reports
    script: str  # what the emulator does in a model's stead (never sent to a real model)

    def sent(self, scripted: bool) -> str:
        return f"{self.words}\n{self.script}" if scripted else self.words


STEPS = [
    Step("edit", 6, "Fix the misspelt variable", "REPLACE raduis WITH radius"),
    Step("edit", 10, "Use an f-string", 'REPLACE `"Hello, " + name + "!"` WITH `f"Hello, {name}!"`'),
    Step("quickfix", 18, "undefined name 'stpe'", "REPLACE stpe WITH step"),
]
EDITOR_DOCS = [
    ("VS Code", "client-vscode/README.md"),
    ("Neovim", "docs/editors/neovim.md"),
    ("Helix", "docs/editors/helix.md"),
    ("Emacs (eglot)", "docs/editors/emacs.md"),
    ("Emacs (lsp-mode)", "docs/editors/lsp-mode.md"),
]
WARM_WAIT = 30.0  # seconds to wait for the fast tier's connections before the first edit
TIMING_KEYS = ("context", "ttft", "stream", "edit", "apply", "total")


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _timings(timings: dict[str, float], after: str) -> str:
    parts = [f"{k} {timings[k]:.1f}" for k in TIMING_KEYS if k in timings]
    return "   time (ms): " + " | ".join(parts) + f"   ({after})"


async def _edit(client: LanguageClient, editor: BufferEditor, step: Step, scripted: bool) -> dict[str, Any] | None:
    print(f'   sparkls.edit, cursor on line {step.line + 1}: "{step.words}"')
    started = time.perf_counter()
    summary = await client.workspace_execute_command_async(edit_params(editor.uri, step.line, step.sent(scripted)))
    round_trip = _ms(started)
    if not summary.get("applied"):
        print("   not applied:", summary.get("error", {}).get("message", "no change"))
        return None
    print(editor.last_diff.rstrip())
    print(_timings(summary["timings_ms"], f"request to answer, as the editor sees it: {round_trip:.1f}"))
    return summary["timings_ms"]


async def _quick_fix(client: LanguageClient, editor: BufferEditor, step: Step, scripted: bool) -> dict[str, Any] | None:
    """A linter's diagnostic; the menu lists the fix (its edit starts then); pick it, apply it."""
    word = step.words.split("'")[1]
    col = editor.text.splitlines()[step.line].index(word)
    rng = types.Range(
        start=types.Position(line=step.line, character=col), end=types.Position(line=step.line, character=col + len(word))
    )
    diagnostic = types.Diagnostic(range=rng, message=step.sent(scripted), source="demo-linter")
    print(f'   a linter reports on line {step.line + 1}: "{step.words}"; the user opens the code-action menu')
    started = time.perf_counter()
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=[diagnostic], trigger_kind=types.CodeActionTriggerKind.Invoked),
        )
    )
    menu_ms = _ms(started)
    fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix)
    print(f'   the menu (codeAction, {menu_ms:.1f} ms) offers "{fix.title}"; its edit starts now, before the pick')
    picked = time.perf_counter()
    resolved = await client.code_action_resolve_async(fix)
    if resolved.edit is None or not editor.apply(resolved.edit).applied:
        print("   not applied: the fix came back without an edit")
        return None
    pick_ms = _ms(picked)
    print(editor.last_diff.rstrip())
    timings = dict(resolved.data.get("timings_ms", {})) if isinstance(resolved.data, dict) else {}
    if "total" in timings:  # the editor applies a resolved fix: its apply is this client's
        timings["apply"] = editor.apply_ms[-1]
        timings["total"] += timings["apply"]
    print(_timings(timings, f"from the pick to the applied edit: {pick_ms:.1f}"))
    return timings


def _first_edit_cost(edits: list[dict[str, float]]) -> str | None:
    """One line: what the first edit paid that the later ones did not, and why."""
    if len(edits) < 2:
        return None
    first, later = edits[0], edits[1:]
    context, apply = (statistics.median(t[k] for t in later) for k in ("context", "apply"))
    extra = first["context"] - context + first["apply"] - apply
    return (
        f"The first edit paid {extra:.1f} ms more, once per server: context {first['context']:.1f} ms (then "
        f"{context:.1f}) compiles Python's tree-sitter queries on first use; apply {first['apply']:.1f} ms (then "
        f"{apply:.1f}) converts applyEdit's messages for the first time (pygls, in both processes)."
    )


async def _wait_warm(editor: BufferEditor) -> str:
    """Wait until the fast tier's connections are open and warm (or failing); say so."""
    started = time.perf_counter()
    status = await editor.fast_tier_settled(timeout=WARM_WAIT)
    if status is None:
        return f"the fast tier is still connecting after {WARM_WAIT:.0f} s; going on"
    state = getattr(status, "state", None)
    if state == "ready":
        return f"fast tier ready {_ms(started):.0f} ms later: its WebSockets are open and warm, so no edit pays a handshake"
    return f"fast tier {state}: {getattr(status, 'reason', None)}"


async def _drive(workdir: Path, base_url: str | None) -> int:
    scripted = base_url is not None
    sample = workdir / "shapes.py"
    sample.write_text(SAMPLE)
    options: dict[str, Any] = {"localBaseUrl": base_url} if base_url else {}
    started = time.perf_counter()
    client, editor = await start_session(
        workdir, sample, options, on_message=lambda m: print(f"   [editor message] {m}")
    )
    print(f"\nsparkls started over stdio, as an editor starts it: initialized in {_ms(started):.0f} ms;")
    print(await _wait_warm(editor) + ".")
    edits: list[dict[str, float]] = []
    failures = 0
    for number, step in enumerate(STEPS, 1):
        print(f"\n{number}. {'Edit with an instruction' if step.kind == 'edit' else 'Quick fix'}")
        run = _edit if step.kind == "edit" else _quick_fix
        timings = await run(client, editor, step, scripted)
        if timings is None:
            failures += 1
        elif step.kind == "edit":
            edits.append(timings)
    await stop_session(client)
    if (line := _first_edit_cost(edits)) is not None:
        print(f"\n{line}")
    print(f"\nshapes.py after the edits:\n\n{editor.text}")
    _next_steps()
    return 1 if failures else 0


def _next_steps() -> None:
    checkout = Path(sparkls.__file__).resolve().parents[2]
    base = checkout if (checkout / "docs" / "editors").is_dir() else None
    print("Next: set up your editor (`sparkls emulate` prints the settings to try it there without a key):")
    for editor, doc in EDITOR_DOCS:
        where = base / doc if base is not None else f"{doc} in the sparkls repository"
        print(f"  {editor + ':':9}{where}")


def run_demo(*, force_emulator: bool = False) -> int:
    use_real = bool(os.environ.get("OPENAI_API_KEY")) and not force_emulator
    emulator: subprocess.Popen[str] | None = None
    base_url: str | None = None
    workdir = Path(tempfile.mkdtemp(prefix="sparkls-demo-"))
    try:
        print("sparkls demo: a real LSP session on a sample file, driven as an editor drives it.")
        if use_real:
            print("OPENAI_API_KEY is set: the model is OpenAI's (fast tier gpt-5.3-codex-spark), sent the instructions alone.")
        else:
            emulator, base_url = start_emulator()
            print(
                f"The model is played by the local emulator at {base_url}: a script, not a model.\n"
                "Each request carries, unseen below, a one-line directive the emulator follows (such as\n"
                "REPLACE raduis WITH radius); a real model gets only the words shown."
            )
        print(f"The sample: {workdir / 'shapes.py'} (a temporary folder, removed at the end).")
        return asyncio.run(_drive(workdir, base_url))
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130
    finally:
        if emulator is not None:
            emulator.terminate()
            emulator.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)
