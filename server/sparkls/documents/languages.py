"""Which tree-sitter grammar serves a document, loaded once per process.

Grammars come from the per-language wheels (tree-sitter-python, ...); nothing is
downloaded at run time. A document whose language has no grammar here is still
served: it just has no tree (callers fall back to line windows).
"""

from __future__ import annotations

import importlib
import logging
from functools import cache
from pathlib import PurePosixPath

from tree_sitter import Language, Parser

logger = logging.getLogger(__name__)

# languageId -> (module, function returning the grammar pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
}
_EXTENSIONS = {".py": "python", ".pyi": "python"}


def language_id_for(uri: str, language_id: str | None = None) -> str:
    """The language id a client gave, or one guessed from the file extension."""
    if language_id:
        return language_id
    return _EXTENSIONS.get(PurePosixPath(uri).suffix, "plaintext")


@cache
def grammar(language_id: str) -> Language | None:
    spec = _GRAMMARS.get(language_id)
    if spec is None:
        return None
    try:
        module = importlib.import_module(spec[0])
    except ImportError:
        logger.warning("grammar package %s is not installed; no tree for %s", spec[0], language_id)
        return None
    return Language(getattr(module, spec[1])())


def new_parser(language_id: str) -> Parser | None:
    lang = grammar(language_id)
    return Parser(lang) if lang is not None else None
