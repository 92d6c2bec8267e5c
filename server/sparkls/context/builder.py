"""What the fast tier sees for one edit: the region, the imports, the enclosing headers.

`build_edit_context` reads a document snapshot and returns an `EditContext`, a plain
value that `prompt.render_edit_prompt` turns into model input. Pure; no LSP, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from sparkls.context.queries import captures
from sparkls.context.region import Region, find_region
from sparkls.documents.store import Document

_BODY_OWNERS = {"function_definition", "class_definition"}
_HEADER_OWNERS = {"class_definition"}


@dataclass(frozen=True, slots=True)
class DiagnosticInfo:
    """A diagnostic in play: 0-based line, message, and who reported it."""

    line: int
    message: str
    source: str | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True)
class EditContext:
    path: str
    language_id: str
    region: Region
    region_text: str
    cursor: int | None  # offset in region_text, for edits at a bare cursor
    imports: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)  # enclosing class lines, outermost first
    diagnostics: list[DiagnosticInfo] = field(default_factory=list)


def _inside_body(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in _BODY_OWNERS:
            return True
        parent = parent.parent
    return False


def file_imports(doc: Document) -> list[str]:
    """Import statements at module level (also under `if`/`try`), in file order."""
    if "imports" in doc.derived:
        return doc.derived["imports"]
    tree = doc.tree
    if tree is None:
        return []
    # Depth 3 reaches `if TYPE_CHECKING:` / `try:` blocks (statement > block > import)
    # without walking every function body of a big file.
    nodes = captures(doc.language_id, "imports", tree.root_node, max_depth=3).get("import", [])
    imports = [n.text.decode("utf-8") for n in sorted(nodes, key=lambda n: n.start_byte) if not _inside_body(n)]
    doc.derived["imports"] = imports
    return imports


def enclosing_headers(doc: Document, region: Region) -> list[str]:
    """First lines of the classes around the region, outermost first."""
    tree = doc.tree
    if tree is None:
        return []
    byte = doc.lines.byte_point(region.start)[0]
    node = tree.root_node.descendant_for_byte_range(byte, byte)
    headers: list[str] = []
    while node is not None:
        if node.type in _HEADER_OWNERS and node.start_point.row < region.start_line:
            headers.append(doc.lines.line_text(node.start_point.row))
        node = node.parent
    return headers[::-1]


def build_edit_context(
    doc: Document,
    start: int,
    end: int,
    *,
    path: str,
    max_region_lines: int,
    diagnostics: list[DiagnosticInfo] | None = None,
) -> EditContext:
    """Context for an edit of the code-point range `start`..`end` of `doc`."""
    region = find_region(doc, start, end, max_lines=max_region_lines)
    in_region = [
        d for d in diagnostics or [] if region.start_line <= d.line <= region.end_line
    ] or list(diagnostics or [])
    return EditContext(
        path=path,
        language_id=doc.language_id,
        region=region,
        region_text=doc.text[region.start : region.end],
        cursor=start - region.start if start == end else None,
        imports=file_imports(doc),
        headers=enclosing_headers(doc, region),
        diagnostics=in_region,
    )
