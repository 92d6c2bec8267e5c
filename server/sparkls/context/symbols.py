"""The definitions in one file: functions, methods, classes, types, constants.

`extract_symbols` turns a tree into `Symbol` records: each with its name, kind,
lines, the end of its signature and of its doc, and its container (the class, impl,
trait or module it sits in). They feed the workspace symbol index
(`sparkls.context.index`) and the definition snippets of an edit's context.

What counts as a definition is each language's `symbols.scm` query, in the capture
names below; this module names no node types, so it serves every grammar alike.

- `@symbol.<kind>` is a definition, with `@name` (several names give several
  symbols: Go's `const A, B = 1, 2`), and `@body` and `@docstring` (Python) when it
  has them. Patterns may match the same definition more than once (with and without
  a body); their captures merge. A name captured as `@symbol.import` is no definition
  (`const fs = require("fs")`); `variable` gives way to any other kind captured for
  the same name.
- `@scope` holds members but is no symbol (a Rust impl): its `@name` is their container.
- `@scan` is no definition but may hold some (Python's module-level `if`, `try`; the
  body of a JavaScript file's top-level wrapper function, below).
- `@receiver` names the container of a method declared outside it (Go).
- `@wrapped` / `@wrapper`: the wrapper's lines belong to the definition (decorators,
  `export`, a Go `type` declaration of one spec).
- `@prefix` nodes right above a definition belong to it (doc comments, attributes,
  TypeScript member decorators) when each ends on the line before the next and starts
  its own line.
- `@part`, in a definition of several names without a body, is one name's own piece
  and lines (`MAX_DIGITS = 1e9` of `var EXP_LIMIT = 9e15, MAX_DIGITS = 1e9, ...`).
- `@members` is a doc comment whose tags declare members (`docmembers.py`: JSDoc's
  `@param {T} [options.name]`, a `@typedef`'s `@property`).
- `@receiver` on a key of the object literal a kept function returns makes the key a
  member of what that function returns.
- `@owner` is the value of `owner.name = ...`: its names count only when the file
  declares `owner` as what holds members, TypeScript's expando declarations: `@holds`
  (an object literal, a function: `name` is its member) or `@holds.exports` (the
  module's exports under another name, `var _exports = module.exports = {}`: `name` is
  the module's own, no container).

Patterns start at most `SCAN_DEPTH` (two) levels below the root, and below each holder
(class, type, impl, module) and `@scan` node, found so: function bodies are never
searched, which keeps a 5,000-line file at a few milliseconds and leaves locals
unmatched; a query names the parent of a definition that sits deeper. One kind of
function body is searched, as the program is: that of a wrapper a JavaScript file calls
at its top, where the whole file's code sits (`(function () {...})();`, `!function
() {...}();`, a UMD bundle's wrapper and the factory passed to it, AMD's `define([...],
function () {...})`); what it defines is the module's, at the top, with no container.

Kinds: `function`, `method`, `class` (Python, JS, TS), `type` (TS interfaces, enums
and aliases; Go types; Rust structs, enums, unions, traits, aliases), `module` (TS
namespaces, Rust modules), `object` (a JS/TS exported object literal: `export default
{...}`, `module.exports = {...}`), `constant`, `variable`, `attribute`, `macro` (Rust
`macro_rules!`). Each `symbols.scm` says which of its definitions are which.

Attributes are what a class's instances hold, and a type's members: a variable a
class body declares (`x: int = 0`, a JS/TS field), any variable a type's body declares
(a Go struct's fields, a TypeScript interface's or object type's properties, an enum's
members; UPPER_CASE ones too), and, through the language's `attributes.scm` query, each
statement of its methods that assigns one (`self.x = ...`, `this.x = ...`): one
symbol per statement, all with the class as container (TypeScript's parameter
properties, `constructor(private name: string)`, count as such statements). That query
is the one that searches method bodies, and only inside classes and what JavaScript
wrote before classes: a top-level function whose name is Capitalized (a constructor
function) and a method assigned to `Name.prototype.method`, both for `Name`.

Rules, the same in every language:

- Lines are 0-based and inclusive. `start_line` is the first line of the definition
  with its wrappers and prefixes; `end_line` its last line.
- The signature is everything before the body: `signature_end_line` is the last line
  of what precedes the body (`def f(...):`, `fn f() -> T where ...`, `class A {`).
  A definition without a body (a constant, a type alias, `struct S;`) is all signature.
- `doc_end_line` is the last line of the docstring after the signature (Python), else
  `signature_end_line`: doc comments above a definition are already inside its
  `start_line`.. lines, so lines `start_line..doc_end_line` always show the signature
  with its doc.
- Definitions inside a function (or any other definition that is not a class, type,
  impl or module) are locals and are dropped, with everything inside them; a top-level
  wrapper function (above) is no definition, its body is the module's top level.
- A function directly inside a class, type (trait, interface, struct) or impl is a
  `method`, and its `container` is that holder's name. Anything else nested in such a
  holder or in a module also gets the holder's name as `container`; top-level
  definitions have none (a Go method: its receiver's type).
- A `variable` inside a type is an `attribute`; elsewhere one whose name is
  UPPER_CASE (has letters, none lower-case) is a `constant`. Variables are kept at
  the top level only (also under a module-level `if` or `try`, and in a top-level
  wrapper's body); constants also inside classes, impls and modules.

Pure: reads a tree and its source, returns records; no I/O, no LSP.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import tree_sitter
from tree_sitter import Node, QueryCursor

from sparkls.context import recovery
from sparkls.context.docmembers import documented_members
from sparkls.context.matches import (
    ATTRIBUTE, HOLDERS, IMPORT, METHOD_HOLDERS, NAME, SCOPE, STATEMENT, VARIABLE, Definition, Found, scan,
)
from sparkls.context.queries import query
from sparkls.documents.languages import new_parser


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition, in whole lines (0-based, inclusive)."""

    name: str
    kind: str  # function, method, class, type, module, object, constant, variable, attribute, macro
    start_line: int  # with decorators, attributes, `export`, doc comments above
    end_line: int
    signature_end_line: int  # lines start_line..signature_end_line are the signature
    doc_end_line: int  # ...and start_line..doc_end_line the signature with its doc
    container: str | None  # the enclosing class, impl, trait or module, or a method's receiver


def _last_row(node: Node) -> int:
    """The node's last line; one that ends at column 0 (a comment that holds its line
    break, in some grammars) ends on the line before."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _starts_its_line(node: Node, source: bytes) -> bool:
    """Whether only blanks come before `node` on its first line (not a trailing comment)."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return not source[line_start : node.start_byte].strip()


def _first_node(node: Node, found: Found, source: bytes) -> tuple[Node, Node]:
    """(first node, outermost node) of a definition: its wrappers, then its prefixes."""
    wrapper_of = found.wrapper_of
    while node in wrapper_of:
        node = wrapper_of[node]
    outer = first = node
    prefixes = found.prefixes
    if prefixes:
        sibling = first.prev_named_sibling
        while (
            sibling is not None
            and sibling in prefixes
            and _last_row(sibling) >= first.start_point.row - 1
            and _starts_its_line(sibling, source)
        ):
            first, sibling = sibling, sibling.prev_named_sibling
    return first, outer


def _signature_end(definition: Definition, start_row: int, end_line: int) -> int:
    body = definition.body
    if body is None:
        return end_line
    before = body.prev_sibling
    row = before.end_point.row if before is not None else body.start_point.row
    return max(start_row, min(row, end_line))


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def extract_symbols(language_id: str, tree: tree_sitter.Tree, source: bytes, *, recover: bool = True) -> list[Symbol]:
    """The definitions in `tree` (parsed from `source`), in file order; with
    `recover`, those of top-level text a parse error swallowed too (`recovery.py`)."""
    symbols = _extract(language_id, tree, source)
    if recover and tree.root_node.has_error:
        damaged = recovery.damaged_lines(tree.root_node, source)
        if damaged:
            symbols = _recovered(language_id, symbols, damaged, source)
    return symbols


def _recovered(language_id: str, symbols: list[Symbol], damaged: list[tuple[int, int]], source: bytes) -> list[Symbol]:
    """`symbols` outside the damaged lines, and those of each piece of them parsed apart."""
    parser = new_parser(language_id)
    if parser is None:
        return symbols
    lines = source.split(b"\n")
    kept = [s for s in symbols if not any(first <= s.start_line <= last for first, last in damaged)]
    for first, last in damaged:
        for start, end in recovery.chunks(lines.__getitem__, first, min(last, len(lines) - 1)):
            piece = b"\n".join(lines[start : end + 1]) + b"\n"
            for s in _extract(language_id, parser.parse(piece), piece):
                kept.append(
                    replace(
                        s,
                        start_line=s.start_line + start,
                        end_line=s.end_line + start,
                        signature_end_line=s.signature_end_line + start,
                        doc_end_line=s.doc_end_line + start,
                    )
                )
    return sorted(kept, key=lambda s: s.start_line)


def _extract(language_id: str, tree: tree_sitter.Tree, source: bytes) -> list[Symbol]:
    compiled = query(language_id, "symbols")
    if compiled is None:
        return []
    found = scan(QueryCursor(compiled), tree.root_node)
    ordered = sorted(found.definitions.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))
    symbols: list[Symbol] = []
    # What holds attributes, in file order, with the name they belong to: kept classes,
    # and (JavaScript's older classes) constructor functions and prototype methods.
    classes: list[tuple[Node, str]] = []
    holders: dict[str, bool] = {}  # what holds members `owner.name = ...` assigns: is it the module's exports?
    for node, exports in found.holders:
        holders[_text(node, source)] = holders.get(_text(node, source), False) or exports
    # Enclosing definitions, innermost last: (end byte, kind, first name, kept).
    stack: list[tuple[int, str, str | None, bool]] = []
    for definition in ordered:
        node = definition.node
        end_byte = node.end_byte
        while stack and stack[-1][0] < end_byte:
            stack.pop()
        parent = stack[-1] if stack else None
        kept = parent is None or (parent[3] and parent[1] in HOLDERS)
        if definition.receiver is not None and definition.kind == ATTRIBUTE and parent is not None and parent[3]:
            kept = True  # a key of the object literal a kept function returns: a member of its result
        kind = definition.kind
        named = [(n, k) for n, k in definition.names.items() if k != IMPORT]
        owner = _text(definition.owner, source) if definition.owner is not None else None
        exports = holders.get(owner) if owner is not None else None  # None: holds no members
        if exports is not None:
            named += [(n, k) for n, k in definition.owned.items() if n not in definition.names and k != IMPORT]
        names = [(_text(n, source), k) for n, k in named]
        stack.append((end_byte, kind, names[0][0] if names else None, kept))
        if kind == "class" and names and kept:
            classes.append((node, names[0][0]))
        elif names and parent is None and definition.receiver is not None:
            classes.append((node, _text(definition.receiver, source)))  # `this.x` in Layer.prototype.match
        elif names and parent is None and kind == "function" and names[0][0][:1].isupper():
            classes.append((node, names[0][0]))  # `this.x` in a constructor function: function Layer() {...}
        if not kept or kind == SCOPE or not names:
            continue
        first, outer = _first_node(node, found, source)
        end_line = _last_row(outer)
        signature_end = _signature_end(definition, node.start_point.row, end_line)
        docstring = definition.docstring
        doc_end = max(signature_end, _last_row(docstring)) if docstring is not None else signature_end
        container = parent[2] if parent is not None else None
        if definition.receiver is not None:
            container = _text(definition.receiver, source)
        elif exports is not None:
            container = None if exports else owner  # the module's exports are its top level
        start_line = first.start_point.row
        pieces = _pieces(named, found.parts, definition, start_line, end_line)
        for (name, name_kind), (start_line, end_line) in zip(names, pieces):
            if definition.body is None:
                signature_end = doc_end = end_line
            if name_kind == VARIABLE:
                if parent is not None and parent[1] == "type":
                    name_kind = ATTRIBUTE  # a member of a struct, interface, enum or object type
                elif name.isupper():
                    name_kind = "constant"
                elif parent is not None and parent[1] == "class":
                    name_kind = ATTRIBUTE  # a field the class body declares
                elif parent is not None:
                    continue  # a local of a module or impl
            elif name_kind == "function" and parent is not None and parent[1] in METHOD_HOLDERS:
                name_kind = "method"
            symbols.append(Symbol(name, name_kind, start_line, end_line, signature_end, doc_end, container))
    extra = _assigned_attributes(language_id, classes, source) if classes else []
    extra += _documented(found.member_docs, source)
    if extra:
        symbols = sorted(symbols + extra, key=lambda s: s.start_line)
    return symbols


def _pieces(
    named: list[tuple[Node, str]], parts: dict[Node, Node], definition: Definition, start_line: int, end_line: int
) -> list[tuple[int, int]]:
    """Each name's lines: the definition's, but in one of several names without a body
    (`var EXP_LIMIT = 9e15, MAX_DIGITS = 1e9, ...` over a hundred lines) its own piece,
    the first keeping the lines above it (its doc comment, `var`)."""
    if len(named) < 2 or definition.body is not None:
        return [(start_line, end_line)] * len(named)
    found = []
    for index, (name, _) in enumerate(named):
        part = parts.get(name)
        if part is None:
            found.append((start_line, end_line))
        else:
            found.append((start_line if index == 0 else part.start_point.row, _last_row(part)))
    return found


def _documented(comments: list[Node], source: bytes) -> list[Symbol]:
    """One `attribute` symbol per member a doc comment declares (`docmembers`), on its lines."""
    found: list[Symbol] = []
    for comment in dict.fromkeys(comments):  # a window's edge may bring one twice
        row = comment.start_point.row
        for name, container, first, last in documented_members(_text(comment, source)):
            found.append(Symbol(name, ATTRIBUTE, row + first, row + last, row + last, row + last, container))
    return found


def _assigned_attributes(language_id: str, classes: list[tuple[Node, str]], source: bytes) -> list[Symbol]:
    """One `attribute` symbol per statement of a class's methods that assigns one
    (the language's `attributes.scm`), whose container is the innermost class (a
    class defined inside a function is no symbol: its attributes go to the class
    around that function)."""
    compiled = query(language_id, "attributes")
    if compiled is None:
        return []
    cursor = QueryCursor(compiled)
    found: list[Symbol] = []
    outer_end = -1
    for index, (node, _) in enumerate(classes):
        if node.start_byte < outer_end:
            continue  # nested: searched with its outermost class
        outer_end = node.end_byte
        for _, match in cursor.matches(node):
            statement = match[STATEMENT][0]
            owner = next(
                name
                for other, name in reversed(classes[: _last_starting_before(classes, statement.start_byte, index)])
                if other.end_byte >= statement.end_byte
            )
            first, last = statement.start_point.row, _last_row(statement)
            for name_node in match[NAME]:
                found.append(Symbol(_text(name_node, source), ATTRIBUTE, first, last, last, last, owner))
    return found


def _last_starting_before(classes: list[tuple[Node, str]], byte: int, start: int) -> int:
    """How many of `classes` (in file order) start before `byte`, from index `start` on."""
    end = start + 1
    while end < len(classes) and classes[end][0].start_byte < byte:
        end += 1
    return end
