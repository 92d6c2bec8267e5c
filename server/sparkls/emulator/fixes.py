"""The scripted model's quick fixes for common ruff and pyright diagnostics. Pure.

A quick fix asks ``Fix this problem: <message>`` and lists the diagnostics in play,
as ``sparkls.context.prompt`` renders them::

    Diagnostics:
    - line 1: `os` imported but unused (Ruff [F401])

:func:`fix` rewrites the region as the message asks, with the rules below (each
documented, with an example, in docs/emulator.md); a diagnostic no rule knows is
left to the caller. The messages are ruff's, pyright's (and basedpyright's) and
mypy's own words (ESLint's ``'x' is not defined.`` too); the rules for Python imports
and variables apply to Python files only.
TypeScript's "Did you mean" suggestions are ``suggestions.py``'s.
"""

from __future__ import annotations

import difflib
import re
import sys

from sparkls.emulator import rewrites

__all__ = ["Fixed", "fix", "listed"]

_BLOCK_RE = re.compile(r"^Diagnostics:\n(.*?)(?:\n\n|\Z)", re.MULTILINE | re.DOTALL)
_ENTRY_RE = re.compile(r"^- line \d+: ", re.MULTILINE)
_Q = r"[`\"']"

_UNUSED_IMPORT = re.compile(rf"^{_Q}([\w.]+){_Q} imported but unused|^Import {_Q}([\w.]+){_Q} is not accessed")
_UNUSED_VARIABLE = re.compile(rf"^Local variable {_Q}(\w+){_Q} is assigned to but never used|^Variable {_Q}(\w+){_Q} is not accessed")
_NONE_COMPARISON = re.compile(r"^Comparison to `None` should be")
_BOOL_COMPARISON = re.compile(r"^(?:Avoid equality comparisons to `(?:True|False)`|Comparison to `(?:True|False)` should be)")
_BARE_EXCEPT = re.compile(r"^Do not use bare `except`")
_EMPTY_FSTRING = re.compile(r"^f-string without any placeholders")
_UNDEFINED = re.compile(rf"^{_Q}(\w+){_Q} is not defined|^Name {_Q}(\w+){_Q} is not defined|^Undefined name `(\w+)`")
_UNRESOLVED = re.compile(rf"^Import {_Q}([\w.]+){_Q} could not be resolved|^Cannot find implementation or library stub for module named {_Q}([\w.]+){_Q}")
_OPTIONAL_MEMBER = re.compile(rf"^{_Q}(\w+){_Q} is not a known attribute of {_Q}None{_Q}")
_OPERAND = r"[A-Za-z_][\w.]*(?:\([^()\n]*\))?(?:\[[^\[\]\n]*\])?"


class Fixed:
    """The outcome of the quick-fix rules: the new region, whether a rule knew a
    diagnostic, and a sentence to answer instead of code (a fix no code makes)."""

    __slots__ = ("region", "known", "prose")

    def __init__(self, region: str, known: bool = False, prose: str | None = None) -> None:
        self.region, self.known, self.prose = region, known, prose


def listed(request_text: str) -> list[str]:
    """The messages of the diagnostics listed in *request_text*, in order (the
    ``(source [code])`` tail removed)."""
    block = _BLOCK_RE.search(request_text)
    if block is None:
        return []
    entries = _ENTRY_RE.split(block.group(1))[1:]
    return [re.sub(r" \([^()\n]*\)$", "", entry.strip()) for entry in entries]


def _first(m: re.Match[str]) -> str:
    return next(g for g in m.groups() if g)


def _visible_names(request_text: str) -> set[str]:
    code = "\n".join(re.findall(r"^```[^\n]*\n(.*?)^```", request_text, re.M | re.S))
    return set(re.findall(r"(?<![\w$])[A-Za-z_]\w*", code))


def _undefined(region: str, missing: str, request_text: str, python: bool) -> str:
    """A misspelt name made the closest name the request shows; in Python, a
    standard-library module imported where the region begins (inside its function)."""
    known = _visible_names(request_text) - {missing}
    close = difflib.get_close_matches(missing, sorted(known), n=1, cutoff=0.75)
    if close:
        return rewrites.rename(region, missing, close[0])
    if python and missing in sys.stdlib_module_names:
        defs = list(re.finditer(r"^([ \t]*)(?:async[ \t]+)?def\b[^\n]*:[ \t]*(?:#.*)?\n", region, re.M))
        if defs:
            at = defs[0].end()
            body = re.match(r"[ \t]*", region[at:]).group() or defs[0].group(1) + "    "
            return f"{region[:at]}{body}import {missing}\n{region[at:]}"
        indent = re.match(r"[ \t]*", region).group()
        return f"{indent}import {missing}\n{region}"
    return region


def _unresolved(region: str, module: str) -> tuple[str, str | None]:
    top = module.split(".")[0]
    close = difflib.get_close_matches(top, sorted(sys.stdlib_module_names), n=1, cutoff=0.8)
    if close and close[0] != top:
        return rewrites.rename(region, top, close[0]), None
    return region, (
        f"`{module}` is not a code problem: the Python environment your type checker uses does not have it. "
        f"Install it there (for example `pip install {top}`) or select the interpreter that has it; "
        "no change to this code fixes that."
    )


def _optional_member(region: str, attribute: str) -> str:
    """``assert x is not None`` before the first line that reads ``x.attribute``."""
    m = re.search(rf"(?<![\w.])([A-Za-z_]\w*(?:\.\w+)*)\.{re.escape(attribute)}\b", region)
    if m is None:
        return region
    line_start = region.rfind("\n", 0, m.start()) + 1
    indent = re.match(r"[ \t]*", region[line_start:]).group()
    return f"{region[:line_start]}{indent}assert {m.group(1)} is not None\n{region[line_start:]}"


def _bool_comparisons(region: str) -> str:
    region = re.sub(rf"({_OPERAND})\s*(?:==\s*True|!=\s*False)\b", r"\1", region)
    return re.sub(rf"({_OPERAND})\s*(?:==\s*False|!=\s*True)\b", r"not \1", region)


def fix(region: str, messages: list[str], request_text: str, lang: str) -> Fixed:
    """*region* with the fixes of *messages* (diagnostic messages) applied."""
    known, prose = False, None
    unused_imports: set[str] = set()
    unused_variables: set[str] = set()
    python = lang in ("python", "")
    for message in messages:
        if python and (m := _UNUSED_IMPORT.search(message)):
            unused_imports.add(_first(m))
        elif python and (m := _UNUSED_VARIABLE.search(message)):
            unused_variables.add(_first(m))
        elif _NONE_COMPARISON.search(message):
            region = re.sub(r"\s*!=\s*None\b", " is not None", re.sub(r"\s*==\s*None\b", " is None", region))
        elif _BOOL_COMPARISON.search(message):
            region = _bool_comparisons(region)
        elif _BARE_EXCEPT.search(message):
            region = re.sub(r"^([ \t]*)except[ \t]*:", r"\1except Exception:", region, flags=re.M)
        elif _EMPTY_FSTRING.search(message):
            region = re.sub(r"(?<![\w\"'])[fF]((\"|')(?:(?!\2)[^{}\\\n])*\2)", r"\1", region)
        elif m := _UNDEFINED.search(message):
            region = _undefined(region, _first(m), request_text, python)
        elif python and (m := _UNRESOLVED.search(message)):
            region, said = _unresolved(region, _first(m))
            prose = prose or said
        elif python and (m := _OPTIONAL_MEMBER.search(message)):
            region = _optional_member(region, m.group(1))
        else:
            continue
        known = True
    if unused_imports:
        region = rewrites.remove_imports(region, unused_imports, "")
    if unused_variables:
        region = rewrites.remove_unused_variables(region, unused_variables)
    return Fixed(region, known, prose)
