"""Which of a name's definitions in other files to show: the ones this file can see.

A name like `url` or `height` is defined in many files of a real workspace; showing
three of them at random is noise. `choose_definers` groups the index's rows into
definers (a function, a class, a constant; an attribute's assigning statements count
as one definer per class), ranks them by how close they are to the file being
edited, and keeps few. Definers whose class (the container of a method or
attribute) the region names come first (`request: PreparedRequest` makes
`PreparedRequest.url` the `url` that matters); among them, those in a file the
region's imported names lead to (`Bar` imported from the package that re-exports
core.py's: core.py's `close`); then, by file:

1. files the file's imports name (a path whose stem or folder is a word of an import
   statement: `from .models import Request` names `models.py`, `use crate::auth`
   names `auth.rs` and `auth/`);
2. files in the same folder;
3. the rest, only when the name has at most `max_definers` definers in all, so that
   an unambiguous name is still found wherever it lives.

A definition tsc wrote twice, in a script and its declaration file beside it
(`lib/Apply.js`, `lib/Apply.d.ts`), is one definer: the declaration's.

Pure: rows in, rows out, language-neutral (paths and words only).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sparkls.context.scripts import is_declaration_file, script_stem
from sparkls.context.symbols import Symbol

MAX_DEFINERS = 4  # definers of one name taken from other files
MAX_SITES = 8  # assigning statements shown per attribute definer

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

IMPORTED, SAME_FOLDER, ELSEWHERE = 0, 1, 2
# Files that stand for their folder: `from pkg import x` names pkg/__init__.py.
_PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib"})


def import_words(import_texts: Iterable[str]) -> frozenset[str]:
    """The words of a file's import statements (module and folder names among them)."""
    return frozenset(word for text in import_texts for word in _WORD.findall(text))


def closeness(path: str, current_path: str, imported: frozenset[str]) -> int:
    """IMPORTED, SAME_FOLDER or ELSEWHERE: how close `path` is to the file being edited."""
    folder, _, name = path.rpartition("/")
    stem = name.partition(".")[0]
    folder_name = folder.rpartition("/")[2]
    if stem in _PACKAGE_FILES:
        stem = folder_name
    if stem in imported or folder_name in imported:
        return IMPORTED
    if folder == current_path.rpartition("/")[0]:
        return SAME_FOLDER
    return ELSEWHERE


def choose_definers(
    rows: list[tuple[str, Symbol]],
    current_path: str,
    imported: frozenset[str],
    mentioned: frozenset[str] = frozenset(),
    origin_files: frozenset[str] = frozenset(),
    *,
    max_definers: int = MAX_DEFINERS,
) -> list[tuple[str, Symbol]]:
    """The rows to show, closest definers first (see the module docstring). `rows`
    come from the index in its order (variables last, then by path and line);
    `mentioned` holds the words of the region; `origin_files` the files its imported
    names lead to (`context.resolve.origin`), first among equals."""
    # What tsc wrote twice (`lib/Apply.js` and its declaration `lib/Apply.d.ts`): the
    # declaration, as TypeScript resolves it, once
    declared = {(script_stem(p), s.container) for p, s in rows if is_declaration_file(p)}
    if declared:
        rows = [(p, s) for p, s in rows if is_declaration_file(p) or (script_stem(p), s.container) not in declared]
    groups: dict[tuple[str, object], list[tuple[str, Symbol]]] = {}
    for path, symbol in rows:
        if path == current_path:
            continue
        key = (path, symbol.container) if symbol.kind == "attribute" else (path, symbol.start_line)
        sites = groups.setdefault(key, [])
        if len(sites) < MAX_SITES:
            sites.append((path, symbol))

    def rank(sites: list[tuple[str, Symbol]]) -> tuple[bool, bool, int]:
        path, symbol = sites[0]
        return symbol.container not in mentioned, path not in origin_files, closeness(path, current_path, imported)

    ranked = sorted(groups.values(), key=rank)
    if len(ranked) > max_definers:
        ranked = [sites for sites in ranked if rank(sites) != (True, True, ELSEWHERE)]
    return [row for sites in ranked[:max_definers] for row in sites]
