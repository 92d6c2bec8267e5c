"""Benchmark: how much of what a function references the fast tier's context holds,
per kind of definition, in Python, TypeScript/JavaScript and Go, by real language tools.

Inputs, two disjoint sets, all at pinned versions, none of them in `corpus.py`:
- tuning (`recall_common.PACKAGES`, what the context engine's rules were kept on):
  Python sdists (packaging, marshmallow, tomlkit, tqdm, jinja2, attrs), npm tarballs
  (rxjs and immer: their `src/` TypeScript; express: plain JavaScript; axios, undici
  `lib/`, mobx `src/`), Debian `golang-*-dev` sources (go-cmp, pflag, mux, yaml.v3,
  testify, viper, BurntSushi/toml);
- held out (`recall_common.HELD_OUT`, issue 39: drawn once by `draw_held_out.py`, never
  looked at): only its totals are printed, per language (no misses, no per-package
  figures, nothing of it in `--json` but those totals; `--dump` leaves it out).

For each package: a `WorkspaceIndex` on its root in a temporary database, then its
pinned sample: the functions listed in `recall_sample.json` (path, first and last
line, name), so that a change to the symbols the engine finds does not change what is
measured. `--repin` draws a new sample instead (a random one, fixed seed, of the
functions and methods with a body that `extract_symbols` finds on every indexed file
of the language, over 300 lines skipped), writes it there and stops: run it with the
server from before a change to compare like for like. A pinned function the engine
no longer finds under that name and those lines is counted and left out. For each, the cursor
goes on the first body line of the function's own (past a nested definition that
would be the region instead: see `cursor_in_own_body`) and the context is built as
the server builds it
(`build_edit_context(..., lookup=workspace_index)`, default settings, then
`render_edit_prompt`), as in `context_quality.py`.

Oracle (`oracles/definitions.py`): for every identifier of the function, where the
language's tool says it is defined (jedi `goto`; the TypeScript 5.9 LanguageService
`getDefinitionAtPosition` with allowJs; gopls `textDocument/definition` in GOPATH
mode, offline), kept when under the package root and outside the function. Answers
are cached in `bench/.cache/recall/` per package, version and tool version.

A definition is recalled when a definition/signature/attribute or container snippet
of the same path covers its line, or the region does (`context_quality.covered`).
Recall is reported per kind (function, type, field, constant, other), over all kinds,
and for functions and types alone; misses are split as `context_quality.py` splits
them (not in the index under that name; in the index but cut by the budget; in the
index but not picked). Tokens: the whole prompt (instructions + input), p50 / p95, and the part that is not
code (instructions, labels, paths, fences, markers);
share: median of prompt / whole-file tokens over the functions in files over 2,000
tokens; big p90: the 90th percentile of that ratio over the functions in files over
8,000 tokens (issue 39: at most 10%). Build time: building the context, p50 / p95 over the functions (each the median
of `--repeats` builds; the index warm, its files read once).

Each set is reported on its own, tuning first, then a table of both per kind; the
tuning misses are also grouped by shape (`shape`: a private `#` field, a member of an
exported object literal, a member reached through a declared type, an aliased or
re-exported name, a call through `super()`/`cls`, a member of a very large class).

    python bench/context_recall.py [--set tuning|held-out|both] [--language python|typescript|go]
                                   [--max-functions 100] [--seed 0] [--json out.json] [--repin] [--dump DIR]
                                   [--repeats 1]

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import pct  # bench/common.py
from context_quality import BUDGET, MAX_FUNCTION_LINES, UNLIMITED, covered  # bench/context_quality.py
from oracles.definitions import KINDS, answer, function_key, tool_version  # bench/oracles/
from recall_common import CACHE, EXTENSIONS, SETS, SHAPES, Package, package_roots, shape
from sparkls.context.builder import build_edit_context
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.context.prompt import render_edit_prompt
from sparkls.guard import Guard, NotSendable
from sparkls.context.region import find_region
from sparkls.context.symbols import extract_symbols
from sparkls.context.tokens import estimate_tokens
from sparkls.documents.store import DocumentStore
from sparkls.context.index.workspace import WorkspaceIndex

LOOKUP_LIMIT = 10_000
# per language; bump when the oracle's answers change shape or kinds (TS/JS 2: `this.#x` is asked too)
ORACLE_SCHEMA = {"python": 1, "typescript": 2, "go": 1}
LARGE_FILE_TOKENS = 2000
BIG_FILE_TOKENS = 8000  # issue 39: on such files at most 10% of the file is sent (p90)
PINNED = Path(__file__).resolve().parent / "recall_sample.json"


def pinned_sample() -> dict[str, Any]:
    return json.loads(PINNED.read_text(encoding="utf-8")) if PINNED.exists() else {}


def draw(functions: list[tuple[str, Any]], max_functions: int, seed: int) -> list[tuple[str, Any]]:
    shuffled = sorted(functions, key=lambda f: (f[0], f[1].start_line))
    random.Random(seed).shuffle(shuffled)
    return sorted(shuffled[:max_functions], key=lambda f: (f[0], f[1].start_line))


def pinned_functions(functions: list[tuple[str, Any]], pins: list[list[Any]]) -> tuple[list[tuple[str, Any]], int]:
    """The functions a pin names (path, first line, last line, name), and how many it names that are gone."""
    by_key = {(rel, s.start_line, s.end_line, s.name): (rel, s) for rel, s in functions}
    found = [by_key[key] for key in map(tuple, pins) if key in by_key]
    return found, len(pins) - len(found)


def load(package: Package) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """The package's documents of its language (rel -> Document), and its functions with a body."""
    store = DocumentStore()
    docs: dict[str, Any] = {}
    functions: list[tuple[str, Any]] = []
    for path in iter_files(package.root, PathFilter.from_root(package.root)):
        if not path.name.endswith(EXTENSIONS[package.language]):
            continue
        try:
            text = path.read_bytes().decode("utf-8")  # as an editor sends it: line ends kept
        except (OSError, UnicodeDecodeError):
            continue
        doc = store.open(path.as_uri(), text, 1)
        if doc.tree is None:
            continue
        rel = path.relative_to(package.root).as_posix()
        docs[rel] = doc
        for symbol in extract_symbols(doc.language_id, doc.tree, text.encode("utf-8")):
            if (symbol.kind in ("function", "method") and symbol.end_line > symbol.signature_end_line
                    and symbol.end_line - symbol.start_line + 1 <= MAX_FUNCTION_LINES):
                functions.append((rel, symbol))
    return docs, functions


def oracle_answers(package: Package, docs: dict[str, Any], sample: list[tuple[str, Any]]) -> tuple[dict[str, Any], float]:
    """Per function key: [definitions, set aside]; computed in one batch for those not cached."""
    cache_file = CACHE / (f"oracle-{package.language}-{package.name}-{package.version}-"
                          f"{tool_version(package.language)}-v{ORACLE_SCHEMA[package.language]}.json")
    cached = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    missing = [(rel, s) for rel, s in sample if function_key(rel, s) not in cached]
    started = time.perf_counter()
    if missing:
        cached.update(answer(package, docs, missing))
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(cached))
    return cached, time.perf_counter() - started


def miss_cause(workspace, doc, rel: str, offset: int, region, d_rel: str, line0: int, word: str,
               file_symbols, unlimited: list) -> str:
    indexed = any(p == d_rel and s.start_line <= line0 <= s.end_line
                  for p, s in workspace.index.lookup(word, limit=LOOKUP_LIMIT)) or (
        d_rel == rel and any(s.name == word and s.start_line <= line0 <= s.end_line for s in file_symbols))
    if not indexed:
        return "not in index under that name"
    if not unlimited:
        unlimited.append(build_edit_context(doc, offset, offset, path=rel, max_region_lines=MAX_FUNCTION_LINES,
                                            budget_tokens=UNLIMITED, lookup=workspace))
    if covered(unlimited[0].snippets, region, d_rel, line0):
        return "in index, cut by budget"
    if d_rel != rel and any(s.name == word for s in file_symbols):
        return "in index, not picked: same-file name first"
    return "in index, not picked: among too many definers"


def cursor_in_own_body(doc: Any, lines: list[str], symbol: Any) -> tuple[int, int]:
    """Where the edit is asked for: a cursor on the function's first body line of its
    own, so that the region is the function. A first body line that starts a nested
    definition (a test's local class, a closure) gives that definition as the region,
    while the oracle is asked about the whole function: the cursor moves on past it,
    and a function with no line of its own is selected whole."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    row = min(symbol.signature_end_line + 1, symbol.end_line)
    while row <= symbol.end_line:
        text = lines[row]
        if not text.strip():
            row += 1
            continue
        offset = starts[row] + len(text) - len(text.lstrip())
        region = find_region(doc, offset, offset, max_lines=MAX_FUNCTION_LINES)
        if region.start_line <= symbol.signature_end_line and region.end_line >= symbol.end_line:
            return offset, offset  # the region is the function (with what the server adds)
        row = max(row, region.end_line) + 1
    first_body = min(symbol.signature_end_line + 1, symbol.end_line)
    return starts[first_body], starts[symbol.end_line] + len(lines[symbol.end_line])


def measure_package(package: Package, pins: list[list[Any]] | None, max_functions: int, seed: int,
                    scratch: Path, repeats: int = 1) -> dict[str, Any]:
    started = time.perf_counter()
    workspace = WorkspaceIndex(package.root, scratch / f"{package.language}-{package.name}.sqlite3")
    workspace.index.build(PathFilter.from_root(package.root))
    docs, functions = load(package)
    if pins is None:
        sample, gone = draw(functions, max_functions, seed), 0
    else:
        sample, gone = pinned_functions(functions, pins)
    oracle, oracle_s = oracle_answers(package, docs, sample)

    rows: list[dict[str, Any]] = []
    misses: Counter[str] = Counter()
    set_aside: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    records: list[dict[str, Any]] = []
    refused = 0
    for rel, symbol in sample:
        doc = docs[rel]
        lines = doc.text.split("\n")
        offset, end = cursor_in_own_body(doc, lines, symbol)
        took = []
        for _ in range(repeats):  # the median of `repeats` builds (the first reads and parses files)
            built = time.perf_counter()
            ctx = build_edit_context(doc, offset, end, path=rel, max_region_lines=MAX_FUNCTION_LINES,
                                     budget_tokens=BUDGET, lookup=workspace)
            took.append((time.perf_counter() - built) * 1000)
        build_ms = statistics.median(took)
        try:
            prompt = Guard(package.root).seal(render_edit_prompt(ctx, "instruction"))
        except NotSendable:  # the region holds a secret: the server refuses it, nothing is sent
            refused += 1
            continue
        region = (rel, ctx.region.start_line, ctx.region.end_line)
        definitions, aside = oracle[function_key(rel, symbol)]
        set_aside.update(aside)
        file_symbols = extract_symbols(doc.language_id, doc.tree, doc.text.encode("utf-8"))
        unlimited: list = []
        found: Counter[str] = Counter()
        hit: Counter[str] = Counter()
        for d_rel, line0, word, kind, tool_kind in definitions:
            found[kind] += 1
            if covered(ctx.snippets, region, d_rel, line0):
                hit[kind] += 1
                continue
            cause = miss_cause(workspace, doc, rel, offset, region, d_rel, line0, word, file_symbols, unlimited)
            misses[f"{cause} | {kind}"] += 1
            shown = examples.setdefault(cause, [])
            if True:  # all kept in --json; three printed
                shown.append(f"{rel}:{symbol.name} -> {word} ({tool_kind}) {d_rel}:{line0 + 1}")
            records.append({"path": rel, "function": symbol.name, "rows": [symbol.start_line, symbol.end_line],
                            "word": word, "kind": kind, "tool_kind": tool_kind, "def_path": d_rel,
                            "def_line": line0, "cause": cause,
                            "shape": shape(docs, rel, symbol, word, d_rel, line0, package.language)})
        rows.append({
            "path": rel, "function": symbol.name, "found": dict(found), "recalled": dict(hit),
            "tokens": estimate_tokens(prompt.instructions) + estimate_tokens(prompt.input),
            # what is not code: instructions, labels, paths, line numbers, fences, markers
            "fixed": estimate_tokens(prompt.instructions) + estimate_tokens(prompt.input) - sum(
                estimate_tokens(text) for text in (*(s.text for s in ctx.snippets), ctx.region_text, "instruction")
            ),
            "whole_file": estimate_tokens(doc.text), "build_ms": build_ms,
        })
    workspace.close()
    return {"language": package.language, "package": package.name, "version": package.version,
            "functions": len(functions), "sampled": len(rows), "pinned_gone": gone, "oracle_s": oracle_s,
            "seconds": time.perf_counter() - started, "rows": rows, "misses": dict(misses),
            "set_aside": dict(set_aside), "miss_examples": examples, "miss_records": records, "refused": refused}


def summary(packages: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for p in packages for r in p["rows"]]
    found = Counter()
    hit = Counter()
    for r in rows:
        found.update(r["found"])
        hit.update(r["recalled"])

    def recall(kinds) -> tuple[int, int]:
        return sum(hit[k] for k in kinds), sum(found[k] for k in kinds)

    large = [r["tokens"] / r["whole_file"] for r in rows if r["whole_file"] > LARGE_FILE_TOKENS]
    big = [r["tokens"] / r["whole_file"] for r in rows if r["whole_file"] > BIG_FILE_TOKENS]
    misses: Counter[str] = Counter()
    for p in packages:
        misses.update(p["misses"])
    return {
        "functions": sum(p["functions"] for p in packages), "sampled": len(rows),
        "pinned_gone": sum(p.get("pinned_gone", 0) for p in packages),
        "refused": sum(p.get("refused", 0) for p in packages),
        "recall_by_kind": {k: recall([k]) for k in KINDS},
        "recall_all": recall(KINDS), "recall_four_kinds": recall(["function", "type", "field", "constant"]),
        "recall_functions_types": recall(["function", "type"]),
        "tokens_p50": pct([r["tokens"] for r in rows], 50), "tokens_p95": pct([r["tokens"] for r in rows], 95),
        "fixed_p50": pct([r["fixed"] for r in rows], 50),
        "build_ms_p50": pct([r["build_ms"] for r in rows], 50), "build_ms_p95": pct([r["build_ms"] for r in rows], 95),
        "fixed_share_p50": statistics.median(r["fixed"] / r["tokens"] for r in rows),
        "large_files": len(large), "large_share_p50": statistics.median(large) if large else None,
        "big_files": len(big), "big_share_p90": pct(big, 90) if big else None,
        "misses": dict(misses),
    }


def ratio(pair: tuple[int, int]) -> str:
    hit, total = pair
    return f"{hit / total:.1%} ({hit}/{total})" if total else "-"


def report(language: str, packages: list[dict[str, Any]], label: str = "tuning") -> dict[str, Any]:
    s = summary(packages)
    print(f"\n{language}, {label} set: fast-tier context, budget {BUDGET}, cursor on each function's first body line")
    print(f"  {'package':<30}{'funcs':>6}{'sampled':>8}{'oracle':>8}{'all kinds':>22}{'fn+type+field+const':>22}"
          f"{'fn+types':>22}  tokens p50 / p95")
    for p in [*packages, None]:
        one = summary([p]) if p else s
        label = f"{p['package']} {p['version']}" if p else "all"
        print(f"  {label[:30]:<30}{one['functions']:>6}{one['sampled']:>8}{one['recall_all'][1]:>8}"
              f"{ratio(one['recall_all']):>22}{ratio(one['recall_four_kinds']):>22}"
              f"{ratio(one['recall_functions_types']):>22}"
              f"  {one['tokens_p50']:>6} / {one['tokens_p95']}")
    if s["pinned_gone"]:
        print(f"  pinned functions no longer found (left out): {s['pinned_gone']}")
    print("  recall by kind: " + "; ".join(f"{k} {ratio(v)}" for k, v in s["recall_by_kind"].items()))
    share = f"{s['large_share_p50']:.1%}" if s["large_share_p50"] is not None else "-"
    print(f"  prompt / whole file p50 on the {s['large_files']} functions in files over {LARGE_FILE_TOKENS} tokens: {share}")
    big = f"{s['big_share_p90']:.1%}" if s["big_share_p90"] is not None else "-"
    print(f"  prompt / whole file p90 on the {s['big_files']} functions in files over {BIG_FILE_TOKENS} tokens: {big}")
    print(f"  not code (instructions, labels, fences, markers) p50: {s['fixed_p50']} tokens, "
          f"{s['fixed_share_p50']:.1%} of a prompt")
    causes: Counter[str] = Counter()
    by_cause: dict[str, Counter[str]] = {}
    for key, n in s["misses"].items():
        cause, kind = key.split(" | ")
        causes[cause] += n
        by_cause.setdefault(cause, Counter())[kind] += n
    aside: Counter[str] = Counter()
    for p in packages:
        aside.update(p["set_aside"])
    print(f"  misses ({sum(causes.values())}):")
    for cause, n in causes.most_common():
        print(f"    {n:>5}  {cause} ({', '.join(f'{k} {v}' for k, v in by_cause[cause].most_common())})")
        for p in packages:
            for example in p["miss_examples"].get(cause, [])[:3]:
                print(f"           {p['package']}: {example}")
    print("  set aside (not in the oracle): " + (", ".join(f"{k} {v}" for k, v in aside.most_common()) or "none"))
    print(f"  functions refused (a secret in the region: nothing sent, left out): {s['refused']}")
    print(f"  building the context (index warm, files cached after first read): p50 {s['build_ms_p50']:.1f} ms, "
          f"p95 {s['build_ms_p95']:.1f} ms")
    print(f"  time: {sum(p['seconds'] for p in packages):.0f} s, oracle {sum(p['oracle_s'] for p in packages):.0f} s")
    return s


def totals(language: str, packages: list[dict[str, Any]]) -> dict[str, Any]:
    """The held-out set's figures: totals of the language only (its misses are never shown)."""
    s = {k: v for k, v in summary(packages).items() if k != "misses"}
    share = f"{s['big_share_p90']:.1%}" if s["big_share_p90"] is not None else "-"
    print(f"\n{language}, held-out set (totals only): {s['sampled']} functions ({s['refused']} refused: a secret "
          f"in the region); all kinds {ratio(s['recall_all'])}; "
          + "; ".join(f"{k} {ratio(v)}" for k, v in s["recall_by_kind"].items())
          + f"; tokens p50 {s['tokens_p50']} / p95 {s['tokens_p95']}; prompt / whole file p90 on the "
          f"{s['big_files']} functions in files over {BIG_FILE_TOKENS} tokens: {share}; "
          f"build p50 {s['build_ms_p50']:.1f} ms, p95 {s['build_ms_p95']:.1f} ms")
    return s


def report_shapes(language: str, packages: list[dict[str, Any]], examples: int = 3) -> dict[str, int]:
    """The misses grouped by `shape`, with where each was used and defined."""
    records = [(p["package"], r) for p in packages for r in p["miss_records"]]
    by_shape: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for package, r in records:
        by_shape.setdefault(r["shape"], []).append((package, r))
    print(f"\n{language}, tuning misses by shape ({len(records)}):")
    for name in SHAPES:
        group = by_shape.get(name, [])
        if not group:
            continue
        kinds = Counter(r["kind"] for _, r in group)
        print(f"  {len(group):>5}  {name} ({', '.join(f'{k} {v}' for k, v in kinds.most_common())})")
        for package, r in group[:examples]:
            print(f"           {package}: {r['path']}:{r['function']} -> {r['word']} ({r['tool_kind']}) "
                  f"{r['def_path']}:{r['def_line'] + 1} [{r['cause']}]")
    return {name: len(by_shape.get(name, [])) for name in SHAPES}


def compare(summaries: dict[str, dict[str, Any]]) -> None:
    """One line per language and set: recall per kind, all kinds, fn+types, tokens, share."""
    print(f"\n{'set':<10}{'language':<12}" + "".join(f"{k:>10}" for k in KINDS)
          + f"{'all kinds':>11}{'fn+types':>10}{'p50/p95':>12}{'share':>8}{'big p90':>9}{'build ms':>12}")
    for label, languages in summaries.items():
        for language, s in languages.items():
            cells = "".join(f"{v[0] / v[1]:>10.1%}" if v[1] else f"{'-':>10}" for v in s["recall_by_kind"].values())
            share = f"{s['large_share_p50']:.1%}" if s["large_share_p50"] is not None else "-"
            big = f"{s['big_share_p90']:.1%}" if s["big_share_p90"] is not None else "-"
            print(f"{label:<10}{language:<12}{cells}{s['recall_all'][0] / s['recall_all'][1]:>11.1%}"
                  f"{s['recall_functions_types'][0] / s['recall_functions_types'][1]:>10.1%}"
                  f"{s['tokens_p50']:>6}/{s['tokens_p95']:<5}{share:>8}{big:>9}"
                  f"{s['build_ms_p50']:>6.1f}/{s['build_ms_p95']:<5.1f}")


def repin(labels: list[str], languages: list[str], max_functions: int, seed: int) -> int:
    """Draws each package's sample with the server this runs on and writes it to `PINNED`."""
    pinned = pinned_sample()
    for label in labels:
        for language in languages:
            for package in package_roots(language, SETS[label]):
                _, functions = load(package)
                pinned.setdefault(label, {}).setdefault(language, {})[package.name] = [
                    [rel, s.start_line, s.end_line, s.name] for rel, s in draw(functions, max_functions, seed)]
                print(f"  pinned {label} {language}/{package.name}: "
                      f"{len(pinned[label][language][package.name])} of {len(functions)}", file=sys.stderr)
    PINNED.write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def dump(labels: list[str], languages: list[str], into: Path) -> int:
    """Writes the context built for each function of the pinned sample to `into`, one JSON
    file per package (region, then every snippet: path, lines, kind, text), without the
    oracles: two dumps, before and after a change, compare with `diff -r`. Never the
    held-out set's: it is not looked at."""
    pinned = pinned_sample()
    labels = [label for label in labels if label != "held-out"]
    with tempfile.TemporaryDirectory(prefix="sparkls-recall-dump-") as tmp:
        for label in labels:
            for language in languages:
                for package in package_roots(language, SETS[label]):
                    pins = pinned.get(label, {}).get(language, {}).get(package.name)
                    workspace = WorkspaceIndex(package.root, Path(tmp) / f"{language}-{package.name}.sqlite3")
                    workspace.index.build(PathFilter.from_root(package.root))
                    docs, functions = load(package)
                    sample = pinned_functions(functions, pins)[0] if pins is not None else draw(functions, 100, 0)
                    contexts = []
                    for rel, symbol in sample:
                        offset, end = cursor_in_own_body(docs[rel], docs[rel].text.split("\n"), symbol)
                        ctx = build_edit_context(docs[rel], offset, end, path=rel, max_region_lines=MAX_FUNCTION_LINES,
                                                 budget_tokens=BUDGET, lookup=workspace)
                        contexts.append({"function": [rel, symbol.start_line, symbol.name],
                                         "region": [ctx.region.start_line, ctx.region.end_line],
                                         "snippets": [[s.path, s.start_line, s.end_line, s.kind, s.text]
                                                      for s in ctx.snippets]})
                    workspace.close()
                    out = into / label / language / f"{package.name}.json"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(json.dumps(contexts, indent=1) + "\n", encoding="utf-8")
                    print(f"  dumped {label} {language}/{package.name}: {len(contexts)} contexts", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["tuning", "held-out", "both"], default="both",
                        help="the tuning packages, the held-out ones, or both (each reported on its own)")
    parser.add_argument("--language", choices=sorted(SETS["tuning"]), action="append",
                        help="one language (repeatable); default all three")
    parser.add_argument("--max-functions", type=int, default=100, help="sample per package")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--repeats", type=int, default=1,
                        help="build each context this many times; its time is their median")
    parser.add_argument("--repin", action="store_true",
                        help=f"draw a new sample of the chosen sets and languages, write it to {PINNED.name}, stop")
    parser.add_argument("--dump", type=Path, metavar="DIR",
                        help="write each pinned function's context to DIR (no oracle, no figures), stop")
    args = parser.parse_args()
    labels = ["tuning", "held-out"] if args.set == "both" else [args.set]
    languages = args.language or ["python", "typescript", "go"]
    if args.repin:
        return repin(labels, languages, args.max_functions, args.seed)
    if args.dump:
        return dump(labels, languages, args.dump)

    pinned = pinned_sample()
    results: dict[str, Any] = {}
    summaries: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="sparkls-recall-bench-") as tmp:
        for label in labels:
            for language in languages:
                packages = []
                for package in package_roots(language, SETS[label]):
                    pins = pinned.get(label, {}).get(language, {}).get(package.name)
                    packages.append(measure_package(package, pins, args.max_functions, args.seed, Path(tmp),
                                                    args.repeats))
                    print(f"  {label} {language}/{package.name}: {packages[-1]['seconds']:.1f} s "
                          f"(oracle {packages[-1]['oracle_s']:.1f} s)", file=sys.stderr)
                if label == "held-out":  # unseen: its totals only, no misses, no per-package figures
                    summaries.setdefault(label, {})[language] = totals(language, packages)
                    results.setdefault(label, {})[language] = {"summary": summaries[label][language]}
                    continue
                summaries.setdefault(label, {})[language] = report(language, packages, label)
                shapes = report_shapes(language, packages)
                results.setdefault(label, {})[language] = {"summary": summaries[label][language],
                                                           "shapes": shapes, "packages": packages}
    compare(summaries)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
