"""What the model's new region says at the cursor: the completion, if there is one.

The fast tier answers with the complete new text of the region (docs/model-protocol.md); an inline
completion is only the part of it that changed *at the cursor*. `completion_at_cursor`
finds it by comparing the old and the new region: everything before the cursor must be
unchanged, and the text after the cursor ends the same way in both; what is left is
inserted at the cursor, replacing what is left of the old text (on the cursor's line
only: LSP inline items and completion items replace within one line).

Pure, on code-point offsets; positions in LSP encodings are the caller's business
(documents/positions.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkls.documents.positions import LINE_BREAK


@dataclass(frozen=True, slots=True)
class Completion:
    """Insert `text` at code-point `offset`, replacing the `replace` code points after it."""

    offset: int
    text: str
    replace: int = 0

    def shifted(self, by: int) -> Completion:
        return Completion(self.offset + by, self.text, self.replace)


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix of `a` and `b`, at most `limit`."""
    if limit and a[-limit:] == b[-limit:]:
        return limit
    low, high = 0, limit  # a[len(a)-low:] == b[len(b)-low:]; not so for high
    while high - low > 1:  # slice comparisons run in C: a whole region in microseconds
        middle = (low + high) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle
    return low


def completion_at_cursor(old: str, new: str, cursor: int) -> Completion | None:
    """The completion at `cursor` (an offset in `old`) that turns `old` into `new`.

    None when nothing changed, when the model changed text before the cursor, when it
    only deleted text, or when what it replaced runs past the cursor's line.
    """
    if not 0 <= cursor <= len(old) or not new.startswith(old[:cursor]):
        return None
    after_old, after_new = old[cursor:], new[cursor:]
    same = _common_suffix(after_old, after_new, min(len(after_old), len(after_new)))
    inserted = after_new[: len(after_new) - same]
    replaced = after_old[: len(after_old) - same]
    if not inserted or LINE_BREAK.search(replaced):
        return None
    return Completion(cursor, inserted, len(replaced))
