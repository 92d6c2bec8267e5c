"""What is code in source text, and renaming identifiers in code only. Pure.

A model that renames `area` to `circle_area` renames the identifier where it is code
and leaves the words of string literals and comments alone ("Area of a circle:" and
"# the area of each" stay), but renames inside an f-string's `{...}` and a template
literal's `${...}`, which are code. Every rename the scripted model makes goes
through :func:`rename_in_code`: plain words ("rename radius to r"), a REPLACE
directive whose operand is an identifier, the deep tier's renames, next edits.

Strings are found as a tokenizer would, on the whole text: `"..."`, `'...'` (to the
end of their line), Python's triple-quoted strings (over several lines), template
literals in backticks, `#` comments in Python-like languages, `//` and `/* */`
comments in C-like ones (where `#` is code: `this.#count`, `#include`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["hash_comments", "is_identifier", "rename_in_code", "text_spans"]

_HASH_LANGUAGES = frozenset({"", "python", "py", "ruby", "rb", "bash", "sh", "shell", "toml", "yaml", "r"})
_IDENTIFIER = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_INTERPOLATION = re.compile(r"(?<!\{)(\$?\{(?!\{))([^{}]*)\}")
_FSTRING_PREFIX = re.compile(r"(?<![\w$])(?:[fF][rR]?|[rR][fF])$")


def hash_comments(language: str) -> bool:
    """Whether `#` starts a comment in *language* (a fence tag or a language id; ""
    when unknown, read as Python)."""
    return language.lower() in _HASH_LANGUAGES


def is_identifier(text: str) -> bool:
    """Whether *text* is one identifier (or a dotted name): what a rename renames."""
    return all(_IDENTIFIER.fullmatch(part) for part in text.split(".")) and bool(text)


def text_spans(text: str, hashes: bool) -> list[tuple[int, int]]:
    """The (start, end) offsets of the string literals and comments of *text*."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if (hashes and c == "#") or (not hashes and text.startswith("//", i)):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif not hashes and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif c in "\"'`":
            end = _string_end(text, i, hashes)
        else:
            i += 1
            continue
        spans.append((i, end))
        i = end
    return spans


def _string_end(text: str, i: int, hashes: bool) -> int:
    quote = text[i] * 3 if hashes and text.startswith(text[i] * 3, i) else text[i]
    j = i + len(quote)
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text.startswith(quote, j):
            return j + len(quote)
        elif text[j] == "\n" and quote in ("'", '"'):
            return j  # an unterminated one-line string ends with its line
        else:
            j += 1
    return len(text)


def rename_in_code(
    text: str, renames: Iterable[tuple[str, str]], language: str = "", *,
    keep_line: Callable[[str], bool] | None = None, whole_words: bool = True,
) -> str:
    """*text* with each (old, new) identifier renamed as a whole word where it is code
    (every occurrence in code, inside longer names too, without *whole_words*: the
    REPLACE directive's way); lines for which *keep_line* is true are left as they were
    (a line holding the instruction itself)."""
    renames = [(old, new) for old, new in renames if old and old != new]
    if not renames:
        return text

    def words(code: str) -> str:
        for old, new in renames:
            if whole_words:
                code = re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", lambda _m, new=new: new, code)
            else:
                code = code.replace(old, new)
        return code

    out, done = [], 0
    for start, end in text_spans(text, hash_comments(language)):
        out.append(words(text[done:start]))
        piece = text[start:end]
        if piece[:1] == "`" or (piece[:1] in "\"'" and _FSTRING_PREFIX.search(text, 0, start)):
            piece = _INTERPOLATION.sub(lambda m: m.group(1) + words(m.group(2)) + "}", piece)
        out.append(piece)
        done = end
    out.append(words(text[done:]))
    renamed = "".join(out)
    if keep_line is None:
        return renamed
    old_lines, new_lines = text.split("\n"), renamed.split("\n")
    return "\n".join(o if keep_line(o) else r for o, r in zip(old_lines, new_lines))
