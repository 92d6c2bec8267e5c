"""What a region uses, read once per request: the first step of `definitions.referenced_definitions`.

`region_use` reads the region's text (comments left out) and what this file says
about it: the names it mentions, the attributes it reaches and how (`self.x`, `obj.x`,
`Server{Port: 1}`, `const { load } = ...`, `super().x`), the classes it calls, the
classes around it, what its imported names stand for, and the words that name the
types it reaches, followed one step by what the code declares (`mentioned`, see
`follow.py`: what ranks other files' definers and makes a member named by key count). The result is a frozen `RegionUse`; nothing here picks or shows a definition.
Pure but for index reads (`reach.reached_types`, `reach.parameter_types`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sparkls.context.lookup import Lookup
from sparkls.context.reach import (
    ACCESS, LITERAL_ARGUMENT, WORD, declared_types, parameter_types, reached_types, receiver_types,
)
from sparkls.context.region import without_comments
from sparkls.context.resolve import DEFAULT, MODULE, STAR, Imported, imports, original
from sparkls.context.symbols import Symbol
from sparkls.context.symtable import SymbolTable
from sparkls.context.follow import callback_types, destructured, field_types, returned_types
from sparkls.context.words import ECMASCRIPT, attribute_accesses, names_used, private_names
from sparkls.documents.languages import grammar_record
from sparkls.documents.store import Document

# `Server{Port: 1}`, `{ retries: 3 }`, `Point(x=1)`: a member named by key in a literal
# or a constructor call of its type (not `a::b`, `x := 1`, `==`, `=>`, a `?:` or a
# dotted name).
KEYED = re.compile(r"(?<![\w.:?$])([A-Za-z_][A-Za-z0-9_]*)\s*(?::(?![:=])|=(?![=>]))")
# `Name(...)` / `new Name(...)`: a class the region calls (its inherited constructor counts).
CALLED = re.compile(r"\b([A-Z][A-Za-z0-9_]*)\s*\(")
SELF_CALL = re.compile(r"\bcls\s*\(|\btype\(\s*self\s*\)\s*\(|\bself\.__class__\s*\(|\bnew\s+this\b")
# `super.next(v)`, `super().save()`, `super(Base, self).x`: a base class's member.
SUPER = re.compile(r"\bsuper\s*(?:\([^()]*\))?\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class RegionUse:
    """What one region uses (see the module docstring); lines are 0-based, inclusive."""

    start_line: int
    end_line: int
    text: str  # the region's text, comments left out
    language: str | None  # the grammar's name (`python`, `typescript`, `tsx`, ...)
    names: list[str]  # the names it mentions, in order of first use
    private: list[str]  # `#entries`
    own: frozenset[str]  # attributes reached through self/cls/this
    other: frozenset[str]  # attributes reached through anything else
    keyed: frozenset[str]  # members named by key (`Server{Port: 1}`, `Point(x=1)`)
    supers: frozenset[str]  # members reached through `super`
    called: frozenset[str]  # classes it calls (`Name(`)
    self_call: bool  # it calls the class around (`cls(`, `new this`)
    classes: list[Symbol]  # the classes around it, outermost first
    imports: list[Imported]  # what its file's imports (and its own) bind; none without an index
    aliases: dict[str, tuple[str, str]]  # a renamed import: word -> (its name there, the module)
    mentioned: frozenset[str]  # the words naming the types it reaches
    module_members: dict[str, str]  # JS/TS `ns.word`, `ns` bound to a module: word -> the module
    bare: frozenset[str]  # the module members it also uses without a dot

    @property
    def around(self) -> frozenset[str]:
        return frozenset(s.name for s in self.classes)

    @property
    def bindings(self) -> frozenset[str]:
        """The names an import binds by name (`from m import a`, `import {a} from`)."""
        return frozenset(i.local for i in self.imports if i.name not in (MODULE, DEFAULT, STAR) and not i.reexport)

    @property
    def starred(self) -> bool:
        """Whether the file imports a module's every name (`from m import *`)."""
        return any(i.name == STAR and not i.reexport for i in self.imports)

    def outside(self, symbol: Symbol) -> bool:
        """Whether a definition of this file neither holds the region nor lies in it."""
        return symbol.end_line < self.start_line or symbol.start_line > self.end_line


def region_use(
    doc: Document, path: str, table: SymbolTable, start_line: int, end_line: int, region_text: str,
    lookup: Lookup | None, import_texts: Sequence[str] | None,
) -> RegionUse:
    """What the region of lines `start_line`..`end_line` (its text `region_text`) uses.
    What the file's names stand for is read from `import_texts` (its module-level import
    statements) and the region's own; without them, from the whole file."""
    record = grammar_record(doc.language_id)
    language = record.name if record is not None else None
    text = without_comments(doc, start_line, end_line, region_text)
    names = names_used(text, language)
    own, other = attribute_accesses(text)
    classes = table.classes_around(start_line, end_line)
    # The region's words and its classes' headers (their bases) rank other files' definers.
    headers = " ".join(doc.lines.line_text(n) for s in classes for n in range(s.start_line, s.signature_end_line + 1))
    source = doc if import_texts is None else "\n".join([*import_texts, text])
    found_imports = imports(source, doc.language_id) if lookup is not None else []
    # Names imported under another one stand for their originals (`tqdm_auto` -> `tqdm` of `..auto`).
    aliases = {
        word: found for word in dict.fromkeys([*names, *WORD.findall(headers)])
        if (found := original(found_imports, word)) is not None
    }
    members = module_members(text, [*found_imports, *_wrapped_requires(doc, table, names)]) if (
        language in ECMASCRIPT and lookup is not None) else {}
    return RegionUse(
        start_line, end_line, text, language, names, private_names(text, language), frozenset(own),
        frozenset(other), frozenset(KEYED.findall(text)) | (destructured(text) if language in ECMASCRIPT else frozenset()),
        frozenset(SUPER.findall(text)),
        frozenset(m.group(1) for m in CALLED.finditer(text)), SELF_CALL.search(text) is not None, classes,
        found_imports, aliases, _mentioned(doc, table, text, names, headers, aliases, lookup, path), members,
        frozenset(word for word in members if re.search(rf"(?<![\w$.]){re.escape(word)}(?![\w$])", text)),
    )


def _wrapped_requires(doc: Document, table: SymbolTable, names: list[str]) -> list[Imported]:
    """tsc's `var E = __importStar(require("./Either"))`, a definition of this file (no
    import statement: TypeScript reads `E` as a variable) that binds a module all the same."""
    found: list[Imported] = []
    for name in names:
        for symbol in table.named(name):
            if symbol.container is None and symbol.kind in ("variable", "constant") and symbol.end_line - symbol.start_line < 3:
                statement = "\n".join(doc.lines.line_text(n) for n in range(symbol.start_line, symbol.end_line + 1))
                found.extend(i for i in imports(statement, doc.language_id) if i.local == name and i.name is MODULE)
    return found


def module_members(text: str, found: Sequence[Imported]) -> dict[str, str]:
    """The members the text reaches through a name bound to a whole module (`const
    Apply_1 = require("./Apply")`, `import * as util from "./util"`, then `Apply_1.ap`,
    `(0, Apply_1.ap)(...)`): member -> the module as written (its first, if several)."""
    modules = {i.local: i.module for i in found if i.name is MODULE and i.local and not i.reexport}
    members: dict[str, str] = {}
    for match in ACCESS.finditer(text):
        if match.group(1) in modules and not match.group(2).startswith("#"):
            members.setdefault(match.group(2), modules[match.group(1)])
    return members


def _mentioned(
    doc: Document, table: SymbolTable, text: str, names: list[str], headers: str,
    aliases: dict[str, tuple[str, str]], lookup: Lookup | None, path: str,
) -> frozenset[str]:
    """The words naming the types the region reaches: its names, its classes' headers,
    its receivers' types (named after, or declared with), the originals of its renamed
    imports; the types declared one step further (`follow.py`: what the functions it
    calls return, the signatures of the calls it passes an object literal or a function
    to); the types all these reach (bases, unions, embedded types); then the declared
    types of the fields it reaches through, and what those reach."""
    line = doc.lines.line_text
    mentioned = frozenset(names).union(
        WORD.findall(headers), receiver_types(text), declared_types(text, table, line),
        (n for n, _ in aliases.values()),
    )
    mentioned |= returned_types(text, path, table, line, lookup, mentioned)
    mentioned |= callback_types(text, path, table, line, lookup)
    mentioned |= parameter_types({m.group(1) for m in LITERAL_ARGUMENT.finditer(text)}, table, line, lookup)
    mentioned |= reached_types(mentioned, table, line, lookup)
    fields = field_types(text, path, table, line, lookup, mentioned) - mentioned
    return mentioned | fields | reached_types(fields, table, line, lookup)
