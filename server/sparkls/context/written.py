"""Types as the code writes them: the types a written type names, where a written type
ends, and the return type a function's signature declares (Python, TypeScript/JavaScript,
Go). Read by the context (`follow.py`, `reach.declared_types`) and, through
`follow.returns_in`, by next edit's follow-ups. Pure: text in, text out; regexes only.
"""

from __future__ import annotations

import re

_TYPE_WORD = re.compile(r"(?<![\w$.'\"])(?:[A-Za-z_$][\w$]*\.)*([A-Z][\w$]*)")
_PY_RETURN = re.compile(r"->\s*(.+?)\s*:\s*(?:#.*)?$", re.DOTALL)
_TS_RETURN = re.compile(r"\)\s*:\s*((?:[^{};=]|=>|\{[^{}]*\})+?)\s*(?:\{|=>(?![^{}]*\))|;|=|$)", re.DOTALL)
_GO_FUNC = re.compile(r"^\s*func\s*(?:\([^()]*\)\s*)?[\w$]+\s*(?:\[[^\]]*\]\s*)?\(")


def type_words(written: str) -> list[str]:
    """The types a written type names, in order: `Promise<Store<Job>>` -> Promise,
    Store, Job; `*pkg.Server` -> Server; `Optional["Job"]` -> Optional, Job (a type's
    name starts upper-case; a qualifier is left out)."""
    return list(dict.fromkeys(m.group(1) for m in _TYPE_WORD.finditer(written.replace('"', " ").replace("'", " "))))


def written_type(text: str, start: int) -> str:
    """The type written at `start`, up to what ends it outside brackets (`=`, `;`, `{`,
    `,`, `)`, a line's end): `Map<string, Job>`, `list[Job] | None`, `(*Server, error)`."""
    depth, at = 0, start
    while at < len(text):
        char = text[at]
        if char in "<[(":
            depth += 1
        elif char in ">])" and depth:
            depth -= 1
        elif depth == 0 and char in "=;{,)\n":
            break
        at += 1
    return text[start:at]


def declared_return(signature: str, language: str) -> str | None:
    """The return type a function's signature declares, as written (`def f() -> Job:`,
    `function f(): Store<Job> {`, `load(): T;`, `const f = (): Job => ...`, `func f()
    (*Job, error) {`), or None when it declares none."""
    if language == "python":
        found = _PY_RETURN.search(signature)
        return found.group(1) if found is not None else None
    if language == "go":
        start = _GO_FUNC.match(signature)
        if start is None:
            return None
        depth, at = 1, start.end()
        while at < len(signature) and depth:
            depth += {"(": 1, ")": -1}.get(signature[at], 0)
            at += 1
        rest = signature[at:].split("{", 1)[0].strip()
        return rest or None
    found = _TS_RETURN.search(signature)
    return found.group(1).strip() if found is not None else None
