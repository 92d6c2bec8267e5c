"""Which tree-sitter grammar serves a document, loaded once per process.

One `Grammar` record per grammar says where the grammar comes from (a per-language
wheel: tree-sitter-python, tree-sitter-javascript, ...; nothing is downloaded at run
time), which LSP language ids and file extensions it serves, which folder of
`sparkls/queries/` holds its queries (grammars may share one), and how deep its
module-level imports sit. Adding a language is one record in `_GRAMMARS` plus its
query folder.

A document whose language has no grammar here is still served: it just has no tree
(callers fall back to line windows).

Owns the mapping from language ids to grammars; compiling and running queries is
`sparkls.context.queries`'s job.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

from tree_sitter import Language, Parser

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Grammar:
    """A tree-sitter grammar and the documents it parses."""

    name: str
    module: str  # the wheel's module
    loader: str  # the module's function returning the grammar pointer
    language_ids: dict[str, tuple[str, ...]]  # LSP language id -> its file extensions
    queries: str  # folder under sparkls/queries/
    # How deep below the root a module-level import can start; file_imports walks no
    # deeper, so big files cost their top levels only.
    import_depth: int = 1
    # Whether any region (dedented) parses on its own, so an edit can be checked
    # without the rest of the file; not so for JS/TS, where a method needs its class.
    regions_parse_alone: bool = True


_GRAMMARS = (
    Grammar(
        "python", "tree_sitter_python", "language",
        language_ids={"python": (".py", ".pyi")},
        queries="python",
        import_depth=3,  # under `if TYPE_CHECKING:` / `try:` (statement > block > import)
    ),
    Grammar(
        "javascript", "tree_sitter_javascript", "language",  # parses JSX too
        language_ids={"javascript": (".js", ".mjs", ".cjs"), "javascriptreact": (".jsx",)},
        queries="javascript",
        regions_parse_alone=False,
    ),
    Grammar(
        "typescript", "tree_sitter_typescript", "language_typescript",
        language_ids={"typescript": (".ts", ".mts", ".cts")},
        queries="typescript",
        regions_parse_alone=False,
    ),
    Grammar(
        "tsx", "tree_sitter_typescript", "language_tsx",
        language_ids={"typescriptreact": (".tsx",)},
        # TypeScript plus JSX: the node types the queries name are the same.
        queries="typescript",
        regions_parse_alone=False,
    ),
    Grammar("go", "tree_sitter_go", "language", language_ids={"go": (".go",)}, queries="go"),
    Grammar("rust", "tree_sitter_rust", "language", language_ids={"rust": (".rs",)}, queries="rust"),
)

_BY_NAME = {g.name: g for g in _GRAMMARS}
_BY_LANGUAGE_ID = {lid: g for g in _GRAMMARS for lid in g.language_ids}
_LANGUAGE_ID_BY_EXTENSION = {
    ext: lid for g in _GRAMMARS for lid, exts in g.language_ids.items() for ext in exts
}


def language_id_for(uri: str, language_id: str | None = None) -> str:
    """The language id a client gave, or one guessed from the file extension.

    The extension also wins over an id without a grammar here: some clients name
    languages after their editor modes (eglot sends "tsx" or "js" by default).
    """
    if language_id in _BY_LANGUAGE_ID:
        return language_id
    guessed = _LANGUAGE_ID_BY_EXTENSION.get(PurePosixPath(uri).suffix)
    return guessed or language_id or "plaintext"


def grammar_record(language_id: str) -> Grammar | None:
    """The record of the grammar serving `language_id`, or None when there is none."""
    return _BY_LANGUAGE_ID.get(language_id)


def query_folder(language_id: str) -> str | None:
    """The folder of `sparkls/queries/` holding the queries for `language_id`."""
    record = _BY_LANGUAGE_ID.get(language_id)
    return record.queries if record is not None else None


@cache
def _load(name: str) -> Language | None:
    record = _BY_NAME[name]
    try:
        module = importlib.import_module(record.module)
    except ImportError:
        logger.warning("grammar package %s is not installed; no tree for %s", record.module, record.name)
        return None
    return Language(getattr(module, record.loader)())


def grammar(language_id: str) -> Language | None:
    """The tree-sitter language for `language_id`, loaded once per grammar."""
    record = _BY_LANGUAGE_ID.get(language_id)
    return _load(record.name) if record is not None else None


def new_parser(language_id: str) -> Parser | None:
    lang = grammar(language_id)
    return Parser(lang) if lang is not None else None
