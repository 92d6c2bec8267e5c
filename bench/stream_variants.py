"""Benchmark: realistic model streams, and what each one costs the user.

Each variant of bench/kit/peer/variants.py — streams built from the official `openai` SDK's
own types (several message items with `phase`, refusals, cut-off replies, failed
responses, in-band 429s, the connection limit, Chat Completions as llama.cpp, vLLM and
Ollama send them) — is replayed by an independent loopback peer (not the emulator) and
read by sparkls's real tier session (`TierSession.complete`). For each: what the user
gets (the answer, or the message), how many model requests it took, and the wall time
(p50 over `--runs`; the retries' waits are the service's own `retry-after`).

    python bench/stream_variants.py [--runs 3] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for bench.kit.peer

from bench.kit.peer.variants import ANSWER, VARIANTS, run_variant  # noqa: E402


def _seen(outcome) -> str:
    if outcome.error is not None:
        return f"message: {outcome.error}"
    shown = "the answer" if outcome.text == ANSWER else f"WRONG TEXT {outcome.text[:40]!r}"
    return shown + (f" (asked once to cancel: {len(outcome.stalls)})" if outcome.stalls else "")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    for variant in VARIANTS:
        outcomes = [await run_variant(variant) for _ in range(args.runs)]
        last = outcomes[-1]
        rows.append({
            "variant": variant.name,
            "transport": variant.transport,
            "expected": variant.expect if variant.expect != ANSWER else "answer",
            "as_expected": all(o.result == variant.expect and o.requests == variant.requests for o in outcomes),
            "requests": last.requests,
            "ms_p50": round(statistics.median(o.seconds for o in outcomes) * 1000, 1),
            "user_sees": _seen(last),
        })
    width = max(len(r["variant"]) for r in rows)
    print(f"{'variant':{width}}  {'transport':9}  req  ms p50  ok  what the user sees")
    for r in rows:
        print(f"{r['variant']:{width}}  {r['transport']:9}  {r['requests']:3}  {r['ms_p50']:6}  "
              f"{'yes' if r['as_expected'] else 'NO ':3} {r['user_sees'][:110]}")
    good = sum(r["as_expected"] for r in rows)
    print(f"\n{good} of {len(rows)} variants end as they should (answer applied exactly, or the right message)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
