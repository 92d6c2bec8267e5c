"""Go (RE2) regexes for the secrets corpus: read by Python (`python_regex`), and
strings drawn from one (`draw`, as gitleaks' `secrets.NewSecret` draws its samples).
Used by `scripts/secrets_corpus_gitleaks.py` only."""

from __future__ import annotations

import random
import re
import re._parser as sre_parse  # the standard library's own regex parser (3.11+)
from collections.abc import Iterator
from typing import Any


class Unknown(Exception):
    """An expression (or a regex) the corpus readers do not know."""


def python_regex(go: str) -> str:
    """A Go regex as Python reads it: a `(?i)` in the middle scoped to the rest of its
    group (each alternative of it), POSIX classes spelled out, `\\z` as `\\Z`."""
    go = go.replace("[[:alnum:]]", "[0-9A-Za-z]").replace("[:alnum:]", "0-9A-Za-z").replace("\\z", "\\Z")
    out: list[str] = []
    scoped: list[list[str]] = [[]]  # per open group (the first: the top level): flags opened in it
    i, in_class = 0, False
    while i < len(go):
        char = go[i]
        if char == "\\":
            out.append(go[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            j = i + 1 + (go[i + 1 : i + 2] == "^")
            j += go[j : j + 1] == "]"
            out.append(go[i:j])
            i = j
            continue
        flag = re.match(r"\(\?([imsU-]+)\)", go[i:])
        if flag:
            if i == 0:
                out.append(flag.group())
            else:
                out.append(f"(?{flag.group(1)}:")
                scoped[-1].append(flag.group(1))
            i += len(flag.group())
            continue
        if char == "(":
            scoped.append([])
        elif char == ")" and len(scoped) > 1:
            out.append(")" * len(scoped.pop()))
        elif char == "|" and scoped[-1]:
            out.append(")" * len(scoped[-1]) + "|" + "".join(f"(?{f}:" for f in scoped[-1]))
            i += 1
            continue
        out.append(char)
        i += 1
    out.append(")" * sum(len(level) for level in scoped))
    return "".join(out)


def draw(regex: str, rng: random.Random) -> str:
    """One string the regex matches, drawn as gitleaks' `secrets.NewSecret` draws one
    (each repetition between its bounds, unbounded ones a few more than the least)."""
    pattern = python_regex(regex).replace("(?i)", "")
    return "".join(_draw(sre_parse.parse(pattern), rng))


_CATEGORIES = {
    sre_parse.CATEGORY_DIGIT: "0123456789",
    sre_parse.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    sre_parse.CATEGORY_SPACE: " ",
}


def _charset(items: list[tuple[Any, Any]]) -> str:
    chars: list[str] = []
    negate = False
    for op, value in items:
        if op is sre_parse.NEGATE:
            negate = True
        elif op is sre_parse.LITERAL:
            chars.append(chr(value))
        elif op is sre_parse.RANGE:
            chars.extend(chr(c) for c in range(value[0], value[1] + 1))
        elif op is sre_parse.CATEGORY:
            chars.extend(_CATEGORIES.get(value, ""))
    if negate:
        banned = set(chars)
        return "".join(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" if c not in banned)
    return "".join(dict.fromkeys(chars))


def _draw(parsed: Any, rng: random.Random) -> Iterator[str]:
    for op, value in parsed:
        if op is sre_parse.LITERAL:
            yield chr(value)
        elif op is sre_parse.NOT_LITERAL:
            yield rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz0123456789" if ord(c) != value])
        elif op is sre_parse.ANY:
            yield rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
        elif op is sre_parse.IN:
            yield rng.choice(_charset(value))
        elif op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT):
            low, high, item = value
            high = low + 8 if high == sre_parse.MAXREPEAT else high
            for _ in range(rng.randint(low, high)):
                yield from _draw(item, rng)
        elif op is sre_parse.SUBPATTERN:
            yield from _draw(value[-1], rng)
        elif op is sre_parse.BRANCH:
            yield from _draw(rng.choice(value[1]), rng)
        elif op is sre_parse.CATEGORY:
            yield rng.choice(_CATEGORIES.get(value, "a"))
        elif op in (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            continue
        else:
            raise Unknown(f"regex op {op}")


