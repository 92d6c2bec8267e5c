"""Read detect-secrets' plugin tests (Python) for the secrets corpus: every
`pytest.mark.parametrize` table and every module-level `*_TEST_CASES` list whose
values are plain data, evaluated without running the file.

Used by `scripts/secrets_corpus.py` only. Expressions are evaluated from the syntax
tree: literals, tuples and lists, `+`, `*`, `str.format`, slices, and names bound at
module level (or in a class body) to such expressions. Anything else (a call into
detect-secrets, `base64`, `randint`) is not evaluated: the table or row holding it is
skipped and counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

TESTS_DIR = "tests/plugins"


class Unknown(Exception):
    """An expression this evaluator does not evaluate."""


def evaluate(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [evaluate(e, names) for e in node.elts]
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unknown(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Mod)):
        left, right = evaluate(node.left, names), evaluate(node.right, names)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Mult):
            return left * right
        return left % (tuple(right) if isinstance(right, list) else right)
    if isinstance(node, ast.Subscript):
        value = evaluate(node.value, names)
        if isinstance(node.slice, ast.Slice):
            low = evaluate(node.slice.lower, names) if node.slice.lower else None
            high = evaluate(node.slice.upper, names) if node.slice.upper else None
            return value[low:high]
        return value[evaluate(node.slice, names)]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                parts.append(str(evaluate(value.value, names)))
            else:
                parts.append(evaluate(value, names))
        return "".join(parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join", "encode", "decode", "upper", "lower"):
        target = evaluate(node.func.value, names)
        args = [evaluate(a, names) for a in node.args]
        kwargs = {k.arg: evaluate(k.value, names) for k in node.keywords if k.arg}
        return getattr(target, node.func.attr)(*args, **kwargs)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "tuple", "list"):
        return {"str": str, "tuple": list, "list": list}[node.func.id](*[evaluate(a, names) for a in node.args])
    raise Unknown(type(node).__name__)


@dataclass(frozen=True)
class Table:
    file: str
    name: str  # the test (or list) it belongs to
    argnames: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


def tables(path: str, source: str) -> tuple[list[Table], int]:
    """The parametrize tables and `*_TEST_CASES` lists of one test file, and how many
    rows or tables could not be evaluated."""
    tree = ast.parse(source)
    names: dict[str, Any] = {}
    skipped = 0
    found: list[Table] = []

    def bind(body: list[ast.stmt], scope: dict[str, Any]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                try:
                    scope[stmt.targets[0].id] = evaluate(stmt.value, scope)
                except (Unknown, TypeError, KeyError, IndexError, ValueError, AttributeError):
                    pass

    bind(tree.body, names)
    for stmt in tree.body:  # `*_TEST_CASES = [(line, expected secret or None), ...]`, row by row
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            continue
        if not (stmt.targets[0].id.endswith("_TEST_CASES") and isinstance(stmt.value, ast.List)):
            continue
        rows = []
        for row in stmt.value.elts:
            try:
                rows.append(tuple(evaluate(row, names)))
            except (Unknown, TypeError, KeyError, IndexError, ValueError, AttributeError):
                skipped += 1
        found.append(Table(path, stmt.targets[0].id, ("line", "expected_secret"), tuple(rows)))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            scope = dict(names)
            bind(node.body, scope)
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("parametrize")):
                continue
            if len(decorator.args) < 2:
                continue
            try:
                argnames = evaluate(decorator.args[0], names)
            except Unknown:
                skipped += 1
                continue
            argnames = tuple(a.strip() for a in (argnames.split(",") if isinstance(argnames, str) else argnames))
            rows_node = decorator.args[1]
            if not isinstance(rows_node, (ast.List, ast.Tuple)):
                skipped += 1
                continue
            rows = []
            for row in rows_node.elts:
                try:
                    value = evaluate(row, names)
                except (Unknown, TypeError, KeyError, IndexError, ValueError, AttributeError):
                    skipped += 1
                    continue
                rows.append(tuple(value) if len(argnames) > 1 and isinstance(value, list) else (value,))
            found.append(Table(path, node.name, argnames, tuple(rows)))
    return found, skipped


def cases(found: list[Table]) -> Iterator[tuple[Table, dict[str, Any]]]:
    for table in found:
        for row in table.rows:
            if len(row) == len(table.argnames):
                yield table, dict(zip(table.argnames, row, strict=True))
