"""Comments that stand in for code a model left out ("# ... rest unchanged"). Pure.

A fast model asked for the whole region sometimes writes the part it changed and a
comment where the rest was. Applied, that comment would replace the rest: code lost
without a syntax error to catch it. A line is such an *elision* when it is a whole-line
comment (``#``, ``//``, ``/*``, ``--``, ``<!--``, ``;``, ``%``) whose text

- starts with an ellipsis (``...``, ``…``): ``# ...``, ``// ... existing code ...``;
- starts with "rest of the code" (or file, function, method, class, body …),
  "remainder of …", or "existing/previous/original/other code, methods, …":
  ``# rest of the method``, ``// existing code``;
- or says that code, the rest, methods, lines … are unchanged, as before, the same,
  omitted or not shown: ``# other methods unchanged``, ``# (body as before)``.

Python's bare ``...`` statement is code, not a comment, and is never an elision; nor is
any line the old region already had. ``pass`` or ``...`` followed by such a comment is
one. In Markdown only ``<!--`` starts a comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_COMMENT = re.compile(r"^[ \t]*(?:#+|//+|/\*+|--+|<!--|;+|%+)[ \t]*(.*?)[ \t]*(?:\*+/|-->)?[ \t]*$")
_HTML_COMMENT = re.compile(r"^[ \t]*<!--[ \t]*(.*?)[ \t]*(?:-->)?[ \t]*$")
_PLACEHOLDER = re.compile(r"^[ \t]*(?:pass|\.\.\.)[ \t]*#+[ \t]*(.*?)[ \t]*$")  # "pass  # ... rest unchanged"
_HTML_ONLY = frozenset({"markdown", "html", "xml", "vue", "svelte"})
_BRACKETS = "()[]{}<>*_`'\" \t"
_STARTS = re.compile(
    r"^(?:\.\.\.|…|\. \. \."
    r"|(?:the )?(?:rest|remainder) of (?:the |this )?(?:\w+ )?(?:code|file|function|method|class|body|"
    r"implementation|module|lines?|logic|block|loop|component|script|definition|program|test)\b"
    r"|(?:the )?(?:existing|previous|original|other|remaining) (?:code|methods?|functions?|lines?|logic|"
    r"implementation|body|fields?|cases?)\b)",
    re.IGNORECASE,
)
_SAYS_UNCHANGED = re.compile(
    r"\b(?:code|rest|everything(?: else)?|methods?|functions?|lines?|body|implementation|logic|cases?|fields?)\b"
    r".*\b(?:unchanged|as before|(?:remains?|stays?|is|are) (?:the )?same|same as before|as is|omitted|not shown)\b",
    re.IGNORECASE,
)


def is_elision(line: str, language_id: str = "") -> bool:
    """Whether `line` is a comment standing in for left-out code (see the module doc)."""
    found = (_HTML_COMMENT if language_id in _HTML_ONLY else _COMMENT).match(line) or _PLACEHOLDER.match(line)
    if found is None:
        return False
    text = found.group(1).strip(_BRACKETS)
    return bool(text) and bool(_STARTS.match(text) or _SAYS_UNCHANGED.search(text))


def first_elision(new_lines: Iterable[str], old_lines: Iterable[str], language_id: str = "") -> tuple[int, str] | None:
    """(0-based index, line) of the first elision in `new_lines` that `old_lines` lacks."""
    had = {line.strip() for line in old_lines}
    for i, line in enumerate(new_lines):
        if line.strip() not in had and is_elision(line, language_id):
            return i, line
    return None
