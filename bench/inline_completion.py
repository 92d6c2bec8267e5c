"""Benchmark: inline completion latency, keystroke to item, with the emulator at 1,000 tokens/s.

A scripted typing session through a real sparkls process over stdio: 500 keystrokes,
each sent as `didChange` followed at once by `textDocument/inlineCompletion` (as VS
Code does), the next keystroke after the answer. The input is fixed: a generated file of
small functions, each with a `COMPLETE "<suggestion>"` directive for the emulator's
scripted model; the user adds one line at the end of each function: Enter (a new
indented line, one keystroke), then the line character by character. Half the lines
are typed exactly as suggested (after the first answer, typing through it is served from
the cache); the other half diverge after their first third (every keystroke after that
asks the model again, as it would when the model guessed wrong).

    python bench/inline_completion.py [--keystrokes 500] [--debounce-ms 75] [--tokens-per-second 1000] [--json out.json]

Prints p50/p95 of keystroke -> item (all, from cache, from the model) and the share of
requests served without a model call (from the emulator's own request counter).
Timings, not assertions.
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

SUGGESTIONS = [
    "total += item * factor",
    "return sum(items) * factor",
    "result.append(item + factor)",
    "count = len(items) // factor",
    "values = [i * factor for i in items]",
]
FUNCTION = '''def step_{k}(items, factor={k}):
    # COMPLETE "{suggestion}"
    total = 0
    result = []

'''


def make_source(functions: int) -> str:
    return "".join(
        FUNCTION.format(k=k, suggestion=SUGGESTIONS[k % len(SUGGESTIONS)]) for k in range(functions)
    )


def typed_text(k: int) -> str:
    """What the user types on function k's new line: the suggestion, or a divergent variant."""
    suggestion = SUGGESTIONS[k % len(SUGGESTIONS)]
    if k % 2 == 0:
        return suggestion
    third = len(suggestion) // 3
    return suggestion[:third] + suggestion[third:].upper()  # same length, different from a third on


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with emulator("--tokens-per-second", str(args.tokens_per_second)) as emu:
        return await session(args, emu)


async def session(args: argparse.Namespace, emu: Emulator) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="sparkls-bench-inline-"))
    functions = 1
    while sum(1 + len(typed_text(k)) for k in range(functions)) < args.keystrokes:
        functions += 1
    path = root / "typing.py"
    path.write_text(make_source(functions))
    options = {"fast": {"baseUrl": emu.url, "apiKey": "bench"}, "completion": {"debounceMs": args.debounce_ms}}
    client, editor = await start_session(root, path, options)
    try:
        ends = [i for i, line in enumerate(editor.text.split("\n")) if line == "    result = []"]
        # Warm-up: one request, so the first figure is not the pool opening.
        await request(client, editor.uri, ends[-1], len("    result = []"))
        before = emu.stats()["responses"]
        samples: dict[str, list[float]] = {"all": [], "cache": [], "model": []}
        keystrokes = 0
        for k, end in enumerate(ends):
            line = end + k + 1  # each earlier function gained a line
            script = [(line - 1, len("    result = []"), "\n    ")]
            script += [(line, 4 + i, ch) for i, ch in enumerate(typed_text(k))]
            for at_line, column, text in script:
                if keystrokes == args.keystrokes:
                    break
                responses = emu.stats()["responses"]
                started = time.perf_counter()
                type_text(client, editor, at_line, column, text)
                after = (at_line + 1, 4) if "\n" in text else (at_line, column + len(text))
                await request(client, editor.uri, *after)
                elapsed = (time.perf_counter() - started) * 1000
                keystrokes += 1
                samples["all"].append(elapsed)
                samples["model" if emu.stats()["responses"] > responses else "cache"].append(elapsed)
        model_calls = emu.stats()["responses"] - before
    finally:
        await stop_session(client)
    figures: dict[str, Any] = {
        "keystrokes": keystrokes,
        "model_calls": model_calls,
        "served_without_model": 1 - model_calls / keystrokes,
    }
    for key, values in samples.items():
        if values:
            figures[key] = {"n": len(values), "p50": pct(values, 50), "p95": pct(values, 95)}
    return figures


def type_text(client: Any, editor: Any, line: int, column: int, ch: str) -> None:
    """One keystroke: insert `ch` at (line, column) and send it as an incremental change."""
    lines = editor.text.split("\n")
    lines[line] = lines[line][:column] + ch + lines[line][column:]
    editor.text = "\n".join(lines)
    editor.version += 1
    pos = types.Position(line=line, character=column)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=editor.uri, version=editor.version),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=pos, end=pos), text=ch)],
        )
    )


async def request(client: Any, uri: str, line: int, column: int) -> Any:
    return await client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=column),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic),
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keystrokes", type=int, default=500)
    parser.add_argument("--debounce-ms", type=int, default=75, help="completion.debounce_ms (default 75, the default)")
    parser.add_argument("--tokens-per-second", type=float, default=1000)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    print(
        f"python {sys.version.split()[0]}, emulator paced at {args.tokens_per_second:g} tokens/s, "
        f"debounce {args.debounce_ms} ms, {figures['keystrokes']} keystrokes"
    )
    print(f"  {'keystroke -> inline item (ms)':<36}{'n':>6}{'p50':>9}{'p95':>9}")
    for key, label in (("all", "all requests"), ("cache", "  typed through (no model call)"), ("model", "  asked the model")):
        if key in figures:
            f = figures[key]
            print(f"  {label:<36}{f['n']:>6}{f['p50']:>9.1f}{f['p95']:>9.1f}")
    print(f"  served without a model call: {figures['served_without_model']:.1%} ({figures['model_calls']} model calls)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
