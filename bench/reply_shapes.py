"""Benchmark: the reply-shape table's figures, and what reading a reply costs.

1. The table of bench/kit/reply_shapes_table.py run through the real code paths (fast
   tier: `fastedit.engine.run_fast_edit` with a stub session; plan steps: `tasks._run_step`;
   deep tier: `deep.pipeline.edit_from_reply`): applied exactly / refused / corrupted
   (a result that is neither the expected texts nor the originals), per tier.
2. The time to read a reply, per reply, p50/p95 over `--repeat` runs of every row:
   `edits.reply.new_region_text` (the tolerant reader) beside the first-block body
   alone (what sparkls did before: the floor), and `deep.blocks.parse_blocks`; then
   the worst case of a fast reply: a 2,000-line file echoed whole around the region.

    python bench/reply_shapes.py [--repeat 200] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from common import pct  # bench/common.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for bench.kit.reply_shapes_table

from sparkls.config import Settings  # noqa: E402
from sparkls.deep.blocks import parse_blocks  # noqa: E402
from sparkls.documents.store import DocumentStore  # noqa: E402
from sparkls.edits.fences import find_fences  # noqa: E402
from sparkls.edits.reply import RegionView, new_region_text  # noqa: E402
from sparkls.edits.reply import RegionView  # noqa: E402
from sparkls.context.prompt import prepare_context  # noqa: E402
from sparkls.errors import SparkError  # noqa: E402
from bench.kit import reply_shapes_table as table  # noqa: E402


async def outcomes() -> dict[str, dict[str, int]]:
    """applied / refused / corrupted per tier, over the table."""
    counts: dict[str, dict[str, int]] = {}

    def count(tier: str, outcome: table.Outcome, original: dict[str, str], expected: dict[str, str]) -> None:
        row = counts.setdefault(tier, {"applied": 0, "refused": 0, "corrupted": 0})
        if outcome.error is None and outcome.texts == expected:
            row["applied"] += 1
        elif outcome.error is not None and outcome.texts == original:
            row["refused"] += 1
        else:
            row["corrupted"] += 1

    for shape in table.FAST_SHAPES:
        name = shape.doc.name
        count("fast", await table.run_fast(shape), {name: shape.doc.text}, {name: shape.expected})
    for step in table.STEP_SHAPES:
        original = {"calc.py": step.text or ""}
        count("fast (plan steps)", await table.run_step(step), original,
              {"calc.py": step.new_text} if step.new_text is not None else original)
    for deep in table.DEEP_SHAPES:
        count("deep", table.run_deep(deep), dict(table.FILES), deep.expected)
    return counts


def _view(doc: table.Doc) -> RegionView:
    document = DocumentStore().open(f"file:///bench/{doc.name}", doc.text, 1, doc.language)
    offset = doc.text.index(doc.inside)
    ctx = prepare_context(document, offset, offset, path=doc.name, settings=Settings())
    return RegionView.of(ctx, doc.text, doc.language)


def _first_body(reply: str) -> str:
    fences = find_fences(reply.replace("\r\n", "\n").split("\n"))
    return "\n".join(fences.blocks[0].lines) if fences.blocks else ""


def _times_us(calls: list[Any], repeat: int) -> list[float]:
    """Microseconds per call, each call run `repeat` times."""
    times = []
    for call in calls:
        for _ in range(repeat):
            began = time.perf_counter()
            try:
                call()
            except SparkError:
                pass
            times.append((time.perf_counter() - began) * 1e6)
    return times


def _big_file_view() -> tuple[str, RegionView]:
    """A 2,000-line Python file, a method in the middle as the region, the reply the
    whole file echoed with the method changed."""
    methods = "".join(f"    def m{i}(self, x):\n        return x + {i}\n\n" for i in range(660))
    text = "import math\n\n\nclass Big:\n" + methods
    doc = table.Doc(text, "python", "    def m330(self, x):\n        return x + 330\n", "return x + 330", "big.py")
    view = _view(doc)
    reply = table.fenced(text.replace("return x + 330\n", "return x - 330\n", 1))
    return reply, view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    counts = asyncio.run(outcomes())
    print("reply shapes (applied exactly / refused clearly / corrupted):")
    for tier, row in counts.items():
        print(f"  {tier:18} {sum(row.values()):3} shapes: {row['applied']:3} applied  {row['refused']:3} refused  "
              f"{row['corrupted']} corrupted")

    views = {doc.name: _view(doc) for doc in {s.doc for s in table.FAST_SHAPES}}
    fast_calls = [lambda s=s: new_region_text(s.reply, views[s.doc.name]) for s in table.FAST_SHAPES]
    floor_calls = [lambda s=s: _first_body(s.reply) for s in table.FAST_SHAPES]
    deep_calls = [lambda s=s: parse_blocks(s.reply, s.shown) for s in table.DEEP_SHAPES]
    big_reply, big_view = _big_file_view()
    figures = {
        "fast new_region_text": _times_us(fast_calls, args.repeat),
        "fast first block only (floor)": _times_us(floor_calls, args.repeat),
        "deep parse_blocks": _times_us(deep_calls, args.repeat),
        "fast, 2,000-line file echoed": _times_us([lambda: new_region_text(big_reply, big_view)],
                                                  max(10, args.repeat // 10)),
    }
    print("\nreading one reply (µs per reply):")
    summary: dict[str, Any] = {"shapes": counts, "extract_us": {}}
    for name, times in figures.items():
        p50, p95 = pct(times, 50), pct(times, 95)
        summary["extract_us"][name] = {"p50": round(p50, 1), "p95": round(p95, 1), "n": len(times)}
        print(f"  {name:32} p50 {p50:8.1f}   p95 {p95:8.1f}   ({len(times)} runs)")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
