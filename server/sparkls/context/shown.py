"""The snippets one request shows for the definitions found, each statement once: the
last step of `definitions.referenced_definitions`.

`Shown` takes the definitions the finding steps yield, in their order, renders each
(`render.render`: whole or signature) and adds what comes with it:

- a member, its holder's header (once for all its members: `class Job:`,
  `export default {`), and for a member of an exported object literal the value it
  names (`isFunction,` -> `const isFunction = typeOfTest("function")`);
- a value a call of a function of its file made (`const isRegExp = kindOfTest("RegExp")`),
  that function (what calling the value runs is what it returns);
- a class, its constructor (`__init__`, `constructor`, `new`), or, when the region
  calls the class, its first base's;
- a value annotated with a type (`const ajax: AjaxCreationMethod = ...`), that
  type's call and construct signatures; a type, its own.

It keeps what it has shown for one request; this file's snippets come before other
files' (`candidates`), in the order the finding steps chose; what comes with a
definition goes with it, wherever it is defined. Pure but for index reads.
"""

from __future__ import annotations

import itertools
import re

from sparkls.context.reach import CALL_SIGNATURE, FUNCTION_KINDS, MAX_CALL_SIGNATURES, MAX_TYPE_HOPS, TYPE_KINDS, WORD
from sparkls.context.render import ATTRIBUTE, VALUE_KINDS, code_start, fitted_lines, render
from sparkls.context.scope import Line, Scope
from sparkls.context.snippet import Snippet
from sparkls.context.symbols import Symbol

# A class is shown with its constructor: what a call of the class's name runs.
CONSTRUCTORS = ("__init__", "constructor", "new")
CLASS_KINDS = frozenset({"class"})
OBJECT = "object"  # an exported object literal (`export default {...}`)
HOLDER_KINDS = TYPE_KINDS | {OBJECT}  # what shows its header with a member (`export default {`)
# A member of one on a line of its own: `isFunction,` / `hasOwnProp: hasOwnProperty, // why`.
MEMBER_VALUE = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*(?::\s*([A-Za-z_$][\w$]*))?\s*,?\s*(?://.*)?")
# `const isFunction = typeOfTest("function")`: the function whose call made a value.
MADE_BY = re.compile(r"=\s*([A-Za-z_$][\w$]*)\s*\(")
# `const ajax: AjaxCreationMethod = ...`: a name and the type it is annotated with (one
# pattern for all names: a pattern per name would be compiled per definition).
ANNOTATED = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*:\s*([A-Z][A-Za-z0-9_]*)")


def holder(member: Symbol, candidates: list[Symbol]) -> Symbol | None:
    """The class, type or module (an exported object literal) among `candidates`
    whose lines hold `member`."""
    return next(
        (s for s in candidates if s.kind in HOLDER_KINDS and s.start_line <= member.start_line <= s.end_line), None
    )


class Shown:
    """The snippets of one request, this file's and other files' (see the module docstring)."""

    __slots__ = ("scope", "called", "same_file", "elsewhere", "_seen")

    def __init__(self, scope: Scope, called: frozenset[str]) -> None:
        self.scope = scope
        self.called = called  # the classes the region calls: their bases' constructors count
        self.same_file: list[list[Snippet]] = []
        self.elsewhere: list[list[Snippet]] = []
        self._seen: set[tuple[str, int, int]] = set()  # (path, first, last line); last -1: a header

    def candidates(self) -> list[list[Snippet]]:
        """Every definition shown, each with its ways to be shown (best first), this file's first."""
        return self.same_file + self.elsewhere

    def add(self, file_path: str, symbol: Symbol, line: Line, *, elsewhere: bool) -> None:
        """Shows a definition of the file `file_path` (`line`: its lines) and what comes
        with it, among this file's snippets or (`elsewhere`) other files'."""
        self._add(self.elsewhere if elsewhere else self.same_file, file_path, symbol, line)

    def add_header(self, file_path: str, symbol: Symbol, line: Line, *, elsewhere: bool) -> None:
        """Shows a class's or an object's header (its lines up to its signature's end), once."""
        self._header(self.elsewhere if elsewhere else self.same_file, file_path, symbol, line)

    def _add(self, into: list[list[Snippet]], file_path: str, symbol: Symbol, line: Line) -> None:
        key = (file_path, symbol.start_line, symbol.end_line)
        if key in self._seen:
            return
        self._seen.add(key)
        into.append(render(file_path, symbol, line))
        if symbol.kind == ATTRIBUTE and symbol.container:
            self._with_holder(into, file_path, symbol, line)
        if symbol.kind == "class":
            found = self.constructor_of(file_path, symbol, line)
            if found is not None:
                self._add(into, *found)
        elif symbol.kind not in TYPE_KINDS:
            self._with_annotation(into, file_path, symbol, line)
        if symbol.kind in VALUE_KINDS:
            for maker in self._maker(file_path, symbol, line):
                self._add(into, file_path, maker, line)
        if symbol.kind == "type":
            for signature in self._call_signatures(file_path, symbol.name):
                self._add(into, file_path, signature, line)

    def _header(self, into: list[list[Snippet]], file_path: str, symbol: Symbol, line: Line) -> None:
        """A holder's header, shown for its members' sake: its code lines (`export class
        Kysely extends QueryCreator {`), not the doc comment above it, which is about the
        class as a whole (kysely's run to forty lines of examples)."""
        key = (file_path, symbol.start_line, -1)
        if key in self._seen:
            return
        self._seen.add(key)
        line = fitted_lines(symbol.name, line)
        first = code_start(symbol, line)
        header = "\n".join(line(n) for n in range(first, symbol.signature_end_line + 1))
        into.append([Snippet(file_path, first, symbol.signature_end_line, "container", header)])

    def _with_holder(self, into: list[list[Snippet]], file_path: str, member: Symbol, line: Line) -> None:
        """A member's holder's header, and an object literal's member's value."""
        found = holder(member, self.scope.named_in(file_path, member.container or ""))
        if found is None:
            return
        self._header(into, file_path, found, line)
        if found.kind == OBJECT:
            for value in self._member_value(file_path, member, line):
                self._add(into, file_path, value, line)

    def _member_value(self, file_path: str, member: Symbol, line: Line) -> list[Symbol]:
        """What an object literal's member on a line of its own names, in its file: `isFunction,`
        the `const isFunction = typeOfTest(...)` (and, as with any value, `typeOfTest`, which
        made it: `_maker`); `hasOwnProp: hasOwnProperty,` the `hasOwnProperty`."""
        found = MEMBER_VALUE.fullmatch(line(member.start_line))
        if found is None or found.group(1) != member.name:
            return []
        named = self.scope.named_in(file_path, found.group(2) or member.name)
        return [s for s in named if s.container is None and s.kind != OBJECT]

    def _maker(self, file_path: str, value: Symbol, line: Line) -> list[Symbol]:
        """`const isRegExp = kindOfTest("RegExp")`: the function of its file whose call made the
        value (what calling `isRegExp` runs is what `kindOfTest` returns)."""
        made = MADE_BY.search(line(code_start(value, line)))
        if made is None or made.group(1) == value.name:
            return []
        named = self.scope.named_in(file_path, made.group(1))
        return [s for s in named if s.kind in FUNCTION_KINDS and s.container is None][:1]

    def _with_annotation(self, into: list[list[Snippet]], file_path: str, symbol: Symbol, line: Line) -> None:
        """`const ajax: AjaxCreationMethod = ...`: what calling it runs, the type's call
        signatures (this file's type, else the index's, in the value's file first)."""
        declaration = " ".join(line(n) for n in range(code_start(symbol, line), symbol.signature_end_line + 1))
        annotation = next((m for m in ANNOTATED.finditer(declaration) if m.group(1) == symbol.name), None)
        if annotation is None:
            return
        for type_path, type_symbol, type_line in itertools.islice(
            self.scope.definers(annotation.group(2), TYPE_KINDS, near=file_path), 1
        ):
            for signature in self._call_signatures(type_path, type_symbol.name):
                self._add(into, type_path, signature, type_line)

    def _call_signatures(self, file_path: str, type_name: str) -> list[Symbol]:
        """An interface's construct and call signatures (`new (): E`, `<T>(c: C): R`)."""
        members = self.scope.members_of
        return [*members(file_path, type_name, "new"), *members(file_path, type_name, CALL_SIGNATURE)][
            :MAX_CALL_SIGNATURES
        ]

    def constructor_of(
        self, file_path: str, symbol: Symbol, line: Line, hops: int = MAX_TYPE_HOPS
    ) -> tuple[str, Symbol, Line] | None:
        """The constructor a call of class `symbol` runs: its own, else (when the region
        calls it) the first of its bases' (`String(attribute="x")` runs `Field.__init__`)."""
        for constructor in CONSTRUCTORS:
            found = self.scope.members_of(file_path, symbol.name, constructor)
            if found:
                return file_path, found[0], line
        if hops == 0 or symbol.name not in self.called:
            return None
        header = " ".join(line(n) for n in range(symbol.start_line, symbol.signature_end_line + 1))
        for base in dict.fromkeys(w for w in WORD.findall(header) if w[:1].isupper() and w != symbol.name):
            for base_path, s, base_line in itertools.islice(self.scope.definers(base, CLASS_KINDS, limit=2), 2):
                found = self.constructor_of(base_path, s, base_line, hops - 1)
                if found is not None:
                    return found
        return None
