"""Patches as fast models really write them: each applied exactly or refused whole."""

from __future__ import annotations

import pytest

from sparkls.edits.patch import region_from_diff, region_from_reply
from sparkls.errors import NoUsableReply
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
