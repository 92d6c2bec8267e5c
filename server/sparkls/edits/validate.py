"""Refuse an edit that breaks the syntax: no new ERROR or MISSING nodes in the region.

The old and the new region text are each parsed on their own (dedented), so the
check costs the region's size, not the file's. A region that already had syntax
errors (the diagnostic being fixed, say) may keep or lose them; it may not gain
more. Languages without a grammar are not checked.
"""

from __future__ import annotations

import textwrap

from tree_sitter import Node

from sparkls.context.region import Region
from sparkls.documents.languages import new_parser
from sparkls.errors import InvalidEdit


def count_syntax_errors(root: Node) -> int:
    """ERROR and MISSING nodes under `root`; skips subtrees without errors."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
            if node.is_missing:
                continue
        if node.has_error:
            stack.extend(node.children)
    return count


def check_region_parses(language_id: str, region: Region, old_text: str, new_text: str) -> None:
    """Raise InvalidEdit if `new_text` has more syntax errors than `old_text`."""
    parser = new_parser(language_id)
    if parser is None:
        return

    def errors(text: str) -> int:
        return count_syntax_errors(parser.parse(textwrap.dedent(text).encode("utf-8")).root_node)

    after = errors(new_text)
    if after and after > errors(old_text):
        raise InvalidEdit(
            f"The model's edit of lines {region.start_line + 1}-{region.end_line + 1} "
            f"does not parse ({after} syntax error{'s' if after != 1 else ''}), "
            "so nothing was changed."
        )
