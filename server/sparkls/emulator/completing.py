"""The scripted model completing the code at the cursor from the code around it. Pure.

sparkls's inline-completion request shows the function around the cursor and makes
the cursor's line the editable region (``Complete the code at the cursor: …``). With
no ``COMPLETE`` directive, the scripted model writes what the code it is shown makes
likely, by these rules, the first that applies (each in docs/emulator.md):

1. a word being typed (``tot``): the rest of the name the request shows most often
   that starts with it (``total``), a longer one than the word itself;
2. ``self.``: the attribute the code assigns (``self.x = …``) most often;
3. a call's open bracket (``area(``) of a function the request defines: its
   parameters and the closing bracket (``radius)``);
4. ``return`` and a space: the name the function assigned last before the cursor,
   else its only parameter.

Nothing applies: the line comes back as it was (no completion), as a model with
nothing likely to add answers.
"""

from __future__ import annotations

import keyword
import re
from collections import Counter

__all__ = ["complete"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_FENCED = re.compile(r"^(`{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.M)


def _shown_code(request_text: str) -> str:
    """The code of the request's fenced blocks (the excerpt, the definitions shown)."""
    return "\n".join(m.group(2) for m in _FENCED.finditer(request_text))


def _parameters(params: str) -> list[str]:
    names = []
    for raw in params.split(","):
        m = re.match(r"\s*\**(\w+)", raw)
        if m and m.group(1) not in ("self", "cls"):
            names.append(m.group(1))
    return names


def _word_rest(word: str, code: str) -> str | None:
    counts = Counter(n for n in _NAME.findall(code) if n.startswith(word) and n != word and not keyword.iskeyword(n))
    if not counts:
        return None
    best = max(counts.items(), key=lambda item: item[1])[0]
    return best[len(word):]


def _attribute(code: str) -> str | None:
    counts = Counter(re.findall(r"\bself\.(\w+)[ \t]*=(?!=)", code))
    return max(counts.items(), key=lambda item: item[1])[0] if counts else None


def _call_arguments(name: str, code: str) -> str | None:
    for m in _DEF.finditer(code):
        if m.group(1) == name:
            return ", ".join(_parameters(m.group(2))) + ")"
    return None


def _returned(before: str) -> str | None:
    """What the function around the cursor most likely returns: the name it assigned
    last, else its only parameter. *before*: the code shown up to the cursor's line."""
    defs = list(_DEF.finditer(before))
    if not defs:
        return None
    body = before[defs[-1].end():]
    assigned = re.findall(r"^[ \t]+([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)", body, re.M)
    if assigned:
        return assigned[-1]
    params = _parameters(defs[-1].group(2))
    return params[0] if len(params) == 1 else None


def _excerpt_before(request_text: str) -> str:
    """The lines of the excerpt shown above the editable region (the function so far)."""
    before = request_text[: max(request_text.rfind("<|editable_region_start|>"), 0)]
    fence = before.rfind("\n```")
    return before[before.find("\n", fence + 1) + 1 :] if fence >= 0 else before


def complete(region: str, cursor: int | None, request_text: str) -> str:
    """The cursor's line (*region*, the cursor marker removed; *cursor*: where it was)
    with what the code around it makes likely inserted at the cursor."""
    if cursor is None:
        return region
    line_start = region.rfind("\n", 0, cursor) + 1
    typed = region[line_start:cursor]
    code = _shown_code(request_text)
    insertion = None
    if (word := re.search(r"[A-Za-z_]\w*$", typed)) and not keyword.iskeyword(word.group()):
        before = typed[: word.start()]
        if before.endswith("self."):
            attribute = _attribute(code)
            insertion = attribute[len(word.group()):] if attribute and attribute.startswith(word.group()) else None
        else:
            insertion = _word_rest(word.group(), code)
    elif typed.endswith("self."):
        insertion = _attribute(code)
    elif (call := re.search(r"([A-Za-z_]\w*)\($", typed)) is not None:
        insertion = _call_arguments(call.group(1), code)
    elif re.fullmatch(r"[ \t]*return ", typed):
        insertion = _returned(_excerpt_before(request_text))
    if not insertion:
        return region
    return region[:cursor] + insertion + region[cursor:]
