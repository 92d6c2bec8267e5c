"""Whether an edit of a parameter list changes how the function is called. Pure.

A call site must change when a parameter is added, removed, reordered or renamed (a
call may pass it by name), or its default changes (a call that relied on it may have
to pass the old value); not when only types change:
"add type hints" (`radius` -> `radius: float`), a TypeScript type, a Go parameter's
type, a Rust one. A follow-up ("Spark: update 1 call site") and a next edit at a call
are offered only when the contract changed, since otherwise there is nothing to do.

`call_contract(params, language)` reads a parameter list's text (with or without its
brackets) into what callers depend on: per parameter its kind (`*`, `**`, `...`, `&`
receivers aside), its name and its default (`?` when optional, `x?`; None without).
"""

from __future__ import annotations

import re

__all__ = ["call_contract", "same_calls"]

_OPEN, _CLOSE = "([{<", ")]}>"
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def _top_level_split(text: str, separator: str) -> list[str]:
    """`text` split at `separator` where it is outside brackets and strings."""
    parts, depth, quote, last = [], 0, None, 0
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif c == separator and depth == 0:
            parts.append(text[last:i])
            last = i + 1
        i += 1
    parts.append(text[last:])
    return parts


def _parameter(part: str, language: str) -> tuple[str, str, str | None] | None:
    """(kind, name, default) of one parameter's text; None for an empty part."""
    text = part.strip()
    if not text:
        return None
    pieces = _top_level_split(text, "=")
    default = re.sub(r"\s+", "", "=".join(pieces[1:])) if len(pieces) > 1 else None
    head = pieces[0].strip()
    kind = re.match(r"\**|\.\.\.|&?(?:mut\s+)?", head).group()
    head = head[len(kind):].strip()
    if language == "go":
        name = head.split()[0] if head.split() else head  # `a, b int`: `b int` -> b; `int` alone stays
    else:
        name = _top_level_split(head, ":")[0].strip()  # `radius: float`, `x?: number`, `a: i32`
    if name.endswith("?"):
        name, default = name[:-1], default or "?"
    if not _NAME.fullmatch(name):
        name = re.sub(r"\s+", "", name)  # a pattern (`{ a, b }`, `(x, y)`): as written
    return kind.strip(), name, default


def call_contract(params: str, language: str = "python") -> tuple[tuple[str, str, str | None], ...]:
    """What callers of a function with this parameter list depend on."""
    inner = params.strip()
    if inner[:1] == "(" and inner[-1:] == ")":
        inner = inner[1:-1]
    found = (_parameter(part, language) for part in _top_level_split(inner, ","))
    return tuple(p for p in found if p is not None)


def same_calls(old: str, new: str, language: str = "python") -> bool:
    """Whether a function whose parameter list was `old` and is `new` is called the same way."""
    return call_contract(old, language) == call_contract(new, language)
