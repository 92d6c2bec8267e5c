"""Benchmark: how small and how complete the fast tier's context is, on real code.

Inputs: the pinned source distributions of `corpus.py` (requests, rich, httpx, click,
flask; each sdist root is one "package": library, tests, docs and examples alike).

For each package: a `SymbolIndex` in a temporary database (never the user's cache),
then a random sample (fixed seed) of its functions and methods (`extract_symbols` on
every indexed `.py` file; those over 300 lines skipped). For each, the cursor goes on
the first body line and the context is built as the server builds it:
`build_edit_context(..., lookup=workspace_index)` with the default settings
(region cap 300 lines, budget 2,000 tokens), then `render_edit_prompt`.

1. Tokens per region (p50/p95): the whole prompt (instructions + input), against
   (a) the whole file and (b) the whole file plus every file that the index says
   defines a name the region mentions. The baselines count the file text only (no
   instructions), which leans against sparkls. `estimate_tokens`, and exact o200k
   counts too when `quicktok` is importable.
2. Recall of referenced definitions. Oracle: `jedi` (a bench-only dependency,
   `pip install jedi`). For every identifier in the function (attribute names
   included; one `goto` per distinct bare name or dotted expression), `goto(...,
   follow_imports=True)`; keep definitions in a file under the package root, outside
   the function itself, not builtins. Definitions of type `module` (`from . import
   utils`) and unresolved imports (goto stops at an import line) are counted apart,
   not in the oracle. A definition is recalled when a `definition`/`signature`
   snippet of the same path covers its line, or the region does. Misses are split:
   not in the index under that name at that line (instance attributes, class-level
   variables, locals of other functions, ...), in the index but cut by the budget
   (recalled with an unlimited budget), or in the index but not picked (a same-file
   symbol of that name shadows it, or more than 3 files define the name).

    python bench/context_quality.py [--max-functions 300] [--seed 0] [--json out.json]

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
from corpus import corpus_roots  # bench/corpus.py
from sparkls.context.builder import build_edit_context
from sparkls.context.definitions import names_used
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.context.prompt import render_edit_prompt
from sparkls.guard import Guard
from sparkls.context.snippet import DEFINITION_KINDS
from sparkls.context.symbols import extract_symbols
from sparkls.context.tokens import estimate_tokens
from sparkls.documents.store import DocumentStore
from sparkls.context.index.workspace import WorkspaceIndex

import jedi  # bench-only oracle: `.venv/bin/pip install jedi`

try:
    import quicktok

    _O200K = quicktok.get_encoding("o200k_base")
except ImportError:  # exact counts are optional
    _O200K = None

MAX_FUNCTION_LINES = 300  # the server's default region cap
BUDGET = 2000  # the server's default fast-tier budget
UNLIMITED = 10**9
BASELINE_LOOKUP_LIMIT = 10_000
CACHE = Path(__file__).resolve().parent / ".cache"  # gitignored  # every file that defines a name, for baseline (b)


def o200k(text: str) -> int:
    return len(_O200K.encode(text))


class Counts:
    """Token counts of whole files, cached: (estimate, o200k or None)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, tuple[int, int | None]] = {}

    def file(self, rel: str) -> tuple[int, int | None]:
        if rel not in self.cache:
            text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            self.cache[rel] = (estimate_tokens(text), o200k(text) if _O200K else None)
        return self.cache[rel]


def identifier_keys(node, first: int, last: int, found: dict[str, tuple[int, int]]) -> None:
    """Distinct identifiers in rows first..last: bare names by name, attribute names by
    their dotted expression; each with its first (row, byte column)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.end_point.row < first or n.start_point.row > last:
            continue
        if n.type == "identifier":
            parent = n.parent
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == n:
                key = parent.text.decode("utf-8", "replace")
            else:
                key = n.text.decode("utf-8", "replace")
            key = f"{key}\0{n.text.decode('utf-8', 'replace')}"
            point = (n.start_point.row, n.start_point.column)
            if key not in found or point < found[key]:
                found[key] = point
        stack.extend(n.children)


def covered(snippets, region, rel: str, line0: int) -> bool:
    if rel == region[0] and region[1] <= line0 <= region[2]:
        return True
    return any(
        (s.kind in DEFINITION_KINDS or s.kind == "container") and s.path == rel and s.start_line <= line0 <= s.end_line
        for s in snippets
    )


def jedi_oracle(script, doc, rel: str, symbol, root: Path) -> tuple[list[list[Any]], dict[str, int]]:
    """jedi's definitions (path, 0-based line, name, type) for the identifiers in
    `symbol`, outside it and inside the package; and the goto results set aside."""
    lines = doc.text.split("\n")
    root_resolved = root.resolve()
    keys: dict[str, tuple[int, int]] = {}
    identifier_keys(doc.tree.root_node, symbol.start_line, symbol.end_line, keys)
    oracle: dict[tuple[str, int], tuple[str, str]] = {}
    set_aside: Counter[str] = Counter()
    for key, (row, byte_col) in keys.items():
        column = len(lines[row].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        try:
            found = script.goto(row + 1, column, follow_imports=True)
        except Exception:  # jedi gives up on some code; count it
            set_aside["jedi error"] += 1
            continue
        for d in found:
            if d.module_path is None or d.line is None or d.in_builtin_module():
                continue
            try:
                d_rel = Path(d.module_path).resolve().relative_to(root_resolved).as_posix()
            except ValueError:
                continue  # outside the package (stdlib, site-packages)
            line0 = d.line - 1
            if d_rel == rel and symbol.start_line <= line0 <= symbol.end_line:
                continue  # the function's own name, params, locals
            if d.type == "module":
                set_aside["module"] += 1
                continue
            def_text = (root / d_rel).read_text(encoding="utf-8", errors="replace").split("\n")[line0].lstrip()
            if def_text.startswith(("import ", "from ")):
                set_aside["unresolved import"] += 1
                continue
            dotted = "." in key.split("\0")[0]
            oracle.setdefault((d_rel, line0), (key.split("\0")[1], d.type + (" via attribute" if dotted else "")))
    return [[p, line, word, kind] for (p, line), (word, kind) in oracle.items()], dict(set_aside)


def measure_package(name: str, root: Path, max_functions: int, seed: int, scratch: Path) -> dict[str, Any]:
    started = time.perf_counter()
    workspace = WorkspaceIndex(root, scratch / f"{name}.sqlite3")
    workspace.index.build(PathFilter.from_root(root))
    index_s = time.perf_counter() - started

    # Every function and method of every indexed Python file.
    store = DocumentStore()
    docs: dict[str, Any] = {}
    functions: list[tuple[str, Any]] = []
    for path in iter_files(root, PathFilter.from_root(root)):
        if path.suffix != ".py":
            continue
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        doc = store.open(path.as_uri(), text, 1)
        if doc.tree is None:
            continue
        docs[rel] = doc
        for symbol in extract_symbols(doc.language_id, doc.tree, text.encode("utf-8")):
            if symbol.kind in ("function", "method") and symbol.end_line - symbol.start_line + 1 <= MAX_FUNCTION_LINES:
                functions.append((rel, symbol))
    total_functions = len(functions)
    random.Random(seed).shuffle(functions)
    sample = sorted(functions[:max_functions], key=lambda f: (f[0], f[1].start_line))

    src = root / "src"
    project = jedi.Project(root, added_sys_path=[str(src)] if src.is_dir() else [])
    counts = Counts(root)

    rows: list[dict[str, Any]] = []
    misses: Counter[str] = Counter()
    miss_types: Counter[str] = Counter()
    set_aside: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}  # miss category -> a few examples
    build_times: list[float] = []
    jedi_s = 0.0
    scripts: dict[str, jedi.Script] = {}
    # The oracle depends on the corpus and jedi only: cached across runs.
    cache_file = CACHE / f"jedi-oracle-{name}-{root.name}-jedi{jedi.__version__}.json"
    oracle_cache: dict[str, Any] = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    cached_before = len(oracle_cache)

    for rel, symbol in sample:
        doc = docs[rel]
        lines = doc.text.split("\n")
        body_line = min(symbol.signature_end_line + 1, symbol.end_line)
        line_text = lines[body_line]
        offset = sum(len(l) + 1 for l in lines[:body_line]) + (len(line_text) - len(line_text.lstrip()))

        t0 = time.perf_counter()
        ctx = build_edit_context(doc, offset, offset, path=rel, max_region_lines=MAX_FUNCTION_LINES,
                                 budget_tokens=BUDGET, lookup=workspace)
        prompt = Guard(root).seal(render_edit_prompt(ctx, "instruction"))
        build_times.append(time.perf_counter() - t0)
        region = (rel, ctx.region.start_line, ctx.region.end_line)
        tokens = estimate_tokens(prompt.instructions) + estimate_tokens(prompt.input)
        floor = estimate_tokens(prompt.instructions) + estimate_tokens(ctx.region_text)
        snippet_tokens = Counter()
        for snippet in ctx.snippets:
            snippet_tokens[snippet.kind] += estimate_tokens(snippet.text)
        exact = o200k(prompt.instructions) + o200k(prompt.input) if _O200K else None

        # Baseline (b): this file and every file that defines a name the region mentions.
        files = {rel}
        for word in names_used(ctx.region_text):
            files.update(path for path, _ in workspace.index.lookup(word, limit=BASELINE_LOOKUP_LIMIT))
        whole = counts.file(rel)
        plus = [counts.file(f) for f in files]

        # The oracle: jedi's definitions for the names the function uses (cached).
        t0 = time.perf_counter()
        cache_key = f"{rel}:{symbol.start_line}:{symbol.end_line}"
        if cache_key not in oracle_cache:
            if rel not in scripts:
                scripts[rel] = jedi.Script(doc.text, path=root / rel, project=project)
            oracle_cache[cache_key] = jedi_oracle(scripts[rel], doc, rel, symbol, root)
        found_defs, aside = oracle_cache[cache_key]
        set_aside.update(aside)
        oracle = {(d_rel, line0): (word, kind) for d_rel, line0, word, kind in found_defs}
        jedi_s += time.perf_counter() - t0

        hit = 0
        unlimited = None
        file_symbols = extract_symbols(doc.language_id, doc.tree, doc.text.encode("utf-8"))
        for (d_rel, line0), (word, kind) in oracle.items():
            if covered(ctx.snippets, region, d_rel, line0):
                hit += 1
                continue
            miss_types[kind] += 1
            indexed = any(
                p == d_rel and s.start_line <= line0 <= s.end_line
                for p, s in workspace.index.lookup(word, limit=BASELINE_LOOKUP_LIMIT)
            ) or (d_rel == rel and any(
                s.name == word and s.start_line <= line0 <= s.end_line for s in file_symbols
            ))
            if not indexed:
                category = "not in index under that name" + (" (attribute)" if "attribute" in kind else " (bare name)")
            else:
                if unlimited is None:
                    unlimited = build_edit_context(doc, offset, offset, path=rel, max_region_lines=MAX_FUNCTION_LINES,
                                                   budget_tokens=UNLIMITED, lookup=workspace)
                budget_cut = covered(unlimited.snippets, region, d_rel, line0)
                if budget_cut:
                    category = "in index, cut by budget"
                elif d_rel != rel and any(s.name == word for s in file_symbols):
                    category = "in index, not picked: a same-file definition of that name came first"
                else:
                    category = "in index, not picked: among too many definers"
            misses[category] += 1
            shown = examples.setdefault(category, [])
            if len(shown) < 12:
                shown.append(f"{rel}:{symbol.name} -> {word} ({kind}) {d_rel}:{line0 + 1}")
        rows.append({
            "path": rel, "function": symbol.name, "tokens": tokens, "o200k": exact,
            "floor": floor, "snippet_tokens": dict(snippet_tokens),
            "whole_file": whole[0], "whole_file_o200k": whole[1],
            "with_definers": sum(c[0] for c in plus),
            "with_definers_o200k": sum(c[1] for c in plus) if _O200K else None,
            "oracle": len(oracle), "recalled": hit,
        })
    workspace.close()
    if len(oracle_cache) != cached_before:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(oracle_cache))
    return {
        "package": name, "functions": total_functions, "sampled": len(rows), "index_s": index_s,
        "jedi_s": jedi_s, "seconds": time.perf_counter() - started,
        "build_p50_ms": pct(build_times, 50) * 1000 if build_times else None,
        "rows": rows, "misses": dict(misses), "miss_types": dict(miss_types), "set_aside": dict(set_aside),
        "miss_examples": examples,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def p(key: str, q: float) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return pct(values, q) if values else None

    oracle = sum(r["oracle"] for r in rows)
    out = {
        "regions": len(rows),
        "oracle": oracle,
        "recalled": sum(r["recalled"] for r in rows),
        "recall": sum(r["recalled"] for r in rows) / oracle if oracle else None,
        "share_median": statistics.median(r["tokens"] / r["whole_file"] for r in rows),
        "floor_share_median": statistics.median(r["floor"] / r["whole_file"] for r in rows),
        "snippet_tokens_mean": {
            kind: sum(r["snippet_tokens"].get(kind, 0) for r in rows) / len(rows)
            for kind in sorted({k for r in rows for k in r["snippet_tokens"]})
        },
    }
    for key in ("tokens", "whole_file", "with_definers", "o200k", "whole_file_o200k", "with_definers_o200k"):
        out[f"{key}_p50"], out[f"{key}_p95"] = p(key, 50), p(key, 95)
    if _O200K:
        out["share_median_o200k"] = statistics.median(r["o200k"] / r["whole_file_o200k"] for r in rows)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-functions", type=int, default=300, help="sample per package")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    started = time.perf_counter()
    packages = []
    with tempfile.TemporaryDirectory(prefix="sparkls-context-bench-") as tmp:
        for name, root in corpus_roots().items():
            packages.append(measure_package(name, root, args.max_functions, args.seed, Path(tmp)))
            print(f"  {name}: {packages[-1]['seconds']:.1f} s (jedi {packages[-1]['jedi_s']:.1f} s)", file=sys.stderr)
    elapsed = time.perf_counter() - started

    everything = [r for pkg in packages for r in pkg["rows"]]
    total = summary(everything)
    for pkg in packages:
        pkg["summary"] = summary(pkg["rows"])

    print(f"fast-tier context vs baselines; tokens per region p50 / p95 (estimate_tokens"
          f"{'; o200k below' if _O200K else ''}); budget {BUDGET}, cursor on each function's first body line")
    header = f"  {'package':<10}{'funcs':>7}{'sampled':>8}{'sparkls':>14}{'whole file':>14}{'+definers':>16}{'share':>7}{'recall':>15}"
    print(header)
    for label, s, pkg in [*((p["package"], p["summary"], p) for p in packages), ("all", total, None)]:
        funcs = pkg["functions"] if pkg else sum(p["functions"] for p in packages)
        recall = f"{s['recall']:.1%} ({s['recalled']}/{s['oracle']})" if s["recall"] is not None else "-"
        print(f"  {label:<10}{funcs:>7}{s['regions']:>8}{s['tokens_p50']:>7} /{s['tokens_p95']:>5}"
              f"{s['whole_file_p50']:>7} /{s['whole_file_p95']:>6}{s['with_definers_p50']:>8} /{s['with_definers_p95']:>7}"
              f"{s['share_median']:>7.1%}{recall:>20}")
    if _O200K:
        print("  o200k (exact):")
        for label, s in [*((p["package"], p["summary"]) for p in packages), ("all", total)]:
            print(f"  {label:<25}{s['o200k_p50']:>7} /{s['o200k_p95']:>5}{s['whole_file_o200k_p50']:>7} /"
                  f"{s['whole_file_o200k_p95']:>6}{s['with_definers_o200k_p50']:>8} /{s['with_definers_o200k_p95']:>7}"
                  f"{s['share_median_o200k']:>7.1%}")
    print("  share = median over regions of sparkls prompt tokens / whole-file tokens")
    overall = summary([r for pkg in packages for r in pkg["rows"]])
    print(f"  floor: instructions + region alone, median share {overall['floor_share_median']:.1%}; "
          "mean tokens per prompt by snippet kind: "
          + ", ".join(f"{k} {v:.0f}" for k, v in overall["snippet_tokens_mean"].items()))
    misses: Counter[str] = Counter()
    types: Counter[str] = Counter()
    aside: Counter[str] = Counter()
    for pkg in packages:
        misses.update(pkg["misses"])
        types.update(pkg["miss_types"])
        aside.update(pkg["set_aside"])
    print(f"misses ({sum(misses.values())}): " + ", ".join(f"{k} {v}" for k, v in misses.most_common()))
    print("  by jedi type: " + ", ".join(f"{k} {v}" for k, v in types.most_common()))
    print("  set aside, not in the oracle (goto results): " + ", ".join(f"{k} {v}" for k, v in aside.most_common()))
    for category in misses:
        print(f"  {category}, e.g.:")
        for pkg in packages:
            for example in pkg["miss_examples"].get(category, [])[:8]:
                print(f"    {pkg['package']}: {example}")
    build = [p["build_p50_ms"] for p in packages if p["build_p50_ms"] is not None]
    print("context build + render p50 per package: " + ", ".join(f"{b:.2f}" for b in build) + " ms")
    print(f"time: {elapsed:.0f} s in all; index builds {sum(p['index_s'] for p in packages):.1f} s; "
          f"jedi {sum(p['jedi_s'] for p in packages):.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "packages": packages, "seconds": elapsed}, indent=2),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
