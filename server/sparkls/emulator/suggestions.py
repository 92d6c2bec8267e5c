"""The scripted fast-tier model's one unprompted habit: it takes a diagnostic's suggestion.

A real model asked to fix ``Cannot find name 'raduis'. Did you mean 'radius'?`` writes
``radius``. This module finds such suggestions in the diagnostics of a fast-tier prompt,
as ``sparkls.context.prompt`` renders them::

    Diagnostics:
    - line 6: Cannot find name 'raduis'. Did you mean 'radius'? (ts [2552])

and renames the first quoted name of each such message to the suggested one in a
text, as a whole identifier. Only messages that end a sentence with ``Did you mean
'X'?`` (or ``"X"``) count; one without a suggestion (pyright's ``"raduis" is not
defined``) changes nothing.

It knows nothing of directives, regions or answers: ``model.py`` decides when the
habit applies (a fast-tier request without REPLACE or COMPLETE). No I/O.
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["Rename", "apply_renames", "suggested_renames"]

# The block runs from its heading to the blank line that ends the prompt part.
_BLOCK_RE = re.compile(r"^Diagnostics:\n(.*?)(?:\n\n|\Z)", re.MULTILINE | re.DOTALL)
# One entry per "- line N: " line; a multi-line message continues on the lines after.
_ENTRY_RE = re.compile(r"^- line \d+: ", re.MULTILINE)
_NAME = r"[\w$]+"  # an identifier in the languages sparkls edits (TypeScript allows $)
_QUOTED_NAME_RE = re.compile(rf"(['\"])({_NAME})\1")
_SUGGESTION_RE = re.compile(rf"Did you mean (['\"])({_NAME})\1\?")


@dataclasses.dataclass(frozen=True, slots=True)
class Rename:
    """One suggestion: the identifier *old* should read *new*."""

    old: str
    new: str


def suggested_renames(request_text: str) -> tuple[Rename, ...]:
    """The renames the diagnostics listed in *request_text* suggest, in their order."""
    block = _BLOCK_RE.search(request_text)
    if block is None:
        return ()
    renames = []
    for entry in _ENTRY_RE.split(block.group(1))[1:]:
        suggestion = _SUGGESTION_RE.search(entry)
        if suggestion is None:
            continue
        # The name the message is about is the first quoted one; a quoted module path
        # (Module '"./shapes"' has no exported member 'raduis') is not a name.
        named = _QUOTED_NAME_RE.search(entry, 0, suggestion.start())
        if named is not None and named.group(2) != suggestion.group(2):
            renames.append(Rename(named.group(2), suggestion.group(2)))
    return tuple(renames)


def apply_renames(text: str, renames: tuple[Rename, ...]) -> str:
    """*text* with each rename's *old* identifier, where it stands whole, made *new*."""
    for rename in renames:
        text = re.sub(rf"(?<![\w$]){re.escape(rename.old)}(?![\w$])", lambda _: rename.new, text)
    return text
