"""Types followed one step further than the region spells them, by what the code declares.

A region reaches members of types it never names: `const { load, save } =
makeStore()` (the declared return type of a function in another file), `job.promise`
where `job = createJob()`, `emitter.on("change", (e) => e.item)` (the callback's
parameter, typed where `on` is declared, often by an alias), `this.store.items[0].name`
(a field's declared type). This module reads those declarations, one step:

- `returned_types`: the return types that the signatures of the functions and methods
  the region calls for a value declare (`x = f(`, `x := obj.f(`, `f(...).x`, `for x
  in f(`), generic arguments included (`Promise<Store<Job>>`); a method's definers are
  those of the types already reached;
- `callback_types`: the signature words of the calls the region passes a function to
  (`on(e => ...)`, `on(function (e) {...})`, `on(lambda e: ...)`);
- `field_types`: the declared types of the fields the region reaches through
  (`.store.` where a reached type declares `store: Store`);
- `destructured`: the keys a TS/JS pattern takes out of an object (`{ load, save }`),
  which name members as keys do.

`reach.reached_types` then follows what these name through their headers (`extends`,
unions, intersections, Go's embedded types). As in reach.py, the words only rank other
files' definitions and make members named by key count; nothing here sends a snippet.
Pure but for index reads; `written.declared_return` and `written.type_words` read the
written types, as next edit's follow-ups do (`returns_in`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sparkls.context.lookup import Lookup
from sparkls.context.reach import FUNCTION_KINDS, MAX_CALLEES, MAX_DEFINERS_READ, Definer, definers
from sparkls.context.render import code_start
from sparkls.context.written import declared_return, type_words
from sparkls.context.symbols import Symbol
from sparkls.context.symtable import SymbolTable
from sparkls.documents.store import Document

_NAME = r"[A-Za-z_$][\w$]*"
# `x = f(`, `x := obj.f(`, `const { a } = await f<T>(`, `for x in f(`, `with f() as x`, `range f(`:
# a call whose value the region keeps (group 1: a receiver's last name, 2: the callee).
_KEPT_CALL = re.compile(
    rf"(?:(?<![=!<>:+\-*/%&|^])=(?![=>])|:=|\bin\b|\bwith\b|\bof\b)\s*(?:await\s+|yield\s+|range\s+)?"
    rf"(?:(?:{_NAME}\s*\.\s*)*({_NAME})\s*\.\s*)?({_NAME})\s*(?:<[^<>()]*>)?\("
)
# `f(...).x`, `obj.f().x`: a call whose value the region reaches into.
_CHAINED_CALL = re.compile(rf"(?:({_NAME})\s*\.\s*)?({_NAME})\s*(?:<[^<>()]*>)?\([^()]*\)\s*[?!]?\.\s*[A-Za-z_$#]")
# A function literal passed to a call: where it starts.
_FUNCTION_LITERAL = re.compile(r"=>|\bfunction\s*\w*\s*\(|\blambda\b|\bfunc\s*\(")
# `.store.`, `.items[0].`: a member the region reaches through.
_THROUGH = re.compile(rf"\.\s*({_NAME})(?=\s*(?:\[[^\]]*\]\s*)?[?!]?\.)")
# `{ load, save: keep, retries = 3, ...rest }` in `const {...} =` or a parameter `({...}) =>`.
_PATTERN = re.compile(r"(?:\b(?:const|let|var)\s*|[(,]\s*)\{([^{}]*)\}\s*(?:=(?![=>])|[:)])")
_KEY = re.compile(rf"(?:^|,)\s*({_NAME})\s*(?=[:,=]|$)")
MAX_FIELDS = 8  # members reached through, whose declared types are read
FIELD_KINDS = frozenset({"attribute", "variable"})


def destructured(text: str) -> frozenset[str]:
    """The keys TS/JS object patterns take (`const { load, save: keep } = ...` -> load,
    save; `({ item, owner }) =>` -> item, owner): members named as keys are."""
    return frozenset(key for m in _PATTERN.finditer(text) for key in _KEY.findall(m.group(1)))


def _signature(symbol: Symbol, line: Callable[[int], str]) -> str:
    return "\n".join(line(n) for n in range(code_start(symbol, line), symbol.signature_end_line + 1))


def _language(path: str) -> str:
    return "python" if path.endswith((".py", ".pyi")) else "go" if path.endswith(".go") else "typescript"


def _definers(
    name: str, wanted: Callable[[Symbol], bool], here: str, table: SymbolTable, line: Callable[[int], str],
    lookup: Lookup | None,
) -> list[Definer]:
    """The definitions `name` that `wanted` keeps: this file's, else the index's first
    MAX_DEFINERS_READ whose file reads as indexed."""
    local = [(here, s, line) for s in table.named(name) if wanted(s)]
    if local or lookup is None:
        return local
    found: list[Definer] = []
    for path, s in lookup.definitions(name):
        if len(found) == MAX_DEFINERS_READ:
            break
        lines = lookup.file_lines(path) if wanted(s) else None
        if lines is not None and s.end_line < len(lines):
            found.append((path, s, lines.__getitem__))
    return found


def returned_types(
    text: str, here: str, table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None,
    reached: frozenset[str],
) -> frozenset[str]:
    """The types the functions the region calls for a value declare they return (see the
    module docstring). A method called on a receiver counts through the definers whose
    type is among `reached`; a plain call through this file's function, else the index's
    top-level ones. At most MAX_CALLEES callees."""
    calls = [(m.group(1), m.group(2)) for p in (_KEPT_CALL, _CHAINED_CALL) for m in p.finditer(text)]
    words: set[str] = set()
    for receiver, callee in list(dict.fromkeys(calls))[:MAX_CALLEES]:  # a class called: no function definers
        def method(s: Symbol) -> bool:
            return s.kind in FUNCTION_KINDS and s.container in reached

        def function(s: Symbol) -> bool:
            return s.kind in FUNCTION_KINDS and s.container is None

        found = _definers(callee, method, here, table, line, lookup) if receiver is not None else []
        if not found:  # a plain call, or one through a module (`lib.NewServer()`: a file of lib/)
            found = [d for d in _definers(callee, function, here, table, line, lookup)
                     if receiver is None or receiver in _module_names(d[0])]
        for path, symbol, read in found:
            written = declared_return(_signature(symbol, read), _language(path))
            words.update(type_words(written) if written else ())
    return frozenset(words)


def _module_names(path: str) -> tuple[str, str]:
    """The names a module qualifier may give the file `path`: its stem, its folder's name."""
    folder, _, name = path.rpartition("/")
    return name.partition(".")[0], folder.rpartition("/")[2]


def _callees_given_functions(text: str) -> list[str]:
    """The callees of the calls whose arguments hold a function literal."""
    callees: list[str] = []
    for literal in _FUNCTION_LITERAL.finditer(text):
        depth, at = 0, literal.start() - 1
        while at >= 0 and depth >= 0 and text[at] != ";":
            depth += {")": 1, "(": -1}.get(text[at], 0)
            at -= 1
        if depth < 0:  # the `(` of the call holding it: its callee's name is right before
            name = re.search(rf"({_NAME})\s*(?:<[^<>()]*>)?\s*$", text[max(0, at - 80) : at + 1])
            if name is not None and not name.group(1)[:1].isupper():
                callees.append(name.group(1))
    return list(dict.fromkeys(callees))[:MAX_CALLEES]


def callback_types(
    text: str, here: str, table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None
) -> frozenset[str]:
    """The types named in the signatures of the calls the region passes a function to:
    `on("change", (e) => e.item)` where `on(event: string, listener: Listener)` makes
    `Listener` (and, through its header, what its parameter is) reached."""
    words: set[str] = set()
    for callee in _callees_given_functions(text):
        for path, symbol, read in definers(callee, FUNCTION_KINDS, table, line, lookup, here=here,
                                           limit=MAX_DEFINERS_READ):
            words.update(type_words(_signature(symbol, read).split("{", 1)[0]))
    return frozenset(words)


def _field_type(name: str, declaration: str) -> list[str]:
    """The types a field's declaration gives it: `store: Store<Job>`, `store?: Store`,
    Go `Store *Store`, `self.store = Store(...)`, `store = new Store()`."""
    typed = re.search(rf"(?<![\w$]){re.escape(name)}\s*(?:[?!]?:\s*|\s+(?=[*\[\w]))([^=;{{]+)", declaration)
    if typed is not None:
        return type_words(typed.group(1).split("//")[0].split("#")[0])
    made = re.search(rf"(?<![\w$]){re.escape(name)}\s*=\s*(?:new\s+)?((?:{_NAME}\.)*[A-Z][\w$]*)", declaration)
    return type_words(made.group(1)) if made is not None else []


def field_types(
    text: str, here: str, table: SymbolTable, line: Callable[[int], str], lookup: Lookup | None,
    reached: frozenset[str],
) -> frozenset[str]:
    """The declared types of the members the region reaches through (`.store.items[0].`),
    where a type among `reached` declares them: this file's, else the index's."""
    words: set[str] = set()
    for name in list(dict.fromkeys(_THROUGH.findall(text)))[:MAX_FIELDS]:
        def wanted(s: Symbol) -> bool:
            return s.container in reached and s.kind in FIELD_KINDS

        for _, symbol, read in _definers(name, wanted, here, table, line, lookup):
            words.update(_field_type(name, _signature(symbol, read)))
    return frozenset(words)


def returns_in(doc: Document, table: SymbolTable, language: str) -> Callable[[str], str | None]:
    """A function's name -> the type (its last name) that its signature in `doc`
    declares it returns: `resolve.declared_type`'s `returns`, for next edit."""

    def returns(name: str) -> str | None:
        for symbol in table.named(name):
            if symbol.kind in FUNCTION_KINDS:
                written = declared_return(_signature(symbol, doc.lines.line_text), language)
                found = [w for w in type_words(written or "") if w not in ("Promise", "Optional", "Awaitable")]
                if found:
                    return found[0]
        return None

    return returns
