"""Typing through a suggestion: serve what is left of it without asking the model.

After the model suggested `text` at an offset, the user often types the suggestion's
first characters themselves. As long as everything they typed is a prefix of the
suggestion (and the text after the cursor is untouched), what is left of the
suggestion is still the model's answer: `TypingCache.lookup` returns it from the
document text alone. Deleting back over what was typed (on the same line) serves the
suggestion again too.

One suggestion is kept per document: the latest. Pure; offsets are code points.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkls.completion.extract import Completion


@dataclass(frozen=True, slots=True)
class _Entry:
    line_start: int  # offset of the start of the suggestion's line
    target: str  # the document up to the cursor as the suggestion would leave it
    after: str  # the document after the suggestion's offset, as it was
    replace: int


class TypingCache:
    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def remember(self, key: str, text: str, completion: Completion) -> None:
        """Keep `completion`, computed on the document `text`, for `key` (its URI)."""
        at = completion.offset
        line_start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
        self._entries[key] = _Entry(line_start, text[:at] + completion.text, text[at:], completion.replace)

    def lookup(self, key: str, text: str, offset: int) -> Completion | None:
        """What is left of the remembered suggestion at `offset` of `text`, or None.

        It applies when the text after `offset` is the text that followed the
        suggestion, the text before `offset` is a prefix of the document the
        suggestion leads to, and `offset` is on the suggestion's line and before its end.
        """
        entry = self._entries.get(key)
        if entry is None or not entry.line_start <= offset < len(entry.target):
            return None
        if len(text) - offset != len(entry.after) or not text.endswith(entry.after):
            return None
        if not entry.target.startswith(text[:offset]):
            return None
        return Completion(offset, entry.target[offset:], entry.replace)

    def uris(self) -> list[str]:
        return list(self._entries)

    def forget(self, key: str) -> None:
        self._entries.pop(key, None)
