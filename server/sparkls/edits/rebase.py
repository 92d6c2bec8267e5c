"""Rebasing an edit computed against an old version of a document onto the current one.

An edit is computed against the text at version N: a region ``[start, end)`` of that
text (what the model was shown and asked to rewrite) and the replacements inside it.
While the model streamed, the user may have typed. `rebase` follows the region
through those changes: a change before the region shifts it, a change after leaves
it, and a change that overlaps the region (or replaces the whole text) makes the edit
stale, so it is refused with `StaleEdit` and nothing is applied. A change that only
meets the region's edge — a line typed right above or below the function being
edited, a blank line deleted before it — is outside: it alters none of the region's
characters, and the edit's replacements all lie inside the region, so both apply.
(Only an insertion into an empty region, at its very point, is ambiguous: refused.)

Offsets are code points of the text, as in `edits/diff.py`. `offset_changes` turns
the store's `TextChange` values (LSP positions) into offsets, one change at a time,
each against the text as it was after the previous one. Pure; no LSP types.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sparkls.documents.positions import Encoding, LineIndex
from sparkls.documents.store import TextChange, WholeText
from sparkls.edits.diff import Replacement
from sparkls.errors import StaleEdit


Change = Replacement | WholeText


def offset_changes(text: str, changes: Iterable[TextChange], encoding: Encoding) -> list[Change]:
    """The store's changes, applied in order to `text`, as code-point replacements.

    Each change's positions are read against the text left by the previous change,
    exactly as `Document.apply` reads them (clamped; an end before the start is the start).
    """
    out: list[Change] = []
    lines: LineIndex | None = None
    for change in changes:
        if change.range is None:
            out.append(WholeText(change.text))
            text, lines = change.text, None
            continue
        if lines is None:
            lines = LineIndex(text)
        start = lines.offset(change.range[0], encoding)
        end = max(start, lines.offset(change.range[1], encoding))
        out.append(Replacement(start, end, change.text))
        lines = lines.spliced(start, end, change.text)
        text = lines.text
    return out


def _check_edit(length: int, start: int, end: int, edit: Sequence[Replacement]) -> None:
    """A malformed edit is a bug in the caller, not a stale edit: say so loudly."""
    if not 0 <= start <= end <= length:
        raise ValueError(f"region [{start}, {end}) is outside a text of {length} characters")
    cursor = start
    for r in edit:
        if not cursor <= r.start <= r.end <= end:
            raise ValueError(f"replacement [{r.start}, {r.end}) is out of order or outside [{start}, {end})")
        cursor = r.end


def rebase_region(length: int, start: int, end: int, changes: Iterable[Change]) -> int:
    """How far the region ``[start, end)`` of a text of `length` characters moved.

    Raises `StaleEdit` when a change overlaps the region, or replaces the whole text;
    `ValueError` when a change lies outside the text it applies to.
    """
    shift = 0
    for index, change in enumerate(changes):
        if isinstance(change, WholeText):
            raise StaleEdit(change_index=index)
        if not 0 <= change.start <= change.end <= length:
            raise ValueError(f"change [{change.start}, {change.end}) is outside a text of {length} characters")
        if change.start == change.end and not change.text:
            continue  # a no-op change cannot have invalidated anything
        growth = len(change.text) - (change.end - change.start)
        region_start, region_end = start + shift, end + shift
        if region_start == region_end == change.start == change.end:
            raise StaleEdit(change_index=index)  # typed into an empty region: before it or after it?
        if change.end <= region_start:
            shift += growth
        elif change.start >= region_end:
            pass
        else:
            raise StaleEdit(change_index=index)
        length += growth
    return shift


def rebase(
    text: str, start: int, end: int, edit: Sequence[Replacement], changes: Iterable[Change]
) -> list[Replacement]:
    """`edit`, computed against `text` for its region ``[start, end)``, moved onto the
    text the `changes` led to.

    Raises `StaleEdit` (nothing to apply) when a change overlaps the region or
    replaces the whole text.
    """
    _check_edit(len(text), start, end, edit)
    shift = rebase_region(len(text), start, end, changes)
    if not shift:
        return list(edit)
    return [Replacement(r.start + shift, r.end + shift, r.text) for r in edit]
