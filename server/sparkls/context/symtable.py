"""A document's symbols as the request path reads them: by name, and the classes
around a range — without touching all of them.

`SymbolTable` holds the symbols extracted at one version, with a name table built
once. For a big document the table of an earlier version is read at the current one
(`carried`): only the symbols a request asks for are moved through the line changes
since (`shift_lines`), so a request costs its names, not the file's definitions.
"""

from __future__ import annotations

from dataclasses import replace

from sparkls.context.symbols import Symbol
from sparkls.documents.positions import LineChange, shift_lines


class SymbolTable:
    """The symbols of one version of a document, read at a later one through `changes`."""

    __slots__ = ("_base", "_changes", "_by_name", "_classes", "_all")

    def __init__(self, symbols: list[Symbol], changes: list[LineChange] | None = None) -> None:
        self._base = symbols
        self._changes = changes or []
        self._by_name: dict[str, list[Symbol]] | None = None
        self._classes: list[Symbol] | None = None
        self._all: list[Symbol] | None = None if self._changes else symbols

    def carried(self, changes: list[LineChange]) -> SymbolTable:
        """This table read after `changes` more (no work until something is asked)."""
        if not changes:
            return self
        table = SymbolTable(self._base, self._changes + changes)
        table._by_name, table._classes = self._names(), self._class_list()
        return table

    def _names(self) -> dict[str, list[Symbol]]:
        if self._by_name is None:
            by_name: dict[str, list[Symbol]] = {}
            for symbol in self._base:
                by_name.setdefault(symbol.name, []).append(symbol)
            self._by_name = by_name
        return self._by_name

    def _class_list(self) -> list[Symbol]:
        if self._classes is None:
            self._classes = [s for s in self._base if s.kind == "class"]
        return self._classes

    def _moved(self, symbol: Symbol) -> Symbol:
        if not self._changes:
            return symbol
        start, end = shift_lines(symbol.start_line, symbol.end_line, self._changes)
        if (start, end) == (symbol.start_line, symbol.end_line):
            return symbol
        delta = start - symbol.start_line
        return replace(
            symbol, start_line=start, end_line=end,
            signature_end_line=min(end, max(start, symbol.signature_end_line + delta)),
            doc_end_line=min(end, max(start, symbol.doc_end_line + delta)),
        )

    def named(self, name: str) -> list[Symbol]:
        """The definitions named `name`, in file order."""
        return [self._moved(s) for s in self._names().get(name, ())]

    def classes_around(self, first: int, last: int) -> list[Symbol]:
        """The classes whose lines hold lines `first`..`last`."""
        moved = (self._moved(s) for s in self._class_list())
        return [s for s in moved if s.start_line <= first and last <= s.end_line]

    @property
    def all(self) -> list[Symbol]:
        """Every symbol, in file order (all of them moved: not for the typing path)."""
        if self._all is None:
            self._all = [self._moved(s) for s in self._base]
        return self._all
