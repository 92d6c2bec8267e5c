"""Text an editor may send that is not valid Unicode: lone UTF-16 surrogates.

LSP text is JSON, and JSON may carry a lone surrogate escape (`"\\ud83d"`): half of an
emoji cut by a paste, say. Python keeps it as one code point in D800-DFFF, which
strict UTF-8 cannot encode. sparkls keeps the editor's text exactly as it is and:

- makes bytes for tree-sitter with `encode("utf-8", "surrogatepass")` everywhere
  (a surrogate passes through as a 3-byte sequence: consistent lengths, a tree with
  an ERROR node there at worst), and counts it as 3 UTF-8 units in positions;
- never sends a surrogate to a model: `for_the_wire` joins a high and low surrogate that
  ended up side by side (an emoji pasted in two changes) and replaces a lone one
  with U+FFFD, as the service's JSON parser may refuse it;
- puts them back into a reply (`restore`): the i-th U+FFFD the model echoed is the
  i-th lone surrogate of the region it was shown, when the counts agree.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def for_the_wire(text: str) -> str:
    """`text` as valid Unicode: surrogate pairs joined, lone surrogates as U+FFFD."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def lone_surrogates(text: str) -> list[str]:
    """The surrogates of `text` that `for_the_wire` replaces, in order."""
    wire = for_the_wire(text)
    if wire is text:
        return []
    # Pairs were joined: what is left in D800-DFFF of the original after removing
    # joined pairs is what became U+FFFD.
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if "\ud800" <= ch <= "\udbff" and i + 1 < len(text) and "\udc00" <= text[i + 1] <= "\udfff":
            i += 2
            continue
        if "\ud800" <= ch <= "\udfff":
            out.append(ch)
        i += 1
    return out


def restore(old: str, new: str) -> str | None:
    """`new` (a model's rewrite of `for_the_wire(old)`) with `old`'s lone surrogates
    back where the model kept their U+FFFD; None when it cannot be done exactly (the
    model kept some and not others, or `old` held real U+FFFD characters too)."""
    lone = lone_surrogates(old)
    if not lone:
        return new
    kept = new.count(REPLACEMENT)
    if kept == 0:
        return new  # the model dropped the broken characters (a line rewritten or deleted)
    if kept != len(lone) or REPLACEMENT in old:
        return None
    pieces = new.split(REPLACEMENT)
    return "".join(piece + (lone[i] if i < len(lone) else "") for i, piece in enumerate(pieces))
