"""Definitions of the names a region uses, as snippets: whole when small, else signatures.

Same file first (the document's own symbols); other files come from the workspace
symbol index when one is given. A definition that holds the region, or that the
region holds, is not a snippet (the region already shows it). Pure: reads a document
and an optional index, returns candidates in priority order for `builder.pack`.

`referenced_definitions` runs named steps, as a repository map does: what the region
uses (`uses.region_use`), where its imported names lead (`_origins`), then the finding
steps below, each yielding the definitions it finds in order (`Found`), ranked among
other files' definers by `ranking.choose_definers`; `shown.Shown` renders each, with
what comes with it, once. What one request reads is kept by its `scope.Scope`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sparkls.context.lookup import Lookup
from sparkls.context.ranking import choose_definers
from sparkls.context.reach import WORD
from sparkls.context.render import ATTRIBUTE
from sparkls.context.resolve import DEFAULT, MODULE, Imported, is_module_file
from sparkls.context.scope import Line, Scope
from sparkls.context.shown import OBJECT, Shown
from sparkls.context.snippet import Snippet
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.context.symtable import SymbolTable
from sparkls.context.uses import RegionUse, region_use
from sparkls.context.words import ECMASCRIPT, names_used, private_names
from sparkls.documents.store import Document

__all__ = ["Lookup", "WORD", "file_symbols", "names_used", "private_names", "referenced_definitions", "symbol_table"]

COMMONJS_EXPORTS = "module.exports"  # the name of `module.exports = {...}`, whose members a require binds
Origins = dict[str, tuple[str, str]]  # an imported word -> (its name there, the file defining it)


def symbol_table(doc: Document) -> SymbolTable:
    """The document's symbols: extracted once per version of its text (a big
    document's carried forward from its last extraction: context/symtable.py)."""
    return doc.fact("symbols", _extract, SymbolTable.carried)


def _extract(doc: Document) -> SymbolTable:
    tree = doc.tree
    if tree is None:
        return SymbolTable([])
    return SymbolTable(extract_symbols(doc.language_id, tree, doc.text.encode("utf-8", "surrogatepass")))


def file_symbols(doc: Document) -> list[Symbol]:
    """Every symbol of the document, in file order."""
    return symbol_table(doc).all




@dataclass(frozen=True, slots=True)
class Found:
    """A definition a finding step found: shown whole or as its signature, or (`header`)
    by its first lines only (an exported object literal); among this file's snippets or
    other files' (`elsewhere`)."""

    path: str
    symbol: Symbol
    line: Line
    elsewhere: bool
    header: bool = False


def referenced_definitions(
    doc: Document,
    path: str,
    region_start_line: int,
    region_end_line: int,
    region_text: str,
    lookup: Lookup | None = None,
    imported: frozenset[str] = frozenset(),
    import_texts: Sequence[str] | None = None,
) -> list[list[Snippet]]:
    """For each definition the region uses (this file's, then others'), the ways to
    show it, best first.

    A name counts when the region mentions it; an attribute only when the region
    reaches it with a dot, or names it as a key (`Server{Port: 1}`) where the region
    also names its type; one reached through `self` (`cls`, `this`) comes from
    the class around the region when that class assigns it (else, as from a base
    class, also from other files). A class comes with its constructor (`__init__`,
    `constructor`, `new`). Each statement is shown once, however many names it
    defines. Other files' definitions are chosen by `ranking.choose_definers`
    (`imported`: the words of this file's imports; the region's words and the
    headers of its classes name the classes that matter). What the file's names stand
    for is read from `import_texts` (its module-level import statements, as the builder
    keeps them) and the region's own (a function's local import); without them, from
    the whole file.
    """
    table = symbol_table(doc)
    scope = Scope(doc, path, table, lookup)
    use = region_use(doc, path, table, region_start_line, region_end_line, region_text, scope.lookup, import_texts)
    origins = _origins(scope, use)
    plans = [_plan(scope, use, origins, imported, name) for name in use.names]
    shown = Shown(scope, use.called)
    steps = (
        _class_called(scope, use, shown),
        _private(scope, use),
        (found for plan in plans for found in _by_name(scope, use, origins, imported, plan)),
        _aliased(scope, use, imported, frozenset(p.name for p in plans if p.only is not None)),
        _default_exports(scope, use),
    )
    for step in steps:
        for found in step:
            (shown.add_header if found.header else shown.add)(
                found.path, found.symbol, found.line, elsewhere=found.elsewhere
            )
    return shown.candidates()


def _origins(scope: Scope, use: RegionUse) -> Origins:
    """Where the region's imported names lead: a name the file imports is its module's
    definition, through that module's re-exports (`from tqdm import tqdm` ->
    tqdm/__init__.py's `from .std import tqdm`; `export * from`)."""
    if scope.lookup is None:
        return {}
    bindings, starred = use.bindings, use.starred
    found: Origins = {}
    for word in use.names:
        if word in bindings or (starred and not scope.table.named(word) and scope.top_rows(word)):
            lead = scope.origin(use.imports, word)
            if lead is not None:
                found[word] = lead
    for word, module in use.module_members.items():  # `Apply_1.ap`: the module's `ap`
        if word not in found:
            lead = scope.origin([Imported(word, word, module, 0, 0)], word)
            if lead is not None:
                found[word] = lead
    return found


def _reached(use: RegionUse, imported: frozenset[str], name: str, symbol: Symbol) -> bool:
    """Whether the region uses this definition of `name`: any but an attribute; an
    attribute the region reaches with a dot, or names as a key where it names its type."""
    if symbol.kind != ATTRIBUTE or name in use.own or name in use.other:
        return True
    if symbol.container == COMMONJS_EXPORTS and name in imported:
        return True  # `const { kQueue } = require("./symbols")`
    return name in use.keyed and symbol.container in use.mentioned


def _bare_reaches(table: SymbolTable, use: RegionUse, name: str, symbol: Symbol) -> bool:
    """Whether a bare `name` may be this file's `symbol`: not when it is a member of an
    exported object literal, which only a dot reaches (`utils.trim`)."""
    if name in use.own or name in use.other or symbol.container is None:
        return True
    return not any(s.kind == OBJECT for s in table.named(symbol.container))


# Another file's definition on a line this long is minified code (a bundle's module on one
# line, its names a minifier's letters): not taken by its name alone, only through an import.
MINIFIED_LINE = 1000


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where one name the region uses is looked for."""

    name: str
    local: list[Symbol]  # this file's definitions of it
    origin_rows: list[Symbol]  # the file its import leads to: the definitions there
    only: str | None  # found through its import: other files' rows from that file only
    look_elsewhere: bool  # other files' definers are ranked too


def _plan(scope: Scope, use: RegionUse, origins: Origins, imported: frozenset[str], name: str) -> _Plan:
    through_module = name in use.module_members and name in origins  # `Apply_1.ap`: Apply's `ap`
    local = [
        s for s in scope.table.named(name)
        if use.outside(s) and _reached(use, imported, name, s) and _bare_reaches(scope.table, use, name, s)
        and not (through_module and name not in use.bare and s.container is None)  # not this file's `ap`
    ]
    mine = any(s.container in use.around for s in local)
    if name in use.own and name not in use.other and mine:
        local = [s for s in local if s.kind != ATTRIBUTE or s.container in use.around]
    # `self.x` the class around does not define, or `super().x`: from a base?
    inherited = (name in use.own and not mine) or name in use.supers
    # `obj.x` where no class of this file that defines x is named in the region: maybe another file's.
    foreign = (name in use.other or name in use.keyed) and not any(s.container in use.mentioned for s in local)
    # an imported name: its module's definition, and only that file's other rows of it
    # (`module.exports = { hasSafeIterator, ... }` beside the function)
    theirs = []
    if (not local or through_module) and name in origins and scope.lookup is not None:
        there, file_path = origins[name]
        theirs = [s for p, s in scope.top_rows(there) if p == file_path]
    # `Apply_1.ap`: the module says which `ap`, unless what it has is a value (tsc's re-export
    # stub `Object.defineProperty(exports, "ap", { get: ... })`): then others' may be the one
    settled = through_module and any(s.kind not in ("variable", "constant") for s in theirs)
    only = origins[name][1] if theirs and (settled or not (inherited or foreign)) else None
    # In JavaScript, a bare one-character name (`e`, `t` of minified code, a loop's `i`) is no
    # other file's by its name alone: only through an import (`theirs`); a member (`$.P`) may be.
    # (A Go package's files share their names with no import: `T` may be a sibling file's.)
    lettered = len(name) == 1 and use.language in ECMASCRIPT
    elsewhere = scope.lookup is not None and (inherited or foreign or (not local and not lettered))
    return _Plan(name, local, theirs, only, elsewhere)


def _by_name(
    scope: Scope, use: RegionUse, origins: Origins, imported: frozenset[str], plan: _Plan
) -> Iterator[Found]:
    """One name's definitions: this file's, the one its import leads to, then other
    files' definers as `ranking.choose_definers` ranks them."""
    for symbol in plan.local:
        yield Found(scope.path, symbol, scope.line, elsewhere=False)
    if plan.origin_rows:
        file_path = origins[plan.name][1]
        for symbol in plan.origin_rows:
            if (line := scope.reader(file_path, symbol)) is not None:
                yield Found(file_path, symbol, line, elsewhere=True)
    if not plan.look_elsewhere:
        return
    rows = [(p, s) for p, s in scope.rows(plan.name) if _reached(use, imported, plan.name, s) and plan.only in (None, p)]
    # a member the imported class defines itself: no other file's class of that name
    origin_of = {name: file_path for name, file_path in origins.values()}
    owned = {s.container for p, s in rows if s.container is not None and origin_of.get(s.container) == p}
    rows = [(p, s) for p, s in rows if s.container not in owned or origin_of[s.container] == p]
    origin_files = frozenset(file_path for _, file_path in origins.values())
    for file_path, symbol in choose_definers(rows, scope.path, imported, use.mentioned, origin_files):
        if (line := scope.reader(file_path, symbol)) is not None and len(line(symbol.start_line)) <= MINIFIED_LINE:
            yield Found(file_path, symbol, line, elsewhere=True)


def _class_called(scope: Scope, use: RegionUse, shown: Shown) -> Iterator[Found]:
    """`cls(...)`, `new this`, `new Transaction(...)` inside Transaction: the class around's
    constructor (a base's, when it has none)."""
    called = [s for s in use.classes if use.self_call or s.name in use.called]
    if not called:
        return
    innermost = max(called, key=lambda s: s.start_line)
    found = shown.constructor_of(scope.path, innermost, scope.line)
    if found is not None and not (found[1].start_line <= use.start_line and use.end_line <= found[1].end_line):
        yield Found(*found, elsewhere=found[0] != scope.path)


def _private(scope: Scope, use: RegionUse) -> Iterator[Found]:
    """`this.#entries`: the class around's own, never another's."""
    for name in use.private:
        for symbol in scope.table.named(name):
            if symbol.container in use.around and use.outside(symbol):
                yield Found(scope.path, symbol, scope.line, elsewhere=False)


def _aliased(scope: Scope, use: RegionUse, imported: frozenset[str], resolved: frozenset[str]) -> Iterator[Found]:
    """A renamed import not found through its module (`resolved`: those that were):
    the definitions in its module's file, else the closest definers."""
    for word, (name, module) in use.aliases.items():
        if word not in use.names or word in resolved:
            continue
        rows = scope.top_rows(name)
        theirs = [(p, s) for p, s in rows if is_module_file(p, module, scope.path, scope.doc.language_id)]
        for file_path, symbol in theirs or choose_definers(rows, scope.path, imported, use.mentioned):
            if (line := scope.reader(file_path, symbol)) is not None:
                yield Found(file_path, symbol, line, elsewhere=True)


# What a module binds when imported whole: its default export, or its `module.exports`.
_BOUND = {DEFAULT: "default", MODULE: COMMONJS_EXPORTS}
# A default export that names a definition: `exports.default = Lifecycle;`, `export default Job;`
_DEFAULT_NAMES = re.compile(r"\s*(?:(?:module\.)?exports\.default\s*=|export\s+default)\s*([A-Za-z_$][\w$]*)\s*;?\s*$")


def _default_exports(scope: Scope, use: RegionUse) -> Iterator[Found]:
    """`import parseHeaders from "./parseHeaders.js"`, `const util = require("./util")`: the
    word is that module's default export (`export default (raw) => {...}`, `export default
    {...}`) or its `module.exports = {...}`; an object is shown by its header. tsc's
    `resolution_context_1.default` is the module's default export too; one that names a
    definition of its file (`exports.default = ResolutionContext;`, `export default Job;`)
    comes with that definition, as TypeScript follows it."""
    if use.language not in ECMASCRIPT or scope.lookup is None:
        return
    wanted = [(imported.module, _BOUND[imported.name]) for imported in use.imports
              if imported.local in use.names and not imported.reexport and imported.name in _BOUND]
    if DEFAULT in use.module_members:
        wanted.append((use.module_members[DEFAULT], _BOUND[DEFAULT]))
    for module, name in dict.fromkeys(wanted):
        for file_path, symbol in scope.rows(name):
            line = scope.reader(file_path, symbol)
            if (
                symbol.container is not None
                or line is None
                or not is_module_file(file_path, module, scope.path, scope.doc.language_id)
            ):
                continue
            yield Found(file_path, symbol, line, elsewhere=True, header=symbol.kind == OBJECT)
            named = _DEFAULT_NAMES.match(line(symbol.start_line)) if symbol.start_line == symbol.end_line else None
            for aliased in scope.named_in(file_path, named.group(1)) if named else ():
                if aliased.container is None and aliased.name != name:
                    yield Found(file_path, aliased, line, elsewhere=True)
