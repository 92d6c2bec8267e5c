"""Definitions of the names a region uses, as snippets: whole when small, else signatures.

Same file first (the document's own symbols); other files come from the workspace
symbol index when one is given. A definition that holds the region, or that the
region holds, is not a snippet (the region already shows it). Pure: reads a document
and an optional index, returns candidates in priority order for `builder.pack`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sparkls.context.secrets import redact
from sparkls.context.snippet import Snippet
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.context.tokens import estimate_tokens
from sparkls.documents.store import Document

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_WHOLE_TOKENS = 400  # a longer definition is sent as its signature (and docstring)

# name -> [(workspace-relative path, symbol, the file's lines)] from other files
Lookup = Callable[[str], list[tuple[str, Symbol, list[str]]]]


def file_symbols(doc: Document) -> list[Symbol]:
    """The document's symbols, extracted once per version of its text."""
    if "symbols" not in doc.derived:
        tree = doc.tree
        doc.derived["symbols"] = (
            extract_symbols(doc.language_id, tree, doc.text.encode("utf-8")) if tree is not None else []
        )
    return doc.derived["symbols"]


def names_used(text: str) -> list[str]:
    """Identifier-like words in order of first use."""
    return list(dict.fromkeys(WORD.findall(text)))


def render(path: str, symbol: Symbol, line: Callable[[int], str]) -> list[Snippet]:
    """Ways to show a definition, best first: whole (unless long), then its signature
    and docstring. The packer takes the first that fits the budget. `line(n)` gives
    line n of the file (0-based)."""

    def span(first: int, last: int) -> str:
        return "\n".join(line(n) for n in range(first, last + 1))

    head_end = max(symbol.signature_end_line, symbol.doc_end_line)
    head = span(symbol.start_line, head_end)
    options = []
    if head_end < symbol.end_line:
        if symbol.end_line - symbol.start_line < MAX_WHOLE_TOKENS // 2:  # else surely too long
            whole = span(symbol.start_line, symbol.end_line)
            if estimate_tokens(whole) <= MAX_WHOLE_TOKENS:
                options.append(Snippet(path, symbol.start_line, symbol.end_line, "definition", redact(whole)[0]))
        indent = re.match(r"\s*", line(min(head_end + 1, symbol.end_line))).group()
        head += f"\n{indent or '    '}..."
    options.append(Snippet(path, symbol.start_line, head_end, "signature", redact(head)[0]))
    return options


def referenced_definitions(
    doc: Document,
    path: str,
    region_start_line: int,
    region_end_line: int,
    region_text: str,
    lookup: Lookup | None = None,
) -> list[list[Snippet]]:
    """For each definition the region uses (this file's, then others'), the ways to
    show it, best first."""
    names = names_used(region_text)
    by_name: dict[str, list[Symbol]] = {}
    for symbol in file_symbols(doc):
        by_name.setdefault(symbol.name, []).append(symbol)
    same_file: list[list[Snippet]] = []
    elsewhere: list[list[Snippet]] = []
    for name in names:
        local = [
            s
            for s in by_name.get(name, [])
            if s.end_line < region_start_line or s.start_line > region_end_line  # neither holds the other
        ]
        if local:
            same_file.extend(render(path, s, doc.lines.line_text) for s in local)
        elif lookup is not None:
            elsewhere.extend(render(p, s, file_lines.__getitem__) for p, s, file_lines in lookup(name) if p != path)
    return same_file + elsewhere
