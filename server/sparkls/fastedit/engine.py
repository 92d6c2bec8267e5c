"""The fast edit, start to finish, as one function with no LSP in it.

request environment -> context and draft (context/prompt.py) -> the guard's wire
text -> model -> the rewrite tail (edits/tail.py): fenced block, syntax check, minimal
replacements in LSP positions, stamped with the version they were computed against.
Every failure raises a `SparkError` before anything is applied, so a caller either
gets a complete edit or a message, never half an edit.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace

from sparkls.context.builder import DiagnosticInfo, EditContext
from sparkls.context.prompt import prepare_draft
from sparkls.context.region import Region
from sparkls.documents.positions import Position
from sparkls.documents.store import Document
from sparkls.edits.ask import asked, choose_ask, read_answer, turn_text
from sparkls.edits.invented import invented_names
from sparkls.edits.reply import RegionView
from sparkls.edits.retry import with_parse_error
from sparkls.edits.tail import EditOutcome, edit_timings, finish, region_shift
from sparkls.edits.validate import check_region_parses
from sparkls.errors import InvalidEdit, ModelError, NoUsableReply
from sparkls.guard.wire import Wire
from sparkls.models.chain import Turn
from sparkls.models.collect import Reply
from sparkls.models.router import RouteRequest, choose_tier
from sparkls.models.steering import Steering
from sparkls.request.environment import RequestEnv

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EditRequest:
    uri: str
    start: Position
    end: Position
    instruction: str
    diagnostics: list[DiagnosticInfo] = field(default_factory=list)
    steering: Steering | None = None  # lets a refine add words while it streams (request/inflight.py)


async def run_fast_edit(env: RequestEnv, request: EditRequest) -> EditOutcome:
    """The edit of `request`, checked, in positions of the document as it is now.

    A reply that adds syntax errors is asked for once more, with the error in the
    request; if that one fails too, the deep tier (when configured) gets the same
    request; else the user gets `InvalidEdit` and an unchanged buffer. If the user
    typed while the model answered, the edit follows the text (`rebase`) or, when the
    typing touched the region, is dropped (`StaleEdit`).
    """
    started = time.perf_counter()
    doc = env.document(request.uri)
    version, text_length = doc.version, len(doc.text)
    env.guard.check_document(request.uri)
    start, end = sorted((doc.offset(request.start), doc.offset(request.end)))
    ctx, draft = prepare_draft(
        doc, start, end, path=env.path(request.uri), settings=env.settings,
        instruction=request.instruction, diagnostics=request.diagnostics, lookup=env.lookup,
    )
    view = RegionView.of(ctx, doc.text, doc.language_id)  # the text the model is shown, not what it becomes
    ask = choose_ask(ctx.region_text, ctx.path, env.fast.tier.api, patches=env.fast.tier.patches)
    prompt = await env.seal(asked(draft, ask, ctx.path))
    context_done = time.perf_counter()

    session = served_by = env.fast
    attempts, reason, retried = 0, None, False
    invalid: InvalidEdit | None = None
    steering = request.steering
    while True:
        try:
            reply = await served_by.complete(prompt, notify=env.notify, steering=steering)
            steering = None  # only the first request can be steered
        except ModelError as exc:
            if invalid is None:
                raise
            # The deep tier could not be reached: the fast tier's failure is the news.
            raise InvalidEdit(f"{invalid} The deep tier could not take over: {exc}") from exc
        attempts += reply.attempts
        region = _current_region(env, doc, version, text_length, ctx)
        try:
            new_region = read_answer(reply, view, ctx.path, ask, may_delete=True)  # "remove this import"
        except NoUsableReply as exc:
            if ask == "whole" or served_by is not session:
                raise
            ask = "whole"  # once more, as the whole region; the user hears only if that fails too
            prompt = await env.seal(draft)
            logger.info("fast tier: the patch could not be used (%s); asking for the whole region", exc)
            continue
        try:
            check_region_parses(doc, region, new_region)
            break
        except InvalidEdit as exc:
            invalid = exc
            if served_by is session and not retried:
                retried, ask = True, "whole"  # one more try on the fast tier, told what did not parse
                draft = with_parse_error(draft, doc.language_id, new_region)
                prompt = await env.seal(draft)
                logger.info("fast tier: edit did not parse; asking again with the error")
                continue
            if served_by is session and env.deep is not None:
                route = choose_tier(RouteRequest(fast_failure="its edit did not parse twice"))
                served_by, reason = env.deep, route.reason
                logger.info("escalating to the deep tier: %s", route.reason)
                continue
            if served_by is not session:
                raise InvalidEdit(f"{exc} (Spark tried twice, then the deep tier.)") from None
            raise
    replied = time.perf_counter()
    outcome = finish(
        doc, region.start, ctx.region_text, new_region, reply=reply, tier=served_by.name, model=served_by.tier.model,
        timings_ms={}, check=False, escalation=reason,
        warnings=invented_names(doc, new_region, ctx.region_text, env.lookup),
        turn=Turn(_answered(prompt, reply, request.steering), turn_text(reply),
                  reply.chain if served_by is session else None, reply.chained,
                  reply.patch.call_id if reply.patch is not None else None),
    )
    timings = edit_timings(reply, started, context_done, replied, time.perf_counter())
    return replace(outcome, attempts=attempts, region_lines=(region.start_line, region.end_line), timings_ms=timings)


def _answered(prompt: Wire, reply: Reply, steering: Steering | None) -> Wire:
    """The conversation `reply` answers: `prompt`, or, when it was steered, the one
    with the words added while it streamed (what a refine resent in full must send)."""
    if reply.steered and steering is not None and steering.committed:
        return steering.committed[-1]
    return prompt


def _current_region(env: RequestEnv, doc: Document, version: int, text_length: int, ctx: EditContext) -> Region:
    """The edited region in the document as it is now (`region_shift`)."""
    shift = region_shift(
        env.store, doc, version, text_length, ctx.region.start, ctx.region.end, path=ctx.path, what="edit",
        touched=f"You edited lines {ctx.region.start_line + 1}-{ctx.region.end_line + 1} of {ctx.path} while Spark "
        "was writing them; nothing was changed. Run the edit again.",
    )
    if doc.version == version:
        return ctx.region
    start = ctx.region.start + shift
    end = start + (ctx.region.end - ctx.region.start)
    return replace(
        ctx.region, start=start, end=end, start_line=doc.position(start).line,
        end_line=ctx.region.end_line - ctx.region.start_line + doc.position(start).line,
    )
