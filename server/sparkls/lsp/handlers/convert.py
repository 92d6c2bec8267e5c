"""Conversions between lsprotocol types and the plain values the engine uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.positions import Position

if TYPE_CHECKING:
    from sparkls.edits.tail import EditOutcome


def position(p: types.Position) -> Position:
    return Position(p.line, p.character)


def lsp_range(start: Position, end: Position) -> types.Range:
    return types.Range(
        start=types.Position(line=start.line, character=start.character),
        end=types.Position(line=end.line, character=end.character),
    )


def supports_document_changes(caps: types.ClientCapabilities) -> bool:
    edit_caps = caps.workspace.workspace_edit if caps.workspace else None
    return bool(edit_caps and edit_caps.document_changes)


def workspace_edit(outcome: EditOutcome, caps: types.ClientCapabilities) -> types.WorkspaceEdit:
    """A versioned TextDocumentEdit, or plain `changes` for clients without documentChanges."""
    edits = [types.TextEdit(range=lsp_range(e.start, e.end), new_text=e.text) for e in outcome.edits]
    if supports_document_changes(caps):
        document = types.OptionalVersionedTextDocumentIdentifier(uri=outcome.uri, version=outcome.version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])
    return types.WorkspaceEdit(changes={outcome.uri: edits})


def summary(outcome: EditOutcome, *, applied: bool, apply_ms: float | None = None) -> dict[str, Any]:
    timings = {k: round(v, 3) for k, v in outcome.timings_ms.items()}
    if apply_ms is not None:
        timings["apply"] = round(apply_ms, 3)
        timings["total"] = round(outcome.timings_ms["total"] + apply_ms, 3)
    return {
        "applied": applied,
        "tier": outcome.tier,
        "model": outcome.model,
        "transport": outcome.transport,
        "attempts": outcome.attempts,
        "uri": outcome.uri,
        "version": outcome.version,
        "edits": len(outcome.edits),
        "region": {"start_line": outcome.region_lines[0], "end_line": outcome.region_lines[1]},
        "timings_ms": timings,
        "warnings": outcome.warnings,
        "escalation": outcome.escalation,
    }
