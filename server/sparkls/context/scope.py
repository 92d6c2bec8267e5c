"""Where one request reads definitions: the document's own symbols and the workspace index.

A `Scope` is made per request (`definitions.referenced_definitions`) and dropped with
it: it answers "the definitions `name` in this file or that one", "a member of that
class", "a file's lines", and keeps for its request what it read (`RequestReads`: the
index's rows per name, members, files' lines; every step of the request reads
through it). Module files' imports, which outlast a request, are kept
by the lookup that reads those files (`Lookup.module_imports`, a workspace index's
for its session) or, for a lookup without one, by the scope for its request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sparkls.context.lookup import Lookup
from sparkls.context.reach import Definer, definers
from sparkls.context.resolve import Imported, ModuleImports, origin
from sparkls.context.symbols import Symbol
from sparkls.context.symtable import SymbolTable
from sparkls.documents.store import Document

Line = Callable[[int], str]  # line n of a file (0-based)


class RequestReads:
    """A lookup's answers kept for one request: a name's definitions, a file's lines and
    a container's members are read from the index once, however many steps ask."""

    __slots__ = ("_lookup", "_definitions", "_lines", "_members")

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup
        self._definitions: dict[str, list[tuple[str, Symbol]]] = {}
        self._lines: dict[str, list[str] | None] = {}
        self._members: dict[tuple[str, str, str], list[Symbol]] = {}

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        if name not in self._definitions:
            self._definitions[name] = self._lookup.definitions(name)
        return self._definitions[name]

    def members(self, path: str, container: str, name: str) -> list[Symbol]:
        key = (path, container, name)
        if key not in self._members:
            self._members[key] = self._lookup.members(path, container, name)
        return self._members[key]

    def file_lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._lookup.file_lines(path)
        return self._lines[path]

    def files_using(self, words, *, limit: int = 200) -> list[str]:
        return self._lookup.files_using(words, limit=limit)


class Scope:
    """This file (`path`, its `table`) and the other files `lookup` reads, for one request."""

    __slots__ = ("doc", "path", "table", "lookup", "_top_rows", "_module_imports")

    def __init__(self, doc: Document, path: str, table: SymbolTable, lookup: Lookup | None) -> None:
        self.doc = doc
        self.path = path
        self.table = table
        self.lookup = RequestReads(lookup) if lookup is not None else None
        self._top_rows: dict[str, list[tuple[str, Symbol]]] = {}
        kept = getattr(lookup, "module_imports", None)
        self._module_imports = kept if isinstance(kept, ModuleImports) else ModuleImports()

    @property
    def line(self) -> Line:
        """Line n of this file."""
        return self.doc.lines.line_text

    def top_rows(self, name: str) -> list[tuple[str, Symbol]]:
        """The index's top-level definitions `name` (no member of a class), read once."""
        if name not in self._top_rows:
            rows = self.lookup.definitions(name) if self.lookup is not None else []
            self._top_rows[name] = [(p, s) for p, s in rows if s.container is None]
        return self._top_rows[name]

    def rows(self, name: str) -> list[tuple[str, Symbol]]:
        """Every definition `name` the index has (members too), in its order."""
        return self.lookup.definitions(name) if self.lookup is not None else []

    def reader(self, file_path: str, symbol: Symbol) -> Line | None:
        """A reader of another file's lines, when it reads as indexed (`symbol` within it)."""
        lines = self.lookup.file_lines(file_path) if self.lookup is not None else None
        return lines.__getitem__ if lines is not None and symbol.end_line < len(lines) else None

    def named_in(self, file_path: str, name: str) -> list[Symbol]:
        """The definitions `name` in the file `file_path` (this one's, else the index's)."""
        if file_path == self.path:
            return self.table.named(name)
        return [s for p, s in self.rows(name) if p == file_path]

    def members_of(self, file_path: str, container: str, name: str) -> list[Symbol]:
        """The definitions `name` inside `container` in the file `file_path`."""
        if file_path == self.path:
            return [s for s in self.table.named(name) if s.container == container]
        return self.lookup.members(file_path, container, name) if self.lookup is not None else []

    def definers(
        self, name: str, kinds: frozenset[str], *, limit: int | None = None, near: str | None = None
    ) -> Iterator[Definer]:
        """`reach.definers` from this file: its own definitions first, else the index's."""
        return definers(name, kinds, self.table, self.line, self.lookup, here=self.path, limit=limit, near=near)

    def origin(self, found: list[Imported], word: str) -> tuple[str, str] | None:
        """(its name there, the file) of the definition an imported `word` leads to
        (`resolve.origin`, through re-exports), or None."""

        def read(file_path: str) -> str | None:
            file_lines = self.lookup.file_lines(file_path) if self.lookup is not None else None
            return "\n".join(file_lines) if file_lines is not None else None

        return origin(found, word, self.path, self.doc.language_id, read,
                      lambda name: [p for p, _ in self.top_rows(name)], parsed=self._module_imports)
