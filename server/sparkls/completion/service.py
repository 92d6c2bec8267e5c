"""Inline completions end to end, without LSP: cache, debounce, supersession, model.

`CompletionService.suggest` answers "what does Spark suggest at this offset of this
document": from the typing-through cache when the user is typing a suggestion out,
otherwise through `LatestOnly` (debounced, one model request per document, a newer
request cancelling an older one at once) and `ask_model`, which asks the fast tier
with the edit model protocol (region markers, `<|cursor|>`, an instruction to complete
the code there) and keeps what changed at the cursor. Every answer the model gives is
remembered for typing through, even when the request that asked for it has gone.

`start` hands back the task, for callers that must not wait long for it (the
completion-item fallback answers `isIncomplete` and lets the task finish into the cache).
"""

from __future__ import annotations

import asyncio
import logging
from bisect import bisect_right
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from sparkls.completion.cache import TypingCache
from sparkls.completion.extract import Completion, completion_at_cursor
from sparkls.request.latest import LatestOnly
from sparkls.config import Settings
from sparkls.documents.store import Document
from sparkls.edits.reply import RegionView
from sparkls.edits.tail import read_region
from sparkls.context.builder import EditContext
from sparkls.context.prompt import prepare_context, render_edit_prompt
from sparkls.context.region import Region, RegionTooLong, lines_weight, refuse_long_lines
from sparkls.request.environment import RequestEnv

logger = logging.getLogger(__name__)

COMPLETION_INSTRUCTION = (
    "Complete the code at the cursor: write the editable line with what most likely comes next "
    "inserted at the cursor (the rest of the line, or the next few lines). Keep everything before "
    "the cursor exactly as it is."
)
# The function around the cursor (up to this long, else the lines around it) is shown
# as context; only the cursor's line is editable, so the model answers with that line
# and what it inserts, not the whole function again: its length sets the latency.
COMPLETION_MAX_REGION_LINES = 60

Ask = Callable[[Document, int], Awaitable[Completion | None]]


@dataclass(slots=True)
class CompletionCounts:
    """What happened to completion requests since the session started."""

    requests: int = 0
    from_cache: int = 0  # served by typing through an earlier suggestion
    model_requests: int = 0  # sent to the model
    superseded: int = 0  # cancelled by a newer request for the same document


def completion_settings(settings: Settings) -> Settings:
    """`settings` with the region capped for completions."""
    lines = min(settings.context.max_region_lines, COMPLETION_MAX_REGION_LINES)
    return settings.model_copy(update={"context": settings.context.model_copy(update={"max_region_lines": lines})})


def cursor_line_only(doc: Document, ctx: EditContext, offset: int) -> EditContext:
    """`ctx` with only the cursor's line editable; the rest of its region becomes the
    context shown before and after it."""
    starts = doc.lines.starts
    line = bisect_right(starts, offset) - 1
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(doc.text)
    region = Region(line, line, start, end, "lines")
    return replace(
        ctx,
        region=region,
        region_text=doc.text[start:end],
        cursor=offset - start,
        before=doc.text[ctx.region.start : start],
        after=doc.text[end : ctx.region.end],
    )


async def ask_model(env: RequestEnv, doc: Document, offset: int) -> Completion | None:
    """Ask the fast tier to complete the code at `offset`; the completion in document offsets."""
    ctx = prepare_context(
        doc, offset, offset, path=env.path(doc.uri), settings=completion_settings(env.settings), lookup=env.lookup,
    )
    ctx = cursor_line_only(doc, ctx, offset)
    view = RegionView.of(ctx, doc.text, doc.language_id)
    reply = await env.fast.complete(await env.seal(render_edit_prompt(ctx, COMPLETION_INSTRUCTION)))
    new_region = read_region(reply.text, view, ctx.path)  # as an edit reads it
    found = completion_at_cursor(ctx.region_text, new_region, offset - ctx.region.start)
    return found.shifted(ctx.region.start) if found is not None else None


def _retrieve(task: asyncio.Task[Completion | None]) -> None:
    """Mark a failure as seen: a caller that stopped waiting will not look at it."""
    if not task.cancelled() and task.exception() is not None:
        logger.debug("completion work failed: %s", task.exception())


class CompletionService:
    def __init__(self) -> None:
        self.cache = TypingCache()
        self.scheduler = LatestOnly()
        self.counts = CompletionCounts()
        self._told: set[str] = set()  # documents whose user was told why a completion was refused

    @staticmethod
    def too_long(doc: Document, offset: int, path: str) -> str | None:
        """Why no completion is asked for at `offset`, decided at once from the line
        index (nothing read): its line weighs more than the fast tier is sent (a
        minified line). None: ask."""
        try:
            refuse_long_lines(*lines_weight(doc, offset, offset), path)
        except RegionTooLong as exc:
            return str(exc)
        return None

    def first_refusal(self, uri: str) -> bool:
        """True the first time a completion in `uri` is refused: the user is told once,
        not at every keystroke."""
        if uri in self._told:
            return False
        self._told.add(uri)
        return True

    def cached(self, doc: Document, offset: int) -> Completion | None:
        """What is left of the last suggestion, if the user is typing it out."""
        self.counts.requests += 1
        hit = self.cache.lookup(doc.uri, doc.text, offset)
        if hit is not None:
            self.counts.from_cache += 1
            # Whatever was at work for this document answers an older state now.
            self.scheduler.cancel(doc.uri)
        return hit

    def start(self, doc: Document, offset: int, ask: Ask, *, delay: float) -> asyncio.Task[Completion | None]:
        """The work for `offset` of `doc` as it is now: joined if already at work,
        else started after `delay` seconds, superseding the document's older work."""
        text, version = doc.text, doc.version
        before = self.scheduler.superseded

        async def work() -> Completion | None:
            if doc.version != version:
                return None  # typed on during the debounce: a newer request will come
            self.counts.model_requests += 1
            found = await ask(doc, offset)
            if found is not None:
                self.cache.remember(doc.uri, text, found)
            return found

        task = self.scheduler.submit(doc.uri, (version, offset), work, delay=delay)
        self.counts.superseded += self.scheduler.superseded - before
        task.add_done_callback(_retrieve)
        return task

    def held(self) -> int:
        """How many documents have a suggestion kept, work going or a refusal told."""
        return len(set(self.cache.uris()) | set(self.scheduler.uris()) | self._told)

    def forget(self, uri: str) -> None:
        """The document closed: stop its work and drop its suggestion."""
        self.scheduler.cancel(uri)
        self.cache.forget(uri)
        self._told.discard(uri)
