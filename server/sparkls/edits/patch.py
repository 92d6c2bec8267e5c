"""A patch applied to the editable region: every hunk in one place, or nothing. Pure.

The model was shown a region and answered with a patch of it (edits/v4a.py reads the
patch: the `apply_patch` tool's diff, or the text form). `apply_hunks` places each hunk
by its old lines (context and removed lines) among the region's lines, with the
passes of edits/locate.py (exact, trailing whitespace, indentation, Unicode-normalised;
nothing looser), and refuses the whole patch (`PatchRefused`) unless every hunk is found
at exactly one place and no two overlap:

- a hunk must be unique in the whole region by its own lines: an anchor (``@@ def
  area(self):``) does not make a hunk found twice acceptable, since a wrong anchor
  would then put it in the wrong place; the edit is asked again as a whole region;
- a hunk with no old lines (only added lines) goes right after its anchor, found at
  one place in the region (the innermost of stacked anchors, each searched from the
  one before; an outer one may lie outside the region, none may be found twice), and
  is refused without one;
- hunks may come in any order: each is placed on its own, and a hunk found twice is
  refused, never taken from its order;
- context lines keep the region's text (the patch's copy of them may differ in
  trailing spaces, indentation or quotes); removed lines go; added lines are moved to
  the region's depth when the hunk was found at another (`locate.reindent`), and
  lose trailing spaces the region did not have;
- a patch that writes spaces where the file indents with tabs (or the reverse) is
  converted first, when the conversion is exact (edits/reshape.py);
- `<|cursor|>` written into a line, and region marker lines quoted as context, go
  (unless the document holds that text);
- an added line that stands in for code ("# ... rest unchanged") refuses the patch,
  as it would delete that code (edits/elision.py).

The result is the region's new text, joined with the region's line breaks (edits/reply.py
`join_like`), to go through the rewrite tail like any other reply (edits/tail.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sparkls.context.prompt import CURSOR, REGION_END, REGION_START
from sparkls.documents.positions import split_lines
from sparkls.edits.elision import first_elision
from sparkls.edits.locate import Match, find_lines, reindent
from sparkls.edits.reply import RegionView, join_like, new_region_text
from sparkls.edits.reshape import match_indent_style, strip_added_trailing_whitespace
from sparkls.edits.v4a import FilePatch, Hunk, bare_diff, find_envelope, parse_diff, parse_patch, same_file
from sparkls.errors import PatchRefused


@dataclass(frozen=True, slots=True)
class _Placed:
    hunk: Hunk
    match: Match


def _refused(why: str, reason: str, hunk: int | None = None) -> PatchRefused:
    return PatchRefused(f"The model's patch {why}, so nothing was changed.", reason=reason, hunk=hunk)


def _first(lines: Sequence[str]) -> str:
    return next((ln.strip() for ln in lines if ln.strip()), "")


def _without_markers(hunk: Hunk, document: str) -> Hunk:
    """`hunk` without the cursor marker in its lines and without quoted region marker
    lines, unless the document itself holds that text (then it is code)."""
    lines = hunk.lines
    if CURSOR not in document:
        lines = tuple((op, text.replace(CURSOR, "")) for op, text in lines)
    if REGION_START not in document and REGION_END not in document:
        lines = tuple((op, text) for op, text in lines if text.strip() not in (REGION_START, REGION_END))
    return Hunk(hunk.number, hunk.anchors, lines)


def _in_file_style(hunks: list[Hunk], old: Sequence[str]) -> list[Hunk]:
    """The hunks with their indentation in the region's style (tabs or spaces), when
    the patch consistently uses the other one and the conversion is exact."""
    texts = [text for hunk in hunks for _, text in hunk.lines]
    converted = iter(match_indent_style(texts, old))
    return [Hunk(h.number, h.anchors, tuple((op, next(converted)) for op, _ in h.lines)) for h in hunks]


def _anchor_start(anchors: Sequence[str], old: Sequence[str]) -> int | None:
    """The line of the hunk's innermost anchor, found at exactly one place (each anchor
    searched from the one before it); None when it is not, or when an outer anchor is
    found at several places. An outer anchor found nowhere is outside the region (the
    class around the method): passed over."""
    at, place = 0, None
    for i, anchor in enumerate(anchors):
        found = find_lines(old, [anchor], lo=at)
        if len(found) == 1:
            at = place = found[0].start
        elif found or i == len(anchors) - 1:
            return None
    return place


def _place(hunk: Hunk, old: Sequence[str]) -> _Placed:
    wanted = hunk.old
    if not any(line.strip() for line in wanted):
        anchored = None if wanted else _anchor_start(hunk.anchors, old)
        if anchored is None:
            raise _refused(
                f"has a hunk ({hunk.number}) with no code of the region to place it by", "unplaced", hunk.number
            )
        return _Placed(hunk, Match(anchored + 1, anchored + 1, "anchor"))
    found = find_lines(old, wanted)
    if not found:
        raise _refused(
            f"has a hunk ({hunk.number}) whose lines are not in the region (it expects {_first(wanted)[:60]!r})",
            "not_found", hunk.number,
        )
    if len(found) > 1:
        where = ", ".join(str(m.start + 1) for m in found[:5])
        raise _refused(
            f"has a hunk ({hunk.number}) that fits {len(found)} places in the region (its lines {where})",
            "ambiguous", hunk.number,
        )
    return _Placed(hunk, found[0])


def _hunk_lines(placed: _Placed, old: Sequence[str]) -> list[str]:
    """The region lines `placed.match` covers, as the hunk makes them."""
    out: list[str] = []
    at = placed.match.start
    for op, text in placed.hunk.lines:
        if op == "+":
            out.extend(reindent([text], placed.match))
            continue
        if op == " ":
            out.append(old[at])
        at += 1
    return out


def apply_hunks(old_text: str, hunks: Sequence[Hunk], *, ending: str = "\n", language_id: str = "",
                document: str = "") -> str:
    """The region `old_text` with `hunks` applied, every one or none (see the module doc);
    new lines take `ending`; `document` is the text the region is part of."""
    old = split_lines(old_text)
    cleaned = _in_file_style([_without_markers(h, document) for h in hunks], old)
    for hunk in cleaned:
        if (elided := first_elision(hunk.added, old, language_id)) is not None:
            raise _refused(
                f"writes {elided[1].strip()!r} (in hunk {hunk.number}) instead of the code it stands for",
                "elided", hunk.number,
            )
    placed = sorted((_place(h, old) for h in cleaned), key=lambda p: (p.match.start, p.match.end))
    for before, after in zip(placed, placed[1:]):
        if after.match.start < before.match.end or before.match == after.match:
            raise _refused(f"has hunks ({before.hunk.number} and {after.hunk.number}) that overlap", "overlap",
                          after.hunk.number)
    new: list[str] = []
    at = 0
    for p in placed:
        new.extend(old[at : p.match.start])
        new.extend(_hunk_lines(p, old))
        at = p.match.end
    new.extend(old[at:])
    new = strip_added_trailing_whitespace(new, old)
    return join_like(new, old_text, ending)


def _checked(patch: FilePatch, path: str) -> FilePatch:
    if patch.path is not None and not same_file(patch.path, path):
        raise _refused(f"is for {patch.path!r}, not for {path}, the file being edited", "other_file")
    return patch


def region_from_diff(diff: str, view: RegionView, *, path: str, named: str | None = None) -> str:
    """The region's new text from an `apply_patch_call`'s `update_file` diff (`named`:
    the path the operation names); `PatchRefused` when it cannot apply whole."""
    wrapped = parse_patch(diff) if find_envelope(diff) is not None else None  # an envelope inside the diff
    patch = _checked(FilePatch(named, tuple(parse_diff(diff))) if wrapped is None else wrapped, path)
    if wrapped is not None and named is not None:
        _checked(FilePatch(named, ()), path)
    return apply_hunks(view.old, patch.hunks, ending=view.line_ending, language_id=view.language_id,
                       document=view.text)


def region_from_reply(reply: str, view: RegionView, *, path: str) -> str:
    """The region's new text from a text reply to a request that offered a text patch:
    the patch it holds (``*** Begin Patch`` …, or a bare V4A diff in a fence), else a
    reply in the region's own shapes (the whole region, a unified diff: edits/reply.py)."""
    patch = parse_patch(reply) or bare_diff(reply)
    if patch is None:
        return new_region_text(reply, view)
    patch = _checked(patch, path)
    return apply_hunks(view.old, patch.hunks, ending=view.line_ending, language_id=view.language_id,
                       document=view.text)
