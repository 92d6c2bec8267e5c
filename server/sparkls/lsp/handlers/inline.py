"""Inline completions: `textDocument/inlineCompletion`, and a completion item for the rest.

Clients with ghost text (VS Code, Neovim 0.12+) ask `textDocument/inlineCompletion`;
the answer is an `InlineCompletionItem` (with a `range` when it replaces text after the
cursor), or nothing when a newer request superseded this one. Clients without it
(Helix) get the same suggestion as a `textDocument/completion` item marked "Spark",
registered at `initialize` only for them (`register_for_client`). That path never holds
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
from sparkls.lsp.handlers import nextedit
from sparkls.lsp.handlers.convert import lsp_range, position
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.completion import Completion
    from sparkls.completion.service import Ask

logger = logging.getLogger(__name__)

SPARK = "Spark"
_WORD_BEFORE = re.compile(r"\w*\Z")


def _asker(ls: SparkServer) -> Ask:
    from sparkls.completion import ask_model

    async def ask(doc: Document, offset: int) -> Completion | None:
        env = await ls.environment()
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


async def _refused(ls: SparkServer, doc: Document, offset: int, *, invoked: bool) -> bool:
    """True when no completion can be asked at `offset` (its line is too long to be
    shown), decided at once; the user is told the first time per document, and
    whenever they asked for one themselves."""
    refusal = ls.completions.too_long(doc, offset, (await ls.environment()).path(doc.uri))
    if refusal is None:
        return False
    logger.info("no inline completion: %s", refusal)
    if invoked or ls.completions.first_refusal(doc.uri):
        ls.notify_user(f"no inline completion here. {refusal}", types.MessageType.Info)
    return True


def _document(ls: SparkServer, uri: str) -> Document | None:
    if not ls.settings.completion.enabled or not ls.documents.has(uri):
        return None
    return ls.documents.get(uri)


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


def supports_inline_completion(ls: SparkServer) -> bool:
    text = ls.client_capabilities.text_document
    return bool(text and text.inline_completion is not None)


def register_for_client(ls: SparkServer) -> None:
    """At `initialize`: the completion-item path, for clients without inline completion."""
    if supports_inline_completion(ls) or types.TEXT_DOCUMENT_COMPLETION in ls.protocol.fm.features:
        return
    # Declared as a non-empty object: a multiplexer reading `{}` as false (rass) would
    # route no completion request to sparkls.
    ls.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(resolve_provider=False))(_completion)


async def _completion(ls: SparkServer, params: types.CompletionParams) -> types.CompletionList | None:
    doc = _document(ls, params.text_document.uri)
    if doc is None:
        return None
    await ls.preparer.ready(doc)
    settings = ls.settings.completion
    offset = doc.offset(position(params.position))
    found = ls.completions.cached(doc, offset)
    if found is None:
        if await _refused(ls, doc, offset, invoked=False):  # a menu asks at every key: told once
            return types.CompletionList(is_incomplete=True, items=[])
        task = ls.completions.start(doc, offset, _asker(ls), delay=settings.debounce_ms / 1000)
        # Never cancelled from here: a late answer still lands in the cache.
        done, _ = await asyncio.wait({task}, timeout=settings.completion_item_wait_ms / 1000)
        found = _result(task) if done else None
    items = [completion_item(doc, found)] if found is not None and found.text.strip() else []
    return types.CompletionList(is_incomplete=True, items=items)


def register(server: SparkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def inline_completion(ls: SparkServer, params: types.InlineCompletionParams) -> types.InlineCompletionList | None:
        if not ls.documents.has(params.text_document.uri):
            return None
        doc = ls.documents.get(params.text_document.uri)
        await ls.preparer.ready(doc)
        version = doc.version
        offset = doc.offset(position(params.position))
        if (next_edit := nextedit.inline_item(ls, doc, offset)) is not None:  # a next edit at the cursor
            return types.InlineCompletionList(items=[next_edit])  # whether completions are on or not
        if not ls.settings.completion.enabled:
            return None
        found = ls.completions.cached(doc, offset)
        if found is None:
            from sparkls.completion import outcome

            invoked = params.context.trigger_kind == types.InlineCompletionTriggerKind.Invoked
            if await _refused(ls, doc, offset, invoked=invoked):
                return None
            delay = 0.0 if invoked else ls.settings.completion.debounce_ms / 1000
            task = ls.completions.start(doc, offset, _asker(ls), delay=delay)
            with contextlib.suppress(Exception):  # a failure is logged by _result
                await outcome(task)  # None when superseded; $/cancelRequest cancels the task
            found = _result(task)
        if found is None or doc.version != version or not ls.documents.is_open(doc.uri, doc):
            return None  # never a completion for a text that is gone
        return types.InlineCompletionList(items=[inline_item(doc, found)])
