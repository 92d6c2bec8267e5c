"""The last sparkls edit of a document, and where its region is now.

A `LastEdit` holds the edited region as offsets of one version of the document, the
text the edit wrote there, the text it replaced, and the conversation that produced
it (`Turn`). `locate` follows the region through the changes made since that version,
in proportion to their number, and says what the region reads now:

- the edit is in and untouched: the model's last answer is the region (`changed` false);
- the user changed it since: its current text goes with the refine (`changed` true);
- the edit never went in, or was undone, or its lines were deleted, or the history
  does not reach back far enough: `NothingToRefine`, with the reason.

Until the edit's own changes have been seen (`settled`), an insertion at the region's
edge counts as inside it (the edit may add lines at either end); afterwards, as for a
rebase (`edits/rebase.py`), typing just above or below the region stays outside. Pure;
no LSP types.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from sparkls.documents.store import WholeText
from sparkls.edits.diff import Replacement
from sparkls.errors import NothingToRefine
from sparkls.models.chain import Chain

# Turns kept of a conversation beyond its first exchange (the original request and
# reply always stay: a resend in full needs the context they carry).
KEPT_TURNS = 6


@dataclass(frozen=True, slots=True)
class LastEdit:
    uri: str
    path: str  # as shown to the user
    language_id: str
    version: int  # the version `start`..`end` are offsets of
    start: int
    end: int
    text: str  # the region once the edit is in
    before: str  # the region before the edit
    instructions: str
    history: tuple[tuple[str, str], ...]  # the conversation, ending with the model's answer
    chain: Chain | None
    settled: bool = False  # `start`..`end` at `version` hold `text`: the edit's own changes are seen
    call: str | None = None  # the chain's `apply_patch_call` id: a continuation sends its output first


@dataclass(frozen=True, slots=True)
class Located:
    start: int
    end: int
    text: str  # the region's current text
    changed: bool  # the user changed the region since the edit


def conversation(history: tuple[tuple[str, str], ...], user: str, answer: str) -> tuple[tuple[str, str], ...]:
    """`history` plus one exchange, the middle dropped past `KEPT_TURNS` exchanges."""
    turns = (*history, ("user", user), ("assistant", answer))
    if len(turns) > 2 * (KEPT_TURNS + 1):
        turns = turns[:2] + turns[-2 * KEPT_TURNS :]
    return turns


def follow(start: int, end: int, change: Replacement, *, edges_inside: bool) -> tuple[int, int] | None:
    """The region `start`..`end` after `change`; None when the change replaced all of it."""
    if change.start == change.end and not change.text:
        return start, end
    growth = len(change.text) - (change.end - change.start)
    insertion = change.start == change.end
    if change.end < start or (change.end == start and not (edges_inside and insertion)):
        return start + growth, end + growth
    if change.start > end or (change.start == end and not (edges_inside and insertion)):
        return start, end
    if not edges_inside and change.start <= start and change.end >= end and start < end:
        return None
    return min(start, change.start), max(end, change.end) + growth


def locate(record: LastEdit, text: str, changes: Iterable[Replacement | WholeText] | None) -> Located:
    """Where `record`'s region is in `text`, reached from `record.version` by `changes`
    (None: the history no longer reaches back that far)."""
    if changes is None:
        raise NothingToRefine(f"{record.path} changed too much since the last Spark edit; nothing to refine.")
    start, end = record.start, record.end
    for change in changes:
        moved = None if isinstance(change, WholeText) else follow(start, end, change, edges_inside=not record.settled)
        if moved is None:
            raise NothingToRefine(f"The lines of the last Spark edit in {record.path} were replaced; nothing to refine.")
        start, end = moved
    current = text[start:end]
    if current == record.text:
        return Located(start, end, current, changed=False)
    if not current.strip() and record.text.strip():
        raise NothingToRefine(f"The lines of the last Spark edit in {record.path} were deleted; nothing to refine.")
    if not record.settled and current == record.before:
        raise NothingToRefine(
            f"The last Spark edit in {record.path} is not in the document (undone, or not applied); nothing to refine."
        )
    return Located(start, end, current, changed=True)


def settled(record: LastEdit, version: int, where: Located) -> LastEdit:
    """`record` anchored at `version`, once its region reads as the edit left it."""
    if where.changed or (record.settled and record.version == version):
        return record
    return replace(record, version=version, start=where.start, end=where.end, settled=True)
