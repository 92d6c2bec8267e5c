"""The "add member" change of `next_edit_oracles.py`: enum-like types and the branches over them.

`enum_types(language, tree, lines)` finds, with tree-sitter (sparkls's own grammars),
the types a user may add a member to, and what the scripted user types for it, key by
key, on a new line inside the type (or after its last member):

- Python: a class deriving from `Enum`, `IntEnum`, `StrEnum`, `Flag` or `IntFlag`; its
  members are the `NAME = value` lines of its body; typed: `NEXT = 99` (`"next"` when
  the last member's value is a string);
- TypeScript: an `enum` (typed: `Next`, `Next = "next"` after a string member), and a
  `type T = "a" | "b"` union of string literals only (typed: `| "next"`, on a new line
  when the union has one member a line, else after the last one on its line);
- Go: a `const ( A T = iota; B; ... )` block of a named type; typed: `<A>Next` on a
  new line after the last member that continues `iota`.

`branch_of(language, tree, row, col)` is the oracle's side: for one reference of an
existing member (by the language tool), the branching statement that tests it, as the
row of its first line, or None. A reference tests a member when it lies in an `if`'s
or `elif`'s condition, a `case` value (TS `switch`, Go `switch`), or a Python `case`
pattern or guard; the statement is the `match`/`switch`, or the whole `if` chain
(`else if` and `elif` belong to the first `if`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENUM_BASE = re.compile(r"\b(?:Int|Str)?(?:Enum|Flag)\b")


@dataclass(frozen=True)
class EnumType:
    name: str
    row: int  # the type's name (0-based)
    col: int
    members: tuple[tuple[int, int], ...]  # where each existing member is named: the oracle's queries
    insert: tuple[int, int, str]  # (row, col, text typed)


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _after_line(lines: list[str], row: int, typed: str) -> tuple[int, int, str]:
    return row, len(lines[row]), typed


def enum_types(language: str, tree, lines: list[str]) -> list[EnumType]:
    out: list[EnumType] = []
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        stack.extend(reversed(n.children))
        found = {"python": _python, "typescript": _typescript, "go": _go}[language](n, lines)
        if found is not None and found.members:
            out.append(found)
    return out


def _python(n, lines: list[str]) -> EnumType | None:
    bases = n.child_by_field_name("superclasses") if n.type == "class_definition" else None
    if bases is None or not ENUM_BASE.search(_text(bases)):
        return None
    members, last = [], None
    for statement in n.child_by_field_name("body").named_children:
        assign = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        left = assign.child_by_field_name("left") if assign is not None and assign.type == "assignment" else None
        if left is not None and left.type == "identifier" and not _text(left).startswith("_"):
            members.append(left.start_point)
            last = assign
    if last is None:
        return None
    right = last.child_by_field_name("right")
    value = '"next"' if right is not None and right.type == "string" else "99"
    indent = " " * last.start_point[1]
    name = n.child_by_field_name("name")
    return EnumType(_text(name), *name.start_point, tuple(members),
                    _after_line(lines, last.end_point[0], f"\n{indent}NEXT = {value}"))


def _typescript(n, lines: list[str]) -> EnumType | None:
    name = n.child_by_field_name("name")
    if n.type == "enum_declaration":
        items = [c for c in n.child_by_field_name("body").named_children if c.type in ("property_identifier", "enum_assignment")]
        if not items or items[-1].end_point[0] == n.end_point[0]:
            return None  # an enum on one line: no line to add
        last = items[-1]
        value = last.child_by_field_name("value") if last.type == "enum_assignment" else None
        typed = "Next" + (' = "next"' if value is not None and value.type == "string" else "")
        indent = " " * last.start_point[1]
        row = last.end_point[0]
        typed = f"\n{indent}{typed}," if lines[row].rstrip().endswith(",") else f",\n{indent}{typed}"
        members = tuple((c if c.type == "property_identifier" else c.named_children[0]).start_point for c in items)
        return EnumType(_text(name), *name.start_point, members, _after_line(lines, row, typed))
    if n.type != "type_alias_declaration" or (value := n.child_by_field_name("value")) is None or value.type != "union_type":
        return None
    strings = []
    stack = [value]
    while stack:
        u = stack.pop()
        for c in u.named_children:
            if c.type == "union_type":
                stack.append(c)
            elif c.type == "literal_type" and c.named_children and c.named_children[0].type == "string":
                strings.append(c.named_children[0])
            else:
                return None  # not strings only
    strings.sort(key=lambda s: s.start_byte)
    if len(strings) < 2:
        return None
    last = strings[-1]
    quote = _text(last)[0]
    one_a_line = len({s.start_point[0] for s in strings}) == len(strings) and lines[last.start_point[0]].lstrip().startswith("|")
    if one_a_line:
        bar = lines[last.start_point[0]].index("|")
        insert = _after_line(lines, last.end_point[0], f"\n{' ' * bar}| {quote}next{quote}")
    else:
        insert = (last.end_point[0], last.end_point[1], f" | {quote}next{quote}")
    members = tuple((s.start_point[0], s.start_point[1] + 1) for s in strings)  # inside the quotes
    return EnumType(_text(name), *name.start_point, members, insert)


def _go(n, lines: list[str]) -> EnumType | None:
    if n.type != "const_declaration":
        return None
    specs = [c for c in n.named_children if c.type == "const_spec"]
    if not specs:
        return None
    head = specs[0]
    kind, value = head.child_by_field_name("type"), head.child_by_field_name("value")
    if kind is None or value is None or "iota" not in _text(value):
        return None
    members, last = [], head
    for spec in specs:
        names = spec.children_by_field_name("name")
        own = spec.child_by_field_name("type")
        if spec is head or (spec.child_by_field_name("value") is None and own is None):
            members += [x.start_point for x in names if _text(x) != "_"]
            last = spec
        elif own is not None and _text(own) == _text(kind):
            members += [x.start_point for x in names if _text(x) != "_"]
    first = _text(head.children_by_field_name("name")[0])
    return EnumType(_text(kind), *kind.start_point, tuple(members),
                    _after_line(lines, last.end_point[0], f"\n\t{first}Next"))


# Where a reference tests a member: (statement or clause type, the field or child types that are its test).
TESTS = {
    "python": {"if_statement": ("condition",), "elif_clause": ("condition",), "case_clause": ("case_pattern", "if_clause")},
    "typescript": {"if_statement": ("condition",), "switch_case": ("value",)},
    "go": {"if_statement": ("condition",), "expression_case": ("value",)},
}
STATEMENTS = {"match_statement", "switch_statement", "expression_switch_statement", "if_statement"}


def _is_test(language: str, holder, child) -> bool:
    for test in TESTS[language].get(holder.type, ()):
        field = holder.child_by_field_name(test)
        if (field is not None and field.id == child.id) or child.type == test:
            return True
    return False


def branch_of(language: str, tree, row: int, col: int) -> int | None:
    """The first line of the branching statement whose test holds the reference at (row, col)."""
    node = tree.root_node.descendant_for_point_range((row, col), (row, col))
    child = node
    holder = node.parent if node is not None else None
    while holder is not None:
        if holder.type in TESTS[language] and _is_test(language, holder, child):
            break
        if holder.type.endswith(("statement", "block", "definition", "declaration")) or holder.type in TESTS[language]:
            return None  # out of the statement the reference is in, through no test
        child, holder = holder, holder.parent
    else:
        return None
    statement = holder
    while statement is not None and statement.type not in STATEMENTS:
        statement = statement.parent
    while statement is not None and statement.type == "if_statement":  # an `else if`: the chain's first `if`
        up = statement.parent
        if language == "typescript" and up is not None and up.type == "else_clause":
            up = up.parent
        if up is not None and up.type == "if_statement" and up.child_by_field_name("alternative") is not None \
                and up.child_by_field_name("alternative").end_byte >= statement.end_byte and up.id != statement.id:
            statement = up
        else:
            break
    return statement.start_point[0] if statement is not None else None
