"""Inline completions at the LSP edge (`FEATURE`): ghost text (`textDocument/inlineCompletion`,
after a next edit on offer at the cursor), and a completion item for the rest.

Clients with ghost text (VS Code, Neovim 0.12+) ask `textDocument/inlineCompletion`;
the answer is an `InlineCompletionItem` (with a `range` when it replaces text after the
cursor), or nothing when a newer request superseded this one. Clients without it
(Helix) get the same suggestion as a `textDocument/completion` item marked "Spark",
registered at `initialize` only for them (a `Method` with `when`). That path never holds
up the editor's menu: it answers with what is ready (a suggestion being typed out)
within `completion.completion_item_wait_ms`, else `isIncomplete` with no item, and the
model's answer lands in the cache for the next request.

The work is `CompletionService`'s (completion/); failures are logged, never shown: a
completion that does not come is not worth a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re

from typing import TYPE_CHECKING

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.errors import SparkError
from sparkls.lsp.edge import Edge
from sparkls.lsp.feature import Feature, Ghost, Method, Store
from sparkls.lsp.handlers.convert import lsp_range, position

if TYPE_CHECKING:
    from sparkls.completion.extract import Completion
    from sparkls.completion.service import Ask, CompletionService

logger = logging.getLogger(__name__)

SPARK = "Spark"
_WORD_BEFORE = re.compile(r"\w*\Z")


def _completion_service() -> CompletionService:
    from sparkls.completion.service import CompletionService  # loaded when first used, not at start-up

    return CompletionService()


COMPLETIONS = Store("completions", _completion_service)  # inline completions: cache, debounce, supersession


def _asker(edge: Edge) -> Ask:
    from sparkls.completion.service import ask_model

    async def ask(doc: Document, offset: int) -> Completion | None:
        env = await edge.environment()
        env.guard.check_document(doc.uri)
        return await ask_model(env, doc, offset)

    return ask


def _result(task: asyncio.Task[Completion | None]) -> Completion | None:
    """A finished task's completion; None if it was cancelled or failed (logged)."""
    if task.cancelled():
        return None
    error = task.exception()
    if error is None:
        return task.result()
    if isinstance(error, SparkError):
        logger.info("no inline completion: %s", error)
    else:
        logger.warning("inline completion failed", exc_info=error)
    return None


async def _refused(edge: Edge, doc: Document, offset: int, *, invoked: bool) -> bool:
    """True when no completion can be asked at `offset` (its line is too long to be
    shown), decided at once; the user is told the first time per document, and
    whenever they asked for one themselves."""
    completions = edge.store(COMPLETIONS)
    refusal = completions.too_long(doc, offset, (await edge.environment()).path(doc.uri))
    if refusal is None:
        return False
    logger.info("no inline completion: %s", refusal)
    if invoked or completions.first_refusal(doc.uri):
        edge.notify_user(f"no inline completion here. {refusal}", types.MessageType.Info)
    return True


def _document(edge: Edge, uri: str) -> Document | None:
    if not edge.settings.completion.enabled or not edge.documents.has(uri):
        return None
    return edge.documents.get(uri)


def inline_item(doc: Document, found: Completion) -> types.InlineCompletionItem:
    end = doc.position(found.offset + found.replace)
    return types.InlineCompletionItem(
        insert_text=found.text,
        range=lsp_range(doc.position(found.offset), end) if found.replace else None,
    )


def completion_item(doc: Document, found: Completion) -> types.CompletionItem:
    """The suggestion as a menu item: it replaces the word before the cursor with that
    word plus the suggestion, so the menu's filtering by the typed word keeps it."""
    line_start = doc.lines.starts[doc.position(found.offset).line]
    word = _WORD_BEFORE.search(doc.text, line_start, found.offset)
    prefix = word.group() if word else ""
    new_text = prefix + found.text
    first_line = new_text.splitlines()[0] if new_text.strip() else new_text
    start = doc.position(found.offset - len(prefix))
    end = doc.position(found.offset + found.replace)
    return types.CompletionItem(
        label=first_line.strip() + (" …" if "\n" in new_text.rstrip("\r\n") else ""),
        label_details=types.CompletionItemLabelDetails(description=SPARK),
        kind=types.CompletionItemKind.Text,
        detail=SPARK,
        filter_text=first_line,
        insert_text_format=types.InsertTextFormat.PlainText,
        text_edit=types.TextEdit(range=lsp_range(start, end), new_text=new_text),
    )


def supports_inline_completion(caps: types.ClientCapabilities) -> bool:
    text = caps.text_document
    return bool(text and text.inline_completion is not None)


async def _completion(edge: Edge, params: types.CompletionParams) -> types.CompletionList | None:
    """The completion-item path, for a client without inline completion (registered at `initialize`)."""
    doc = _document(edge, params.text_document.uri)
    if doc is None:
        return None
    await edge.prepared(doc)
    settings = edge.settings.completion
    offset = doc.offset(position(params.position))
    completions = edge.store(COMPLETIONS)
    found = completions.cached(doc, offset)
    if found is None:
        if await _refused(edge, doc, offset, invoked=False):  # a menu asks at every key: told once
            return types.CompletionList(is_incomplete=True, items=[])
        task = completions.start(doc, offset, _asker(edge), delay=settings.debounce_ms / 1000)
        # Never cancelled from here: a late answer still lands in the cache.
        done, _ = await asyncio.wait({task}, timeout=settings.completion_item_wait_ms / 1000)
        found = _result(task) if done else None
    items = [completion_item(doc, found)] if found is not None and found.text.strip() else []
    return types.CompletionList(is_incomplete=True, items=items)


async def ghost_text(edge: Edge, doc: Document, offset: int, params: types.InlineCompletionParams) -> types.InlineCompletionItem | None:
    """The inline completion at `offset` (asked after the features that come first, a
    next edit on offer at the cursor, had none)."""
    if not edge.settings.completion.enabled:
        return None
    version = doc.version
    completions = edge.store(COMPLETIONS)
    found = completions.cached(doc, offset)
    if found is None:
        from sparkls.request.latest import outcome

        invoked = params.context.trigger_kind == types.InlineCompletionTriggerKind.Invoked
        if await _refused(edge, doc, offset, invoked=invoked):
            return None
        delay = 0.0 if invoked else edge.settings.completion.debounce_ms / 1000
        task = completions.start(doc, offset, _asker(edge), delay=delay)
        with contextlib.suppress(Exception):  # a failure is logged by _result
            await outcome(task)  # None when superseded; $/cancelRequest cancels the task
        found = _result(task)
    if found is None or doc.version != version or not edge.documents.is_open(doc.uri, doc):
        return None  # never a completion for a text that is gone
    return inline_item(doc, found)


# Declared as a non-empty object: a multiplexer reading `{}` as false (rass) would route
# no completion request to sparkls.
_COMPLETION_OPTIONS = types.CompletionOptions(resolve_provider=False)

FEATURE = Feature(
    "inline completion",
    methods=(
        Method(types.TEXT_DOCUMENT_COMPLETION, _completion, _COMPLETION_OPTIONS,
               when=lambda caps: not supports_inline_completion(caps)),
    ),
    ghost=(Ghost(20, ghost_text),),
    stores=(COMPLETIONS,),
    preload=("sparkls.completion.service",),
)
