"""Patches as fast models really write them: each applied exactly or refused whole."""

from __future__ import annotations

import pytest

from sparkls.edits.patch import region_from_diff, region_from_reply
from sparkls.errors import NoUsableReply, PatchRefused
from tests.unit.patch_drift_table import DRIFTS, Drift


def apply_drift(drift: Drift) -> str:
    """The region's new text from the drift's reply, as the rewrite tail reads it."""
    view = drift.view()
    if drift.tool:
        return region_from_diff(drift.reply, view, path="geometry/shapes.py", named=drift.named)
    return region_from_reply(drift.reply, view, path=drift.named or "geometry/shapes.py")


def test_the_table_holds_thirty_shapes():
    """At least 30 distinct shapes of drift, some applied and some refused."""
    assert len({d.name for d in DRIFTS}) == len(DRIFTS) >= 30
    assert {d.applies for d in DRIFTS} == {True, False}


@pytest.mark.parametrize("drift", DRIFTS, ids=lambda d: d.name)
def test_drift_is_applied_exactly_or_refused_whole(drift: Drift):
    """The region becomes exactly the edit meant, or nothing changes and the user is told why."""
    if drift.applies:
        assert apply_drift(drift) == drift.new
    else:
        with pytest.raises(NoUsableReply) as refused:
            apply_drift(drift)
        assert "nothing was changed" in str(refused.value)


# Why each refused drift is refused, and which hunk is to blame (None: the patch as a whole).
REFUSALS: dict[str, tuple[str, int | None]] = {
    "tool diff for another file": ("other_file", None),
    "second hunk without @@": ("not_found", 1),  # its lines run on into the first hunk
    "context shallower, changed lines at the right depth": ("not_found", 1),
    "... for unchanged lines": ("not_found", 1),
    "an added line standing for code": ("elided", 2),
    "a hunk that matches twice": ("ambiguous", 2),
    "a hunk found twice, an anchor to choose": ("ambiguous", 2),
    "overlapping hunks": ("overlap", 2),
    "a patch for the wrong file": ("other_file", None),
    "Begin Patch without its end": ("cut_off", None),
    "two patches": ("files", None),
    "adds a file": ("files", None),
    "deletes a file": ("files", None),
    "moves the file": ("files", None),
    "two files": ("files", None),
    "a context line without its space": ("not_found", 1),
    "line numbers before each line": ("malformed", 1),
    "context from outside the region": ("not_found", 1),
    "a changed line misquoted": ("not_found", 1),
    "insertion with nothing to place it by": ("unplaced", 1),
    "insertion after an anchor found twice": ("unplaced", 1),
    "insertion after stacked anchors, the inner one found twice": ("unplaced", 1),
    "insertion after an anchor outside the region": ("unplaced", 1),
    "a hunk header and nothing under it": ("malformed", 3),
}


@pytest.mark.parametrize("drift", [d for d in DRIFTS if d.name in REFUSALS], ids=lambda d: d.name)
def test_a_refused_patch_says_why_and_which_hunk(drift: Drift):
    """A refusal is typed: why in a word, and the hunk to blame, named in the message too."""
    with pytest.raises(PatchRefused) as refused:
        apply_drift(drift)
    reason, hunk = REFUSALS[drift.name]
    assert (refused.value.reason, refused.value.hunk) == (reason, hunk)
    if reason in ("not_found", "ambiguous", "elided", "unplaced"):
        assert f"hunk ({hunk})" in str(refused.value) or f"in hunk {hunk}" in str(refused.value)


def test_every_refused_patch_shape_has_its_reason_listed():
    """Each drift refused as a patch is in REFUSALS (the ones that are no patch at all are not)."""
    patch_refusals = set()
    for drift in DRIFTS:
        if drift.applies:
            continue
        try:
            apply_drift(drift)
        except PatchRefused:
            patch_refusals.add(drift.name)
        except NoUsableReply:
            pass
    assert patch_refusals == set(REFUSALS)
