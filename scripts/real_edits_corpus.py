"""Regenerate the real-edit corpus, tests/fixtures/real_edits/corpus.b64, from git histories.

    python scripts/real_edits_corpus.py --clone pallets/click=PATH ... [--check]

Each PATH is a clone (or bare mirror) of https://github.com/<owner/name>; history is
read from the pinned commit below with `git log` and `git show`, so the clones may be
at any later commit. `--check` rebuilds the corpus and says whether the stored one
holds the same edits (the selection is deterministic: no clock, no randomness).

What an edit is (tests/real_edits.py reads them):

- a first-parent, non-merge commit of the project that changes exactly one file, a
  Python, TypeScript, JavaScript or Go source (not vendored, generated, minified or a
  declaration file), in at most `MAX_HUNKS` runs of changed lines and at most
  `MAX_CHANGED` changed lines (removed plus added, compared line by line);
- the instruction is the commit's subject; the selection is the changed lines of the
  old file (from the first to the last; a pure insertion is a cursor where the new
  lines go), as a user would select them;
- the region is what sparkls's own region finder (`context/region.find_region`, the
  default `context.max_region_lines`) makes of that selection in the old file; an
  edit that changes anything outside its region is left out (the fast tier could not
  make it), and so is a duplicate (same file, same region, same result), and one that
  adds whitespace every reply loses by design (trailing spaces, blank lines at the
  region's end: edits/reshape.py);
- the file is stored as an excerpt: the region and `MARGIN` lines each side, widened
  to whole top-level statements, so it parses as the file did; kept only when the
  region finder makes the same region of the selection in the excerpt;
- then, per project, up to `PER_STRATUM` edits of each region-size stratum
  (`STRATA`), newest first.

The file is xz-compressed JSON (about a seventh of its size), so that no tool reads the
projects' code as the repository's own.
"""

from __future__ import annotations

import argparse
import difflib
import json
import lzma
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from tree_sitter import Node

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from sparkls.context.region import Region, find_region  # noqa: E402
from sparkls.documents.document import Document  # noqa: E402
from sparkls.errors import EditError  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "real_edits" / "corpus.json.xz"
PROJECTS = {  # owner/name -> the pinned commit its history is read from
    "pallets/click": "2c8cd3ac958a7eb316d67f2d316c27086c4c0369",
    "encode/httpx": "ae1b9f66238f75ced3ced5e4485408435de10768",
    "colinhacks/zod": "e516c3baf22615e20934116abebfed6c000222c2",
    "sindresorhus/ky": "3419113b48e034fdcf8fa6bd3be3da7b3d0d758f",
    "expressjs/express": "a3714473feb3d2908add734d340e7755fd85e0a3",
    "spf13/cobra": "adbc8813901bba65827259daa8e22ff94ec1f30e",
    "gin-gonic/gin": "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9",
    "urfave/cli": "1305a08200f7c4d873e28bd2bbad1ff257c6cfc4",
}
LANGUAGES = {".py": "python", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
             ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
             ".go": "go"}  # fmt: skip
SKIPPED_PARTS = {"vendor", "node_modules", "dist", "build", "testdata", "fixtures", "__snapshots__"}
MAX_HUNKS, MAX_CHANGED = 6, 40
MAX_FILE_BYTES = 200_000
MAX_REGION_LINES = 300  # context.max_region_lines' default
MARGIN = 20  # excerpt lines each side of the region, before widening to whole statements
STRATA = ((1, 15), (16, 40), (41, 100), (101, MAX_REGION_LINES))  # region lines, inclusive
PER_STRATUM = 8


@dataclass(frozen=True)
class Change:
    """The line-level change from `old` to `new`: difflib's non-equal opcodes."""

    hunks: list[tuple[str, int, int, int, int]]

    @property
    def changed_lines(self) -> int:
        return sum((i2 - i1) + (j2 - j1) for _, i1, i2, j1, j2 in self.hunks)


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True,
                          encoding="utf-8", errors="surrogateescape").stdout


def show(repo: str, commit: str, path: str) -> str | None:
    """The file at `commit`, or None when it is not there (added, deleted) or not UTF-8
    text of a sane size."""
    shown = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True)
    if shown.returncode:
        return None
    data = shown.stdout
    if len(data) > MAX_FILE_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def candidates(repo: str, tip: str) -> list[tuple[str, str, str]]:
    """(commit, subject, path) of the first-parent commits before `tip` that change one
    source file by at most MAX_CHANGED lines (git's count), newest first."""
    out = git(repo, "log", "--first-parent", "--no-merges", "--no-renames", "--numstat",
              "--format=%x00%H%x09%s", tip)
    found = []
    for entry in out.split("\0")[1:]:
        head, _, stats = entry.partition("\n")
        commit, _, subject = head.partition("\t")
        files = [line.split("\t") for line in stats.strip().splitlines() if line.strip()]
        if len(files) != 1 or files[0][0] == "-":
            continue
        added, removed, path = files[0]
        if not 0 < int(added) + int(removed) <= MAX_CHANGED or not _wanted(path):
            continue
        found.append((commit, subject.strip(), path))
    return found


def _wanted(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name
    if p.suffix not in LANGUAGES or name.endswith((".d.ts", ".min.js")) or "generated" in name:
        return False
    return not SKIPPED_PARTS & set(p.parts[:-1])


def line_change(old: str, new: str) -> Change:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return Change([op for op in ops if op[0] != "equal"])


def selection(doc: Document, change: Change) -> tuple[int, int]:
    """The old file's changed lines, first to last, as a user selects them (ending at
    the start of the line after the last); a pure insertion: the cursor where it goes."""
    lines = doc.lines
    count = lines.line_count

    def at(line: int) -> int:
        return lines.start(line) if line < count else len(doc.text)

    starts, ends = [], []
    for _, i1, i2, _, _ in change.hunks:
        starts.append(at(i1))
        ends.append(at(i2) if i2 > i1 else at(i1))
    return min(starts), max(ends)


def region_of(doc: Document, start: int, end: int) -> Region | None:
    try:
        return find_region(doc, start, end, max_lines=MAX_REGION_LINES)
    except EditError:
        return None


def new_region(old: str, new: str, region: Region) -> str | None:
    """The region's text in `new`, when `new` differs from `old` only inside it."""
    before, after = old[: region.start], old[region.end :]
    if not new.startswith(before) or not new.endswith(after) or len(new) < len(before) + len(after):
        return None
    return new[len(before) : len(new) - len(after)]


def _adds_dropped_whitespace(old: str, new: str) -> bool:
    """Whether the edit adds what sparkls drops from every reply by design (edits/reply.py,
    edits/reshape.py): trailing spaces on a line the old region did not have so, or
    blank lines at the end of a region that did not end with one."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    had = set(old_lines)
    if any(line != line.rstrip(" \t") and line not in had for line in new_lines):
        return True
    return bool(new_lines) and not new_lines[-1].strip() and not (old_lines and not old_lines[-1].strip())


def _rows(node: Node) -> range:
    return range(node.start_point.row, node.end_point.row + 1)


def abridged_rows(doc: Document, region: Region) -> list[int]:
    """The rows of the old file the excerpt keeps: MARGIN lines each side of the region,
    widened to whole statements, and every container around it, less the statements,
    members and comments of those containers that lie wholly outside that window (a
    class keeps its header and its closing brace; the module its imports)."""
    every = range(doc.lines.line_count)
    tree = doc.tree
    if tree is None:
        return list(every)
    lo, hi = max(0, region.start_line - MARGIN), min(len(every) - 1, region.end_line + MARGIN)
    first = doc.text[region.start : region.end]
    column = len(first) - len(first.lstrip(" \t"))
    point = (region.start_line, column)
    node: Node | None = tree.root_node.descendant_for_point_range(point, point)
    chain: list[Node] = []
    while node is not None:
        chain.append(node)
        node = node.parent
    dropped: set[int] = set()
    kept: set[int] = set(range(lo, hi + 1))
    for container in chain:
        ends = {container.start_point.row, container.end_point.row}
        for child in container.children:
            if child in chain:
                continue
            rows = _rows(child)
            if rows.start <= hi and rows.stop > lo:
                kept.update(rows)  # a statement the window cuts: kept whole
            elif child.is_named and not ends & {rows.start, rows.stop - 1} and not _heading(child, container):
                dropped.update(rows)
    return sorted(set(every) - (dropped - kept))


def _heading(node: Node, container: Node) -> bool:
    """Whether a module-level statement is one the module reads first: its imports, its package."""
    return container.parent is None and ("import" in node.type or node.type == "package_clause")


def _broken(doc: Document) -> bool:
    return doc.tree is None or doc.tree.root_node.has_error


def _line(doc: Document, row: int) -> str:
    lines = doc.lines
    return doc.text[lines.start(row) : lines.start(row + 1) if row + 1 < lines.line_count else len(doc.text)]


def edit_of(repo: str, project: str, commit: str, subject: str, path: str) -> tuple[dict[str, Any] | None, str]:
    """The corpus entry for one commit, or None and why it was left out."""
    old, new = show(repo, commit + "^", path), show(repo, commit, path)
    if old is None or new is None:
        return None, "not text"
    change = line_change(old, new)
    if not change.hunks or len(change.hunks) > MAX_HUNKS or change.changed_lines > MAX_CHANGED:
        return None, "too many changes"
    language_id = LANGUAGES[PurePosixPath(path).suffix]
    doc = Document(f"file:///{project}/{path}", old, 1, language_id, "utf-16")
    start, end = selection(doc, change)
    region = region_of(doc, start, end)
    if region is None:
        return None, "no region"
    region_new = new_region(old, new, region)
    if region_new is None:
        return None, "changes outside the region"
    if _adds_dropped_whitespace(old[region.start : region.end], region_new):
        return None, "whitespace the reply reader drops"
    rows = abridged_rows(doc, region)
    text = "".join(_line(doc, row) for row in rows)
    shift = region.start - len("".join(_line(doc, row) for row in rows if row < region.start_line))
    small = Document(doc.uri, text, 1, language_id, "utf-16")
    if _broken(small) and not _broken(doc):
        return None, "excerpt does not parse"
    again = region_of(small, start - shift, end - shift)
    if again is None or (again.start, again.end) != (region.start - shift, region.end - shift):
        return None, "excerpt changes the region"
    return {
        "project": project, "commit": commit, "path": path, "language_id": language_id, "subject": subject,
        "region_line": region.start_line, "text": text,
        "selection": [start - shift, end - shift], "region": [region.start - shift, region.end - shift], "new_region": region_new,
        "hunks": len(change.hunks), "changed_lines": change.changed_lines,
    }, "kept"


def stratum(edit: dict[str, Any]) -> int:
    start, end = edit["region"]
    lines = edit["text"][start:end].count("\n") + (not edit["text"][start:end].endswith("\n"))
    return next(i for i, (lo, hi) in enumerate(STRATA) if lo <= lines <= hi)


def build(clones: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    edits: list[dict[str, Any]] = []
    stats: dict[str, dict[str, int]] = {}
    for project, tip in PROJECTS.items():
        repo = clones[project]
        counts: dict[str, int] = {}
        taken = [0] * len(STRATA)
        seen: set[tuple[str, str, str]] = set()
        for commit, subject, path in candidates(repo, tip):
            if all(n >= PER_STRATUM for n in taken):
                break
            edit, why = edit_of(repo, project, commit, subject, path)
            if edit is not None:
                key = (path, edit["text"][slice(*edit["region"])], edit["new_region"])
                s = stratum(edit)
                if key in seen:
                    edit, why = None, "duplicate"
                elif taken[s] >= PER_STRATUM:
                    edit, why = None, "stratum full"
                else:
                    seen.add(key)
                    taken[s] += 1
                    edits.append(edit)
            counts[why] = counts.get(why, 0) + 1
        stats[project] = counts
        print(f"{project}: {counts} strata {taken}", file=sys.stderr)
    return edits, stats


def encode(edits: list[dict[str, Any]]) -> bytes:
    data = {"projects": PROJECTS, "strata": STRATA, "edits": edits}
    return lzma.compress(json.dumps(data, sort_keys=True, indent=0).encode(), preset=9 | lzma.PRESET_EXTREME)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clone", action="append", default=[], metavar="OWNER/NAME=PATH")
    parser.add_argument("--check", action="store_true", help="say whether the stored corpus is what a rebuild makes")
    args = parser.parse_args()
    clones = dict(item.split("=", 1) for item in args.clone)
    missing = [p for p in PROJECTS if p not in clones]
    if missing:
        parser.error("clones needed: " + ", ".join(f"{p} (https://github.com/{p})" for p in missing))
    edits, _ = build(clones)
    packed = encode(edits)
    if args.check:
        same = OUT.exists() and OUT.read_bytes() == packed
        print("the stored corpus is up to date" if same else "the stored corpus differs from a rebuild")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(packed)
    print(f"{len(edits)} edits from {len(PROJECTS)} projects -> {OUT.relative_to(ROOT)} ({len(packed):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
