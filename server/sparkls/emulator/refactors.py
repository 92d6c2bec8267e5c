"""The scripted model's small rewrites of a Python function beyond renames: "return None
on empty input", "add retries with backoff", "shorter" and "simplify". Pure.

Each takes the region's text and returns it rewritten, or the same text when no rule
applies (a real model answers the code as it was when there is nothing to do). They
are scripted rules, each documented with an example in docs/emulator.md, not a model:

- :func:`none_on_empty`: ``if not <first parameter>:`` / ``return None`` first in the
  first function's body (after its docstring); ``.strip()`` when the words speak of a
  line, blank or whitespace;
- :func:`add_retries`: the first function's body run up to three times, waiting
  ``2 ** attempt`` seconds after a failure, the last failure raised;
- :func:`shorter`: a docstring of several lines cut to its first, ``x = <expr>`` then
  ``return x`` made ``return <expr>``, ``return None`` made ``return``, comment lines
  in a body dropped (``spark:`` comments aside);
- :func:`simplify`: ``if c: return True`` / ``else: return False`` made ``return c``
  (``return not c`` the other way round), comparisons to ``True``, ``False`` and
  ``None`` made idiomatic, ``len(x) == 0`` in a condition or a return made ``not x`` (and
  ``len(x) > 0`` made ``x``), ``x = <expr>`` then ``return x`` made ``return <expr>``.
"""

from __future__ import annotations

import re

__all__ = ["add_retries", "none_on_empty", "shorter", "simplify"]

_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)[ \t]*\((?P<params>[^)]*)\)[^:\n]*:[ \t]*(?:#.*)?$", re.M)
_DOCSTRING = re.compile(r"""[ \t]*[rRuU]?(\"\"\"|''').*?\1[ \t]*\n""", re.S)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _body(region: str) -> tuple[re.Match[str], int, int, str] | None:
    """The first function's header match, where its body's first statement starts (after
    a docstring), where the body ends, and the body's indentation."""
    m = _DEF.search(region)
    if m is None:
        return None
    start = region.find("\n", m.end()) + 1
    if start == 0:
        return None
    lines = region[start:].splitlines(keepends=True)
    body_indent = next((_indent(ln) for ln in lines if ln.strip()), "")
    if len(body_indent) <= len(m.group("indent")):
        return None
    end = start
    for line in lines:
        if line.strip() and len(_indent(line)) < len(body_indent):
            break
        end += len(line)
    first = start
    doc = _DOCSTRING.match(region, first)
    if doc is not None and region[first:doc.start(1)].strip() == "":
        first = doc.end()
    return m, first, end, body_indent


def _first_parameter(params: str) -> str | None:
    for raw in params.split(","):
        name = re.match(r"\s*\**(\w+)", raw)
        if name and name.group(1) not in ("self", "cls"):
            return name.group(1)
    return None


def none_on_empty(region: str, words: str = "") -> str:
    """``if not x: return None`` first in the first function's body (x its first parameter)."""
    found = _body(region)
    if found is None:
        return region
    m, first, _end, indent = found
    param = _first_parameter(m.group("params"))
    if param is None:
        return region
    test = f"{param}.strip()" if re.search(r"\b(line|blank|whitespace)\b", words, re.I) else param
    if re.match(rf"[ \t]*if not {re.escape(test)}\s*:", region[first:]):
        return region  # guarded already
    guard = f"{indent}if not {test}:\n{indent}    return None\n"
    return region[:first] + guard + region[first:]


def add_retries(region: str) -> str:
    """The first function's body tried up to three times, with a growing wait between."""
    found = _body(region)
    if found is None or re.search(r"\bfor attempt in range\(", region):
        return region
    _m, first, end, indent = found
    body = region[first:end]
    if not body.strip():
        return region
    trailing = body[len(body.rstrip("\n")) :] if body.rstrip("\n") != body else ""
    inner = "".join(
        (f"{indent}        {line[len(indent):]}" if line.strip() else line)
        for line in body.rstrip("\n").splitlines(keepends=True)
    )
    wrapped = (
        f"{indent}import time\n\n"
        f"{indent}for attempt in range(3):\n"
        f"{indent}    try:\n"
        f"{inner}\n"
        f"{indent}    except Exception:\n"
        f"{indent}        if attempt == 2:\n"
        f"{indent}            raise\n"
        f"{indent}        time.sleep(2 ** attempt)\n"
    )
    if not body.endswith("\n"):
        wrapped = wrapped.removesuffix("\n")  # the region ended without a line break: so does the answer
    return region[:first] + wrapped + trailing[1:] + region[end:]


def _returned_assignment(region: str) -> str:
    """``x = <expr>`` directly followed by ``return x`` (same indentation) -> ``return <expr>``."""
    pattern = re.compile(r"^(?P<indent>[ \t]+)(?P<name>[A-Za-z_]\w*)[ \t]*=(?!=)[ \t]*(?P<value>[^\n]+)\n(?P=indent)return[ \t]+(?P=name)[ \t]*$", re.M)
    return pattern.sub(lambda m: f"{m.group('indent')}return {m.group('value').rstrip()}", region)


def shorter(region: str) -> str:
    """The region shorter, as the module doc lists."""
    def first_line(m: re.Match[str]) -> str:
        quote, text = m.group("quote"), m.group("text").strip()
        line = text.splitlines()[0].strip() if text else ""
        return f"{m.group('indent')}{quote}{line}{quote}\n"

    new = re.sub(r"^(?P<indent>[ \t]+)(?P<quote>\"\"\"|''')(?P<text>[^\n]*\n.*?)(?P=quote)[ \t]*\n", first_line, region, flags=re.M | re.S)
    new = _returned_assignment(new)
    new = re.sub(r"^([ \t]+return)[ \t]+None(?=[ \t]*(?:#[^\n]*)?$)", r"\1", new, flags=re.M)
    return re.sub(r"^[ \t]+#(?![ \t]*spark:)[^\n]*\n", "", new, flags=re.M | re.I)


_CONDITION_RETURN = re.compile(
    r"^(?P<indent>[ \t]*)if[ \t]+(?P<cond>[^\n]+?)[ \t]*:[ \t]*\n(?P=indent)[ \t]+return[ \t]+(?P<a>True|False)[ \t]*\n"
    r"(?:(?P=indent)else[ \t]*:[ \t]*\n(?P=indent)[ \t]+|(?P=indent))return[ \t]+(?P<b>True|False)[ \t]*$",
    re.M,
)


def simplify(region: str) -> str:
    """The region simpler, as the module doc lists."""
    def condition_return(m: re.Match[str]) -> str:
        if m.group("a") == m.group("b"):
            return m.group(0)
        cond = m.group("cond")
        value = cond if m.group("a") == "True" else f"not ({cond})" if re.search(r"\s", cond) else f"not {cond}"
        return f"{m.group('indent')}return {value}"

    new = _CONDITION_RETURN.sub(condition_return, region)
    operand = r"[A-Za-z_][\w.]*(?:\([^()\n]*\))?(?:\[[^\[\]\n]*\])?"
    new = re.sub(rf"({operand})\s*(?:==\s*True|!=\s*False)\b", r"\1", new)
    new = re.sub(rf"({operand})\s*(?:==\s*False|!=\s*True)\b", r"not \1", new)
    new = re.sub(r"\s*==\s*None\b", " is None", new)
    new = re.sub(r"\s*!=\s*None\b", " is not None", new)
    new = re.sub(r"\b(if|while|and|or|return)[ \t]+len\(([^()\n]+)\)[ \t]*==[ \t]*0\b", r"\1 not \2", new)
    new = re.sub(r"\b(if|while|and|or)[ \t]+len\(([^()\n]+)\)[ \t]*(?:>|!=)[ \t]*0\b", r"\1 \2", new)
    return _returned_assignment(new)
