"""Benchmark: the workspace symbol index: build times, and what a build costs the editor.

**corpus** — the pinned source distributions of `corpus.py` (requests, rich, httpx,
click, flask; downloaded once into `bench/.cache/corpus/`), and three copies of all of
them side by side in a temporary folder (about 1,000 files with a grammar: the size of
the "warm restart in well under a second" target). For the largest package (by files
with a grammar), for all packages together, and for the three copies:

  - cold: a fresh database, `PathFilter.from_root` + `SymbolIndex.build`;
  - warm: what a restart costs: open the existing database, `PathFilter.from_root`,
    `build` (which stats every file and parses none);

p50 and p95 over `--runs` runs, with files and symbols counted, the database's size and
its (file, word) pairs. Each build runs in a process of its own that imports the sparkls
being measured; with `--compare`, the builds take turns, run by run. Then
`extract_symbols` alone (parse excluded; p50 over 30 runs) on the corpus's largest
file, the file with the most symbols, and the generated 5,000-line Python file of
`edit_loop.py`; the parse time of each for scale.

**server** — a real `sparkls --stdio` (raw pipes, bench/rawlsp.py; the unpaced emulator
as the fast tier) on a generated workspace of `--files` (1,000 / 10,000) modules of
about 170 lines (vs_floor.py's, grown) and a 2,000-line file open in the editor, with
a fresh `XDG_CACHE_HOME` each time (a cold index):

  - cold index: `initialized` sent → the index's work-done progress ends, the client
    doing nothing else;
  - typing during a cold index: the same, while the client types into the open file a
    key every 30 ms (never before the last answer), each key a ranged didChange and a
    lightbulb (`textDocument/codeAction` at the cursor, triggerKind Automatic); figure:
    key sent → lightbulb answered, p50 / p95 / max (the worst stall), the first
    WARMUP_KEYS (the open file's first parse) left out;
  - idle: the same typing once the index is built and the server is quiet.

`--compare [NAME=]DIR` (repeatable) runs both parts also against the sparkls whose
`server/` is DIR (e.g. `git worktree add /tmp/old <rev>`, then `/tmp/old/server`),
alternating with this one; ratios are to the first named.

    python bench/index_build.py [--only corpus,server] [--runs 5] [--files 1000,10000]
        [--rounds 2] [--keys 150] [--compare [NAME=]DIR ...] [--json out.json]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from common import emulator, pct  # bench/common.py
from corpus import corpus_roots  # bench/corpus.py
from generated import make_source, make_workspace  # bench/generated.py
from rawlsp import CAPABILITIES, SPARKLS, Buffer, LspProcess, code_action, rng  # bench/rawlsp.py
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.context.index import SymbolIndex
from sparkls.context.symbols import extract_symbols
from sparkls.documents.languages import grammar_record, language_id_for, new_parser


HERE = str(Path(__file__).resolve().parents[1] / "server")
KEY = "sk-bench-index"
EDITED, EDITED_LINES = "edited.py", 2_000  # the file open in the editor
TYPED_AT = 40  # the line typed on: a comment of its own
TYPED_LINE = "# typing here: \n"
WORD = 12  # keys typed before they are deleted again
KEY_INTERVAL = 0.03  # seconds between keys
MODULE_LINES = 150
WARMUP_KEYS = 5  # the first keys after didOpen, which parse the file: not counted


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


def database_figures(db_path: Path) -> dict[str, int]:
    """The database's size (with its -wal) and the rows of each table, once closed."""
    sizes = sum(Path(f"{db_path}{suffix}").stat().st_size for suffix in ("", "-wal") if Path(f"{db_path}{suffix}").exists())
    with sqlite3.connect(db_path) as db:
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")]
        rows = {name: db.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in tables}
        if "file_words" in tables:  # schema 3: a file's words in one blob; rows_words counts (file, word) pairs
            rows["words"] = sum(len(zlib.decompress(blob).split()) for (blob,) in db.execute("SELECT words FROM file_words"))
    db.close()
    return {"bytes": sizes, **{f"rows_{name}": count for name, count in rows.items()}}


def one_tree(root: Path, db_path: Path) -> dict[str, Any]:
    """One cold build into a fresh `db_path`, then one warm build (a restart)."""
    cold, scanned, parsed, symbols = restart(root, db_path)
    assert parsed == scanned  # a fresh database parses every file
    warm, _, warm_parsed, _ = restart(root, db_path)
    assert warm_parsed == 0
    return {"cold_s": cold, "warm_s": warm, "files": scanned, "symbols": symbols, **database_figures(db_path)}


def measure_tree(label: str, root: Path, runs: int, scratch: Path, builds: dict[str, str]) -> list[dict[str, Any]]:
    """`runs` cold + warm builds of `root` by each of `builds` (name -> its server/
    folder), alternating, each in a process of its own that imports that build."""
    got: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for run in range(runs):
        for name, source in builds.items():
            db_path = scratch / f"{name}-{run}-{len(got[name])}.sqlite3"
            done = subprocess.run(
                [sys.executable, __file__, "--one-tree", str(root), str(db_path)],
                env={**os.environ, "PYTHONPATH": os.pathsep.join([source, str(Path(__file__).parent)])},
                check=True, capture_output=True, text=True,
            )
            got[name].append(json.loads(done.stdout))
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    rows = []
    for name, results in got.items():
        cold = [r["cold_s"] for r in results]
        warm = [r["warm_s"] for r in results]
        last = results[-1]
        rows.append({
            "label": label, "build": name, "files": last["files"], "symbols": last["symbols"],
            "cold_p50_s": pct(cold, 50), "cold_p95_s": pct(cold, 95),
            "warm_p50_ms": pct(warm, 50) * 1000, "warm_p95_ms": pct(warm, 95) * 1000,
            "mb": last["bytes"] / 1e6, "rows_words": last.get("rows_words", 0),
        })
    return rows


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


def corpus(runs: int, builds: dict[str, str]) -> dict[str, Any]:
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
            *measure_tree(f"{largest} (largest)", roots[largest], runs, scratch, builds),
            *measure_tree("all 5 packages", everything, runs, scratch, builds),
            *measure_tree("all 5, three copies", copies, runs, scratch, builds),
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

    print(f"symbol index build, p50 / p95 over {runs} runs (builds alternating); cold = fresh database, warm = restart")
    print("| tree | build | files | symbols | cold s p50 / p95 | × first | warm ms p50 / p95 | database MB | × first | words rows |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    firsts: dict[str, dict[str, Any]] = {}
    for row in trees:
        first = firsts.setdefault(row["label"], row)
        print(
            f"| {row['label']} | {row['build']} | {row['files']:,} | {row['symbols']:,} "
            f"| {row['cold_p50_s']:.2f} / {row['cold_p95_s']:.2f} | {row['cold_p50_s'] / first['cold_p50_s']:.2f} "
            f"| {row['warm_p50_ms']:.1f} / {row['warm_p95_ms']:.1f} | {row['mb']:.1f} | {row['mb'] / first['mb']:.2f} "
            f"| {row['rows_words']:,} |"
        )
    print("extract_symbols on one parsed file, p50 (min) over 30 runs; parse time for scale")
    print(f"  {'file':<36}{'lines':>7}{'KB':>7}{'symbols':>9}{'extract ms':>18}{'parse ms':>10}")
    for row in extracts:
        print(
            f"  {row['label']:<36}{row['lines']:>7}{row['kb']:>7.0f}{row['symbols']:>9}"
            f"{row['extract_p50_ms']:>10.2f} ({row['extract_min_ms']:.2f}){row['parse_ms']:>10.1f}"
        )
    return {"trees": trees, "extract": extracts}


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


# -- a real server indexing a generated workspace ------------------------------------------


def typing_keys(line: int, count: int) -> list[tuple[dict[str, Any], str]]:
    """`count` keystrokes on `line` (a comment line): a word typed, then deleted, again."""
    keys: list[tuple[dict[str, Any], str]] = []
    column = len(TYPED_LINE) - 1
    while len(keys) < count:
        for k in range(WORD):
            keys.append((rng(line, column + k), "x"))
        for k in range(WORD, 0, -1):
            keys.append((rng(line, column + k - 1, line, column + k), ""))
    return keys[:count]


async def type_and_ask(server: LspProcess, buffer: Buffer, keys: list[tuple[dict[str, Any], str]],
                       until: asyncio.Future[Any] | None = None) -> list[float]:
    """Key sent → lightbulb answered, ms, one key every KEY_INTERVAL seconds (never before
    the last answer); stops early once `until` is done."""
    samples: list[float] = []
    for key_range, text in keys:
        if until is not None and until.done():
            break
        started = time.perf_counter()
        buffer.change([(key_range, text)])
        cursor = key_range["start"]
        await server.request("textDocument/codeAction", code_action(buffer.uri, cursor["line"], cursor["character"], trigger=2))
        elapsed = time.perf_counter() - started
        samples.append(elapsed * 1000)
        await asyncio.sleep(max(0.0, KEY_INTERVAL - elapsed))
    return samples


async def index_session(source: str, root: Path, scratch: Path, url: str, *, keys: int) -> dict[str, Any]:
    """One server on a cold index of `root`: the build's time, with `keys` keystrokes
    during it and after it (none: the client waits quietly)."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    server = await LspProcess.spawn(SPARKLS, env={"XDG_CACHE_HOME": str(cache), "PYTHONPATH": source},
                                    stderr=scratch / "sparkls.stderr.log")
    built = server.expect("$/progress", lambda params: (params or {}).get("value", {}).get("kind") == "end")
    try:
        options = {"fast": {"baseUrl": url, "apiKey": KEY}, "context": {"index": True}}
        await server.initialize(root, options, {**CAPABILITIES, "window": {"workDoneProgress": True}})
        started = time.perf_counter()
        during: list[float] = []
        idle: list[float] = []
        if keys:
            text = (root / EDITED).read_text()
            buffer = server.open((root / EDITED).as_uri(), text)
            during = (await type_and_ask(server, buffer, typing_keys(TYPED_AT, 100_000), until=built))[WARMUP_KEYS:]
        seconds = (await asyncio.wait_for(built, 1800))[0] - started
        if keys:
            await server.settle(quiet=0.3, timeout=10)
            idle = await type_and_ask(server, buffer, typing_keys(TYPED_AT, max(keys, len(during))))
    finally:
        await server.stop()
        shutil.rmtree(cache, ignore_errors=True)
    return {"build_s": seconds, "during": during, "idle": idle}


def make_index_workspace(root: Path, files: int) -> None:
    """vs_floor.py's `files` small modules, each grown by MODULE_LINES lines of small
    functions (about a real module's size), and the file the editor has open."""
    make_workspace(root, files)
    body = make_source(MODULE_LINES)
    for module in root.glob("pkg_*/mod_*.py"):
        module.write_text(module.read_text() + "\n\n" + body)
    text = make_source(EDITED_LINES).splitlines(keepends=True)
    text.insert(TYPED_AT, TYPED_LINE)
    (root / EDITED).write_text("".join(text))


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"p50": pct(values, 50), "p95": pct(values, 95), "p99": pct(values, 99), "max": max(values), "n": len(values)}


async def server_part(file_counts: list[int], rounds: int, keys: int, builds: dict[str, str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator("--api-key", KEY) as emu, tempfile.TemporaryDirectory(prefix="sparkls-index-server-") as tmp:
        url = emu.url
        scratch = Path(tmp)
        for files in file_counts:
            root = scratch / f"workspace_{files}"
            make_index_workspace(root, files)
            got: dict[str, dict[str, list[float]]] = {name: {"quiet_s": [], "typing_s": [], "during": [], "idle": []}
                                                      for name in builds}
            for _ in range(rounds):
                for name, source in builds.items():
                    quiet = await index_session(source, root, scratch, url, keys=0)
                    typing = await index_session(source, root, scratch, url, keys=keys)
                    got[name]["quiet_s"].append(quiet["build_s"])
                    got[name]["typing_s"].append(typing["build_s"])
                    got[name]["during"] += typing["during"]
                    got[name]["idle"] += typing["idle"]
                    print(f"  {files:,} files, {name}: cold index {quiet['build_s']:.1f} s "
                          f"({typing['build_s']:.1f} s while typing, {len(typing['during'])} keys)", file=sys.stderr)
            results[str(files)] = {
                name: {"quiet_s": statistics.median(g["quiet_s"]), "typing_s": statistics.median(g["typing_s"]),
                       "during": summary(g["during"]), "idle": summary(g["idle"])}
                for name, g in got.items()
            }
    print("\ncold index of a generated workspace in a real server, and a key + lightbulb (ms) during it vs idle")
    print("| files | build | cold index s (while typing) | during: p50 / p95 / p99 / max (n) | idle: p50 / p95 / p99 / max | × p50 / p95 |")
    print("|---|---|---|---|---|---|")
    for files, per_build in results.items():
        for name, row in per_build.items():
            d, i = row["during"], row["idle"]
            ratio = f"{d['p50'] / i['p50']:.2f} / {d['p95'] / i['p95']:.2f}" if d["n"] and i["n"] else "-"
            during = f"{d['p50']:.1f} / {d['p95']:.1f} / {d['p99']:.1f} / {d['max']:.1f} ({d['n']})" if d["n"] else "-"
            idle = f"{i['p50']:.1f} / {i['p95']:.1f} / {i['p99']:.1f} / {i['max']:.1f}" if i["n"] else "-"
            print(f"| {int(files):,} | {name} | {row['quiet_s']:.1f} ({row['typing_s']:.1f}) | {during} | {idle} | {ratio} |")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="corpus,server", help="parts to run, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="corpus: runs per tree")
    parser.add_argument("--files", default="1000,10000", help="server: workspace sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=2, help="server: sessions per build and size")
    parser.add_argument("--keys", type=int, default=150, help="server: keystrokes when idle (at least)")
    parser.add_argument("--compare", action="append", default=[], metavar="[NAME=]DIR",
                        help="the server/ directory of another sparkls to measure alongside (repeatable; first is the floor)")
    parser.add_argument("--one-tree", nargs=2, metavar=("ROOT", "DB"), help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = set(args.only.split(","))
    report: dict[str, Any] = {}
    if args.one_tree:
        print(json.dumps(one_tree(Path(args.one_tree[0]), Path(args.one_tree[1]))))
        return 0
    builds = {}
    for given in args.compare:
        name, _, folder = given.rpartition("=")
        builds[name or f"compare{len(builds) + 1}"] = str(Path(folder).resolve())
    builds["this"] = HERE
    if "corpus" in only:
        report["corpus"] = corpus(args.runs, builds)
    if "server" in only:
        file_counts = [int(n) for n in args.files.split(",")]
        report["server"] = asyncio.run(server_part(file_counts, args.rounds, args.keys, builds))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
