"""Which types a region reaches beyond the names it spells, seen cheaply: the types
its receivers are named after or declared with in this file, the bases and unions in the headers of the types it
names, and the parameter types of the calls it passes an object literal to. The
words found only rank definitions (`ranking.choose_definers`) and make members named
by key count; nothing here sends a snippet by itself. Pure but for index reads."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sparkls.context.lookup import Lookup
from sparkls.context.render import code_start
from sparkls.context.resolve import OWN, receiver_type
from sparkls.context.written import type_words, written_type
from sparkls.context.symbols import Symbol
from sparkls.context.symtable import SymbolTable

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `obj.name`, `self.name`, `f().name`: the object's name when it has one, and the attribute.
# (`this.#entries`, `this.$x`: JavaScript's private and `$` names whole.)
ACCESS = re.compile(r"(?:\b([A-Za-z_][A-Za-z0-9_]*))?\s*\.\s*(#?[A-Za-z_$][A-Za-z0-9_$]*)")


def receiver_types(text: str) -> frozenset[str]:
    """Types the text's receivers are named after: `subscriber.next(v)` reaches
    `Subscriber`'s `next` in code where the type is inferred, not written. A receiver
    (a name before a dot, not self/cls/this) counts with its first letter upper-cased;
    only ranking uses these words. The rule is `resolve.receiver_type`'s, which next
    edit's follow-ups share."""
    return frozenset(
        guessed
        for receiver in (match.group(1) for match in ACCESS.finditer(text))
        if receiver and receiver[:1].islower() and (guessed := receiver_type(receiver)) is not None
    )


# `this.options.store`, `self.opts.x`: a field of the class around, reached as a receiver.
OWN_FIELD_RECEIVER = re.compile(r"\b(?:this|self)\s*\.\s*([A-Za-z_$][\w$]*)\s*\??\.")
MAX_DECLARED = 16  # receivers whose declarations are read, per region
# `jobs: Queue`, `opts?: Options`, `pool = Pool(`, `x = new Map(`: a name and what it is declared or made with.
DECLARED = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:[?!]?:\s*|=\s*(?:new\s+)?)([A-Za-z_$][\w$.]*)")


def declared_types(text: str, table: SymbolTable, line: Callable[[int], str]) -> frozenset[str]:
    """Types the text's receivers are declared with where this file declares them out of
    the region's sight: a module-level `const settings: Settings = load()`, `store =
    Store()`, a class field `private opts: Options`, `self.opts = Options(...)`
    (`this.opts.delay` reaches `Options.delay`). Only ranking uses these words."""
    receivers = [m.group(1) for m in ACCESS.finditer(text) if m.group(1) and m.group(1) not in OWN]
    receivers += OWN_FIELD_RECEIVER.findall(text)
    found: set[str] = set()
    for receiver in list(dict.fromkeys(receivers))[:MAX_DECLARED]:
        for symbol in table.named(receiver):
            declaration = " ".join(line(n) for n in range(code_start(symbol, line), symbol.signature_end_line + 1))
            match = next((m for m in DECLARED.finditer(declaration) if m.group(1) == receiver), None)
            if match is not None and match.group(2)[:1].isupper():
                found.add(match.group(2).split(".")[-1])
            if match is not None:  # and the type arguments written with it: `Map<string, Job>`, `list[Job]`
                found.update(type_words(written_type(declaration, match.start(2))))
    return frozenset(found)


# An interface's call signatures are members named `(` (construct signatures: `new`).
CALL_SIGNATURE = "("
MAX_CALL_SIGNATURES = 4
# `f({`, `obj.subscribe({`: a call given an object literal (its keys are the parameter type's).
LITERAL_ARGUMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^<>()]*>)?\(\s*\{")
MAX_CALLEES = 8
MAX_DEFINERS_READ = 4
MAX_TYPE_HOPS = 2  # `ImmerState` → `ProxyObjectState` → `ImmerBaseState`
MAX_REACHED_TYPES = 32  # type names looked up in all, per region
TYPE_KINDS = frozenset({"class", "type"})
FUNCTION_KINDS = frozenset({"function", "method"})
Definer = tuple[str, Symbol, Callable[[int], str]]  # (workspace-relative path, symbol, its file's line n)


def definers(
    name: str, kinds: frozenset[str], table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None,
    *, here: str = "", limit: int | None = None, near: str | None = None,
) -> Iterator[Definer]:
    """The definitions of `name` among `kinds`, each with a reader of its file's lines:
    this file's (`here`, read by `line`) when it has any; else, lazily, those among the
    index's first `limit` rows (the file `near` first) whose file reads as indexed."""
    found = [(here, s, line) for s in table.named(name) if s.kind in kinds]
    if found or lookup is None:
        yield from found
        return
    rows = lookup.definitions(name)
    if near is not None:
        rows = sorted(rows, key=lambda row: row[0] != near)
    for path, s in rows[:limit]:
        lines = lookup.file_lines(path) if s.kind in kinds else None
        if lines is not None and s.end_line < len(lines):
            yield path, s, lines.__getitem__


ALIAS_KINDS = frozenset({"variable"})  # `Handler = Callable[[Event], None]`: Python's aliases
MAX_ALIAS_LINES = 3  # of a variable's declaration, read for the types it names
MAX_EMBEDDED_LINES = 64  # of a type's body, read for embedded types
# A body line that is a type alone: Go's embedded `*Base`, `io.Closer`, `sync.Mutex`.
EMBEDDED = re.compile(r"\s*\*?(?:[A-Za-z_]\w*\.)?([A-Z]\w*)\s*(?:`[^`]*`)?\s*(?://.*)?")


def _header_types(s: Symbol, read: Callable[[int], str]) -> set[str]:
    """The Capitalized words of a type's header (bases, `extends`, an alias's union or
    intersection, generic arguments), and the types its body embeds (Go); of a
    variable, its first lines (an alias: `Handler = Callable[[Event], None]`)."""
    last = s.signature_end_line if s.kind != "variable" else min(s.end_line, s.start_line + MAX_ALIAS_LINES - 1)
    header = " ".join(read(n) for n in range(s.start_line, last + 1))
    found = {w for w in WORD.findall(header) if w[:1].isupper()}
    for n in range(s.signature_end_line + 1, min(s.end_line, s.signature_end_line + MAX_EMBEDDED_LINES) + 1):
        embedded = EMBEDDED.fullmatch(read(n))
        if embedded is not None:
            found.add(embedded.group(1))
    return found


def reached_types(
    mentioned: frozenset[str], table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None
) -> frozenset[str]:
    """The types the region reaches through the types it names: the words of their
    headers (bases, `extends`, an alias's union or intersection, generic arguments) and
    the types their bodies embed (Go), up to MAX_TYPE_HOPS deep, so that a member of
    `ImmerBaseState` counts when the region names `ImmerState`, a union of interfaces
    that extend it. Only Capitalized words; at most MAX_REACHED_TYPES looked up."""
    reached: set[str] = set()
    frontier = {word for word in mentioned if word[:1].isupper()}
    looked = 0
    for _ in range(MAX_TYPE_HOPS):
        found: set[str] = set()
        for name in sorted(frontier):
            if looked >= MAX_REACHED_TYPES:
                break
            looked += 1
            for _, s, read in definers(name, TYPE_KINDS | ALIAS_KINDS, table, line, lookup, limit=3):
                found.update(_header_types(s, read))
        frontier = found - reached - mentioned
        reached |= found
        if not frontier:
            break
    return frozenset(reached - mentioned)


def parameter_types(
    callees: set[str], table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None
) -> frozenset[str]:
    """The types an object literal passed to a call gets: the Capitalized words of the
    callees' signatures (`source.subscribe({ next: ... })`: `subscribe(observer?:
    Partial<Observer<T>>)` makes `next` Observer's). At most MAX_CALLEES callees."""
    words: set[str] = set()
    for name in sorted(callees)[:MAX_CALLEES]:
        for _, s, read in definers(name, FUNCTION_KINDS, table, line, lookup, limit=MAX_DEFINERS_READ):
            signature = " ".join(read(n) for n in range(code_start(s, read), s.signature_end_line + 1))
            words.update(w for w in WORD.findall(signature) if w[:1].isupper())
    return frozenset(words)
