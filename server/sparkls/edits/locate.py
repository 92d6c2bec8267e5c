"""Where a run of lines stands among a text's lines, found as the trust rules allow. Pure.

A model quoting code to say where a change goes (a deep-tier SEARCH part, a patch's
context and removed lines) quotes it nearly, not always exactly. `find_lines` looks for
the quoted lines in passes, each more tolerant, and the first pass that finds anything
decides; a pass that finds several places is not left for a looser one (the caller
refuses the ambiguity):

1. ``exact``: the lines are equal;
2. ``trailing whitespace``: equal once trailing spaces and tabs are dropped;
3. ``indentation``: equal once leading and trailing spaces and tabs are dropped, and
   every non-blank line of the text has one and the same extra indentation prefix
   over its quoted line (or all the same prefix less): the quote was written at
   another depth, as a whole; new lines written beside it are moved by the same
   prefix (`reindent`). Blank lines match blank lines;
4. ``unicode``: as 3, once each line is Unicode-normalised (NFKC) and typographic
   dashes, quotes and odd spaces are read as their ASCII forms (a model that writes
   ``"`` for a file's ``“``).

Nothing looser: no edit distance, no skipped lines. Callers choose the passes (the deep
tier uses the first three).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

BLANKS = " \t"  # the whitespace the tolerant passes ignore
EXACT, TRAILING, INDENTATION, UNICODE = "exact", "trailing whitespace", "indentation", "unicode"
ALL_PASSES = (EXACT, TRAILING, INDENTATION, UNICODE)

# What NFKC leaves alone but a model types in ASCII.
_ASCII = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
})


@dataclass(frozen=True, slots=True)
class Match:
    start: int  # first matched line
    end: int  # one past the last matched line
    pass_name: str  # one of ALL_PASSES
    indent_added: str = ""  # prefix the text's lines have over the quote: add it to new lines
    indent_removed: str = ""  # prefix the quote's lines have over the text's: remove it


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(BLANKS))]


def normalised(line: str) -> str:
    """`line` stripped, NFKC-normalised, typographic punctuation and spaces as ASCII."""
    return unicodedata.normalize("NFKC", line).translate(_ASCII).strip(BLANKS)


def _places(lines: Sequence[str], wanted: Sequence[str], key: Callable[[str], str], lo: int, hi: int) -> list[int]:
    keys = [key(line) for line in lines[lo:hi]]
    want = [key(line) for line in wanted]
    n = len(want)
    return [lo + i for i in range(len(keys) - n + 1) if keys[i] == want[0] and keys[i : i + n] == want]


def uniform_indent(text_lines: Sequence[str], quoted: Sequence[str]) -> tuple[str, str] | None:
    """(added, removed): the one prefix the text's lines have more (or less) than the
    quote's, over every non-blank quoted line; None when the lines differ otherwise."""
    seen: tuple[str, str] | None = None
    for have, want in zip(text_lines, quoted, strict=True):
        if not want.strip(BLANKS):
            continue
        have_indent, want_indent = indent_of(have), indent_of(want)
        if have_indent.endswith(want_indent):
            delta = (have_indent[: len(have_indent) - len(want_indent)], "")
        elif want_indent.endswith(have_indent):
            delta = ("", want_indent[: len(want_indent) - len(have_indent)])
        else:
            return None
        if seen is None:
            seen = delta
        elif delta != seen:
            return None
    return seen


def find_lines(
    lines: Sequence[str], wanted: Sequence[str], *, passes: Sequence[str] = ALL_PASSES,
    lo: int = 0, hi: int | None = None,
) -> list[Match]:
    """The places `wanted` (non-empty) stands in `lines[lo:hi]`, from the first of
    `passes` that finds any (see the module doc)."""
    hi = len(lines) if hi is None else hi
    n = len(wanted)
    for name in passes:
        if name == EXACT:
            found = [Match(i, i + n, EXACT) for i in _places(lines, wanted, lambda s: s, lo, hi)]
        elif name == TRAILING:
            found = [Match(i, i + n, TRAILING) for i in _places(lines, wanted, lambda s: s.rstrip(BLANKS), lo, hi)]
        else:
            key = (lambda s: s.strip(BLANKS)) if name == INDENTATION else normalised
            found = []
            for i in _places(lines, wanted, key, lo, hi):
                delta = uniform_indent(lines[i : i + n], wanted)
                if delta is not None:
                    found.append(Match(i, i + n, name, *delta))
        if found:
            return found
    return []


def reindent(new_lines: Sequence[str], match: Match) -> list[str]:
    """`new_lines`, written beside the quote `match` found, moved to the text's depth."""
    out = []
    for line in new_lines:
        if not line.strip(BLANKS):
            out.append(line)
        elif match.indent_added:
            out.append(match.indent_added + line)
        else:
            out.append(line.removeprefix(match.indent_removed))
    return out
