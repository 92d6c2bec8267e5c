"""The changes the scripted user of `next_edit_oracles.py` makes, found with tree-sitter.

`sites(language, rel, doc)` lists, per kind of change, the places in one file where that
change can be made, each a `Site`: the name to rename (its declaration: a function's,
a method's, a class's or struct's, a parameter's, a local's first binding, a field's
first assignment or declaration), the parameter list to add a parameter to, or the
enum-like type to add a member to (`oracles/members.py`). The
syntax tree is sparkls's own (`Document.tree`), so the nodes are its grammars'.
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles.members import enum_types  # bench/oracles/members.py

KINDS = ("local", "parameter", "function", "method", "class", "field", "add parameter", "add member")
RENAMES = KINDS[:-2]

FUNCTIONS = {
    "python": {"function_definition", "lambda"},
    "typescript": {"function_declaration", "method_definition", "function_expression", "arrow_function",
                   "generator_function_declaration"},
    "go": {"function_declaration", "method_declaration", "func_literal"},
}


@dataclass(frozen=True)
class Site:
    kind: str
    rel: str
    row: int  # the name's position (0-based; code points)
    col: int
    name: str
    scope: tuple[int, int] | None  # a local's or parameter's function, as lines
    insert: tuple[int, int, str] | None = None  # add parameter, add member: (row, col, text typed)
    members: tuple[tuple[int, int], ...] = ()  # add member: where the existing members are named


def _lines(node) -> tuple[int, int]:
    return node.start_point[0], node.end_point[0]


def _function_above(node):
    n = node.parent
    while n is not None and n.type not in FUNCTIONS_ALL:
        n = n.parent
    return n


FUNCTIONS_ALL = set().union(*FUNCTIONS.values())


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def sites(language: str, rel: str, doc) -> list[Site]:
    tree = doc.tree
    if tree is None:
        return []
    out: list[Site] = []
    seen: set[tuple] = set()

    def add(kind: str, name_node, scope=None, insert=None) -> None:
        name = _text(name_node)
        if not name.isidentifier() or name in ("self", "cls", "_", "this") or len(name) < 2:
            return
        out.append(Site(kind, rel, name_node.start_point[0], name_node.start_point[1], name, scope, insert))

    def first(kind: str, owner, name_node, scope=None) -> None:
        key = (kind, owner.start_byte if owner is not None else -1, _text(name_node))
        if key not in seen:
            seen.add(key)
            add(kind, name_node, scope)

    def add_parameter(node, name_node, params) -> None:
        inner = _text(params)[1:-1].strip()
        if any(mark in inner for mark in ("*", "...", "(")) or params.start_point[0] != params.end_point[0]:
            return  # rest parameters, defaults with calls, lists over several lines
        extra = "extra int" if language == "go" else "extra"
        typed = (", " + extra) if inner else extra
        row, col = params.end_point
        add("add parameter", name_node, insert=(row, col - 1, typed))

    for enum in enum_types(language, tree, doc.text.split("\n")):
        out.append(Site("add member", rel, enum.row, enum.col, enum.name, None, enum.insert, enum.members))
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        stack.extend(reversed(n.children))
        t = n.type
        fn = _function_above(n)
        if language == "python":
            if t == "function_definition":
                name, params = n.child_by_field_name("name"), n.child_by_field_name("parameters")
                outer = n.parent if n.parent is not None and n.parent.type == "decorated_definition" else n  # @property
                in_class = outer.parent is not None and outer.parent.parent is not None and outer.parent.parent.type == "class_definition"
                if fn is None:
                    add("method" if in_class else "function", name)
                    add_parameter(n, name, params)
                for p in params.named_children:
                    pn = p if p.type == "identifier" else (p.child_by_field_name("name") or
                                                           (p.named_children[0] if p.named_children else None))
                    if pn is not None and pn.type == "identifier":
                        add("parameter", pn, _lines(n))
            elif t == "class_definition" and fn is None:
                add("class", n.child_by_field_name("name"))
            elif t == "assignment":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier" and fn is not None:
                    first("local", fn, left, _lines(fn))
                elif (left is not None and left.type == "attribute" and fn is not None
                      and _text(left.child_by_field_name("object")) == "self"):
                    first("field", None, left.child_by_field_name("attribute"))
        elif language == "typescript":
            if t in ("function_declaration", "method_definition"):
                name, params = n.child_by_field_name("name"), n.child_by_field_name("parameters")
                if name is not None and _text(name) != "constructor":
                    add("method" if t == "method_definition" else "function", name)
                    add_parameter(n, name, params)
            if t in FUNCTIONS["typescript"]:
                params = n.child_by_field_name("parameters")
                for p in params.named_children if params is not None else []:
                    # JavaScript: `a`, `a = 1`; TypeScript: `a: T`, `a?: T` (`pattern`)
                    pn = p if p.type == "identifier" else (p.child_by_field_name("left") or p.child_by_field_name("pattern"))
                    if pn is not None and pn.type == "identifier":
                        add("parameter", pn, _lines(n))
            elif t == "class_declaration":
                add("class", n.child_by_field_name("name"))
            elif t == "variable_declarator" and fn is not None:
                name = n.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    first("local", fn, name, _lines(fn))
            elif t == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "member_expression" and _text(left.child_by_field_name("object")) == "this":
                    first("field", None, left.child_by_field_name("property"))
        elif language == "go":
            if t in ("function_declaration", "method_declaration"):
                name, params = n.child_by_field_name("name"), n.child_by_field_name("parameters")
                add("method" if t == "method_declaration" else "function", name)
                add_parameter(n, name, params)
                for p in params.named_children:
                    for pn in p.children_by_field_name("name"):
                        add("parameter", pn, _lines(n))
            elif t == "type_spec" and n.child_by_field_name("type") is not None and n.child_by_field_name("type").type == "struct_type":
                add("class", n.child_by_field_name("name"))
            elif t == "short_var_declaration" and fn is not None:
                for pn in n.child_by_field_name("left").named_children:
                    if pn.type == "identifier":
                        first("local", fn, pn, _lines(fn))
            elif t == "field_declaration":
                for pn in n.children_by_field_name("name"):
                    add("field", pn)
    return out
