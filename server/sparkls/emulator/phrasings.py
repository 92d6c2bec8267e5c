"""What the scripted model understands of a user's plain words. Pure.

The directives (``REPLACE a WITH b``, ``COMPLETE x``) are exact; users type what they
would type to a model: "rename a to b", "add a docstring", "make it async". This module
finds the user's words in a request and reads the common phrasings of what the
emulator can do into a :class:`Reading`; ``rewrites.py`` carries them out and
``fixes.py`` answers quick fixes. Matching is case-insensitive, and a name may be
written bare, ``"quoted"`` or ```backticked```.

The user's words are what follows sparkls's labels for them: ``Instruction:`` (an edit,
a quick fix, a comment instruction), ``as follows:`` (a refine) and ``added to the
instruction:`` (a steer), up to the next blank line; without a label there are none,
and the emulator answers as it always did (docs/emulator.md, "The scripted model").
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["FOLLOWS", "NOT_UNDERSTOOD_START", "Reading", "labelled_words", "not_understood", "read", "user_words"]

# What the emulator follows, said when it cannot follow the words it was given. sparkls
# shows an answer in words whole; the list names each phrasing docs/emulator.md documents.
FOLLOWS = (
    "`rename old to new`, `add a docstring`, `add type hints`, `make it async`, "
    "`return None on empty input`, `add retries with backoff`, `simplify`, `shorter`, "
    "`remove unused imports`, and quick fixes for ruff and pyright diagnostics (docs/emulator.md)"
)
NOT_UNDERSTOOD_START = "The sparkls emulator does not understand "


def not_understood(words: str) -> str:
    """The one line the emulator answers to *words* it cannot follow: what they were, and
    what it follows instead. A scripted stand-in says so; it never fails as a model would."""
    if words.startswith("Fix this problem:"):
        what = f'the diagnostic "{_short(words.removeprefix("Fix this problem:").strip())}"'
    else:
        what = f'"{_short(words)}"'
    return f"{NOT_UNDERSTOOD_START}{what}; it follows: {FOLLOWS}."


def _short(words: str, limit: int = 80) -> str:
    words = " ".join(words.split())
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"


_LABEL_RE = re.compile(
    r"(?:^Instruction: |as follows: |added to the instruction: )(.*?)(?=\n[ \t]*\n|\Z)", re.MULTILINE | re.DOTALL
)
_DIRECTIVE_RE = re.compile(r"(?<!\w)(?:EMULATE[ \t]+\S+|REPLACE[ \t]+\S+[ \t]+WITH[ \t]+\S+|COMPLETE[ \t]+\S+)")

_NAME = r"`[^`\n]+`|\"[^\"\n]+\"|'[^'\n]+'|[\w$]+(?:\.[\w$]+)*"
_KIND = r"(?:(?:the|this|that)\s+)?(?:variable|function|method|class|parameter|argument|field|attribute|property|constant|symbol|identifier|name)?\s*"
_RENAME_RE = re.compile(
    rf"\b(?:rename|change\s+the\s+name\s+of)\s+{_KIND}(?P<old>{_NAME})\s+(?:to|as|into|->|→)\s+(?P<new>{_NAME})", re.I
)
_REPLACE_RE = re.compile(rf"\b(?:replace|change)\s+(?P<old>{_NAME})\s+(?:with|by|to|->|→)\s+(?P<new>{_NAME})", re.I)
_CALL_IT_RE = re.compile(
    rf"\b(?:call|name|rename)\s+(?:it|this|that|the\s+function|this\s+function|the\s+class|this\s+class)\s+(?:to\s+|as\s+)?(?P<new>{_NAME})",
    re.I,
)
_ACTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("docstring", re.compile(
        r"\b(?:add|write|insert|generate|put)\s+(?:(?:a|an|the|some)\s+)?(?:[\w-]+\s+){0,2}?(?:doc\s*strings?|doc\s*comments?|jsdoc|documentation)\b"
        r"|\bdocument\s+(?:it|this|that|the)\b",
        re.I,
    )),
    ("type_hints", re.compile(
        r"\b(?:add|write|insert|put)\s+(?:(?:the|some|missing)\s+)?(?:[\w-]+\s+){0,1}?(?:type\s*hints?|type\s*annotations?|typing|annotations|types)\b"
        r"|\b(?:type[- ]?)?annotate\s+(?:it|this|that|the)\b",
        re.I,
    )),
    ("async", re.compile(r"\b(?:make|convert|turn|change|rewrite)\b[^.\n]{0,40}?\basync(?:hronous)?\b", re.I)),
    ("unused_imports", re.compile(
        r"\b(?:remove|delete|drop|clean\s+up|get\s+rid\s+of)\s+(?:(?:the|all|any|those)\s+)?unused\s+imports?\b", re.I
    )),
    ("unused_variables", re.compile(
        r"\b(?:remove|delete|drop|get\s+rid\s+of)\s+(?:(?:the|all|any|that|this)\s+)?unused\s+(?:local\s+)?variables?\b", re.I
    )),
    ("keep_name", re.compile(
        r"\bkeep\s+the\s+(?:old|original|previous|former)\s+name\b|\bundo\s+the\s+renam(?:e|ing)\b|\bdon'?t\s+rename\b", re.I
    )),
    ("none_on_empty", re.compile(
        r"\breturn\s+None\b[^.\n]*\b(?:empty|blank)\b|\b(?:empty|blank)\b[^.\n]*\breturn\s+None\b", re.I
    )),
    ("retries", re.compile(r"\b(?:add|with|use)\b[^.\n]{0,20}?\bretr(?:y|ies|ying)\b|\bretry\s+(?:it|this|with)\b", re.I)),
    ("simplify", re.compile(r"\bsimplif(?:y|ies|ied)\b|\bmake\s+(?:it|this)\s+simpler\b", re.I)),
    ("shorter", re.compile(r"\bshort(?:er|en)\b|\bmore\s+concise\b|\bless\s+verbose\b", re.I)),
    # sparkls's inline-completion request: no words of the user's; what goes in at the
    # cursor comes from the code around it (completing.py).
    ("complete", re.compile(r"^Complete the code at the cursor\b", re.I)),
    ("fix", re.compile(r"(?:^|spark:)[ \t]*(?:please\s+)?fix\b", re.I | re.M)),
)


@dataclasses.dataclass(frozen=True, slots=True)
class Reading:
    """What the scripted model makes of the user's words."""

    renames: tuple[tuple[str, str], ...] = ()  # whole identifiers: (old, new)
    call_it: str | None = None  # "call it b": the new name of the region's one name
    actions: tuple[str, ...] = ()  # docstring, type_hints, async, unused_imports, ...
    phrases: tuple[str, ...] = ()  # the words matched (a comment holding them is left alone)

    @property
    def understood(self) -> bool:
        return bool(self.renames or self.call_it or self.actions)


def labelled_words(request_text: str) -> str | None:
    """The user's words in *request_text* as written (the last labelled ones, directives
    and all); None when there are none."""
    found = _LABEL_RE.findall(request_text)
    return found[-1] if found else None


def user_words(request_text: str) -> str | None:
    """The user's words in *request_text* (the last labelled ones), without any
    directive; None when there are none."""
    found = _LABEL_RE.findall(request_text)
    if not found:
        return None
    words = _DIRECTIVE_RE.sub(" ", found[-1]).strip()
    return words or None


def name(operand: str) -> str:
    """A name as written: quotes and backticks removed, a final full stop too."""
    if len(operand) >= 2 and operand[0] == operand[-1] and operand[0] in "`\"'":
        return operand[1:-1].strip()
    return operand


def read(words: str) -> Reading:
    """Read *words* (the user's) into what the emulator can do."""
    renames: list[tuple[str, str]] = []
    phrases: list[str] = []
    for pattern in (_RENAME_RE, _REPLACE_RE):
        for m in pattern.finditer(words):
            pair = (name(m.group("old")), name(m.group("new")))
            if pair[0] and pair[0] != pair[1] and pair not in renames and m.group("old").lower() not in {"it", "this", "that"}:
                renames.append(pair)
                phrases.append(m.group(0))
    call_it = None
    if not renames and (m := _CALL_IT_RE.search(words)) is not None:
        call_it = name(m.group("new"))
        phrases.append(m.group(0))
    actions = []
    for action, pattern in _ACTIONS:
        if (m := pattern.search(words)) is not None:
            actions.append(action)
            phrases.append(m.group(0))
    return Reading(tuple(renames), call_it, tuple(actions), tuple(phrases))
