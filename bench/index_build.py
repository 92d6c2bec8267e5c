"""Benchmark: the workspace symbol index on real source trees, cold and warm.

Inputs: the pinned source distributions of `corpus.py` (requests, rich, httpx, click,
flask; downloaded once into `bench/.cache/corpus/`), and three copies of all of them
side by side in a temporary folder (about 1,000 files with a grammar: the size of
the "warm restart in well under a second" target).

For the largest package (by files with a grammar), for all packages together, and for
the three copies:

  - cold: a fresh database, `PathFilter.from_root` + `SymbolIndex.build`;
  - warm: what a restart costs: open the existing database, `PathFilter.from_root`,
    `build` (which stats every file and parses none);

p50 (and min) over `--runs` runs, with files and symbols counted. Then
`extract_symbols` alone (parse excluded; p50 over 30 runs) on the corpus's largest
file, the file with the most symbols, and the generated 5,000-line Python file of
`edit_loop.py`; the parse time of each for scale.

    python bench/index_build.py [--runs 5] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import pct  # bench/common.py
from corpus import corpus_roots  # bench/corpus.py
from sparkls.context.exclusions import PathFilter, iter_files
from sparkls.context.index import SymbolIndex
from sparkls.context.symbols import extract_symbols
from sparkls.documents.languages import grammar_record, language_id_for, new_parser


def source_files(root: Path) -> list[Path]:
    """The files below `root` that the index would parse."""
    return [
        path
        for path in iter_files(root, PathFilter.from_root(root))
        if grammar_record(language_id_for(path.as_posix())) is not None
    ]


def restart(root: Path, db_path: Path) -> tuple[float, int, int, int]:
    """(seconds, files scanned, files parsed, symbols in the index) for one start-up:
    open the database, read the ignore files, build."""
    started = time.perf_counter()
    with SymbolIndex(root, db_path) as index:
        stats = index.build(PathFilter.from_root(root))
        seconds = time.perf_counter() - started
        return seconds, stats.scanned, stats.parsed, index.counts()[1]


def measure_tree(label: str, root: Path, runs: int, scratch: Path) -> dict[str, Any]:
    cold, warm = [], []
    scanned = parsed = symbols = 0
    for run in range(runs):
        db_path = scratch / f"{label}-{run}.sqlite3"
        seconds, scanned, parsed, symbols = restart(root, db_path)
        cold.append(seconds)
        assert parsed == scanned  # a fresh database parses every file
        seconds, _, warm_parsed, _ = restart(root, db_path)
        warm.append(seconds)
        assert warm_parsed == 0
    return {
        "label": label,
        "files": scanned,
        "symbols": symbols,
        "cold_p50_s": pct(cold, 50),
        "cold_min_s": min(cold),
        "warm_p50_ms": pct(warm, 50) * 1000,
        "warm_min_ms": min(warm) * 1000,
    }


def measure_extract(label: str, path: Path, runs: int = 30) -> dict[str, Any]:
    language_id = language_id_for(path.as_posix())
    source = path.read_bytes()
    parser = new_parser(language_id)
    assert parser is not None
    started = time.perf_counter()
    tree = parser.parse(source)
    parse_ms = (time.perf_counter() - started) * 1000
    times, symbols = [], []
    for _ in range(runs):
        started = time.perf_counter()
        symbols = extract_symbols(language_id, tree, source)
        times.append(time.perf_counter() - started)
    return {
        "label": label,
        "lines": source.count(b"\n"),
        "kb": len(source) / 1000,
        "symbols": len(symbols),
        "extract_p50_ms": pct(times, 50) * 1000,
        "extract_min_ms": min(times) * 1000,
        "parse_ms": parse_ms,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    roots = corpus_roots()
    per_package = {name: source_files(root) for name, root in roots.items()}
    largest = max(per_package, key=lambda name: len(per_package[name]))
    everything = next(iter(roots.values())).parent  # the folder holding every package

    with tempfile.TemporaryDirectory(prefix="sparkls-index-bench-") as tmp:
        scratch = Path(tmp)
        copies = scratch / "copies"
        for number in range(3):
            shutil.copytree(everything, copies / f"copy{number}")
        trees = [
            measure_tree(f"{largest} (largest)", roots[largest], args.runs, scratch),
            measure_tree("all 5 packages", everything, args.runs, scratch),
            measure_tree("all 5, three copies", copies, args.runs, scratch),
        ]

    files = [path for paths in per_package.values() for path in paths]
    by_symbols = {
        path: len(extract_symbols(language_id_for(path.as_posix()), *_parsed(path))) for path in files
    }
    biggest = max(files, key=lambda path: path.stat().st_size)
    densest = max(files, key=lambda path: by_symbols[path])
    generated = scratch_file_5000()
    extracts = [
        measure_extract(f"largest file: {biggest.name}", biggest),
        measure_extract(f"most symbols: {densest.name}", densest),
        measure_extract("generated 5,000-line .py", generated),
    ]
    generated.unlink()

    print(f"symbol index build, p50 (min) over {args.runs} runs; cold = fresh database, warm = restart")
    print(f"  {'tree':<24}{'files':>7}{'symbols':>9}{'cold s':>16}{'warm ms':>18}")
    for row in trees:
        print(
            f"  {row['label']:<24}{row['files']:>7}{row['symbols']:>9}"
            f"{row['cold_p50_s']:>9.2f} ({row['cold_min_s']:.2f}){row['warm_p50_ms']:>11.1f} ({row['warm_min_ms']:.1f})"
        )
    print("extract_symbols on one parsed file, p50 (min) over 30 runs; parse time for scale")
    print(f"  {'file':<36}{'lines':>7}{'KB':>7}{'symbols':>9}{'extract ms':>18}{'parse ms':>10}")
    for row in extracts:
        print(
            f"  {row['label']:<36}{row['lines']:>7}{row['kb']:>7.0f}{row['symbols']:>9}"
            f"{row['extract_p50_ms']:>10.2f} ({row['extract_min_ms']:.2f}){row['parse_ms']:>10.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps({"trees": trees, "extract": extracts}, indent=2), encoding="utf-8")
    return 0


def _parsed(path: Path):
    source = path.read_bytes()
    parser = new_parser(language_id_for(path.as_posix()))
    return parser.parse(source), source


def scratch_file_5000() -> Path:
    """edit_loop.py's generated 5,000-line Python file, written to a temporary file."""
    from edit_loop import make_source  # bench/edit_loop.py

    handle = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8")
    with handle:
        handle.write(make_source(5000))
    return Path(handle.name)


if __name__ == "__main__":
    sys.exit(main())
