"""The last few edits of a document, coalesced from its keystrokes, as small diffs.

`EditHistory.record` takes one change at a time (a code-point replacement of the text
as it was before it, and the text it removed). A change that touches an edit's span
(inside it, or at either edge; the newest such edit) grows that edit, which becomes
the newest: typing `radius` over `raduis`
one key at a time is one edit, `raduis` -> `radius`. A change elsewhere starts a new
edit; older edits are shifted past it, so their offsets stay those of the current text.
At most `limit` edits are kept; an edit typed and then undone (new text equal to the
old) disappears. Per change the cost is the change's and the history's (a few
edits), never the file's.

`reverting` says whether the last change undid an edit (its text back to what it was:
an undo, sent by lsp-mode as several one-character changes) or redid one just undone
(the same edit again): neither is a change the user made anew, and no next edit is
asked for it.

`Edit.diff(text)` renders an edit as a unified-diff hunk of the whole lines it
touches; `renames(edit, text)` reads which identifiers it renamed (old -> new), and
`added_names` which it introduced on lines of their own (a new enum member).

Pure: offsets are code points of the current text; knows nothing of LSP or models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from sparkls.documents.positions import LINE_BREAK

IDENTIFIER = re.compile(r"[^\W\d]\w*")
# A line that defines one member: `BLUE = 3`, `Blue,`, `Blue(u8),`, `BLUE`.
MEMBER_LINE = re.compile(r"\s*([^\W\d]\w*)\s*(?:[=,(:]|$)")
MAX_EDIT_CHARS = 2000  # an edit this big stops growing: the next change starts a new one
MAX_DIFF_LINES = 12  # lines of each side a rendered hunk shows at most
UNDONE_STATES = 32  # states of undone edits kept to tell a redo


@dataclass(frozen=True, slots=True)
class Edit:
    """`old` became `new`, which now spans text[start:start + len(new)]."""

    start: int
    old: str
    new: str
    version: int  # the document version after the edit's last change

    @property
    def end(self) -> int:
        return self.start + len(self.new)

    def old_and_new_lines(self, text: str) -> tuple[int, list[str], list[str]]:
        """(first line's offset, old lines, new lines) of the whole lines the edit touches."""
        line_start = max(text.rfind("\n", 0, self.start), text.rfind("\r", 0, self.start)) + 1
        found = LINE_BREAK.search(text, self.end)
        line_end = found.start() if found else len(text)
        head, tail = text[line_start : self.start], text[self.end : line_end]
        return line_start, LINE_BREAK.split(head + self.old + tail), LINE_BREAK.split(head + self.new + tail)

    def diff(self, text: str, line: int) -> str:
        """The edit as a unified-diff hunk; `line` is the 0-based line it starts on."""
        _, old, new = self.old_and_new_lines(text)
        body = [f"-{x}" for x in _cut(old)] + [f"+{x}" for x in _cut(new)]
        return f"@@ -{line + 1},{len(old)} +{line + 1},{len(new)} @@\n" + "\n".join(body)


def _cut(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_DIFF_LINES:
        return lines
    half = MAX_DIFF_LINES // 2
    return [*lines[:half], "…", *lines[-half:]]


class EditHistory:
    """The last `limit` edits of one document, oldest first."""

    def __init__(self, limit: int = 5) -> None:
        self.limit = limit
        self.edits: list[Edit] = []
        self.undone: list[Edit] = []  # edits reverted lately (each state they passed through): a redo's
        self.reverting = False  # the last change undid an edit, or redid one
        self._states: list[Edit] = []  # the states the newest edit went through, keystroke by keystroke

    def record(self, start: int, end: int, removed: str, inserted: str, version: int) -> None:
        """text[start:end] (which was `removed`) became `inserted`, at `version`."""
        growth = len(inserted) - (end - start)
        # The edits the change touches grow into one (an undo reaches back to older edits
        # too, last first), which becomes the newest.
        touched = [e for e in self.edits if start <= e.end and end >= e.start]
        if touched and all(len(e.new) < MAX_EDIT_CHARS for e in touched):
            newest = touched[-1] is self.edits[-1]
            last = touched[-1]
            self.edits = [e for e in self.edits if all(e is not t for t in touched)]
            merged = _merge(touched, start, end, removed, inserted, version)
            states = self._states if newest else [last]
            # The older edits move past the change whether or not the merged one stays:
            # an edit undone (its new text its old again) leaves them where they now are.
            self._shift_older(start, end, growth)
            if merged.old != merged.new:
                self.edits.append(merged)
                self._states = [*states[-(UNDONE_STATES - 1):], merged]
                self.reverting = self._redoes(merged)
            else:
                self.undone = [*self.undone, *states, last][-UNDONE_STATES:]
                self._states = []
                self.reverting = True
            return
        self._shift_older(start, end, growth)
        self.reverting = False
        if removed != inserted:
            self.edits.append(Edit(start, removed, inserted, version))
            del self.edits[: -self.limit]
            self._states = [self.edits[-1]]
            self.reverting = self._redoes(self.edits[-1])

    def _redoes(self, edit: Edit) -> bool:
        """Whether `edit` makes an edit lately undone again (a redo)."""
        return any(u.start == edit.start and u.old == edit.old and u.new == edit.new for u in self.undone)

    def _shift_older(self, start: int, end: int, growth: int) -> None:
        """Move the edits the change did not join past it; drop those it overwrote."""
        kept: list[Edit] = []
        for edit in self.edits:
            if edit.end <= start:
                kept.append(edit)
            elif edit.start >= end:
                kept.append(replace(edit, start=edit.start + growth))
            # else: the change rewrote part of it; what it was is no longer a diff of this text
        self.edits = kept

    def clear(self) -> None:
        self.edits.clear()
        self.undone.clear()
        self._states.clear()
        self.reverting = False


def _merge(edits: list[Edit], start: int, end: int, removed: str, inserted: str, version: int) -> Edit:
    """`edits` grown into one by a change [start, end) that touches each (in the current text)."""
    u_start, u_end = min(start, *(e.start for e in edits)), max(end, *(e.end for e in edits))
    # The union's text before this change, piece by piece: what the change removed
    # covers [start, end); each edit's new text covers its span.
    before = _piece(u_start, u_end, (start, removed), *((e.start, e.new) for e in edits))
    old = before
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        old = old[: e.start - u_start] + e.old + old[e.end - u_start :]
    new = before[: start - u_start] + inserted + before[end - u_start :]
    return Edit(u_start, old, new, version)


def _piece(u_start: int, u_end: int, *known: tuple[int, str]) -> str:
    """The text of [u_start, u_end), assembled from spans whose text is known (they
    cover it: the change and the edit touch or overlap)."""
    chars: list[str | None] = [None] * (u_end - u_start)
    for at, text in known:
        for i, ch in enumerate(text):
            chars[at - u_start + i] = ch
    return "".join(c or "" for c in chars)


def _word_renamed(edit: Edit, text: str) -> tuple[str, str] | None:
    """The one word the edit changed, when it was a word and still is one: its old and
    new spelling (`self.count = count` -> `self.total = count` renames `count`)."""
    start, end = edit.start, edit.end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    new = text[start:end]
    old = text[start : edit.start] + edit.old + text[edit.end : end]
    if old != new and IDENTIFIER.fullmatch(old) and IDENTIFIER.fullmatch(new):
        return old, new
    return None


def renames(edit: Edit, text: str) -> list[tuple[str, str]]:
    """The identifiers `edit` replaced by others, in order (`raduis` -> `radius`): the
    word it changed, when it changed one, then what the lines' words show."""
    _, old_lines, new_lines = edit.old_and_new_lines(text)
    old = IDENTIFIER.findall("\n".join(old_lines))
    new = IDENTIFIER.findall("\n".join(new_lines))
    word = _word_renamed(edit, text)
    found: list[tuple[str, str]] = [word] if word is not None else []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            found.extend((a, b) for a, b in zip(old[i1:i2], new[j1:j2]) if a != b and (a, b) not in found)
    return found


def only_renames(edit: Edit, text: str) -> bool:
    """Whether `edit` only renamed identifiers (`raduis` -> `radius`): the same number
    of identifiers before and after, at least one replaced, nothing else changed but
    their spelling (a parameter renamed, not added, removed or given a default)."""
    _, old_lines, new_lines = edit.old_and_new_lines(text)
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    if len(IDENTIFIER.findall(old)) != len(IDENTIFIER.findall(new)) or not renames(edit, text):
        return False
    return IDENTIFIER.sub("_", old) == IDENTIFIER.sub("_", new)


def added_names(edit: Edit, text: str) -> list[str]:
    """Names the edit defined on lines it added (`BLUE = 3`, `Blue,`): the name of
    each added line that defines one member and was not there before."""
    _, old_lines, new_lines = edit.old_and_new_lines(text)
    before = set(IDENTIFIER.findall("\n".join(old_lines)))
    found: list[str] = []
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag not in ("insert", "replace") or (tag == "replace" and j2 - j1 <= _i2 - _i1):
            continue
        for line in new_lines[j1:j2]:
            member = MEMBER_LINE.match(line)
            if member and member.group(1) not in before and member.group(1) not in found:
                found.append(member.group(1))
    return found
