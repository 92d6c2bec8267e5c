"""A file's definitions as the tests read them: parsed with the language's grammar."""

from __future__ import annotations

from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.documents.languages import new_parser


def symbols_in(language_id: str, text: str) -> list[Symbol]:
    """The symbols `extract_symbols` finds in `text`."""
    source = text.encode("utf-8")
    return extract_symbols(language_id, new_parser(language_id).parse(source), source)


def symbol_rows(language_id: str, text: str) -> list[tuple[str, str, int, str | None]]:
    """(kind, name, first line, container) of each symbol of `text`, in file order."""
    return [(s.kind, s.name, s.start_line, s.container) for s in symbols_in(language_id, text)]
