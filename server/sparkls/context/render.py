"""How a definition is shown to the model: whole when small, else its signature with
the first paragraph of its doc (a doc comment above it, cut the same way), else its
signature alone; an attribute as its assigning statement, or that statement's first
line. A line longer than MAX_LINE_CHARS (minified code) is the piece of it around
the definition's name. Pure: a symbol and a way to read its file's lines in, snippets
out (best first, for `builder.pack`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from sparkls.context.snippet import Snippet
from sparkls.context.symbols import Symbol
from sparkls.context.tokens import estimate_tokens

MAX_WHOLE_TOKENS = 80  # a longer definition is sent as its signature and doc summary
MAX_DOC_LINES = 4  # of a docstring, the first paragraph up to this many lines is sent
MIN_DOC_TOKENS = 8  # a doc this short stays with its signature in every way it is shown
ATTRIBUTE = "attribute"
VALUE_KINDS = frozenset({"variable", "constant"})  # a value: one a call may have made (`shown._maker`)
MAX_ATTRIBUTE_TOKENS = 60  # a longer assignment is sent as its first line
COMMENT_LINE = re.compile(r"\s*(?:#(?![\[!])|//|/\*|\*)")  # a comment's line (not Rust's `#[attr]`)
# A longer line (minified code: a bundle's whole module on one line) is shown as the piece
# of it around the definition's name, cut where it is cut with `…`.
MAX_LINE_CHARS = 240
CUT = "…"


def render(path: str, symbol: Symbol, line: Callable[[int], str]) -> list[Snippet]:
    """Ways to show a definition, best first: whole (unless long), then its signature
    and the first paragraph of its docstring, then its signature alone when the doc
    is more than a few words (`builder.pack` chooses). `line(n)`
    gives line n of the file (0-based). An attribute is its assigning statement (its
    first line when the statement is long)."""

    line = fitted_lines(symbol.name, line)

    def span(first: int, last: int) -> str:
        return "\n".join(line(n) for n in range(first, last + 1))

    if symbol.kind == ATTRIBUTE:
        text = span(symbol.start_line, symbol.end_line)
        if symbol.end_line > symbol.start_line and estimate_tokens(text) > MAX_ATTRIBUTE_TOKENS:
            first = next(
                (n for n in range(symbol.start_line, symbol.end_line) if not COMMENT_LINE.match(line(n))), symbol.end_line
            )  # the statement's first line, after the doc comment above it
            return [Snippet(path, first, first, ATTRIBUTE, line(first) + " ...")]
        return [Snippet(path, symbol.start_line, symbol.end_line, ATTRIBUTE, text)]

    head_end = _summary_end(symbol, line)
    start = code_start(symbol, line)
    doc_above = _doc_above(symbol, line)
    head = "\n".join(doc_above + [line(n) for n in range(start, head_end + 1)])
    bare = "\n".join(line(n) for n in range(start, symbol.signature_end_line + 1))
    options = []
    if head_end < symbol.end_line:
        if symbol.end_line - symbol.start_line < MAX_WHOLE_TOKENS // 2:  # else surely too long
            whole = span(symbol.start_line, symbol.end_line)
            if estimate_tokens(whole) <= MAX_WHOLE_TOKENS:
                options.append(Snippet(path, symbol.start_line, symbol.end_line, "definition", whole))
        indent = re.match(r"\s*", line(min(symbol.signature_end_line + 1, symbol.end_line))).group()
        head += f"\n{indent or '    '}..."
        bare += f"\n{indent or '    '}..."
    options.append(Snippet(path, symbol.start_line, head_end, "signature", head))
    if (doc_above or head_end > symbol.signature_end_line) and estimate_tokens(head) > estimate_tokens(bare) + MIN_DOC_TOKENS:
        # its doc left out: the cheapest way, when the budget for upgrades is spent (`builder.pack`)
        options.append(Snippet(path, start, symbol.signature_end_line, "signature", bare))
    return options


def fitted_lines(name: str, line: Callable[[int], str]) -> Callable[[int], str]:
    """`line`, each line longer than MAX_LINE_CHARS cut to that many characters: those
    around `name`'s first use on it (a quarter of them before it), else its start."""

    def fitted(n: int) -> str:
        text = line(n)
        if len(text) <= MAX_LINE_CHARS:
            return text
        found = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)
        start = max(0, min((found.start() if found else 0) - MAX_LINE_CHARS // 4, len(text) - MAX_LINE_CHARS))
        end = start + MAX_LINE_CHARS
        return (CUT if start else "") + text[start:end] + (CUT if end < len(text) else "")

    return fitted


def code_start(symbol: Symbol, line: Callable[[int], str]) -> int:
    """The first line after the comment lines above a definition (its doc comment)."""
    return next(
        (n for n in range(symbol.start_line, symbol.signature_end_line) if not COMMENT_LINE.match(line(n))),
        symbol.signature_end_line,
    )


def _doc_above(symbol: Symbol, line: Callable[[int], str]) -> list[str]:
    """The doc comment above a definition, as its signature shows it: the first
    paragraph, at most MAX_DOC_LINES lines of text (a JSDoc block's `@param` list and
    examples are left out, and the block closed)."""
    lines = [line(n) for n in range(symbol.start_line, code_start(symbol, line))]
    if len(lines) <= MAX_DOC_LINES + 2:
        return lines
    kept = [lines[0]]
    for text in lines[1 : MAX_DOC_LINES + 1]:
        words = text.strip().lstrip("/*#!").strip()
        if not words or words.startswith("@"):
            break
        kept.append(text)
    if lines[0].lstrip().startswith("/*") and "*/" not in kept[-1]:
        kept.append(lines[0][: len(lines[0]) - len(lines[0].lstrip())] + " */")
    return kept


def _summary_end(symbol: Symbol, line: Callable[[int], str]) -> int:
    """The last line of a definition's head: its signature, then its docstring's
    first paragraph (at most MAX_DOC_LINES lines)."""
    last = symbol.signature_end_line
    while last < symbol.doc_end_line and last - symbol.signature_end_line < MAX_DOC_LINES:
        if not line(last + 1).strip():
            break  # the end of the first paragraph
        last += 1
    return last
