"""Refuse an edit that breaks the syntax: no new ERROR or MISSING nodes in the region.

A region that already had syntax errors (the diagnostic being fixed, say) may keep
or lose them; it may not gain more. Documents without a grammar are not checked.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from sparkls.context.region import Region
from sparkls.documents.store import Document
from sparkls.errors import InvalidEdit


def count_syntax_errors(tree: Tree, start_byte: int, end_byte: int) -> int:
    """ERROR and MISSING nodes overlapping the byte range; skips clean subtrees."""
    count = 0
    stack: list[Node] = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.end_byte < start_byte or node.start_byte > end_byte:
            continue
        if node.is_error or node.is_missing:
            count += 1
            if node.is_missing:
                continue
        if node.has_error:
            stack.extend(node.children)
    return count


def check_region_parses(doc: Document, region: Region, new_text: str) -> None:
    """Raise InvalidEdit if replacing the region with `new_text` adds syntax errors."""
    old_tree = doc.tree
    new_tree = doc.parse_variant(region.start, region.end, new_text)
    if old_tree is None or new_tree is None:
        return
    start_byte = doc.lines.byte_point(region.start)[0]
    before = count_syntax_errors(old_tree, start_byte, doc.lines.byte_point(region.end)[0])
    after = count_syntax_errors(new_tree, start_byte, start_byte + len(new_text.encode("utf-8")))
    if after > before:
        raise InvalidEdit(
            f"The model's edit of lines {region.start_line + 1}-{region.end_line + 1} "
            f"does not parse ({after} syntax error{'s' if after != 1 else ''}), "
            "so nothing was changed."
        )
