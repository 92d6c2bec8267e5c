"""Benchmark: sparkls's next-edit candidate regions against real language tools.

On pinned real packages the project has not tuned on (`PACKAGES`), a scripted user
makes one change at a time to a pristine copy of a file, key by key: renames a local,
a parameter, a function, a method, a class (a Go struct), a field (deletes the name
at its declaration, then types `<name>Next` one key at a time), adds a parameter
to a function (types `, extra` before its `)`, Go `, extra int`), or adds a member to
an enum-like type (a new line `NEXT = 99`, `Next,`, `| "next"`, `<A>Next` in a Python
Enum, a TS enum or string union, a Go `iota` block: `oracles/members.py`); every kind
on two packages a language, reported per package and per language. Each keystroke is a
`TextChange` applied to a sparkls `Document` (`DocumentStore.change`, what `didChange`
does) and recorded by the server's own `NextEditService.record`; then the benchmark
calls `find_candidates` (nextedit/candidates.py) on that document and history, as the
server does before asking the model, but with no limit (a live question shows the
first 3 only: `shown` below is that top 3). The candidate regions are read from
candidates.py directly, not observed over LSP: the prompt (the only place the regions
cross the protocol) holds at most 3 of them.

The oracle (`next_edit_oracles_refs.py`: jedi, the TypeScript LanguageService, gopls)
gives the renamed symbol's references, or the function's call sites (references
followed by `(`), in the unchanged file; for an added member, the branching statements
(`if` chain, `switch`, `match`, by their first line) whose test names one of the
type's existing members. Locations on the edited line are left out
(the user is writing there; candidates never cover it). Per language and kind:

- recall: oracle locations in the same file inside some candidate region;
- precision: candidate regions holding at least one oracle location;
- other scope: for a local or parameter, candidate regions outside its function;
- other files: the same two figures for the sites in other files of the package that
  the server's follow-ups (`nextedit/followups.py`) would offer, found as it finds them
  (`oracles/other_files.py`: a real `SymbolIndex` of the package copy for `files_using`
  and the definitions that give a member its rivals; `outward_changes`, `link_of`,
  `find_sites`); a local's or parameter's site in another file counts as other scope.

Which places change is chosen by tree-sitter (`next_edit_oracles_sites.py`), shuffled
with a fixed seed, kept when the oracle knows at least one other location, at most
`--per-kind` per package and kind.

    python bench/next_edit_oracles.py [--per-kind 8] [--examples 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from recall_common import Package, package_roots
import recall_common
from next_edit_oracles_refs import references
from next_edit_oracles_sites import KINDS, Site, sites
from oracles.members import branch_of  # bench/oracles/members.py
from oracles.other_files import OtherSites, PackageIndex, other_file_sites  # bench/oracles/other_files.py

from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.nextedit.candidates import WINDOW_LINES, find_candidates
from sparkls.nextedit.service import NextEditService

# language -> name -> (pin, workspace folder); none of them in recall_common.PACKAGES or corpus.py.
# Two a language: commander is JavaScript, ajv's lib/*.ts real TypeScript; wsproto, ajv and
# logrus came in for "add member" (the first three have few enum-like types).
PACKAGES: dict[str, dict[str, tuple[str, str]]] = {
    "python": {"schedule": ("1.2.2", ""), "wsproto": ("1.2.0", "src")},
    "typescript": {"commander": ("12.1.0", ""), "ajv": ("8.17.1", "lib")},
    "go": {"cobra": ("golang-github-spf13-cobra-dev", "github.com/spf13/cobra"),
           "logrus": ("golang-github-sirupsen-logrus-dev", "github.com/sirupsen/logrus")},
}
FILES = {"python": (".py",), "typescript": (".js", ".ts"), "go": (".go",)}
SKIP = re.compile(r"(^|/)(setup\.py|typings/|node_modules/|.*_test\.go$|.*\.d\.ts$)")
LANGUAGE_OF = {".py": "python", ".js": "typescript", ".ts": "typescript", ".go": "go"}
TARGETS = {"rename": 0.95, "call sites": 0.90, "precision": 0.90}


def packages(language: str, pinned: dict[str, dict[str, tuple[str, str]]] = PACKAGES) -> list[Package]:
    saved = recall_common.PACKAGES
    recall_common.PACKAGES = {**saved, language: pinned[language]}  # its fetch and pin machinery, our list
    try:
        return package_roots(language)
    finally:
        recall_common.PACKAGES = saved


def files_of(package: Package) -> dict[str, str]:
    root = package.root
    found = {}
    glob = root.glob("*") if package.language == "go" else root.rglob("*")  # Go: the one package, no subpackages
    for path in sorted(glob):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and path.suffix in FILES[package.language] and not SKIP.search(rel):
            found[rel] = path.read_text(encoding="utf-8", errors="replace")
    return found


def keystrokes(site: Site) -> list[tuple[int, int, int, str]]:
    """(row, start col, end col, text) per key: the user's changes."""
    if site.insert is not None:
        row, col, typed = site.insert
        keys = []
        for ch in typed:
            keys.append((row, col, col, ch))
            row, col = (row + 1, 0) if ch == "\n" else (row, col + 1)
        return keys
    new = site.name + "Next"
    return [(site.row, site.col, site.col + len(site.name), "")] + [
        (site.row, site.col + i, site.col + i, ch) for i, ch in enumerate(new)]


def candidates_after(language: str, rel: str, text: str, site: Site) -> tuple[list[Any], Any, list[Any]]:
    store = DocumentStore()
    uri = f"file:///bench/{rel}"
    doc = store.open(uri, text, 1)
    service = NextEditService()
    for row, start, end, typed in keystrokes(site):
        before, version = doc.text, doc.version
        store.change(uri, [TextChange(typed, (Position(row, start), Position(row, end)))], version + 1)
        service.record(doc, before, version)
    edits = list(service.histories[uri].edits)
    return find_candidates(doc, edits, edits[-1].end, limit=10**6), doc, edits


def oracle_locations(site: Site, refs: list[tuple[str, int, int]], texts: dict[str, str],
                     trees: dict[str, Any] | None = None) -> list[tuple[str, int, int]]:
    out = []
    if site.kind == "add member":  # the branching statements testing a member, by their first line
        for rel, row, col in refs:
            first = branch_of(LANGUAGE_OF[Path(rel).suffix], trees[rel], row, col) if trees.get(rel) else None
            if first is not None:  # in the edited file, as a row of the edited text (the member's line added)
                shift = site.insert[2].count("\n") if rel == site.rel and first > site.insert[0] else 0
                out.append((rel, first + shift, 0))
        return sorted(set(out))
    for rel, row, col in refs:
        if rel == site.rel and row == site.row:
            continue  # the edited line
        if site.kind == "add parameter":
            line = texts[rel].split("\n")[row]
            if not re.match(r"\s*\(", line[col + len(site.name):]):
                continue  # a reference that is not a call
            if trees and _defines(trees.get(rel), row, col, len(site.name)):
                continue  # `render(opts) {`: an override's or another implementation's definition, no call
        out.append((rel, row, col))
    return sorted(set(out))


DEFINITIONS = {"function_definition", "function_declaration", "method_definition", "method_declaration",
               "method_signature", "abstract_method_signature", "function_signature"}


def _defines(tree, row: int, col: int, length: int) -> bool:
    """Whether the name at (row, col) is the name of a function's or method's definition."""
    if tree is None:
        return False
    node = tree.root_node.descendant_for_point_range((row, col), (row, col + length))
    return node is not None and node.parent is not None and node.parent.type in DEFINITIONS \
        and node.parent.child_by_field_name("name") == node


def measure(language: str, per_kind: int) -> tuple[list[Package], list[dict[str, Any]]]:
    rows = []
    pkgs = packages(language)
    for package in pkgs:
        texts = files_of(package)
        index = PackageIndex(package.root)
        store = DocumentStore()
        by_kind: dict[str, list[Site]] = defaultdict(list)
        trees = {}
        for rel, text in texts.items():
            doc = store.open(f"file:///bench/{rel}", text, 1)
            trees[rel] = doc.tree
            for site in sites(language, rel, doc):
                by_kind[site.kind].append(site)
        for kind in KINDS:
            pool = sorted(by_kind[kind], key=lambda s: (s.rel, s.row, s.col))
            random.Random(25).shuffle(pool)
            pool = pool[: per_kind * 5]
            queries = [[(s.rel, *m) for m in s.members] or [(s.rel, s.row, s.col)] for s in pool]
            flat = references(package, texts, [q for qs in queries for q in qs])
            answers, at = [], 0
            for qs in queries:  # a new member's oracle: the references of all its siblings
                answers.append(sorted({r for found in flat[at:at + len(qs)] for r in found}))
                at += len(qs)
            kept = 0
            for site, refs in zip(pool, answers):
                if kept >= per_kind:
                    break
                locations = oracle_locations(site, refs, texts, trees)
                if not locations:
                    continue
                kept += 1
                found, doc, edits = candidates_after(language, site.rel, texts[site.rel], site)
                elsewhere = other_file_sites(index, texts, site.rel, doc, edits)
                rows.append({**score(package, site, locations, found, doc.text, elsewhere.own),
                             **score_other_files(site, locations, elsewhere, texts)})
        index.close()
    return pkgs, rows


def score_other_files(site: Site, locations, elsewhere: OtherSites, texts: dict[str, str]) -> dict[str, Any]:
    """The other-file side: oracle locations in other files inside a site region, and
    site regions holding one (the sites found as `nextedit.followups` finds them)."""
    other = [(rel, row) for rel, row, _ in locations if rel != site.rel]
    inside = lambda rel, row: any(a <= row <= b for a, b, _ in elsewhere.sites.get(rel, ()))  # noqa: E731
    regions = [(rel, a, b, reason) for rel, rs in elsewhere.sites.items() for a, b, reason in rs]
    held = [r for r in regions if any(rel == r[0] and r[1] <= row <= r[2] for rel, row in other)]
    line = lambda rel, row: texts[rel].split("\n")[row].strip()[:80]  # noqa: E731
    return {
        "changes": [f"{c.name}->{c.new}" if c.new else f"call {c.name}" for c in elsewhere.changes]
                   + [f"{'member' if c.member else 'module'}{' rivals ' + ','.join(sorted(c.rivals)) if c.rivals else ''}" for c in elsewhere.changes],
        "other_hit": sum(inside(rel, row) for rel, row in other),
        "other_regions": len(regions), "other_held": len(held), "other_unscored": elsewhere.unscored,
        "other_missed": [(rel, row + 1, line(rel, row)) for rel, row in other if not inside(rel, row)],
        "other_extra": [(rel, a + 1, b + 1, reason, line(rel, a)) for rel, a, b, reason in regions if (rel, a, b, reason) not in held],
    }


def score(package: Package, site: Site, locations, found, text: str, own: list[tuple[int, int, str]]) -> dict[str, Any]:
    """The same-file side; `own`: the follow-ups action's sites in this file, beyond the window."""
    lines = text.split("\n")
    same = [row for rel, row, _ in locations if rel == site.rel]
    regions = [(c.first, c.last, c.reason) for c in found]
    inside = lambda row, rs: any(a <= row <= b for a, b, _ in rs)  # noqa: E731
    held = [r for r in regions if any(r[0] <= row <= r[1] for row in same)]
    return {
        "language": package.language, "package": package.name, "kind": site.kind, "file": site.rel,
        "line": site.row + 1, "name": site.name,
        "oracle_same": len(same), "hit": sum(inside(row, regions) for row in same),
        "hit_shown": sum(inside(row, regions[:3]) for row in same),
        "hit_with_action": sum(inside(row, regions + own) for row in same),
        "own_regions": len(own), "own_held": sum(1 for a, b, _ in own if any(a <= row <= b for row in same)),
        "regions": len(regions), "held": len(held),
        "other_scope": sum(1 for a, b, _ in regions if site.scope and not (site.scope[0] <= a and b <= site.scope[1])),
        "oracle_other_files": sum(1 for rel, _, _ in locations if rel != site.rel),
        "missed": [(row + 1, lines[row].strip()[:80]) for row in same if not inside(row, regions)],
        "extra": [(a + 1, b + 1, reason, lines[a].strip()[:60]) for a, b, reason in regions if (a, b, reason) not in held],
        "miss_causes": [miss_cause(site, row, lines) for row in same if not inside(row, regions)],
        "extra_causes": [extra_cause(reason, lines[a:b + 1]) for a, b, reason in regions if (a, b, reason) not in held],
    }


COMMENT = re.compile(r"""^\s*(#|//|/?\*|\"\"\"|''')""")


def miss_cause(site: Site, row: int, lines: list[str]) -> str:
    """Why an oracle location is in no candidate, as far as its line shows."""
    if abs(row - site.row) > WINDOW_LINES:
        return "beyond the window"
    if COMMENT.match(lines[row]):
        return "a comment (doc reference)"
    if site.kind == "add member" and "|" in site.insert[2]:
        return "a string-literal union: no class or enum, its members strings"
    if site.kind == "add member" and site.rel.endswith(".go"):
        return "a Go const block: no class or enum, its members named bare"
    if site.kind == "add parameter" and re.search(rf"\.\s*{re.escape(site.name)}\s*\(", lines[row]):
        return "a method call (.name()"
    if site.scope and not site.scope[0] <= row <= site.scope[1]:
        return "outside the binding's function"
    return "other"


def extra_cause(reason: str, region: list[str]) -> str:
    """Why a candidate region holds no oracle location, as far as its lines show."""
    if "a parameter of" in reason:
        return "another function with that parameter"
    if reason.startswith("branch on ") and reason.removeprefix("branch on ") not in region[0]:
        return "a member used in the branch's body, not in its test"
    if all(COMMENT.match(line) or not line.strip() for line in region):
        return "a comment or docstring line"
    return "other (a string, another symbol of that name)"


def table(rows: list[dict[str, Any]]) -> list[str]:
    out = [f"  {'kind':<14}{'n':>3}  {'same-file recall':>17}  {'shown(top3)':>11}  {'precision':>12}  "
           f"{'+ action: recall, precision':>27}  {'other scope':>11}  |  {'other files: recall':>21}  {'precision':>12}"]
    pct = lambda a, b: f"{a / b:6.0%} {a:>3}/{b:<3}" if b else "     -    "  # noqa: E731
    for kind in KINDS:
        ks = [r for r in rows if r["kind"] == kind]
        if not ks:
            out.append(f"  {kind:<14}{0:>3}  (no change of this kind found)")
            continue
        oracle, hit, shown, with_action = (sum(r[k] for r in ks) for k in ("oracle_same", "hit", "hit_shown", "hit_with_action"))
        regions, held = sum(r["regions"] for r in ks), sum(r["held"] for r in ks)
        own_regions, own_held = sum(r["own_regions"] for r in ks), sum(r["own_held"] for r in ks)
        action = f"{pct(with_action, oracle).split()[0]}, {pct(own_held, own_regions).split()[0]}"
        other, other_hit = sum(r["oracle_other_files"] for r in ks), sum(r["other_hit"] for r in ks)
        other_regions, other_held = sum(r["other_regions"] for r in ks), sum(r["other_held"] for r in ks)
        local = kind in ("local", "parameter")
        # A local's or parameter's site in another file is in another scope, whatever the oracle says.
        scope = str(sum(r["other_scope"] for r in ks) + (other_regions if local else 0)) if local else "-"
        out.append(f"  {kind:<14}{len(ks):>3}  {pct(hit, oracle):>17}  {pct(shown, oracle).split()[0]:>11}  "
                   f"{pct(held, regions):>12}  {action:>27}  {scope:>11}  |  {pct(other_hit, other):>21}  {pct(other_held, other_regions):>12}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=8, help="changes per package and kind (default 8)")
    parser.add_argument("--examples", type=int, default=3, help="misses and extra regions shown per kind")
    parser.add_argument("--language", action="append", choices=list(PACKAGES), help="only these languages")
    parser.add_argument("--json", help="also write every change's figures to this file")
    args = parser.parse_args()
    print("next-edit candidates (nextedit/candidates.py, called directly on the documents and edit history "
          "the keystrokes make; no limit) against real oracles")
    print(f"targets: recall >= {TARGETS['rename']:.0%} renames, >= {TARGETS['call sites']:.0%} call sites; "
          f"precision >= {TARGETS['precision']:.0%}; no candidate in another scope for a local or parameter")
    everything = []
    for language in args.language or list(PACKAGES):
        pkgs, rows = measure(language, args.per_kind)
        everything += rows
        from oracles.definitions import tool_version
        print(f"\n{language}: {', '.join(f'{p.name} {p.version}' for p in pkgs)}; oracle {tool_version(language)}")
        for package in pkgs:
            print(f" {package.name} {package.version}")
            print("\n".join(table([r for r in rows if r["package"] == package.name])))
        print(f" {language}, {' and '.join(p.name for p in pkgs)} together")
        print("\n".join(table(rows)))
        for kind, package in ((k, p.name) for p in pkgs for k in KINDS):  # the examples, per package
            ks = [r for r in rows if r["kind"] == kind and r["package"] == package]
            kind = f"{package} {kind}"
            missed = [(r, m) for r in ks for m in r["missed"]][: args.examples]
            extra = [(r, e) for r in ks for e in r["extra"]][: args.examples]
            for r, (line, text) in missed:
                print(f"    {kind}: missed {r['file']}:{line} ({r['name']} changed at line {r['line']}): {text}")
            for r, (a, b, reason, text) in extra:
                print(f"    {kind}: no oracle location in {r['file']}:{a}-{b} ({reason}; {r['name']} at line {r['line']}): {text}")
            for r, (rel, line, text) in [(r, m) for r in ks for m in r["other_missed"]][: args.examples]:
                print(f"    {kind}: other file missed {rel}:{line} ({r['name']} changed at {r['file']}:{r['line']}; "
                      f"{' '.join(r['changes']) or 'no outward change'}): {text}")
            for r, (rel, a, b, reason, text) in [(r, e) for r in ks for e in r["other_extra"]][: args.examples]:
                print(f"    {kind}: other file site with no oracle location {rel}:{a}-{b} ({reason}; "
                      f"{r['name']} at {r['file']}:{r['line']}): {text}")
    print("\nwhy: oracle locations in no candidate (missed), and candidate regions holding none (extra), by what their lines show")
    for language in args.language or list(PACKAGES):
        for package in [*PACKAGES[language], None]:
            ls = [r for r in everything if r["language"] == language and package in (None, r["package"])]
            label = f"{language} {package or 'together'}"
            print(f"  {label}: missed {dict(Counter(c for r in ls for c in r['miss_causes']).most_common())}")
            print(f"  {label}: extra  {dict(Counter(c for r in ls for c in r['extra_causes']).most_common())}")
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
