"""Benchmark: reply sizes of real edits as a patch and as the whole region, and whether each applies.

Every edit of the real-edit corpus (tests/real_edits.py: small edits from public
projects' git histories, stratified by region size) is answered as an exact model
would answer it (sparkls.emulator.patches), in each shape:

- ``region``: the whole new region in one fence (the protocol today);
- ``tool``: the `apply_patch` tool's `update_file` diff (V4A hunks, 3 quoted lines
  each side of a change) and its path;
- ``v4a``: the same patch as text, in its ``*** Begin Patch`` envelope; ``v4a-0``:
  with no quoted lines beyond what makes each hunk unique;
- ``sr``: SEARCH/REPLACE blocks with no quoted lines beyond what makes each unique;
  ``sr-3``: with 3 each side.

Printed, per region-size stratum and over all: the reply's characters p50/p75/p90 per
shape; the whole region's size over each patch's, p50/p75/p90 (how much longer a
user waits for the whole region); how many patches are shorter than the region; the
decision rule (edits/shape.choose_reply_shape) against the smaller shape: characters
streamed per edit over the smaller shape's, p50/p90/max, and in total; each shape read
back by sparkls's own reader (edits/patch.py for V4A, the deep tier's appliers for
SEARCH/REPLACE, edits/reply.py for the region): applied exactly / refused / wrong;
the time to apply one patch (µs); and the drift table (tests/unit/patch_drift_table.py):
applied / refused / corrupted.

    python bench/real_edits.py [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import pct  # bench/common.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.real_edits

from sparkls.context.prompt import fence_tag  # noqa: E402
from sparkls.deep.apply import apply_block  # noqa: E402
from sparkls.deep.blocks import parse_blocks  # noqa: E402
from sparkls.edits.patch import region_from_diff, region_from_reply  # noqa: E402
from sparkls.edits.reply import RegionView  # noqa: E402
from sparkls.edits.shape import choose_reply_shape  # noqa: E402
from sparkls.edits.tail import read_region  # noqa: E402
from sparkls.emulator.patches import search_replace, v4a_diff, v4a_text  # noqa: E402
from sparkls.errors import SparkError  # noqa: E402
from tests.real_edits import STRATA, RealEdit, load  # noqa: E402
from tests.unit.patch_drift_table import DRIFTS  # noqa: E402

SHAPES = ("region", "tool", "v4a", "v4a-0", "sr", "sr-3")


def whole_region(edit: RealEdit) -> str:
    runs = [len(m.group(1)) for m in re.finditer(r"^[ \t]*(`{3,})", edit.new_region, re.M)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    return f"{fence}{fence_tag(edit.language_id)}\n{edit.new_region.removesuffix(chr(10))}\n{fence}\n"


def replies(edit: RealEdit) -> dict[str, str | None]:
    old, new, path = edit.old_region, edit.new_region, edit.path
    return {
        "region": whole_region(edit),
        "tool": v4a_diff(old, new),
        "v4a": v4a_text(path, old, new),
        "v4a-0": v4a_text(path, old, new, 0),
        "sr": search_replace(old, new, 0),
        "sr-3": search_replace(old, new, 3),
    }


def size(shape: str, reply: str, edit: RealEdit) -> int:
    return len(reply) + (len(edit.path) if shape == "tool" else 0)  # the tool call names the path too


def read_back(shape: str, reply: str, edit: RealEdit, view: RegionView) -> str:
    """The region's new text as sparkls reads the reply."""
    if shape == "region":
        return read_region(reply, view, edit.path)
    if shape == "tool":
        return region_from_diff(reply, view, path=edit.path, named=edit.path)
    if shape.startswith("v4a"):
        return region_from_reply(reply, view, path=edit.path)
    text = edit.old_region
    for block in parse_blocks(reply, [edit.path]):
        text = apply_block(text, block)
    return text


def _timed_us(call: Callable[[], object], repeat: int = 20) -> float:
    began = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - began) / repeat * 1e6


def measure(edits: tuple[RealEdit, ...]) -> list[dict[str, Any]]:
    rows = []
    for edit in edits:
        view = RegionView(edit.text, *edit.region, edit.language_id)
        row: dict[str, Any] = {"stratum": edit.stratum, "sizes": {}, "outcome": {}, "apply_us": None}
        for shape, reply in replies(edit).items():
            if reply is None:
                row["outcome"][shape] = "none"
                continue
            row["sizes"][shape] = size(shape, reply, edit)
            try:
                row["outcome"][shape] = "exact" if read_back(shape, reply, edit, view) == edit.new_region else "wrong"
            except SparkError:
                row["outcome"][shape] = "refused"
        tool = row["sizes"].get("tool")
        if tool is not None and row["outcome"]["tool"] == "exact":
            diff = v4a_diff(edit.old_region, edit.new_region)
            row["apply_us"] = _timed_us(lambda: region_from_diff(diff, view, path=edit.path, named=edit.path))
        choice = choose_reply_shape(edit.old_region, edit.path)
        region_size = row["sizes"]["region"]
        patch_size = row["sizes"].get("v4a")
        row["chosen"] = "patch" if choice.patch and patch_size is not None else "region"
        row["streamed"] = patch_size if row["chosen"] == "patch" else region_size
        row["smaller"] = min(region_size, patch_size) if patch_size is not None else region_size
        rows.append(row)
    return rows


def _p(values: list[float], fmt: str = "{:.0f}") -> str:
    if not values:
        return "-"
    return " / ".join(fmt.format(pct(values, q)) for q in (50, 75, 90))


def report(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    out: dict[str, Any] = {"edits": len(rows)}
    print(f"\n{title}: {len(rows)} edits")
    print(f"  {'shape':8} {'chars p50 / p75 / p90':>24}  {'region/patch p50 / p75 / p90':>30}  shorter  exact  refused  wrong")
    for shape in SHAPES:
        sizes = [r["sizes"][shape] for r in rows if shape in r["sizes"]]
        ratios = [r["sizes"]["region"] / r["sizes"][shape] for r in rows if shape in r["sizes"]]
        shorter = sum(1 for r in rows if shape in r["sizes"] and r["sizes"][shape] < r["sizes"]["region"])
        outcomes = [r["outcome"][shape] for r in rows]
        counts = {k: outcomes.count(k) for k in ("exact", "refused", "wrong", "none")}
        out[shape] = {"chars": _p(sizes), "region_over_patch": _p(ratios, "{:.2f}"), "shorter": shorter, **counts}
        print(f"  {shape:8} {_p(sizes):>24}  {_p(ratios, '{:.2f}') if shape != 'region' else '':>30}  "
              f"{shorter if shape != 'region' else '':>7}  {counts['exact']:5}  {counts['refused']:7}  {counts['wrong']:5}"
              + (f"  (no patch: {counts['none']})" if counts["none"] else ""))
    over = [r["streamed"] / r["smaller"] for r in rows]
    streamed, smaller = sum(r["streamed"] for r in rows), sum(r["smaller"] for r in rows)
    regions = sum(r["sizes"]["region"] for r in rows)
    patches = sum(1 for r in rows if r["chosen"] == "patch")
    out["rule"] = {"patch": patches, "over_smaller": _p(over, "{:.2f}"), "max": round(max(over), 2),
                   "streamed": streamed, "smaller": smaller, "region_always": regions}
    print(f"  rule: {patches} patches, {len(rows) - patches} regions; streamed / smaller p50 / p75 / p90 "
          f"{_p(over, '{:.2f}')}, max {max(over):.2f}; total {streamed:,} chars (smaller shape {smaller:,}, "
          f"whole region always {regions:,})")
    return out


def drift_counts() -> dict[str, int]:
    """Drift shapes applied exactly / refused whole / corrupted (applied, but not as meant)."""
    counts = {"applied": 0, "refused": 0, "corrupted": 0}
    for drift in DRIFTS:
        view = drift.view()
        try:
            if drift.tool:
                got = region_from_diff(drift.reply, view, path="geometry/shapes.py", named=drift.named)
            else:
                got = region_from_reply(drift.reply, view, path=drift.named or "geometry/shapes.py")
        except SparkError:
            counts["refused"] += 1
            continue
        counts["applied" if drift.applies and got == drift.new else "corrupted"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    edits = load()
    rows = measure(edits)
    summary: dict[str, Any] = {"all": report(rows, "all strata")}
    for i, name in enumerate(STRATA):
        summary[name] = report([r for r in rows if r["stratum"] == i], f"regions of {name} lines")
    times = [r["apply_us"] for r in rows if r["apply_us"] is not None]
    summary["apply_us"] = _p(times)
    print(f"\napplying one tool diff to its region (µs) p50 / p75 / p90: {_p(times)}")
    drift = drift_counts()
    summary["drift"] = drift
    print(f"drift table ({len(DRIFTS)} shapes): {drift['applied']} applied exactly, {drift['refused']} refused, "
          f"{drift['corrupted']} corrupted")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
