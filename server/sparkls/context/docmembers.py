"""Members a JSDoc comment declares: what JavaScript written with JSDoc types has for fields.

`@param {Object} [options] ...` followed by `@param {Boolean} [options.isServer=false]`
declares a member `isServer` of what the parameter `options` holds; `@typedef {Object}
Job` followed by `@property {string} id` declares a member `id` of `Job`. TypeScript's
language service reads them so (a `this._options.isServer` is defined on that line), and
the model reading the region learns from them what a member holds.

`documented_members(text)` returns, for one comment's text, each such member: its name,
its container (the parameter's or the typedef's name, or the name before the last dot:
`options.zlib.level` -> `zlib`), and its lines relative to the comment's first line (the
tag's line and the lines that continue it, up to the next tag or the comment's end).

Pure: text in, tuples out.
"""

from __future__ import annotations

import re

_NAME = r"[A-Za-z_$][\w$]*"
_TAG = re.compile(r"@(param|arg|argument|property|prop|typedef)\b")
_DOTTED = re.compile(rf"\[?\s*({_NAME}(?:\.{_NAME})*)")
_LINE_TAG = re.compile(r"^\s*\*?\s*@")


def _skip_type(text: str, at: int) -> int:
    """The index after a `{...}` type starting at or after `at` (blanks skipped), braces
    balanced; `at` itself when no type is there, or when it never closes."""
    start = at
    while start < len(text) and text[start] in " \t":
        start += 1
    if start >= len(text) or text[start] != "{":
        return at
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return at


def documented_members(text: str) -> list[tuple[str, str | None, int, int]]:
    """(member, container, first line, last line) for each member the comment declares;
    lines are 0-based from the comment's first line."""
    lines = text.split("\n")
    found: list[tuple[str, str | None, int, int]] = []
    typedef: str | None = None
    for row, line in enumerate(lines):
        for tag in _TAG.finditer(line):
            after = _skip_type(line, tag.end())
            named = _DOTTED.match(line, after + len(line[after:]) - len(line[after:].lstrip()))
            if named is None:
                continue
            path = named.group(1).split(".")
            if tag.group(1) == "typedef":
                typedef = path[-1]
                continue
            if len(path) > 1:
                container: str | None = path[-2]
            elif tag.group(1) in ("property", "prop"):
                container = typedef
            else:
                continue  # a parameter itself: the function's signature shows it
            last = row
            while last + 1 < len(lines) and not _LINE_TAG.match(lines[last + 1]) and "*/" not in lines[last + 1]:
                last += 1
            found.append((path[-1], container, row, last))
    return found
