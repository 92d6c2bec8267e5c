"""Where the next edit may be: candidate regions that follow from the recent edits.

From the document's recent edits (`history.py`), newest first:

- **a rename** (`raduis` -> `radius`): every line that still uses an old name. A name
  bound inside a function around the edit (a parameter, or a local: assignment,
  `for` or `with ... as` target, `let`/`const`/`var`, `:=`) is that function's: only its
  lines are searched, less any function inside it that binds the name again; no other
  function is ever offered for it (another function's parameter or local of that name
  is another variable). Any other name (a module's function, class or constant) is
  looked for in the whole window, except in functions that bind a variable of that
  name of their own. What binds a name is `bindings.scm`, a query per grammar; a
  function is a node with a body and parameters;
- **a changed signature** (an edit inside a definition's parameter list, read from
  the tree: the definition's `parameters` and `name` fields): every call of that
  name, as the lines of the call. A method's (a Go receiver's, a JS/TS class or object
  method, a Python `def` in a class body) is called through a member access: only
  `obj.name(...)`, `self.name(...)`, `this.name(...)` count, never a bare `name(...)`;
  a function's is the bare `name(...)`, never `obj.name(...)`. A parameter only
  renamed (nothing added, removed or defaulted) changes only the calls that pass it
  by name (`raduis=2`): only those are offered;
- **a new member** (a line added inside a class or enum, or a Go `const` block of a
  named type: `members.py`): every `match`/`case`, `if`/`elif`/`else if` chain or
  `switch` whose test names a member of it (`Color.RED`; a Go constant bare) but not
  the new one, as the whole branching statement, which needs an arm for the new one.

Every hit is an identifier in code: a match inside a comment, a docstring, a string
literal or a regex is skipped (read from the tree; an interpolation in a string,
`f"{name}"` or `${name}`, is code, and so is what the TypeScript checker reads in a
`/** */` comment: a type in braces, `@returns {Command}`, and a `@param`'s name). A
document without a tree counts all its text.
Only the lines within `WINDOW_LINES` of the newest edit are searched, so the work is
the window's, never the whole file's. Hits on touching lines make one region; the
newest edit's own lines are never a candidate. Candidates are ranked after the
cursor first, nearest first. Pure: reads a `Document`, knows nothing of LSP or models.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor

from sparkls.context.queries import query
from sparkls.documents.store import Document
from sparkls.nextedit.contract import same_calls
from sparkls.nextedit.history import Edit, only_renames, renames
from sparkls.nextedit.members import branch_of, container_of, has_arms, new_members
from sparkls.nextedit.tree import ancestors, lines_of, node_at

WINDOW_LINES = 400  # lines searched on each side of the newest edit
MAX_CALL_LINES = 8  # a call longer than this is shown as the line of its name
JSDOC_REFERENCE = re.compile(r"(?P<type>\{[^{}\n]*\})|@param\s+(?:(?P<param_type>\{[^{}\n]*\})\s*)?\[?(?P<name>[\w$.]+)")
CODE_INSIDE_TEXT = frozenset({"interpolation", "template_substitution"})  # `f"{x}"`, `${x}`


@dataclass(frozen=True, slots=True)
class Candidate:
    """Whole lines `first`..`last` (0-based) of the document, and why they are one."""

    first: int
    last: int
    reason: str  # "use of raduis", "call of area", "branch on Color"


def dotted(text: str, at: int) -> bool:
    """Whether the word at `at` follows a dot: a member (`obj.name`), not a spread (`...name`)."""
    return re.search(r"(?<!\.)\.\s*$", text[max(0, at - 8) : at]) is not None


def _own_member(doc: Document, text: str, at: int, owner: str | None) -> bool:
    """Whether `receiver.name` at `at` (the dot) may be `owner`'s member: not
    `self`/`this` inside another class."""
    receiver = re.search(r"([\w$]+)\s*$", text[max(0, at - 40) : at])
    if owner is None or receiver is None or receiver.group(1) not in ("self", "this", "cls"):
        return True
    return container_of(doc, at) == owner


def word_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


def signature_of(doc: Document, offset: int) -> tuple[str, bool] | None:
    """The name of the definition whose parameter list holds `offset`, if any, and
    whether it is a method (called as `obj.name(...)`, never as a bare `name(...)`)."""
    byte = doc.lines.byte_point(offset)[0]
    for node in ancestors(node_at(doc, offset)):
        params = node.child_by_field_name("parameters")
        name = node.child_by_field_name("name")
        if params is not None and name is not None and params.start_byte <= byte <= params.end_byte:
            return doc.node_text(name), is_method(node)
    return None


def changed_signature(doc: Document, edit: Edit) -> tuple[str, bool] | None:
    """`signature_of` the edit, when the edit changed how the function is called: an
    edit inside a parameter list that only adds or changes types ("add type hints")
    changes no call (nextedit/contract.py)."""
    found = signature_of(doc, edit.start)
    if found is None:
        return None
    byte = doc.lines.byte_point(edit.start)[0]
    for node in ancestors(node_at(doc, edit.start)):
        params = node.child_by_field_name("parameters")
        if params is not None and node.child_by_field_name("name") is not None and params.start_byte <= byte <= params.end_byte:
            start, end = doc.point_offset(params.start_point), doc.point_offset(params.end_point)
            if edit.end <= start or edit.start >= end:
                return None  # next to the list, not in it: a return type (`-> float`)
            if start <= edit.start and edit.end <= end:
                old = doc.text[start : edit.start] + edit.old + doc.text[edit.end : end]
                if same_calls(old, doc.text[start:end], doc.language_id):
                    return None
            break
    return found


def is_method(definition: Node) -> bool:
    """A method: a Go receiver's, a JS/TS `method_definition`/`method_signature`, or a
    Python `def` directly in a class body (decorated or not)."""
    if "method" in definition.type or definition.child_by_field_name("receiver") is not None:
        return True
    above = definition.parent
    if above is not None and above.type == "decorated_definition":
        above = above.parent
    return above is not None and above.type == "block" and above.parent is not None and "class" in above.parent.type


def in_code(doc: Document, offset: int, *, literal: bool = False) -> bool:
    """Whether the word at `offset` is code: not inside a comment, a string literal (a
    docstring, a template) or a regex, unless inside an interpolation in it
    (`f"{name}"`, `${name}`) or a JSDoc tag's type or name (`_jsdoc_reference`).
    `literal`: what is at `offset` is a string literal itself (`"int8"`, a member of a
    union type), code unless it is inside one of those. Without a tree, all text
    counts as code."""
    tree = doc.tree_around(offset, offset + 1)
    if tree is None:
        return True
    start = doc.lines.byte_point(offset)[0]
    for node in ancestors(tree.root_node.descendant_for_byte_range(start, start + 1)):
        if literal and "string" in node.type and node.start_byte == start:
            literal = False  # the literal itself: what is around it decides
            continue
        if node.type in CODE_INSIDE_TEXT:
            return True
        if "comment" in node.type:
            return doc.node_text(node).startswith("/**") and _jsdoc_reference(doc, offset)
        if "string" in node.type or node.type == "regex":
            return False
    return True


def _jsdoc_reference(doc: Document, offset: int) -> bool:
    """Whether the word at `offset`, in a `/** */` comment, is one the TypeScript checker
    reads: inside a type in braces (`@returns {Command}`) or a `@param`'s name."""
    line = doc.lines.line_of(offset)
    line_start = doc.lines.starts[line]
    text, column = doc.lines.line_text(line), offset - line_start
    return any(
        match.start(group) <= column < match.end(group)
        for match in JSDOC_REFERENCE.finditer(text)
        for group in ("type", "param_type", "name")
        if match.group(group) is not None
    )


def _is_function(node: Node) -> bool:
    """A function, method, lambda or closure: a node with a body and parameters."""
    has_parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    return has_parameters is not None and node.child_by_field_name("body") is not None


def _owner(node: Node) -> Node | None:
    """The function a binding belongs to (a nested function's name is its parent's)."""
    for above in ancestors(node.parent):
        if _is_function(above) and above.child_by_field_name("name") != node:
            return above
    return None


def span_of(node: Node | None) -> tuple[int, int] | None:
    return (node.start_byte, node.end_byte) if node is not None else None


@dataclass(frozen=True, slots=True)
class _Bound:
    """The names a function binds itself (its parameters, its locals) and those it
    declares another scope's (`global`/`nonlocal`: `free`)."""

    parameters: frozenset[str]
    locals: frozenset[str]
    free: frozenset[str]

    def binds(self, names: tuple[str, ...]) -> bool:
        """Whether `names` (a rename's old and new) are this function's own: one is
        bound here and neither is declared another scope's (half renamed, either may
        be the one still declared)."""
        own = self.parameters | self.locals
        return self.free.isdisjoint(names) and not own.isdisjoint(names)


class Scopes:
    """Which function a name belongs to, each function's bindings read once."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.query = query(doc.language_id, "bindings") if doc.parses else None
        self._bound: dict[tuple[int, int], _Bound] = {}

    def bound(self, function: Node) -> _Bound:
        key = (function.start_byte, function.end_byte)
        if key not in self._bound:
            self._bound[key] = self._read(function)
        return self._bound[key]

    def _read(self, function: Node) -> _Bound:
        if self.query is None:
            return _Bound(frozenset(), frozenset(), frozenset())
        parameters = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
        found: dict[str, set[str]] = {"parameters": set(), "locals": set(), "free": set()}
        for capture, nodes in QueryCursor(self.query).captures(function).items():
            for node in nodes:
                if span_of(_owner(node)) != span_of(function) or (
                    node.parent is not None and node.parent.child_by_field_name("type") == node
                ):
                    continue
                inside = parameters is not None and parameters.start_byte <= node.start_byte < parameters.end_byte
                kind = "free" if capture == "free" else "parameters" if inside else "locals"
                found[kind].add(self.doc.node_text(node))
        return _Bound(frozenset(found["parameters"]), frozenset(found["locals"]), frozenset(found["free"]))

    def home(self, offset: int, names: tuple[str, ...]) -> Node | None:
        """The innermost function around `offset` that binds one of `names` (a
        parameter or a local), or None: then the names are the module's."""
        if self.query is None:
            return None
        for node in ancestors(node_at(self.doc, offset)):
            if _is_function(node) and self.bound(node).binds(names):
                return node
        return None


def _identifier_at(doc: Document, edit: Edit, name: str) -> tuple[Node, int] | None:
    """The identifier `name` that `edit` wrote (a word the edit touches), and its offset."""
    lines = doc.lines
    first, last = lines.line_of(edit.start), lines.line_of(edit.end)
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
    for match in word_pattern(name).finditer(doc.text, lines.starts[first], end):
        if match.start() <= edit.end and edit.start <= match.end():
            node = node_at(doc, match.start())
            if node is not None and doc.node_text(node) == name:
                return node, match.start()
    return None


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and span_of(a) == span_of(b)


def _definition(doc: Document, ident: Node, offset: int, names: tuple[str, str]) -> tuple[bool, str | None] | None:
    """(member, its container) when `ident` (at `offset`) names a definition other files can use."""
    parent = ident.parent
    if parent is None or "parameter" in parent.type:
        return None
    container = container_of(doc, offset)
    if parent.type in ("attribute", "member_expression") and doc.node_text(parent).split(".")[0] in ("self", "this"):
        target = parent.parent
        left = target.child_by_field_name("left") if target is not None else None
        # a field: `self.count = count`, `this.count = count` (the parameter is another name)
        return (True, container) if _same(left, parent) else None
    if Scopes(doc).home(offset, names) is not None:
        return None  # a function's own parameter or local
    if _same(parent.child_by_field_name("name"), ident) or (
        "field" in parent.type and _same(parent.child_by_field_name("property"), ident)
    ):
        member = is_method(parent) or "field" in parent.type or "property" in parent.type
        return member, container if member else None
    if parent.type == "assignment" and _same(parent.child_by_field_name("left"), ident):
        return container is not None, container  # a module's variable, or a class attribute
    return None


def renamed_definition(doc: Document, edit: Edit, old: str, new: str) -> tuple[bool, str | None] | None:
    """When `edit` renamed `old` to `new` where it is defined and other code reaches it
    by name (not a function's own parameter or local): (whether it is a member, reached
    as `obj.name`: a method or a field; the class it belongs to). Else None."""
    at = _identifier_at(doc, edit, new)
    return _definition(doc, *at, (old, new)) if at is not None else None


def renamed_member(doc: Document, edit: Edit, new: str) -> bool:
    """Whether the name `edit` wrote is reached as a member: written after a dot
    (`self.hour`, `this.count`) or a method's or field's own definition."""
    at = _identifier_at(doc, edit, new)
    if at is None:
        return False
    if re.search(r"\.\s*$", doc.text[max(0, at[1] - 8) : at[1]]):
        return True
    definition = _definition(doc, *at, (new, new))
    return definition is not None and definition[0]


def call_lines(doc: Document, offset: int, line: int) -> tuple[int, int]:
    for node in ancestors(node_at(doc, offset)):
        if "call" in node.type or "invocation" in node.type:
            first, last = lines_of(node)
            return (first, last) if last - first < MAX_CALL_LINES else (line, line)
    return line, line


def passes_by_name(doc: Document, first: int, last: int, names: list[str]) -> bool:
    """Whether the call on lines `first`..`last` passes one of `names` as a keyword
    argument (`radius=2`): what a renamed parameter changes at a call."""
    lines = doc.lines
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
    call = doc.text[lines.starts[first]:end]
    return any(re.search(rf"(?<![\w$.]){re.escape(n)}\s*=(?!=)", call) for n in names)


def find_candidates(doc: Document, edits: list[Edit], cursor: int, *, limit: int = 3) -> list[Candidate]:
    """Up to `limit` regions where an edit following from `edits` may be due."""
    if not edits:
        return []
    text, lines = doc.text, doc.lines
    newest = edits[-1]
    own = (lines.line_of(newest.start), lines.line_of(newest.end))
    lo = max(0, own[0] - WINDOW_LINES)
    hi = min(lines.line_count - 1, own[1] + WINDOW_LINES)
    window_start = lines.starts[lo]
    window_end = lines.starts[hi + 1] if hi + 1 < lines.line_count else len(text)
    found: list[tuple[int, int, str]] = []

    def search(
        pattern: re.Pattern[str], scope: tuple[int, int] | None = None, *, literal: bool = False
    ) -> Iterator[tuple[int, int]]:
        start, end = window_start, window_end
        if scope is not None:
            start = max(start, lines.starts[scope[0]])
            end = min(end, lines.starts[scope[1] + 1] if scope[1] + 1 < lines.line_count else len(text))
        for match in pattern.finditer(text, start, end):
            if in_code(doc, match.start(), literal=literal):  # a word in a comment or a string is no use
                yield match.start(), lines.line_of(match.start())

    scopes = Scopes(doc)
    for edit in reversed(edits):
        for old, new in renames(edit, text):
            names = (old, new)
            if renamed_member(doc, edit, new):  # a field or a method: reached as `obj.old` only
                owner = container_of(doc, edit.start)
                for at, line in search(re.compile(rf"(?<!\.)\.\s*{re.escape(old)}(?![\w$])")):
                    if not _own_member(doc, text, at, owner):
                        continue  # `self.old` of another class: that class's own
                    found.append((line, line, f"use of {old} (now {new})"))
                continue
            home = scopes.home(edit.start, names)
            scope = lines_of(home) if home is not None else None
            for at, line in search(word_pattern(old), scope):
                if dotted(text, at):
                    continue  # `obj.old` is a member, not the variable `old`
                if span_of(scopes.home(at, names)) == span_of(home):  # not another function's own `old`
                    found.append((line, line, f"use of {old} (now {new})"))
        if doc.parses and (signature := changed_signature(doc, edit)) is not None:
            name, method = signature
            # A parameter only renamed changes no call, but one that passes it by name.
            keywords = [old for old, _ in renames(edit, text)] if only_renames(edit, text) else None
            before = r"(?<=\.)" if method else r"(?<![\w$.])"  # `obj.name(`, `self.name(`; else `name(`
            for at, line in search(re.compile(rf"{before}{re.escape(name)}\s*\(")):
                if line != lines.line_of(edit.start):
                    first, last = call_lines(doc, at, line)
                    if keywords is None or passes_by_name(doc, first, last, keywords):
                        found.append((first, last, f"call of {name}"))
        if doc.parses and (added := new_members(doc, edit)) is not None:
            for at, _ in search(added.pattern(), literal=added.quoted):
                if (branch := branch_of(doc, at)) is not None and not has_arms(doc, branch, added):
                    found.append((*branch, added.reason))
    merged: list[tuple[int, int, str]] = []
    for first, last, reason in sorted(found):
        if last >= own[0] and first <= own[1]:
            continue  # the edit's own lines: what the user is writing
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last), merged[-1][2])
        else:
            merged.append((first, last, reason))
    cursor_line = lines.line_of(cursor)
    ranked = sorted(merged, key=lambda c: (c[0] < cursor_line, abs(c[0] - cursor_line)))
    return [Candidate(first, last, reason) for first, last, reason in ranked[:limit]]
