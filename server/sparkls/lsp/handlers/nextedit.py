"""Next-edit suggestions in LSP terms (the work is nextedit/'s).

- After each `didChange` (`changed`): the changes go into the document's history, the
  suggestion on offer is accepted or dropped, and, when `next_edit` is on, a question
  is scheduled (one per document at a time): after `debounce_ms` of quiet for typing,
  at once after an accepted suggestion (the chain of call sites goes on without a pause).
- A suggestion on offer is announced with `sparkls/nextEdit` (`{"uri", "version",
  "line", "range", "newText", "title", "reason"}`, or `{"uri", "suggestion": null}`
  when it is withdrawn) to clients that asked for it (lsp/notifications.py), and
  shown to every client as:
  - a `refactor.rewrite` code action "Spark: next edit at line N", offered wherever
    the cursor is, carrying the edit as a versioned `TextDocumentEdit` (an editor
    refuses it once the document has moved on);
  - an inline completion item with a `range`, when the cursor is on its lines (`inline_item`).
- `sparkls.nextEdit {"uri"}` returns the suggestion (for a preview), or null;
  `sparkls.acceptNextEdit {"uri"}` applies it with `workspace/applyEdit`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.errors import EditError
from sparkls.lsp.handlers.actions import Contribution, contribute
from sparkls.lsp.handlers.convert import lsp_range, workspace_edit
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.nextedit.ask import Asking, Suggestion

NEXT_EDIT_COMMAND = "sparkls.nextEdit"
ACCEPT_NEXT_EDIT_COMMAND = "sparkls.acceptNextEdit"
REWRITE = types.CodeActionKind.RefactorRewrite


def title(suggestion: Suggestion) -> str:
    return f"Spark: next edit at line {suggestion.line + 1}"


def describe(doc: Document, suggestion: Suggestion) -> dict[str, Any]:
    """The suggestion as `sparkls/nextEdit` and `sparkls.nextEdit` carry it."""
    start, end, new_text = suggestion.span(doc.text)
    rng = lsp_range(doc.position(start), doc.position(end))
    return {
        "uri": doc.uri, "version": doc.version, "line": suggestion.line, "title": title(suggestion),
        "range": {"start": {"line": rng.start.line, "character": rng.start.character},
                  "end": {"line": rng.end.line, "character": rng.end.character}},
        "newText": new_text, "oldText": doc.text[start:end], "reason": suggestion.reason,
    }


def _announce(ls: SparkServer, uri: str, suggestion: Suggestion | None) -> None:
    if suggestion is None or not ls.documents.has(uri):
        ls.notify_extension("nextEdit", {"uri": uri, "suggestion": None})
        return
    ls.notify_extension("nextEdit", {"uri": uri, "suggestion": describe(ls.documents.get(uri), suggestion)})


def _ask(ls: SparkServer):
    from sparkls.lsp.handlers import followups
    from sparkls.nextedit.ask import ask_next_edit

    async def ask(doc: Document, edits: list, asking: Asking, previous: Asking | None) -> Suggestion | None:
        env = await ls.environment()
        env.guard.check_document(doc.uri)
        # Other files that follow (no model call), looked for alongside the question,
        # never in its way; a newer change cancels both.
        looking = asyncio.ensure_future(followups.look(ls, env, doc, edits))
        try:
            await env.fast.settled()  # on a pool: a question this one superseded has stopped streaming
            return await ask_next_edit(
                env, doc, edits, limit=ls.settings.next_edit.max_candidates, on_request=ls.next_edits.asked_model,
                asking=asking, previous=previous,
            )
        except asyncio.CancelledError:
            looking.cancel()
            raise

    return ask


def changed(ls: SparkServer, doc: Document, before: str, version_before: int) -> None:
    """After `didChange`: record, accept or drop, and schedule the next question."""
    service = ls.next_edits
    if service.on_offer is None:
        service.on_offer = lambda uri, suggestion: _announce(ls, uri, suggestion)
    if not ls.settings.next_edit_on:
        service.forget(doc.uri)
        return
    accepted = service.record(doc, before, version_before)
    settings = ls.settings.next_edit
    # Typing is debounced; a suggestion just taken is a whole edit: the next one is asked for at once.
    delay = 0.0 if accepted else settings.debounce_ms / 1000
    service.schedule(doc, _ask(ls), delay=delay, ttl=settings.ttl_seconds)


def code_actions(ls: SparkServer, doc: Document) -> list[types.CodeAction]:
    """"Spark: next edit at line N", wherever the cursor is, while one is on offer."""
    from sparkls.lsp.writes import writes_freely

    suggestion = ls.next_edits.current(doc) if ls.documents.is_open(doc.uri, doc) else None
    if suggestion is None or not writes_freely(ls, doc.uri):  # a protected file: only through a command that asks
        return []
    edit = workspace_edit(suggestion.outcome, ls.client_capabilities)
    return [types.CodeAction(title=title(suggestion), kind=REWRITE, edit=edit)]


def inline_item(ls: SparkServer, doc: Document, offset: int) -> types.InlineCompletionItem | None:
    """The suggestion as ghost text with a `range`, when the cursor is on its lines."""
    from sparkls.lsp.writes import writes_freely

    suggestion = ls.next_edits.current(doc)
    if suggestion is None or not writes_freely(ls, doc.uri):
        return None
    first, last = suggestion.outcome.region_lines
    if not first <= doc.lines.line_of(offset) <= last:
        return None
    start, end, new_text = suggestion.span(doc.text)
    if not start <= offset <= end:  # ghost text replaces from the cursor's side: take the whole lines
        start, end = suggestion.outcome.region_offsets
        new_text = suggestion.new_region
        if end > start and doc.text[end - 1] == "\n" and new_text.endswith("\n"):
            end, new_text = end - 1, new_text[:-1]
    return types.InlineCompletionItem(insert_text=new_text, range=lsp_range(doc.position(start), doc.position(end)))


def register(server: SparkServer) -> None:
    contribute(server, Contribution((REWRITE,), lambda ls, doc, _params: code_actions(ls, doc), rank=40))

    @server.command(NEXT_EDIT_COMMAND)
    def next_edit(ls: SparkServer, *args: Any) -> dict[str, Any] | None:
        from sparkls.lsp.handlers.args import uri_argument
        from sparkls.lsp.handlers.commands import failure

        try:
            uri = uri_argument(NEXT_EDIT_COMMAND, args)
        except EditError as exc:  # a picker that runs it with no argument: a message, not a traceback
            return failure(ls, exc)
        if not ls.documents.has(uri):
            return None
        doc = ls.documents.get(uri)
        suggestion = ls.next_edits.current(doc)
        return describe(doc, suggestion) if suggestion is not None else None

    @server.command(ACCEPT_NEXT_EDIT_COMMAND)
    async def accept_next_edit(ls: SparkServer, *args: Any) -> dict[str, Any]:
        from sparkls.lsp.handlers.args import uri_argument
        from sparkls.lsp.handlers.commands import apply_outcome, failure

        try:
            uri = uri_argument(ACCEPT_NEXT_EDIT_COMMAND, args)
            suggestion = ls.next_edits.current(ls.documents.get(uri))
            if suggestion is None:
                raise EditError("No next-edit suggestion is on offer for this document (typing drops it); nothing was changed.")
            # Not taken from the offer: the editor's didChange for this edit is what
            # accepts it (and counts it), exactly as when the code action applies it.
            return await apply_outcome(ls, suggestion.outcome)
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
