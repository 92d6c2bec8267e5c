"""The names a region's text uses, per language: identifier-like words without the
language's keywords, JavaScript's private `#` names, and the attributes it reaches
through `self`/`cls`/`this` or anything else. Pure: text in, words out."""

from __future__ import annotations

import keyword
import re

from sparkls.context.reach import ACCESS
from sparkls.context.resolve import OWN

# Reserved words, which name no definition: not looked up. Only words each language
# reserves (`type` is a keyword in Go but a name in Python).
_ECMASCRIPT = "break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null return super switch this throw true try typeof var void while with yield async await"
KEYWORDS = {
    "python": frozenset(keyword.kwlist) | {"self", "cls"},
    "javascript": frozenset(_ECMASCRIPT.split()),
    "typescript": frozenset(_ECMASCRIPT.split()) | {"interface", "enum", "implements"},
    "tsx": frozenset(_ECMASCRIPT.split()) | {"interface", "enum", "implements"},
    "go": frozenset(
        "break case chan const continue default defer else fallthrough for func go goto if import interface map "
        "package range return select struct switch type var nil true false".split()
    ),
    "rust": frozenset(
        "as async await break const continue crate else enum extern false fn for if impl in let loop match mod move "
        "mut pub ref return self Self static struct super trait true type unsafe use where while".split()
    ),
}


# JavaScript's names may hold `$` (`$internals`, `source$`); one after `#` is a class's
# private name (`this.#entries`), no word of its own.
# A letter after a backslash is an escape, no word (`"\n"` names no `n`); one after a digit
# is part of a number (`1e9`, `0x1f`).
ECMASCRIPT_WORD = re.compile(r"(?<![#A-Za-z0-9_$\\])[A-Za-z_$][A-Za-z0-9_$]*")
OTHER_WORD = re.compile(r"(?<![A-Za-z0-9_\\])[A-Za-z_][A-Za-z0-9_]*")
PRIVATE_NAME = re.compile(r"(?<![A-Za-z0-9_$])#[A-Za-z_$][A-Za-z0-9_$]*")
ECMASCRIPT = frozenset({"javascript", "typescript", "tsx"})


def names_used(text: str, language: str | None = None) -> list[str]:
    """Identifier-like words in order of first use; the language's keywords left out
    (`language`: a grammar name, `python`, `typescript`, ...)."""
    reserved = KEYWORDS.get(language or "", frozenset())
    words = (ECMASCRIPT_WORD if language in ECMASCRIPT else OTHER_WORD).findall(text)
    return [word for word in dict.fromkeys(words) if word not in reserved and word != "$"]


def private_names(text: str, language: str | None = None) -> list[str]:
    """A class's private names the text uses (`#entries`; JavaScript and TypeScript only)."""
    return list(dict.fromkeys(PRIVATE_NAME.findall(text))) if language in ECMASCRIPT else []


def attribute_accesses(text: str) -> tuple[set[str], set[str]]:
    """Attribute names the text reaches: (through self/cls/this, through anything else)."""
    own: set[str] = set()
    other: set[str] = set()
    for match in ACCESS.finditer(text):
        (own if match.group(1) in OWN else other).add(match.group(2))
    return own, other
