"""`sparkls demo`: the quick start's main job.

Starts the emulator (or, when OPENAI_API_KEY is set, uses the real API), starts
`sparkls` over stdio as an editor would, opens a sample file, and drives real LSP
requests: `sparkls.edit` commands and a quick fix through `codeAction` + `resolve`.
For each edit it prints the diff and where the time went. This module is a client:
it prints to stdout freely, unlike the server.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from sparkls.devclient import BufferEditor, edit_params, start_emulator, start_session, stop_session

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

# (kind, 0-based line, instruction). The REPLACE directives script the emulator; a
# real model reads them as a precise hint.
EDITS: list[tuple[str, int, str]] = [
    ("command", 6, "Fix the misspelt variable: REPLACE raduis WITH radius"),
    ("command", 10, 'Use an f-string: REPLACE `"Hello, " + name + "!"` WITH `f"Hello, {name}!"`'),
    ("quickfix", 18, "undefined name 'stpe'; REPLACE stpe WITH step"),
]


def _timings(summary: dict[str, Any], round_trip_ms: float) -> str:
    t = summary.get("timings_ms", {})
    keys = ["context", "ttft", "stream", "edit", "apply", "total"]
    parts = [f"{k} {t[k]:.1f}" for k in keys if k in t]
    parts.append(f"editor round trip {round_trip_ms:.1f}")
    return "   time (ms): " + " | ".join(parts)


async def _quick_fix(client: LanguageClient, editor: BufferEditor, line: int, message: str) -> dict[str, Any]:
    """List the code actions for a linter-style diagnostic, resolve the fix, apply it."""
    word = message.split("'")[1]
    col = editor.text.splitlines()[line].index(word)
    rng = types.Range(
        start=types.Position(line=line, character=col), end=types.Position(line=line, character=col + len(word))
    )
    diagnostic = types.Diagnostic(range=rng, message=message, source="demo-linter")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix)
    print(f"   code action offered: {fix.title!r}")
    resolved = await client.code_action_resolve_async(fix)
    if resolved.edit is None:
        return {"applied": False}
    return {"applied": editor.apply(resolved.edit).applied}


async def _drive(base_url: str | None) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="sparkls-demo-"))
    sample = workdir / "shapes.py"
    sample.write_text(SAMPLE)
    options: dict[str, Any] = {"fast": {"baseUrl": base_url}} if base_url else {}
    started = time.perf_counter()
    client, editor = await start_session(
        workdir, sample, options, on_message=lambda m: print(f"   [editor message] {m}")
    )
    print(f"sparkls started and initialized in {(time.perf_counter() - started) * 1000:.0f} ms")
    failures = 0
    for number, (kind, line, instruction) in enumerate(EDITS, 1):
        print(f"\n{number}. {kind} at line {line + 1}: {instruction}")
        before = time.perf_counter()
        if kind == "command":
            summary = await client.workspace_execute_command_async(edit_params(editor.uri, line, instruction))
        else:
            summary = await _quick_fix(client, editor, line, instruction)
        round_trip = (time.perf_counter() - before) * 1000
        if not summary.get("applied"):
            failures += 1
            print("   not applied:", summary.get("error", {}).get("message", "no change"))
            continue
        print(editor.last_diff.rstrip())
        print(_timings(summary, round_trip))
    await stop_session(client)
    print(f"\nThe sample after the edits ({sample}):\n\n{editor.text}")
    return 1 if failures else 0


def run_demo(*, force_emulator: bool = False) -> int:
    use_real = bool(os.environ.get("OPENAI_API_KEY")) and not force_emulator
    emulator: subprocess.Popen[str] | None = None
    base_url: str | None = None
    if use_real:
        print("OPENAI_API_KEY is set: using the real OpenAI endpoints (fast tier: gpt-5.3-codex-spark).")
    else:
        emulator, base_url = start_emulator()
        os.environ["OPENAI_API_KEY"] = "sk-emulator-demo"  # the emulator runs without a key check
        print(f"Using the local emulator at {base_url} (scripted replies, not a model).")
    try:
        return asyncio.run(_drive(base_url))
    finally:
        if emulator is not None:
            emulator.terminate()
            emulator.wait(timeout=10)
