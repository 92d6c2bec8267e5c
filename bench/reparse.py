"""Benchmark: incremental reparse after a one-character edit, and a large file's parse
kept off the event loop.

1. Reparse. For each language, a fixed generated file of 5,000 lines (small functions,
   the shape of real code), and the largest Python file of the corpus (`corpus.py`).
   `--edits` times (fixed seed), an `x` is typed at the end of a random identifier
   (not a keyword, not in a comment or string: the file stays valid, as while a
   name is typed) and deleted again; each of these one-character edits goes through
   the server's own path: `Document.apply` (splice the text, `Tree.edit`) then
   `Document.tree` (the incremental parse). Printed: p50 / p95 ms of the parse,
   and of the parse for edits on a definition's first line (`def`, `function`, `fn`,
   `func`) apart, which invalidate more of the tree.
2. The event loop during a large parse. A 120,000-line Python file (~4 MB) is parsed
   (a) in place on the loop and (b) as the server does for any text over 256 K
   characters: `documents.background.Preparer` — a snapshot's line index, parse (a
   reader that yields the GIL between 16 KiB chunks) and `warm` (the server's: imports
   and symbols, matched a 64 KiB window at a time) in a worker thread, then adopted.
   A 1 ms ticker task measures the loop's longest stall.

    python bench/reparse.py [--edits 300] [--seed 0]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import keyword
import random
import re
import time

from common import pct  # bench/common.py
from corpus import corpus_roots  # bench/corpus.py
from sparkls.documents.positions import Position
from sparkls.documents.background import Preparer
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.lsp.server import _warm

TEMPLATES = {
    "python": ("p.py", "def step_{k}(items, factor={k}):\n    total = 0\n    for item in items:\n"
                       "        if item % {m} == 0:\n            total += item * factor\n    return total\n\n\n"),
    "javascript": ("p.js", "function step{k}(items, factor = {k}) {{\n  let total = 0;\n  for (const item of items) {{\n"
                           "    if (item % {m} === 0) total += item * factor;\n  }}\n  return total;\n}}\n\n"),
    "typescript": ("p.ts", "export function step{k}(items: number[], factor = {k}): number {{\n  let total = 0;\n"
                           "  for (const item of items) {{\n    if (item % {m} === 0) total += item * factor;\n  }}\n"
                           "  return total;\n}}\n\n"),
    "go": ("p.go", "func Step{k}(items []int, factor int) int {{\n\ttotal := 0\n\tfor _, item := range items {{\n"
                   "\t\tif item%{m} == 0 {{\n\t\t\ttotal += item * factor\n\t\t}}\n\t}}\n\treturn total\n}}\n\n"),
    "rust": ("p.rs", "pub fn step_{k}(items: &[i64], factor: i64) -> i64 {{\n    let mut total = 0;\n"
                     "    for item in items {{\n        if item % {m} == 0 {{\n            total += item * factor;\n"
                     "        }}\n    }}\n    total\n}}\n\n"),
}
PRELUDE = {"go": "package p\n\n"}
DEFINITION_WORDS = ("def ", "function ", "fn ", "func ")
IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*")
RESERVED = frozenset(keyword.kwlist) | set(
    "function let const for of if return export number int func range package fn pub mut in i64 true false self "
    "class import from await async var type interface struct impl use mod match loop while else elif new this".split()
)


def generated(language: str, lines: int) -> tuple[str, str]:
    name, template = TEMPLATES[language]
    parts, k = [PRELUDE.get(language, "")], 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(template.format(k=k, m=k % 7 + 2))
        k += 1
    text = "".join(parts)
    return name, "\n".join(text.split("\n")[:lines]) + "\n"


def largest_corpus_file() -> tuple[str, str]:
    files = [p for root in corpus_roots().values() for p in root.rglob("*.py")]
    biggest = max(files, key=lambda p: p.stat().st_size)
    return biggest.name, biggest.read_text(encoding="utf-8")


def measure(name: str, text: str, edits: int, seed: int) -> dict[str, list[float]]:
    """Parse times after one-character edits: an `x` typed at the end of a random
    identifier (never a keyword, so the file stays valid, as while typing a name),
    then deleted again; both parses count."""
    doc = DocumentStore().open(f"file:///bench/{name}", text, 1)
    assert doc.tree is not None
    lines = text.split("\n")
    spots = [
        (row, match.end(), line.lstrip().startswith(DEFINITION_WORDS) or line.startswith(("pub fn", "export function")))
        for row, line in enumerate(lines)
        for match in IDENTIFIER.finditer(line)
        if match.group() not in RESERVED and not _in_comment_or_string(line, match.start())
    ]
    rng = random.Random(seed)
    times: dict[str, list[float]] = {"all": [], "definition line": []}
    version = 1
    for row, column, on_definition in rng.sample(spots, min(edits, len(spots))):
        for change in (
            TextChange("x", (Position(row, column), Position(row, column))),
            TextChange("", (Position(row, column), Position(row, column + 1))),
        ):
            version += 1
            doc.apply([change], version)
            started = time.perf_counter()
            assert doc.tree is not None
            elapsed = (time.perf_counter() - started) * 1000
            times["all"].append(elapsed)
            if on_definition:
                times["definition line"].append(elapsed)
    assert doc.text == text
    return times


def _in_comment_or_string(line: str, column: int) -> bool:
    head = line[:column]
    return "#" in head or "//" in head or head.count('"') % 2 == 1 or head.count("'") % 2 == 1


async def loop_stall(text: str, background: bool) -> tuple[float, float]:
    """(parse wall time, the loop's longest stall), both in ms."""
    doc = DocumentStore().open("file:///bench/huge.py", text, 1)
    stalls: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            stalls.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    if background:
        await Preparer(_warm).ready(doc)
        assert doc.tree_current
    else:
        _warm(doc)
        assert doc.tree is not None
    wall = time.perf_counter() - started
    await asyncio.sleep(0.01)
    task.cancel()
    return wall * 1000, max(stalls) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    inputs = [(language, *generated(language, 5000)) for language in TEMPLATES]
    real_name, real_text = largest_corpus_file()
    inputs.append(("python (real)", real_name, real_text))
    print(f"incremental reparse after a one-character edit, {args.edits} edits, p50 / p95 ms")
    print(f"  {'language':<15}{'file':<14}{'lines':>7}{'all edits':>16}{'on a definition line':>26}")
    for language, name, text in inputs:
        times = measure(name, text, args.edits, args.seed)
        on_def = times["definition line"]
        def_text = f"{pct(on_def, 50):.2f} / {pct(on_def, 95):.2f} (n={len(on_def)})" if on_def else "-"
        print(f"  {language:<15}{name:<14}{text.count(chr(10)):>7}"
              f"{pct(times['all'], 50):>9.2f} / {pct(times['all'], 95):.2f}{def_text:>26}")

    _, huge = generated("python", 120_000)
    print(f"\nthe event loop while a {len(huge) / 1e6:.1f} MB, 120,000-line file parses (wall ms, longest loop stall ms)")
    for background in (False, True):
        wall, stall = asyncio.run(loop_stall(huge, background))
        label = "worker thread, yielding reader" if background else "in place on the loop"
        print(f"  {label:<32} parse {wall:7.1f}   stall {stall:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
