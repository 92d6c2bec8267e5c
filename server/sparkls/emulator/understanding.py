"""The scripted model following the user's plain words, or saying what it follows. Pure.

``model.py`` (a request) and ``followup.py`` (a refine or a steer) call :func:`follow`
when the request has no REPLACE or COMPLETE directive. With no user words in the
request (no ``Instruction:`` label, say) it returns None and the caller answers as
it always did. Otherwise it reads the words (``phrasings.py``), rewrites the region
(``rewrites.py``, ``refactors.py``, ``fixes.py`` for a quick fix) and returns what to
answer: the new region (empty when the words delete all of it: "remove this import"
on its own line), or one sentence when the words ask for nothing it can do,
:func:`phrasings.not_understood`: "The sparkls emulator does not understand "…";
it follows: …", as a scripted stand-in says, never as a model failing.
"""

from __future__ import annotations

import dataclasses
import re

from sparkls.emulator import completing, fixes, phrasings, refactors, rewrites
from sparkls.emulator.protocol import CURSOR, REGION_END, REGION_START

__all__ = ["Followed", "follow"]

_FIX_PROBLEM = "Fix this problem:"
_PYTHON_ONLY = ("none_on_empty", "retries", "shorter", "simplify")
_IMPORT_LINE_RE = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t][^\n]*$", re.M)


@dataclasses.dataclass(frozen=True, slots=True)
class Followed:
    """What to answer: the new *region*, or *prose* instead of code."""

    region: str
    prose: str | None = None


def _code_outside_imports(request_text: str) -> str:
    code = "\n".join(re.findall(r"^```[^\n]*\n(.*?)^```", request_text, re.M | re.S))
    for marker in (REGION_START, REGION_END, CURSOR):
        code = code.replace(marker, "")
    return _IMPORT_LINE_RE.sub("", code)


def follow(request_text: str, region: str, *, cursor: int | None = None, earlier: str | None = None) -> Followed | None:
    """What the scripted model does with the user's words in *request_text* to
    *region* (cursor marker removed; *cursor*: where it was), None when the request
    holds no user words. *earlier*: the region before the answer a follow-up
    continues (for "keep the old name")."""
    words = phrasings.user_words(request_text)
    if words is None:
        return None
    if words.startswith(_FIX_PROBLEM):
        reading = phrasings.Reading(actions=("fix",))
    else:
        reading = phrasings.read(words)
    lang = rewrites.language(request_text)
    new, known, prose = region, reading.understood, None
    for old, name in reading.renames:
        new = rewrites.rename(new, old, name, reading.phrases, lang)
    if reading.call_it:
        current = rewrites.one_name(new, lang, cursor)
        known = current is not None
        if current is not None:
            new = rewrites.rename(new, current, reading.call_it, reading.phrases, lang)
    messages = fixes.listed(request_text)
    if "fix" in reading.actions:
        if not messages and words.startswith(_FIX_PROBLEM):
            messages = [words[len(_FIX_PROBLEM):].strip()]
        fixed = fixes.fix(new, messages, request_text, lang)
        new, prose = fixed.region, fixed.prose
        known = fixed.known or len(reading.actions) > 1 or bool(reading.renames)
    if "docstring" in reading.actions:
        new = rewrites.add_docstring(new, lang)
    if "type_hints" in reading.actions and lang in ("python", ""):
        new = rewrites.add_type_hints(new)
    if "async" in reading.actions:
        new = rewrites.make_async(new, lang)
    if "unused_imports" in reading.actions:
        reported = fixes.fix(new, [m for m in messages if "import" in m.lower()], request_text, lang)
        new = reported.region if reported.known else rewrites.remove_imports(new, None, _code_outside_imports(request_text))
    if "unused_variables" in reading.actions:
        reported = fixes.fix(new, [m for m in messages if "ariable" in m], request_text, lang)
        new = reported.region if reported.known else rewrites.remove_unused_variables(new, None)
    if "complete" in reading.actions:
        new = completing.complete(new, cursor, request_text)
    if lang in ("python", ""):
        if "none_on_empty" in reading.actions:
            new = refactors.none_on_empty(new, words)
        if "retries" in reading.actions:
            new = refactors.add_retries(new)
        if "simplify" in reading.actions:
            new = refactors.simplify(new)
        if "shorter" in reading.actions:
            new = refactors.shorter(new)
    elif set(reading.actions) & set(_PYTHON_ONLY) and not (reading.renames or reading.call_it):
        known = False  # Python rules: said, not pretended, elsewhere
    if "keep_name" in reading.actions and earlier is not None:
        new = _keep_names(earlier, new)
    if prose is not None and new == region:
        return Followed(region, prose)
    if not known:
        return Followed(region, phrasings.not_understood(words))
    return Followed(new)


def _keep_names(earlier: str, new: str) -> str:
    """*new* with the identifiers the earlier answer renamed given their old names
    back: each identifier *earlier* had and *new* lacks, paired in order of
    appearance with those *new* has and *earlier* lacked."""
    ids = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*")
    before, after = ids.findall(earlier), ids.findall(new)
    gone = list(dict.fromkeys(n for n in before if n not in set(after)))
    came = list(dict.fromkeys(n for n in after if n not in set(before)))
    for old, renamed in zip(gone, came):
        new = rewrites.rename(new, renamed, old)
    return new
