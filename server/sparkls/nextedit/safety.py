"""Whether a next-edit suggestion may be offered: it follows a change the user meant,
and its edit does no damage to the text as it is. Pure.

A suggestion never damages code. Before one is asked for, the history must be the
text's (`consistent`: each edit's new text is where the history says; a history that
lost track is cleared, never read), and the last change must be one the user made
anew (not an undo or a redo: `EditHistory.reverting`). Before it is offered, and each
time it is listed or accepted, its edit is checked against the current text
(`damage`): a suggestion is refused when it

- **reverses** the user's last change: it brings back a name the newest edit renamed
  away (`subtotal` back where the user wrote `total`);
- **corrupts**: it writes a name the document holds nowhere else, neither before nor
  after its region (`totsubal`, a name made of a transient state), where the user's
  edits do not hold it either, and the language does not define (`len`, `console`).

`reversal(...)` tells the benchmark which of the two a suggestion would have done.
"""

from __future__ import annotations

import keyword
import re
from collections import Counter
from collections.abc import Sequence

from sparkls.edits.invented import BUILTINS
from sparkls.nextedit.history import Edit, renames

__all__ = ["consistent", "damage"]

_IDENTIFIER = re.compile(r"(?<![\w$])[^\W\d][\w$]*")
_STRING = "|".join((
    r'"""[\s\S]*?"""', r"'''[\s\S]*?'''", r'"(?:\\.|[^"\\\n])*"', r"'(?:\\.|[^'\\\n])*'", r"`[^`]*`",
))
_TEXT = {  # string literals and comments: their words are no names
    "hash": re.compile(_STRING + r"|#[^\n]*"),
    "slash": re.compile(_STRING + r"|//[^\n]*|/\*[\s\S]*?\*/"),
}
_HASH_LANGUAGES = frozenset({"python", "ruby", "shellscript", "toml", "yaml", "r"})


def consistent(edits: Sequence[Edit], text: str) -> bool:
    """Whether every edit's new text stands where the history says, in `text`."""
    return all(0 <= e.start <= e.end <= len(text) and text[e.start : e.end] == e.new for e in edits)


def _words(text: str, language_id: str = "python") -> Counter[str]:
    """The names of `text`'s code (not the words of its strings and comments)."""
    code = _TEXT["hash" if language_id in _HASH_LANGUAGES else "slash"].sub(" ", text)
    return Counter(_IDENTIFIER.findall(code))


def damage(
    old_region: str, new_region: str, outside: str, edits: Sequence[Edit], text: str, elsewhere: str = "",
    language_id: str = "python",
) -> str | None:
    """Why the rewrite of `old_region` into `new_region` must not be offered, or None.
    `outside`: the document's text around the region; `edits`: the history (oldest
    first) of `text`, the document as it is; `elsewhere`: for a question another
    document's edits asked, those edits (the names they introduced are known)."""
    before, after = _words(old_region, language_id), _words(new_region, language_id)
    if edits:
        for old, new in renames(edits[-1], text):
            if after[old] > before[old]:
                return f"it would undo the rename of {old} to {new}"
    known = _words(outside, language_id) + _words(elsewhere, language_id)
    language = BUILTINS.get(language_id, frozenset()) | frozenset(keyword.kwlist if language_id == "python" else ())
    for name in after:
        if after[name] > before[name] and name not in before and name not in known and name not in language:
            return f"it writes {name}, which the file holds nowhere else"
    return None
