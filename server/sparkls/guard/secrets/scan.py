"""Every rule over one window of the text's UTF-8 bytes: the edits that hide what it
holds (see the package docstring for the rules, and each module for one kind)."""

from __future__ import annotations

from sparkls.guard.secrets.assignments import assignment_edits
from sparkls.guard.secrets.edits import MARKER_BYTES, REACH, Budget, Edit
from sparkls.guard.secrets.entropy import entropy_edits
from sparkls.guard.secrets.headers import header_edits
from sparkls.guard.secrets.manifests import secret_manifest_edits
from sparkls.guard.secrets.pem import private_key_edits
from sparkls.guard.secrets.shapes import token_spans

__all__ = ["REACH", "scan"]


def scan(data: bytes) -> tuple[list[Edit], int | None]:
    """The edits for `data` (byte offsets, unsorted, possibly overlapping), and where
    the window's budget ran out (hide everything from there), if it did.

    Once the budget has run out, the rules still to run read only as far as a secret
    starting before the cut could reach: the rest is hidden whatever it holds. The
    rules a text can make costly go first (private key markers, keywords)."""
    lowered = data.lower()  # ASCII only: every offset stays the same
    budget = Budget()
    edits = private_key_edits(data, budget)
    for rule in (assignment_edits, _tokens, header_edits, secret_manifest_edits, entropy_edits):
        data, lowered = budget.reach(data), budget.reach(lowered)
        edits += rule(data, lowered, budget)
    return edits, budget.cut


def _tokens(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    return [Edit(start, end, MARKER_BYTES, True) for start, end in token_spans(data, lowered, budget)]
