"""The fast edit, start to finish, as one function with no LSP in it.

document snapshot -> context -> prompt -> model -> fenced block -> syntax check ->
minimal replacements in LSP positions, stamped with the version they were computed
against. Every failure raises a `SparkError` before anything is applied, so a caller
either gets a complete edit or a message, never half an edit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pygls.uris import to_fs_path

from sparkls.config import Settings
from sparkls.context.builder import DiagnosticInfo, EditContext, build_edit_context
from sparkls.context.prompt import Prompt, render_edit_prompt
from sparkls.documents.positions import Position
from sparkls.documents.store import Document, DocumentStore
from sparkls.edits.diff import diff_replacements
from sparkls.edits.reply import extract_region
from sparkls.edits.validate import check_region_parses
from sparkls.context.definitions import Lookup
from sparkls.context.exclusions import PathFilter
from sparkls.context.secrets import redact
from sparkls.errors import DocumentChanged, DocumentClosed, EditError
from sparkls.models.session import TierSession


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
    if redact(ctx.region_text)[1]:
        raise EditError(
            f"Lines {ctx.region.start_line + 1}-{ctx.region.end_line + 1} of {path} hold what looks "
            "like a secret (a key, token or password); sparkls does not send secrets, so nothing was sent. "
            "Move the secret to an environment variable, then try again."
        )
    return ctx, render_edit_prompt(ctx, redact(instruction)[0])


def check_may_send(uri: str, root: Path | None, path_filter: PathFilter) -> None:
    """Refuse files that must never leave the machine (.gitignore, `context.exclude`,
    and the built-in list of secret files)."""
    fs_path = to_fs_path(uri)
    if fs_path is None:
        return
    path = Path(fs_path)
    try:
        rel = path.relative_to(root).as_posix() if root is not None else path.name
    except ValueError:
        rel = path.name  # outside the workspace: the built-in list still applies
    reason = path_filter.reason(rel)
    if reason is not None:
        raise EditError(f"sparkls does not send {rel} ({reason}); nothing was sent.")


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
) -> EditOutcome:
    started = time.perf_counter()
    doc = store.get(request.uri)
    version = doc.version
    check_may_send(request.uri, root, path_filter or PathFilter())
    start, end = sorted((doc.offset(request.start), doc.offset(request.end)))
    ctx, prompt = prepare_edit(
        doc, start, end, path=display_path(request.uri, root), settings=settings,
        instruction=request.instruction, diagnostics=request.diagnostics, lookup=lookup,
    )
    context_done = time.perf_counter()

    reply = await session.complete(prompt, notify=notify)
    replied = time.perf_counter()

    name = ctx.path
    if not store.is_open(request.uri, doc):
        raise DocumentClosed(f"{name} was closed while the edit was being written; nothing was changed.")
    if doc.version != version:
        raise DocumentChanged(
            f"{name} changed while the edit was being written (version {version} -> "
            f"{doc.version}); nothing was changed. Run the edit again."
        )
    line_ending = "\r\n" if "\r\n" in ctx.region_text else "\n"
    new_region = extract_region(reply.text, line_ending=line_ending)
    if ctx.region_text.endswith(line_ending) and not new_region.endswith(line_ending):
        new_region += line_ending
    check_region_parses(doc, ctx.region, new_region)
    base = ctx.region.start
    edits = [
        PositionedEdit(doc.position(base + r.start), doc.position(base + r.end), r.text)
        for r in diff_replacements(ctx.region_text, new_region)
    ]
    finished = time.perf_counter()
    return EditOutcome(
        uri=request.uri,
        version=version,
        edits=edits,
        tier=session.name,
        model=session.tier.model,
        transport=reply.transport,
        attempts=reply.attempts,
        region_lines=(ctx.region.start_line, ctx.region.end_line),
        timings_ms={
            "context": (context_done - started) * 1000,
            "ttft": reply.ttft_ms,
            "stream": reply.stream_ms,
            "model": (replied - context_done) * 1000,
            "edit": (finished - replied) * 1000,
            "total": (finished - started) * 1000,
        },
    )
