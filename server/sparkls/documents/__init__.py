"""Open documents: text, version and tree-sitter tree, and position conversion."""

from sparkls.documents.positions import Encoding, LineIndex, Position
from sparkls.documents.store import Document, DocumentStore, TextChange

__all__ = ["Document", "DocumentStore", "Encoding", "LineIndex", "Position", "TextChange"]
