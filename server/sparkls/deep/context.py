"""Which files a deep-tier task shows the model, besides the ones the user named.

The symbols in play are the names the task's instruction mentions and the names the
selection defines or uses, kept when something in the workspace defines them (the
named files' own symbols, or the workspace index). Relevant files are then, in this
order: files that define those symbols (the index), and files that mention them
(references, found by a word search over the workspace files that may be sent),
most mentions first. They are added after the named files while they fit
`budget_tokens` and `max_files`. Pure, except that the caller hands in the texts.

What may be sent at all is the caller's decision (the PathFilter); this module only
chooses among the files it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from sparkls.context.definitions import WORD, Lookup, file_symbols, names_used
from sparkls.context.tokens import estimate_tokens
from sparkls.documents.languages import grammar_record
from sparkls.documents.store import Document

MAX_SYMBOLS = 12  # names looked up per task, in order of mention
MAX_DEFINERS = 4  # files per name taken from the index
MAX_RELEVANT_FILES = 12  # files added to the named ones
BUDGET_TOKENS = 48_000  # what all the files shown may weigh, named ones included
MIN_NAME_LENGTH = 3  # shorter words ("x", "id") match too much to mean a symbol


@dataclass(frozen=True, slots=True)
class Relevant:
    """A file worth showing, and why (for the summary)."""

    path: str
    reason: str  # "defines circle", "mentions area (3)"
    rank: tuple[int, int, str]  # lower first: definitions, then most mentions


def symbols_in_play(
    instruction: str,
    named: Sequence[Document],
    selection: tuple[Document, int, int] | None = None,
    lookup: Lookup | None = None,
) -> list[str]:
    """Names the task is about, in order of mention: defined in a named file or indexed."""
    defined = {s.name for doc in named for s in file_symbols(doc)}
    words = list(dict.fromkeys(WORD.findall(instruction)))
    if selection is not None:
        doc, start, end = selection
        text = doc.text[start:end]
        first, last = doc.position(start).line, doc.position(end).line
        words += [s.name for s in file_symbols(doc) if s.start_line <= last and s.end_line >= first]
        record = grammar_record(doc.language_id)
        words += names_used(text, record.name if record is not None else None)
    found = []
    for word in dict.fromkeys(words):
        if len(word) < MIN_NAME_LENGTH:
            continue
        if word in defined or (lookup is not None and lookup.definitions(word)):
            found.append(word)
        if len(found) == MAX_SYMBOLS:
            break
    return found


def definers(names: Sequence[str], lookup: Lookup | None, exclude: set[str]) -> list[Relevant]:
    """Files the index says define `names` (up to MAX_DEFINERS each), not in `exclude`."""
    if lookup is None:
        return []
    out: dict[str, Relevant] = {}
    for name in names:
        paths = list(dict.fromkeys(path for path, _ in lookup.definitions(name)))
        for path in paths[:MAX_DEFINERS]:
            if path not in exclude and path not in out:
                out[path] = Relevant(path, f"defines {name}", (0, 0, path))
    return list(out.values())


def references(names: Sequence[str], files: Iterable[tuple[str, str]], exclude: set[str]) -> list[Relevant]:
    """Files among `files` ((path, text)) that mention any of `names` as a word."""
    if not names:
        return []
    pattern = _word_pattern(tuple(names))
    out = []
    for path, text in files:
        if path in exclude:
            continue
        hits = pattern.findall(text)
        if hits:
            top = max(set(hits), key=hits.count)
            out.append(Relevant(path, f"mentions {top} ({len(hits)})", (1, -len(hits), path)))
    return out


@lru_cache(maxsize=8)
def _word_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")


@dataclass(frozen=True, slots=True)
class Chosen:
    paths: list[str]  # relevant files to show, in rank order
    reasons: dict[str, str]
    left_out: list[str]  # relevant, but over the budget or the file count


def choose(
    relevant: Iterable[Relevant],
    sizes: dict[str, int],
    used_tokens: int,
    *,
    budget_tokens: int = BUDGET_TOKENS,
    max_files: int = MAX_RELEVANT_FILES,
) -> Chosen:
    """The relevant files that fit, best first; `sizes` are token estimates per path."""
    seen: dict[str, Relevant] = {}
    for r in sorted(relevant, key=lambda r: r.rank):
        seen.setdefault(r.path, r)
    paths, left_out = [], []
    for path in seen:
        cost = sizes.get(path, 0)
        if len(paths) < max_files and used_tokens + cost <= budget_tokens:
            paths.append(path)
            used_tokens += cost
        else:
            left_out.append(path)
    return Chosen(paths, {p: seen[p].reason for p in paths}, left_out)


def size_of(text: str) -> int:
    """The token estimate of a whole file (not memoised: files are large and many)."""
    return estimate_tokens.__wrapped__(text)
