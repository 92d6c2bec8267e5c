"""Tree-sitter queries, kept as `.scm` files in `sparkls/queries/<grammar>/`.

Each query is compiled once per process and reused for every document. A query file
whose first line is `; inherits: <folder>` starts with that folder's query of the
same name (TypeScript's imports are JavaScript's plus its own). Compiling is slow
(TypeScript's queries take 100 ms and more, one of them 60): the server awaits
`compiled` before a request reads a document, so a language's first request compiles
its queries in a worker thread, not on the event loop.
"""

from __future__ import annotations

import asyncio
from functools import cache
from importlib import resources

from tree_sitter import Node, Query, QueryCursor

from sparkls.documents.languages import grammar, query_folder


@cache
def query(language_id: str, name: str) -> Query | None:
    """The compiled query `name` for a language, or None if it has none."""
    lang = grammar(language_id)
    folder = query_folder(language_id)
    if lang is None or folder is None:
        return None
    text = _source(folder, name)
    return Query(lang, text) if text is not None else None


_COMPILED: set[str] = set()  # the languages whose every query is compiled


async def compiled(language_id: str) -> None:
    """Return once every query of `language_id` is compiled: in a worker thread, the
    first time (two first requests at once may both compile: `query` keeps one)."""
    if language_id not in _COMPILED:
        await asyncio.to_thread(_compile_all, language_id)
        _COMPILED.add(language_id)


def _compile_all(language_id: str) -> None:
    folder = query_folder(language_id)
    if folder is None or grammar(language_id) is None:
        return
    for path in (resources.files("sparkls") / "queries" / folder).iterdir():
        if path.name.endswith(".scm"):
            query(language_id, path.name[: -len(".scm")])


def _source(folder: str, name: str) -> str | None:
    path = resources.files("sparkls") / "queries" / folder / f"{name}.scm"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if first.startswith(INHERITS):
        parent = _source(first[len(INHERITS) :].strip(), name)
        if parent is None:
            raise ValueError(f"{folder}/{name}.scm inherits a query that does not exist: {first}")
        text = parent + "\n" + text
    return text


INHERITS = "; inherits:"


def captures(
    language_id: str,
    name: str,
    node: Node,
    byte_range: tuple[int, int] | None = None,
    *,
    max_depth: int | None = None,
) -> dict[str, list[Node]]:
    """Captures of query `name` under `node`.

    `byte_range` keeps matches that meet the range; `max_depth` keeps matches that
    start at most that deep below `node`, so the walk skips deeper subtrees.
    """
    compiled = query(language_id, name)
    if compiled is None:
        return {}
    cursor = QueryCursor(compiled)
    if byte_range is not None:
        cursor.set_byte_range(*byte_range)
    if max_depth is not None:
        cursor.set_max_start_depth(max_depth)
    return cursor.captures(node)
