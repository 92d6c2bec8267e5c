"""Small helpers over a document's syntax tree, shared by the next-edit modules. Pure."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from sparkls.documents.store import Document


def node_at(doc: Document, offset: int) -> Node | None:
    """The smallest node at `offset` (None without a tree)."""
    tree = doc.tree_around(offset, offset)
    if tree is None:
        return None
    byte = doc.lines.byte_point(offset)[0]
    return tree.root_node.descendant_for_byte_range(byte, byte)


def _ancestors(node: Node | None) -> Iterator[Node]:
    while node is not None:
        yield node
        node = node.parent


def ancestors(node: Node | None) -> Iterator[Node]:
    """`node`, its parent, and so on up to the root."""
    while node is not None:
        yield node
        node = node.parent


def lines_of(node: Node) -> tuple[int, int]:
    """The node's first and last line (a node ending at a line's start ends the line before)."""
    last = node.end_point[0] - (1 if node.end_point[1] == 0 and node.end_point[0] > node.start_point[0] else 0)
    return node.start_point[0], last
