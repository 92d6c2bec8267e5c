"""A document and its next-edit history, fed key by key as didChange feeds them: the
candidate tests' session (test_next_edit_scope.py, test_nextedit_candidates.py)."""

from __future__ import annotations

from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.nextedit.candidates import find_candidates
from sparkls.nextedit.history import EditHistory


class Session:
    """A document and its history, fed key by key the way didChange feeds them."""

    def __init__(self, text: str, uri: str, language_id: str) -> None:
        self.store = DocumentStore()
        self.doc = self.store.open(uri, text, 1, language_id)
        self.history = EditHistory()

    def change(self, line: int, start: int, end: int, text: str) -> None:
        before, version = self.doc.text, self.doc.version
        self.store.change(self.doc.uri, [TextChange(text, (Position(line, start), Position(line, end)))], version + 1)
        for r in self.doc.changes_since(version):
            self.history.record(r.start, r.end, before[r.start : r.end], r.text, self.doc.version)

    def rename_on(self, line: int, old: str, new: str) -> None:
        """Select the first whole `old` on `line`, delete it, type `new` key by key."""
        column = self.doc.lines.line_text(line).index(old)
        self.change(line, column, column + len(old), "")
        for i, ch in enumerate(new):
            self.change(line, column + i, column + i, ch)

    def type_before(self, line: int, anchor: str, typed: str) -> None:
        """Type `typed` key by key just before the first `anchor` on `line`."""
        column = self.doc.lines.line_text(line).index(anchor)
        for i, ch in enumerate(typed):
            self.change(line, column + i, column + i, ch)

    def candidates(self) -> list[tuple[int, int, str]]:
        edits = self.history.edits
        return [(c.first, c.last, c.reason) for c in find_candidates(self.doc, edits, edits[-1].end, limit=8)]
