"""Refuse an edit that breaks the syntax: no new ERROR or MISSING nodes in the region.

Where a region parses on its own (Python, Go, Rust), the old and the new region text
are each parsed alone, dedented, so the check costs the region's size, not the file's.
Elsewhere (a JS/TS method needs its class) the file is reparsed incrementally with
the edit in place and the errors inside the region are counted. A region that
already had syntax errors (the diagnostic being fixed, say) may keep or lose them;
it may not gain more. Languages without a grammar are not checked.
"""

from __future__ import annotations

import textwrap

from tree_sitter import Node

from sparkls.context.region import Region
from sparkls.documents.languages import grammar_record, new_parser
from sparkls.documents.store import Document
from sparkls.errors import InvalidEdit


def count_syntax_errors(root: Node, byte_range: tuple[int, int] | None = None) -> int:
    """ERROR and MISSING nodes under `root` (meeting `byte_range`); skips clean subtrees."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if byte_range is not None and (node.end_byte < byte_range[0] or node.start_byte > byte_range[1]):
            continue
        if node.is_error or node.is_missing:
            count += 1
            if node.is_missing:
                continue
        if node.has_error:
            stack.extend(node.children)
    return count


def check_region_parses(doc: Document, region: Region, new_text: str) -> None:
    """Raise InvalidEdit if `new_text` in place of the region adds syntax errors."""
    record = grammar_record(doc.language_id)
    if record is None:
        return
    old_text = doc.text[region.start : region.end]
    if record.regions_parse_alone:
        parser = new_parser(doc.language_id)
        assert parser is not None

        def errors(text: str) -> int:
            return count_syntax_errors(parser.parse(textwrap.dedent(text).encode("utf-8", "surrogatepass")).root_node)

        after, before = errors(new_text), errors(old_text)
    else:
        old_tree = doc.tree_around(region.start, region.end)
        new_tree = doc.parse_variant(region.start, region.end, new_text)
        if old_tree is None or new_tree is None:
            return
        start = doc.lines.byte_point(region.start)[0]
        before = count_syntax_errors(old_tree.root_node, (start, doc.lines.byte_point(region.end)[0]))
        after = count_syntax_errors(new_tree.root_node, (start, start + len(new_text.encode("utf-8", "surrogatepass"))))
    if after and after > before:
        raise InvalidEdit(
            f"The model's edit of lines {region.start_line + 1}-{region.end_line + 1} "
            f"does not parse ({after} syntax error{'s' if after != 1 else ''}), "
            "so nothing was changed."
        )
