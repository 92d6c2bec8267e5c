"""The open documents of one session, by URI (documents/document.py: one document).

Fed by `didOpen` / `didChange` / `didClose`; read by the engine. Knows nothing of LSP
types: changes arrive as `TextChange` values.
"""

from __future__ import annotations

from sparkls.documents.document import (
    BACKGROUND_PARSE_BYTES,
    HISTORY,
    Document,
    TextChange,
    WholeText,
)
from sparkls.documents.languages import language_id_for
from sparkls.documents.positions import Encoding
from sparkls.documents.text import utf8_size_over
from sparkls.errors import DocumentClosed

__all__ = [
    "BACKGROUND_PARSE_BYTES", "HISTORY", "Document", "DocumentStore", "TextChange", "WholeText", "utf8_size_over",
]


class DocumentStore:
    """The open documents of one session, by URI. Documents over `max_tree_bytes`
    (UTF-8) get no syntax tree."""

    def __init__(self, encoding: Encoding = "utf-16", *, max_tree_bytes: int | None = None) -> None:
        self.encoding: Encoding = encoding
        self.max_tree_bytes = max_tree_bytes
        self._docs: dict[str, Document] = {}

    def open(self, uri: str, text: str, version: int, language_id: str | None = None) -> Document:
        doc = Document(
            uri, text, version, language_id_for(uri, language_id), self.encoding, max_tree_bytes=self.max_tree_bytes
        )
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, changes: list[TextChange], version: int) -> None:
        self.get(uri).apply(changes, version)

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def has(self, uri: str) -> bool:
        return uri in self._docs

    def get(self, uri: str) -> Document:
        try:
            return self._docs[uri]
        except KeyError:
            raise DocumentClosed(f"{uri} is not open in the editor.") from None

    def __len__(self) -> int:
        return len(self._docs)

    def snapshots(self) -> list[tuple[str, int, str, str]]:
        """(uri, version, text, language id) of every open document, as they are now."""
        return [(d.uri, d.version, d.text, d.language_id) for d in self._docs.values()]

    def is_open(self, uri: str, document: Document) -> bool:
        """True while `document` is still the open instance for `uri`."""
        return self._docs.get(uri) is document
