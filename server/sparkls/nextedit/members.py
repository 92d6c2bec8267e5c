"""A member added to an enum-like type, and the branches that now need an arm for it. Pure.

- `new_members(doc, edit)`: the names an edit added on lines of their own
  (`history.added_names`: `BLUE = 3`, `Blue,`) inside a class or an enum (its members
  are named `Color.BLUE`, `Color::Blue`), or inside a Go `const ( ... )` block of a
  named type (`ShellCompDirectiveError ShellCompDirective = 1 << iota`, then more
  names: its members are named bare, or `cobra.ShellCompDirectiveError`); or the
  string literals it added to a TypeScript union of them (`type Kind = "a" | "b"`,
  then `| "c"`: its members are named in quotes, `kind === "a"`, `case "b":`);
- `branch_of(doc, offset)`: the branching statement (`match`/`case`, `if`/`elif`/`else
  if` chain, `switch`) whose **test** names a member at `offset`: a `case` pattern or
  value, an `if`'s condition, a `match`'s or `switch`'s subject. A member used in a
  branch's body only (`if data is None: state = State.CLOSED`) is no test of the type.
  An `else if` chain is the chain from its first `if`;
- `has_arms(doc, lines, added)`: whether the branch already names every new member.

The candidates (`candidates.py`) and the follow-ups in other files (`elsewhere.py`)
look for `NewMembers.pattern()` and keep the branches without an arm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from sparkls.documents.store import Document
from sparkls.nextedit.history import Edit, added_names
from sparkls.nextedit.tree import ancestors, lines_of, node_at

MAX_BRANCH_LINES = 40  # a branching statement longer than this is not a candidate
BRANCHING = frozenset({
    "match_statement", "if_statement", "switch_statement", "switch_expression", "match_expression",
    "expression_switch_statement", "when_expression",
})
# A branch's parts, and the fields of them that test (`case` patterns have no field).
BRANCH_PARTS = BRANCHING | {"case_clause", "switch_case", "expression_case", "elif_clause", "match_arm", "when_entry"}
TEST_FIELDS = ("condition", "value", "subject", "pattern", "guard")
TEST_NODES = frozenset({"case_pattern"})
CONTAINER_WORDS = ("class", "enum")
GO_TYPES = frozenset({"struct_type", "interface_type"})


@dataclass(frozen=True, slots=True)
class NewMembers:
    """Members added to the type `owner`; `siblings`, for a type whose members are
    named bare (a Go const block), the members it had."""

    owner: str
    members: tuple[str, ...]
    siblings: tuple[str, ...] = ()
    quoted: bool = False  # string literals of a union type (`type T = "a" | "b"`), named in quotes

    @property
    def reason(self) -> str:
        return f"branch on {self.owner}"

    def pattern(self) -> re.Pattern[str]:
        """A use of a member: `Color.RED`, `Color::Red`; bare or qualified siblings."""
        if self.siblings:
            names = "|".join(re.escape(s) for s in sorted(self.siblings, key=len, reverse=True))
            if self.quoted:
                return re.compile(rf"""(['"`])(?:{names})\1""")
            return re.compile(rf"(?<![\w$])(?:{names})(?![\w$])")
        return re.compile(rf"(?<![\w$]){re.escape(self.owner)}\s*(?:\.|::)\s*\w")


def container_of(doc: Document, offset: int) -> str | None:
    """The name of the class or enum whose body holds `offset`, if any (a node with a
    name and a body: not a TypeScript `enum_assignment`, a member of one); in Go, the
    struct or interface type a field is declared in, or a method's receiver type."""
    for node in ancestors(node_at(doc, offset)):
        name = node.child_by_field_name("name")
        if name is not None and node.child_by_field_name("body") is not None and any(
            word in node.type for word in CONTAINER_WORDS
        ):
            return doc.node_text(name)
        kind = node.child_by_field_name("type")
        if node.type == "type_spec" and name is not None and kind is not None and kind.type in GO_TYPES:
            return doc.node_text(name)
        if node.type == "method_declaration" and (receiver := node.child_by_field_name("receiver")) is not None:
            types = [n for n in _descendants(receiver) if n.type == "type_identifier"]
            return doc.node_text(types[0]) if types else None
    return None


def _const_block(doc: Document, offset: int) -> tuple[str, list[str]] | None:
    """(its type, its names) when `offset` is in a Go `const ( ... )` block whose first
    constant has a named type."""
    for node in ancestors(node_at(doc, offset)):
        if node.type == "const_declaration":
            specs = [c for c in node.named_children if c.type == "const_spec"]
            kind = specs[0].child_by_field_name("type") if specs else None
            if kind is None:
                return None
            return doc.node_text(kind), [doc.node_text(n) for s in specs for n in s.children_by_field_name("name")]
    return None


def _union(doc: Document, edit: Edit) -> NewMembers | None:
    """String literals `edit` added to a union type of them (`| "next"`)."""
    for node in ancestors(node_at(doc, edit.start)):
        if node.type == "type_alias_declaration":
            value, name = node.child_by_field_name("value"), node.child_by_field_name("name")
            if value is None or name is None or value.type != "union_type":
                return None
            literals = [n for n in _descendants(value) if n.type == "string"]
            if not literals or len(literals) != sum(1 for n in _descendants(value) if n.type == "literal_type"):
                return None  # not a union of string literals only
            lines = doc.lines
            span = (lines.byte_point(edit.start)[0], lines.byte_point(edit.end)[0])
            new = [doc.node_text(n)[1:-1] for n in literals if span[0] <= n.start_byte and n.end_byte <= span[1]]
            old = [doc.node_text(n)[1:-1] for n in literals if not (span[0] <= n.start_byte and n.end_byte <= span[1])]
            if new and old:
                return NewMembers(doc.node_text(name), tuple(new), tuple(old), quoted=True)
            return None
    return None


def _descendants(node: Node) -> list[Node]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


def new_members(doc: Document, edit: Edit) -> NewMembers | None:
    """The members `edit` added to an enum-like type, or None."""
    if (union := _union(doc, edit)) is not None:
        return union
    members = added_names(edit, doc.text)
    if not members:
        return None
    owner = container_of(doc, edit.start)
    if owner is not None:
        return NewMembers(owner, tuple(members))
    block = _const_block(doc, edit.start)
    if block is not None:
        siblings = tuple(n for n in block[1] if n not in members)
        if siblings:
            return NewMembers(block[0], tuple(members), siblings)
    return None


def _tests(node: Node) -> bool:
    """Whether `node` is a branch's test (a condition, a case's pattern or value...)."""
    parent = node.parent
    if node.type in TEST_NODES:
        return True
    if parent is None or parent.type not in BRANCH_PARTS:
        return False
    return any((f := parent.child_by_field_name(name)) is not None and f.id == node.id for name in TEST_FIELDS)


def _chain_top(branch: Node) -> Node:
    """The first `if` of an `else if` chain (JS/TS: through an `else_clause`; Go: the
    `alternative` itself)."""
    while branch.type == "if_statement":
        above = branch.parent
        part = branch
        if above is not None and above.type == "else_clause":
            part, above = above, above.parent
        alternative = above.child_by_field_name("alternative") if above is not None else None
        if above is None or above.type != "if_statement" or alternative is None or alternative.id != part.id:
            break
        branch = above
    return branch


def branch_of(doc: Document, offset: int) -> tuple[int, int] | None:
    """The lines of the branching statement whose test names what is at `offset`."""
    tested = False
    for node in ancestors(node_at(doc, offset)):
        if node.type in BRANCHING and tested:
            first, last = lines_of(_chain_top(node))
            return (first, last) if last - first < MAX_BRANCH_LINES else None
        if node.type in BRANCHING:
            return None  # in a branch's body: no test of the type
        tested = tested or _tests(node)
    return None


def has_arms(doc: Document, lines: tuple[int, int], added: NewMembers) -> bool:
    """Whether the branch on `lines` already names every new member (its arm was added)."""
    starts = doc.lines.starts
    end = starts[lines[1] + 1] if lines[1] + 1 < len(starts) else len(doc.text)
    body = doc.text[starts[lines[0]] : end]
    if added.quoted:
        return all(re.search(rf"""(['"`]){re.escape(m)}\1""", body) for m in added.members)
    prefix = r"(?<![\w$])" if added.siblings else r"(?:\.|::)\s*"
    return all(re.search(rf"{prefix}{re.escape(m)}(?![\w$])", body) for m in added.members)
