"""What the fast tier sees for one edit: the region, the imports, the enclosing headers.

`build_edit_context` reads a document snapshot and returns an `EditContext`, a plain
value that `prompt.render_edit_prompt` turns into model input. Pure; no LSP, no I/O.

Language-neutral: the imports are a language's `imports.scm` captures that no
definition of its `scopes.scm` holds; the headers are the first lines of its
`headers.scm` containers (classes, impls, interfaces) around the region.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from sparkls.context.definitions import Lookup, referenced_definitions
from sparkls.context.snippet import Snippet
from sparkls.context.tokens import estimate_tokens
from sparkls.context.queries import captures
from sparkls.context.ranking import import_words
from sparkls.context.region import DEFINITION, Region, find_region, lines_weight, refuse_long_lines
from sparkls.documents.languages import grammar_record
from sparkls.documents.positions import LineChange, shift_lines
from sparkls.documents.store import Document


@dataclass(frozen=True, slots=True)
class DiagnosticInfo:
    """A diagnostic in play: 0-based line, message, and who reported it."""

    line: int
    message: str
    source: str | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True)
class EditContext:
    path: str
    language_id: str
    region: Region
    region_text: str
    cursor: int | None  # offset in region_text, for edits at a bare cursor
    snippets: list[Snippet] = field(default_factory=list)
    diagnostics: list[DiagnosticInfo] = field(default_factory=list)
    # Lines shown in the excerpt right before and after the editable region, not to
    # be rewritten (an inline completion edits only the cursor's line; its function
    # around it is context).
    before: str = ""
    after: str = ""
    uri: str | None = None  # the document's, for the guard (None: a text with no editor buffer)

    @property
    def imports(self) -> list[str]:
        return [s.text for s in self.snippets if s.kind == "import"]

    @property
    def headers(self) -> list[str]:
        """Enclosing container lines, outermost first."""
        return [s.text for s in self.snippets if s.kind == "container"]


def file_imports(doc: Document) -> list[tuple[int, int, str]]:
    """Import statements at module level (also under `if`/`try`), in file order, as
    (first row, last row, text); once per version (a big document's carried forward)."""
    return doc.fact("imports", _extract_imports, _carry_imports)


def _carry_imports(imports: list[tuple[int, int, str]], changes: list[LineChange]) -> list[tuple[int, int, str]]:
    return [(*shift_lines(first, last, changes), text) for first, last, text in imports]


def _extract_imports(doc: Document) -> list[tuple[int, int, str]]:
    tree = doc.tree
    record = grammar_record(doc.language_id)
    if tree is None or record is None:
        return []
    root = tree.root_node
    # Module-level imports start near the root: no need to walk every function body.
    found = captures(doc.language_id, "imports", root, max_depth=record.import_depth)
    nodes = sorted(found.get("import", []), key=lambda n: n.start_byte)
    if any(n.parent != root for n in nodes):
        # Drop those that a function or class holds; such a holder is shallower still.
        holders = captures(doc.language_id, "scopes", root, max_depth=record.import_depth - 1)
        definitions = set(holders.get(DEFINITION, ()))
        nodes = [n for n in nodes if not any(a in definitions for a in _ancestors(n))]
    return [(n.start_point.row, n.end_point.row, doc.node_text(n)) for n in nodes]


def _in_file_order(snippets: list[Snippet]) -> list[Snippet]:
    """Sorted by path and line; attribute statements on adjacent lines become one
    snippet, and one whose lines another already shows (an enum's member inside the
    enum sent whole) is dropped: every snippet shows its lines as they are."""
    merged: list[Snippet] = []
    reach: dict[str, int] = {}  # per file, the last line a kept snippet shows (all start before)
    for snippet in sorted(snippets, key=lambda s: (s.path, s.start_line, -s.end_line)):
        if snippet.end_line <= reach.get(snippet.path, -1):
            continue
        reach[snippet.path] = snippet.end_line
        last = merged[-1] if merged else None
        if (
            last is not None
            and snippet.kind == last.kind == "attribute"
            and snippet.path == last.path
            and snippet.start_line == last.end_line + 1
        ):
            merged[-1] = Snippet(last.path, last.start_line, snippet.end_line, "attribute", f"{last.text}\n{snippet.text}")
        else:
            merged.append(snippet)
    return merged


def _ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _header_row(node: Node) -> int:
    """The line that names a container: decorators inside the node (JS/TS) come first."""
    name = node.child_by_field_name("name")
    return name.start_point.row if name is not None else node.start_point.row


def enclosing_headers(doc: Document, region: Region) -> list[tuple[int, str]]:
    """(row, first line) of the containers (classes, impls, ...) around the region,
    outermost first."""
    tree = doc.tree_around(region.start, region.end)
    if tree is None:
        return []
    byte = doc.lines.byte_point(region.start)[0]
    found = captures(doc.language_id, "headers", tree.root_node, (byte, byte + 1))
    rows = {_header_row(n) for n in found.get("scope.container", []) if n.start_byte <= byte < n.end_byte}
    return [(row, doc.lines.line_text(row)) for row in sorted(rows) if row < region.start_line]


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words an import statement has that name no binding.
_IMPORT_WORDS = frozenset({"import", "from", "as", "use", "crate", "self", "super", "require", "const", "let", "var", "type", "pub", "extern"})


def imports_used(imports: list[tuple[int, int, str]], region_text: str) -> list[tuple[int, int, str]]:
    """The imports that bind a name the region mentions (a word-level test, any language)."""
    mentioned = set(_WORD.findall(region_text))
    return [imp for imp in imports if (set(_WORD.findall(imp[2])) - _IMPORT_WORDS) & mentioned]


# What the ways of showing definitions better than the cheapest may add, beyond those:
# the region's own size, at least UPGRADE_FLOOR tokens (issue 39: a small region in a
# big file is sent with what it uses, not with every body and doc that would fit).
UPGRADE_FLOOR = 50


def upgrade_allowance(region_text: str) -> int:
    """Tokens the better ways of showing definitions may add for a region: its size, at
    least UPGRADE_FLOOR."""
    return max(UPGRADE_FLOOR, estimate_tokens(region_text) // 4)


def pack(candidates: list[list[Snippet]], budget: int, allowance: int | None = None) -> list[Snippet]:
    """Keep as many candidates as fit in `budget` tokens, then show the most useful
    ones best: each candidate lists its ways to be shown, best first (a definition
    whole, then its signature with its doc, then alone). First every candidate, in
    priority order, gets its cheapest way if it still fits; then, in the same order,
    each is upgraded to the best way the rest of the budget allows, the upgrades adding
    at most `allowance` tokens (None: the budget alone bounds them)."""
    costs = [[estimate_tokens(s.text) for s in options] for options in candidates]
    chosen: dict[int, int] = {}  # candidate -> index of the way it is shown
    used = 0
    for i, options in enumerate(candidates):
        if options and used + costs[i][-1] <= budget:
            chosen[i] = len(options) - 1
            used += costs[i][-1]
    ceiling = budget if allowance is None else min(budget, used + allowance)
    for i in chosen:
        cheapest = costs[i][chosen[i]]
        for way, cost in enumerate(costs[i][: chosen[i]]):
            if used - cheapest + cost <= ceiling:
                chosen[i] = way
                used += cost - cheapest
                break
    return [candidates[i][way] for i, way in chosen.items()]


def build_edit_context(
    doc: Document,
    start: int,
    end: int,
    *,
    path: str,
    max_region_lines: int,
    budget_tokens: int = 2000,
    diagnostics: list[DiagnosticInfo] | None = None,
    lookup: Lookup | None = None,
) -> EditContext:
    """Context for an edit of the code-point range `start`..`end` of `doc`.

    Around the region, in priority order: the headers of the enclosing containers,
    the imports the region uses, the definitions of the names it uses (this file's,
    then other files' through `lookup`), packed into `budget_tokens`, what is shown
    beyond each one's cheapest way bounded by the region's size (`upgrade_allowance`);
    the region itself is never cut.
    """
    refuse_long_lines(*lines_weight(doc, start, end), path)  # before anything reads the lines
    region = find_region(doc, start, end, max_lines=max_region_lines)
    refuse_long_lines(region.start_line, region.end_line, region.end - region.start, path)
    region_text = doc.text[region.start : region.end]
    in_region = [
        d for d in diagnostics or [] if region.start_line <= d.line <= region.end_line
    ] or list(diagnostics or [])
    return EditContext(
        path=path,
        uri=doc.uri,
        language_id=doc.language_id,
        region=region,
        region_text=region_text,
        cursor=start - region.start if start == end else None,
        snippets=_in_file_order(
            pack(
                [
                    *([Snippet(path, row, row, "container", text)] for row, text in enclosing_headers(doc, region)),
                    *(
                        [Snippet(path, first, last, "import", text)]
                        for first, last, text in imports_used(file_imports(doc), region_text)
                    ),
                    *referenced_definitions(
                        doc, path, region.start_line, region.end_line, region_text, lookup,
                        import_words(text for _, _, text in file_imports(doc)) if lookup is not None else frozenset(),
                        [text for _, _, text in file_imports(doc)],
                    ),
                ],
                budget_tokens,
                upgrade_allowance(region_text),
            )
        ),
        diagnostics=in_region,
    )
