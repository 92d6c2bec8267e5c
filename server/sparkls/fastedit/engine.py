"""The fast edit, start to finish, as one function with no LSP in it.

document snapshot -> context -> prompt -> model -> fenced block -> syntax check ->
minimal replacements in LSP positions, stamped with the version they were computed
against. Every failure raises a `SparkError` before anything is applied, so a caller
either gets a complete edit or a message, never half an edit.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from pygls.uris import to_fs_path

from sparkls.config import Settings
from sparkls.context.builder import DiagnosticInfo, EditContext, build_edit_context
from sparkls.context.prompt import Prompt, render_edit_prompt
from sparkls.documents.positions import Position
from sparkls.documents.store import Document, DocumentStore
from sparkls.documents.unicode import restore
from sparkls.context.region import Region
from sparkls.edits.diff import Replacement, diff_replacements
from sparkls.edits.invented import invented_names
from sparkls.edits.rebase import rebase_region
from sparkls.edits.reply import RegionView, new_region_text
from sparkls.edits.retry import with_parse_error
from sparkls.edits.validate import check_region_parses
from sparkls.context.definitions import Lookup
from sparkls.guard.exclusions import PathFilter
from sparkls.guard.secrets import redact
from sparkls.errors import DocumentClosed, EditError, InvalidEdit, ModelError, NoUsableReply, StaleEdit
from sparkls.models.chain import Turn
from sparkls.models.session import Reply, TierSession
from sparkls.models.router import RouteRequest, choose_tier

logger = logging.getLogger(__name__)

# The most a region may weigh, whatever its line count (`context.max_region_lines`):
# 300 lines of 160 characters. A minified line or a data blob is refused, not sent.
MAX_REGION_CHARS = 48_000


@dataclass(frozen=True, slots=True)
class EditRequest:
    uri: str
    start: Position
    end: Position
    instruction: str
    diagnostics: list[DiagnosticInfo] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PositionedEdit:
    start: Position
    end: Position
    text: str


@dataclass(frozen=True, slots=True)
class EditOutcome:
    uri: str
    version: int
    edits: list[PositionedEdit]
    tier: str
    model: str
    transport: str
    attempts: int
    region_lines: tuple[int, int]  # 0-based inclusive
    timings_ms: dict[str, float]
    # For rebasing onto a later version (`rebase_outcome`): the region and the
    # replacements as code-point offsets of the text at `version`, and its length.
    region_offsets: tuple[int, int] = (0, 0)
    replacements: list[Replacement] = field(default_factory=list)
    text_length: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. "possible invented API: foo.bar()"
    escalation: str | None = None  # why the deep tier served this edit, when it did
    turn: Turn | None = None  # the exchange that produced it, for a refine (refine/)


def prepare_edit(
    doc: Document,
    start: int,
    end: int,
    *,
    path: str,
    settings: Settings,
    instruction: str,
    diagnostics: list[DiagnosticInfo] | None = None,
    lookup: Lookup | None = None,
) -> tuple[EditContext, Prompt]:
    """The context and prompt for an edit of `start`..`end`: what the model would get.

    Shared by edits, `sparkls.showContext` and `sparkls context`. Refuses a region
    that holds a secret (redacting it would write the marker into the user's code).
    """
    ctx = build_edit_context(
        doc,
        start,
        end,
        path=path,
        max_region_lines=settings.context.max_region_lines,
        budget_tokens=settings.context.budget_tokens,
        diagnostics=diagnostics,
        lookup=lookup,
    )
    if len(ctx.region_text) > MAX_REGION_CHARS:
        raise EditError(
            f"Lines {ctx.region.start_line + 1}-{ctx.region.end_line + 1} of {path} are "
            f"{len(ctx.region_text):,} characters (a very long line?), more than sparkls sends to the fast tier "
            f"({MAX_REGION_CHARS:,}); nothing was sent."
        )
    if redact(ctx.region_text)[1]:
        raise EditError(
            f"Lines {ctx.region.start_line + 1}-{ctx.region.end_line + 1} of {path} hold what looks "
            "like a secret (a key, token or password); sparkls does not send secrets, so nothing was sent. "
            "Move the secret to an environment variable, then try again."
        )
    return ctx, render_edit_prompt(ctx, redact(instruction)[0])


def check_may_send(uri: str, root: Path | None, path_filter: PathFilter) -> None:
    """Refuse files that must never leave the machine (.gitignore, `context.exclude`,
    and the built-in list of secret files), by their own name or by the name of the
    file a link leads to (`notes.txt -> ~/.aws/credentials`)."""
    fs_path = to_fs_path(uri)
    if fs_path is None:
        return
    path = Path(fs_path)
    for name in dict.fromkeys((_relative(path, root), _relative(Path(os.path.realpath(path)), _real(root)))):
        reason = path_filter.reason(name)
        if reason is not None:
            raise EditError(f"sparkls does not send {_relative(path, root)} ({reason}); nothing was sent.")


def _relative(path: Path, root: Path | None) -> str:
    try:
        return path.relative_to(root).as_posix() if root is not None else path.name
    except ValueError:
        return path.name  # outside the workspace: the built-in list still applies


def _real(root: Path | None) -> Path | None:
    return Path(os.path.realpath(root)) if root is not None else None


def display_path(uri: str, root: Path | None) -> str:
    """Workspace-relative path of `uri` when it is inside `root`, else the path or URI."""
    fs_path = to_fs_path(uri)
    if fs_path is None:
        return uri
    path = Path(fs_path)
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.as_posix()


async def run_fast_edit(
    store: DocumentStore,
    session: TierSession,
    settings: Settings,
    request: EditRequest,
    *,
    root: Path | None = None,
    path_filter: PathFilter | None = None,
    lookup: Lookup | None = None,
    notify: Callable[[str], None] | None = None,
    escalate: TierSession | None = None,
) -> EditOutcome:
    """The edit of `request`, checked, in positions of the document as it is now.

    A reply that adds syntax errors is asked for once more, with the error in the
    request; if that one fails too, `escalate` (the deep tier) gets the same request;
    else the user gets `InvalidEdit` and an unchanged buffer. If the user typed while
    the model answered, the edit follows the text (`rebase`) or, when the typing
    touched the region, is dropped (`StaleEdit`).
    """
    started = time.perf_counter()
    doc = store.get(request.uri)
    version, text_length = doc.version, len(doc.text)
    check_may_send(request.uri, root, path_filter or PathFilter())
    start, end = sorted((doc.offset(request.start), doc.offset(request.end)))
    ctx, prompt = prepare_edit(
        doc, start, end, path=display_path(request.uri, root), settings=settings,
        instruction=request.instruction, diagnostics=request.diagnostics, lookup=lookup,
    )
    view = RegionView.of(ctx, doc.text, doc.language_id)  # the text the model is shown, not what it becomes
    context_done = time.perf_counter()

    served_by, attempts, reason, retried = session, 0, None, False
    invalid: InvalidEdit | None = None
    while True:
        try:
            reply = await served_by.complete(prompt, notify=notify)
        except ModelError as exc:
            if invalid is None:
                raise
            # The deep tier could not be reached: the fast tier's failure is the news.
            raise InvalidEdit(f"{invalid} The deep tier could not take over: {exc}") from exc
        attempts += reply.attempts
        region = _current_region(store, doc, version, text_length, ctx)
        new_region = with_surrogates(ctx.region_text, new_region_text(reply.text, view), ctx.path)
        try:
            check_region_parses(doc, region, new_region)
            break
        except InvalidEdit as exc:
            invalid = exc
            if served_by is session and not retried:
                retried = True  # one more try on the fast tier, told what did not parse
                prompt = with_parse_error(prompt, doc.language_id, new_region)
                logger.info("fast tier: edit did not parse; asking again with the error")
                continue
            if served_by is session and escalate is not None:
                route = choose_tier(RouteRequest(fast_failure="its edit did not parse twice"))
                served_by, reason = escalate, route.reason
                logger.info("escalating to the deep tier: %s", route.reason)
                continue
            if served_by is not session:
                raise InvalidEdit(f"{exc} (Spark tried twice, then the deep tier.)") from None
            raise
    replied = time.perf_counter()

    base = region.start
    replacements = [
        Replacement(base + r.start, base + r.end, r.text) for r in diff_replacements(ctx.region_text, new_region)
    ]
    edits = [PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements]
    warnings = invented_names(doc, new_region, ctx.region_text, lookup)
    finished = time.perf_counter()
    return EditOutcome(
        uri=request.uri,
        version=doc.version,
        edits=edits,
        tier=served_by.name,
        model=served_by.tier.model,
        transport=reply.transport,
        attempts=attempts,
        region_lines=(region.start_line, region.end_line),
        timings_ms=edit_timings(reply, started, context_done, replied, finished),
        region_offsets=(region.start, region.end),
        replacements=replacements,
        text_length=len(doc.text),
        warnings=warnings,
        escalation=reason,
        turn=Turn(prompt, reply.text, reply.chain if served_by is session else None, reply.chained),
    )


def edit_timings(reply: Reply, started: float, context_done: float, replied: float, finished: float) -> dict[str, float]:
    """An edit's timings in ms (the summary's `timings_ms`), from `perf_counter` marks."""
    return {
        "context": (context_done - started) * 1000,
        "ttft": reply.ttft_ms,
        "stream": reply.stream_ms,
        "model": (replied - context_done) * 1000,
        "edit": (finished - replied) * 1000,
        "total": (finished - started) * 1000,
    }


def with_surrogates(old_region: str, new_region: str, path: str) -> str:
    """The new region with the old one's lone surrogates back (the model saw U+FFFD:
    documents/unicode.py); refused when they cannot all be put back exactly."""
    restored = restore(old_region, new_region)
    if restored is None:
        raise NoUsableReply(
            f"The region of {path} holds a broken character (half of a UTF-16 pair, such as half an emoji) "
            "and the model's rewrite does not keep it in place; nothing was changed. Fix that character "
            "and run the edit again."
        )
    return restored


def region_shift(
    store: DocumentStore, doc: Document, version: int, text_length: int, start: int, end: int,
    *, path: str, what: str, touched: str,
) -> int:
    """How far text[start:end] of `doc` as it was at `version` (`text_length` long) has
    moved since, past what the user typed elsewhere while the model wrote the `what`
    ("edit", "refine"): `DocumentClosed` if the document is gone, `StaleEdit` (with
    the message `touched`) if the typing touched the region."""
    if not store.is_open(doc.uri, doc):
        raise DocumentClosed(f"{path} was closed while the {what} was being written; nothing was changed.")
    if doc.version == version:
        return 0
    changes = doc.changes_since(version)
    if changes is None:
        raise StaleEdit(f"{path} changed too much while the {what} was being written; nothing was changed.")
    try:
        return rebase_region(text_length, start, end, changes)
    except StaleEdit:
        raise StaleEdit(touched) from None


def _current_region(store: DocumentStore, doc: Document, version: int, text_length: int, ctx: EditContext) -> Region:
    """The edited region in the document as it is now (`region_shift`)."""
    shift = region_shift(
        store, doc, version, text_length, ctx.region.start, ctx.region.end, path=ctx.path, what="edit",
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


def rebase_outcome(store: DocumentStore, outcome: EditOutcome) -> EditOutcome:
    """`outcome`, computed against an older version, moved onto the document as it is
    now (an edit computed ahead, say); `StaleEdit` when the user changed its region,
    `DocumentClosed` when the document is gone."""
    doc = store.get(outcome.uri)
    if doc.version == outcome.version:
        return outcome
    changes = doc.changes_since(outcome.version)
    if changes is None:
        raise StaleEdit()
    start, end = outcome.region_offsets
    shift = rebase_region(outcome.text_length, start, end, changes)
    replacements = [Replacement(r.start + shift, r.end + shift, r.text) for r in outcome.replacements]
    first_line = doc.position(start + shift).line
    return replace(
        outcome,
        version=doc.version,
        edits=[PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements],
        region_lines=(first_line, first_line + outcome.region_lines[1] - outcome.region_lines[0]),
        region_offsets=(start + shift, end + shift),
        replacements=replacements,
        text_length=len(doc.text),
    )
