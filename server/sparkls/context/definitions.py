"""Definitions of the names a region uses, as snippets: whole when small, else signatures.

Same file first (the document's own symbols); other files come from the workspace
symbol index when one is given. A definition that holds the region, or that the
region holds, is not a snippet (the region already shows it). Pure: reads a document
and an optional index, returns candidates in priority order for `builder.pack`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence

from sparkls.context.lookup import Lookup
from sparkls.context.ranking import choose_definers
from sparkls.context.reach import (
    CALL_SIGNATURE, FUNCTION_KINDS, LITERAL_ARGUMENT, MAX_CALL_SIGNATURES, MAX_TYPE_HOPS, TYPE_KINDS, WORD,
    Definer, declared_types, definers, parameter_types, reached_types, receiver_types,
)
from sparkls.context.region import without_comments
from sparkls.context.words import ECMASCRIPT, attribute_accesses, names_used, private_names
from sparkls.context.resolve import DEFAULT, MODULE, STAR, imports, is_module_file, origin, original
from sparkls.context.render import ATTRIBUTE, code_start, render
from sparkls.context.snippet import Snippet
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.context.symtable import SymbolTable
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
# A class is shown with its constructor: what a call of the class's name runs.
CONSTRUCTORS = ("__init__", "constructor", "new")
CLASS_KINDS = frozenset({"class"})
OBJECT = "object"  # an exported object literal (`export default {...}`)
COMMONJS_EXPORTS = "module.exports"  # the name of `module.exports = {...}`, whose members a require binds
# A member of one on a line of its own: `isFunction,` / `hasOwnProp: hasOwnProperty, // why`.
MEMBER_VALUE = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*(?::\s*([A-Za-z_$][\w$]*))?\s*,?\s*(?://.*)?")
# `const isFunction = typeOfTest("function")`: the function whose call made a value.
MADE_BY = re.compile(r"=\s*([A-Za-z_$][\w$]*)\s*\(")
# `const ajax: AjaxCreationMethod = ...`: a name and the type it is annotated with (one
# pattern for all names: a pattern per name would be compiled per definition).
ANNOTATED = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*:\s*([A-Z][A-Za-z0-9_]*)")
HOLDER_KINDS = TYPE_KINDS | {OBJECT}  # what shows its header with a member (`export default {`)


# Module files' imports by (path, length, hash of the text), kept across requests: a
# package's index file read again is parsed once (`resolve.origin`). Emptied when full.
PARSED_IMPORTS: dict[tuple[str, int, int], list] = {}
MAX_PARSED_IMPORTS = 512


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


def _holder(member: Symbol, candidates: list[Symbol]) -> Symbol | None:
    """The class, type or module (an exported object literal) among `candidates`
    whose lines hold `member`."""
    return next(
        (s for s in candidates if s.kind in HOLDER_KINDS and s.start_line <= member.start_line <= s.end_line), None
    )


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
    record = grammar_record(doc.language_id)
    region_text = without_comments(doc, region_start_line, region_end_line, region_text)
    language = record.name if record is not None else None
    names = names_used(region_text, language)
    private = private_names(region_text, language)
    own, other = attribute_accesses(region_text)
    keyed = set(KEYED.findall(region_text))
    supers = set(SUPER.findall(region_text))
    table = symbol_table(doc)
    classes = table.classes_around(region_start_line, region_end_line)
    around = {s.name for s in classes}
    # The region's words and its classes' headers (their bases) rank other files' definers.
    headers = " ".join(doc.lines.line_text(n) for s in classes for n in range(s.start_line, s.signature_end_line + 1))
    # Names imported under another one stand for their originals (`tqdm_auto` -> `tqdm` of `..auto`).
    source = doc if import_texts is None else "\n".join([*import_texts, region_text])
    found_imports = imports(source, doc.language_id) if lookup is not None else []
    aliases = {
        word: found for word in dict.fromkeys([*names, *WORD.findall(headers)])
        if (found := original(found_imports, word)) is not None
    }
    mentioned = frozenset(names).union(
        WORD.findall(headers), receiver_types(region_text), declared_types(region_text, table, doc.lines.line_text),
        (n for n, _ in aliases.values()),
    )
    mentioned |= reached_types(mentioned, table, doc.lines.line_text, lookup)
    mentioned |= parameter_types(
        {m.group(1) for m in LITERAL_ARGUMENT.finditer(region_text)}, table, doc.lines.line_text, lookup
    )

    def reached(name: str, symbol: Symbol) -> bool:
        """Whether the region uses this definition of `name` (see above)."""
        if symbol.kind != ATTRIBUTE or name in own or name in other:
            return True
        if symbol.container == COMMONJS_EXPORTS and name in imported:
            return True  # `const { kQueue } = require("./symbols")`
        return name in keyed and symbol.container in mentioned

    def bare_reaches(name: str, symbol: Symbol) -> bool:
        """Whether a bare `name` may be this file's `symbol`: not when it is a member of an
        exported object literal, which only a dot reaches (`utils.trim`)."""
        if name in own or name in other or symbol.container is None:
            return True
        return not any(s.kind == OBJECT for s in table.named(symbol.container))
    called = {m.group(1) for m in CALLED.finditer(region_text)}
    # A name the file imports is its module's definition, through that module's re-exports
    # (`from tqdm import tqdm` -> tqdm/__init__.py's `from .std import tqdm`; `export * from`).
    bindings = {i.local for i in found_imports if i.name not in (MODULE, DEFAULT, STAR) and not i.reexport}
    starred = any(i.name == STAR and not i.reexport for i in found_imports)
    rows_of: dict[str, list[tuple[str, Symbol]]] = {}

    def top_rows(name: str) -> list[tuple[str, Symbol]]:
        if name not in rows_of:
            rows_of[name] = [(p, s) for p, s in lookup.definitions(name) if s.container is None] if lookup else []
        return rows_of[name]

    def read(file_path: str) -> str | None:
        file_lines = lookup.file_lines(file_path) if lookup is not None else None
        return "\n".join(file_lines) if file_lines is not None else None

    if len(PARSED_IMPORTS) > MAX_PARSED_IMPORTS:
        PARSED_IMPORTS.clear()

    def lead(word: str) -> tuple[str, str] | None:
        if lookup is None or not (word in bindings or (starred and not table.named(word) and top_rows(word))):
            return None
        return origin(found_imports, word, path, doc.language_id, read,
                      lambda name: [p for p, _ in top_rows(name)], parsed=PARSED_IMPORTS)

    origins = {word: found for word in names if (found := lead(word)) is not None}
    # their files rank a member's definers (`bar.close()` where `Bar` leads to core.py), and
    # a member of a class of that name in another file is another class's
    origin_files = frozenset(file_path for _, file_path in origins.values())
    origin_of = {name: file_path for name, file_path in origins.values()}

    def from_origin(word: str) -> bool:
        """Adds the definition an imported `word` leads to; whether it found one."""
        if word not in origins or lookup is None:
            return False
        name, file_path = origins[word]
        file_lines = lookup.file_lines(file_path)
        theirs = [s for p, s in top_rows(name) if p == file_path]
        for symbol in theirs:
            if file_lines is not None and symbol.end_line < len(file_lines):
                add(elsewhere, file_path, symbol, file_lines.__getitem__)
        return bool(theirs)

    same_file: list[list[Snippet]] = []
    elsewhere: list[list[Snippet]] = []
    seen: set[tuple[str, int, int]] = set()
    resolved: set[str] = set()  # names found through their imports (`from_origin`)

    def add(into: list[list[Snippet]], file_path: str, symbol: Symbol, line: Callable[[int], str]) -> None:
        key = (file_path, symbol.start_line, symbol.end_line)
        if key in seen:
            return
        seen.add(key)
        into.append(render(file_path, symbol, line))
        if symbol.kind == ATTRIBUTE and symbol.container:
            holder = _holder(symbol, named_in(file_path, symbol.container))
            if holder is not None and (file_path, holder.start_line, -1) not in seen:
                seen.add((file_path, holder.start_line, -1))  # its header, once for all its members
                header = "\n".join(line(n) for n in range(holder.start_line, holder.signature_end_line + 1))
                into.append([Snippet(file_path, holder.start_line, holder.signature_end_line, "container", header)])
            if holder is not None and holder.kind == OBJECT:
                for value in member_value(file_path, symbol, line):
                    add(into, file_path, value, line)
        if symbol.kind == "class":
            found = constructor_of(file_path, symbol, line)
            if found is not None:
                add(into, found[0], found[1], found[2])
        elif symbol.kind not in TYPE_KINDS:  # `const ajax: AjaxCreationMethod = ...`: what calling it runs
            declaration = " ".join(line(n) for n in range(code_start(symbol, line), symbol.signature_end_line + 1))
            annotation = next((m for m in ANNOTATED.finditer(declaration) if m.group(1) == symbol.name), None)
            if annotation is not None:
                # the type: this file's, else the index's (in the value's file first)
                for type_path, type_symbol, type_line in itertools.islice(
                    definers(annotation.group(2), TYPE_KINDS, table, doc.lines.line_text, lookup, here=path, near=file_path), 1
                ):
                    for signature in call_signatures(type_path, type_symbol.name):
                        add(into, type_path, signature, type_line)
        if symbol.kind == "type":
            for signature in call_signatures(file_path, symbol.name):
                add(into, file_path, signature, line)

    def named_in(file_path: str, name: str) -> list[Symbol]:
        """The definitions `name` in the file `file_path` (this one's, else the index's)."""
        if file_path == path:
            return table.named(name)
        return [s for p, s in (lookup.definitions(name) if lookup is not None else []) if p == file_path]

    def member_value(file_path: str, member: Symbol, line: Callable[[int], str]) -> list[Symbol]:
        """What an object literal's member on a line of its own names, in its file: `isFunction,`
        the `const isFunction = typeOfTest(...)` and `typeOfTest`, which made it;
        `hasOwnProp: hasOwnProperty,` the `hasOwnProperty`."""
        found = MEMBER_VALUE.fullmatch(line(member.start_line))
        if found is None or found.group(1) != member.name:
            return []
        values = [s for s in named_in(file_path, found.group(2) or member.name) if s.container is None and s.kind != OBJECT]
        for value in values[:1]:
            made = MADE_BY.search(line(code_start(value, line)))  # `const isFunction = typeOfTest('function')`
            if made is not None and made.group(1) != value.name:
                values += [s for s in named_in(file_path, made.group(1)) if s.kind in FUNCTION_KINDS][:1]
        return values

    def members_of(file_path: str, container: str, name: str) -> list[Symbol]:
        if file_path == path:
            return [s for s in table.named(name) if s.container == container]
        return lookup.members(file_path, container, name) if lookup is not None else []

    def call_signatures(file_path: str, type_name: str) -> list[Symbol]:
        """An interface's construct and call signatures (`new (): E`, `<T>(c: C): R`)."""
        return [*members_of(file_path, type_name, "new"), *members_of(file_path, type_name, CALL_SIGNATURE)][
            :MAX_CALL_SIGNATURES
        ]

    def constructor_of(
        file_path: str, symbol: Symbol, line: Callable[[int], str], hops: int = MAX_TYPE_HOPS
    ) -> Definer | None:
        """The constructor a call of class `symbol` runs: its own, else (when the region
        calls it) the first of its bases' (`String(attribute="x")` runs `Field.__init__`)."""
        for constructor in CONSTRUCTORS:
            found = members_of(file_path, symbol.name, constructor)
            if found:
                return file_path, found[0], line
        if hops == 0 or symbol.name not in called:
            return None
        header = " ".join(line(n) for n in range(symbol.start_line, symbol.signature_end_line + 1))
        for base in dict.fromkeys(w for w in WORD.findall(header) if w[:1].isupper() and w != symbol.name):
            bases = definers(base, CLASS_KINDS, table, doc.lines.line_text, lookup, here=path, limit=2)
            for base_path, s, base_line in itertools.islice(bases, 2):
                found = constructor_of(base_path, s, base_line, hops - 1)
                if found is not None:
                    return found
        return None

    if classes and SELF_CALL.search(region_text):  # `cls(...)`: the class around's constructor
        innermost = max(classes, key=lambda s: s.start_line)
        found = constructor_of(path, innermost, doc.lines.line_text)
        if found is not None and not (found[1].start_line <= region_start_line and region_end_line <= found[1].end_line):
            add(same_file if found[0] == path else elsewhere, *found)
    for name in private:  # `this.#entries`: the class around's own, never another's
        for symbol in table.named(name):
            if symbol.container in around and (symbol.end_line < region_start_line or symbol.start_line > region_end_line):
                add(same_file, path, symbol, doc.lines.line_text)
    for name in names:
        local = [
            s
            for s in table.named(name)
            if (s.end_line < region_start_line or s.start_line > region_end_line)  # neither holds the other
            and reached(name, s)
            and bare_reaches(name, s)
        ]
        mine = any(s.container in around for s in local)
        if name in own and name not in other and mine:
            local = [s for s in local if s.kind != ATTRIBUTE or s.container in around]
        for symbol in local:
            add(same_file, path, symbol, doc.lines.line_text)
        # `self.x` the class around does not define, or `super().x`: from a base?
        inherited = (name in own and not mine) or name in supers
        # `obj.x` where no class of this file that defines x is named in the region: maybe another file's.
        foreign = (name in other or name in keyed) and not any(s.container in mentioned for s in local)
        # an imported name: its module's definition, and only that file's other rows of it
        # (`module.exports = { hasSafeIterator, ... }` beside the function)
        only = origins[name][1] if not local and from_origin(name) and not (inherited or foreign) else None
        if only is not None:
            resolved.add(name)
        if lookup is not None and (inherited or foreign or not local):
            rows = [(p, s) for p, s in lookup.definitions(name) if reached(name, s) and only in (None, p)]
            # a member the imported class defines itself: no other file's class of that name
            owned = {s.container for p, s in rows if s.container is not None and origin_of.get(s.container) == p}
            rows = [(p, s) for p, s in rows if s.container not in owned or origin_of[s.container] == p]
            for file_path, symbol in choose_definers(rows, path, imported, mentioned, origin_files):
                file_lines = lookup.file_lines(file_path)
                if file_lines is not None and symbol.end_line < len(file_lines):
                    add(elsewhere, file_path, symbol, file_lines.__getitem__)
    for word, (name, module) in aliases.items():  # not found through its module: the closest definers
        if word not in names or word in resolved:
            continue
        rows = [(p, s) for p, s in lookup.definitions(name) if s.container is None] if lookup is not None else []
        theirs = [(p, s) for p, s in rows if is_module_file(p, module, path, doc.language_id)]
        for file_path, symbol in theirs or choose_definers(rows, path, imported, mentioned):
            file_lines = lookup.file_lines(file_path) if lookup is not None else None
            if file_lines is not None and symbol.end_line < len(file_lines):
                add(elsewhere, file_path, symbol, file_lines.__getitem__)
    # `import parseHeaders from "./parseHeaders.js"`, `const util = require("./util")`: the word
    # is that module's default export (`export default (raw) => {...}`, `export default {...}`)
    # or its `module.exports = {...}`; an object is shown by its header.
    bound = {DEFAULT: "default", MODULE: COMMONJS_EXPORTS}
    for imported in found_imports if language in ECMASCRIPT else []:
        if imported.local not in names or imported.reexport or imported.name not in bound or lookup is None:
            continue
        for file_path, symbol in lookup.definitions(bound[imported.name]):
            file_lines = lookup.file_lines(file_path)
            if (
                symbol.container is not None
                or file_lines is None
                or symbol.end_line >= len(file_lines)
                or not is_module_file(file_path, imported.module, path, doc.language_id)
            ):
                continue
            if symbol.kind != OBJECT:
                add(elsewhere, file_path, symbol, file_lines.__getitem__)
            elif (file_path, symbol.start_line, -1) not in seen:
                seen.add((file_path, symbol.start_line, -1))
                header = "\n".join(file_lines[symbol.start_line : symbol.signature_end_line + 1])
                elsewhere.append([Snippet(file_path, symbol.start_line, symbol.signature_end_line, "container", header)])
    return same_file + elsewhere
