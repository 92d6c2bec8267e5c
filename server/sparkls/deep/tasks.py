"""A multi-file task (`sparkls.task`) end to end, with no LSP in it.

files -> deep tier -> one edit, in one of two ways:

- **deep alone**: the deep tier sees the files and answers SEARCH/REPLACE blocks,
  applied all or nothing (deep/pipeline.py);
- **plan, then delegate** (`deep.delegate`): the deep tier answers a short plan, one
  step per file; the fast tier carries out the steps in parallel over its socket pool,
  each seeing only its file (the whole file is the editable region: a step is a
  rewrite of a small file, and a file longer than `context.max_region_lines` is
  refused with a message); the steps' results are combined.

Either way the combined change is checked (no new syntax errors, no redaction marker
written: deep/checks.py) before a `MultiFileEdit` is returned; any failure raises
a `SparkError` first, so the caller has the whole edit or a message, never part of
one. Which files are shown is files.py's business; the handler turns the
outcome into LSP (lsp/handlers/task.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparkls.config import Settings
from sparkls.context.lookup import Lookup
from sparkls.context.prompt import prepare_edit
from sparkls.guard.exclusions import PathFilter
from sparkls.deep.apply import FileChange
from sparkls.deep.checks import check_changes
from sparkls.edits.workspace import MultiFileEdit, FileSource, build_workspace_edit
from sparkls.deep.paths import ResolvedPath, resolve_reply_path
from sparkls.deep.pipeline import FileState, edit_from_reply
from sparkls.deep.plan import Plan, PlanStep, parse_plan
from sparkls.deep.prompt import render_task_prompt
from sparkls.deep.files import ShownFiles, TaskRequest, gather_files, read_state
from sparkls.documents.languages import language_id_for
from sparkls.documents.positions import Encoding
from sparkls.documents.store import Document, DocumentStore
from sparkls.edits.reply import RegionView
from sparkls.edits.tail import read_region
from sparkls.errors import DeepEditError, EditError, PathRefused, SparkError
from sparkls.models.session import Reply, TierSession
from sparkls.models.router import Route, RouteRequest, choose_tier
from sparkls.request.environment import RequestEnv

__all__ = ["TaskEnv", "TaskOutcome", "TaskRequest", "run_task"]


@dataclass
class TaskEnv:
    """A task's request environment (the deep tier configured), and how it reports."""

    request: RequestEnv
    deep: TierSession
    needs_confirmation: bool = False
    phase: Callable[[str], None] = lambda _: None  # "planning (4 files)", for the progress

    @property
    def store(self) -> DocumentStore:
        return self.request.store

    @property
    def settings(self) -> Settings:
        return self.request.settings

    @property
    def fast(self) -> TierSession:
        return self.request.fast

    @property
    def folders(self) -> list[str]:
        return list(self.request.folders)

    @property
    def root(self) -> Path | None:
        return self.request.root

    @property
    def path_filter(self) -> PathFilter:
        return self.request.guard.path_filter

    @property
    def lookup(self) -> Lookup | None:
        return self.request.lookup

    @property
    def encoding(self) -> Encoding:
        return self.request.encoding

    @property
    def notify(self) -> Callable[[str], None] | None:
        return self.request.notify


@dataclass
class TaskOutcome:
    edit: MultiFileEdit
    route: Route
    mode: str  # "deep" or "delegate"
    shown: ShownFiles
    deep_reply: Reply
    timings_ms: dict[str, float]
    plan: Plan | None = None
    fast_model: str | None = None
    steps_ms: list[float] = field(default_factory=list)

    def summary(self, settings: Settings) -> dict[str, Any]:
        """The JSON-ready result of `sparkls.task` (before it is applied)."""
        out: dict[str, Any] = {
            "tier": "deep",
            "route": self.route.summary,
            "mode": self.mode,
            "model": settings.deep.model,
            "transport": self.deep_reply.transport,
            "files_shown": [{"path": p, "why": self.shown.reasons[p]} for p in self.shown.order],
            "files_left_out": self.shown.left_out,
            "warnings": self.shown.warnings,
            "files": self.edit.summary(),
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }
        if self.plan is not None:
            out["fast_model"] = self.fast_model
            out["plan"] = [
                {"step": s.number, "path": s.path, "new": s.creates_file, "instruction": s.instruction,
                 "ms": round(ms, 3)}
                for s, ms in zip(self.plan.steps, self.steps_ms, strict=True)
            ]
        return out


async def run_task(env: TaskEnv, request: TaskRequest) -> TaskOutcome:
    """The task's edit, checked; raises SparkError (nothing to apply) on any failure."""
    started = time.perf_counter()
    env.phase("reading files")
    shown = await gather_files(env, request)
    route = choose_tier(RouteRequest(files=len(shown.files), deep_requested=True))
    delegate = env.settings.deep.delegate
    # Whole files: rendered (line breaks, fences) in a worker thread, sealed in one when big.
    draft = await asyncio.to_thread(
        render_task_prompt, shown.files, request.instruction, mode="plan" if delegate else "edit", selection=shown.selection
    )
    prompt = await env.request.seal(draft)
    gathered = time.perf_counter()
    env.phase(f"{'planning' if delegate else 'writing the edit'} on the deep tier ({_files(len(shown.files))} shown)")
    reply = await env.deep.complete(prompt, notify=env.notify)
    replied = time.perf_counter()
    timings = {"context": (gathered - started) * 1000, "wait": reply.wait_ms, "ttft": reply.ttft_ms, "stream": reply.stream_ms}
    if not delegate:
        env.phase("applying the blocks")
        edit = edit_from_reply(
            reply.text, env.folders, lambda path: _read_for_edit(env, path), encoding=env.encoding,
            needs_confirmation=env.needs_confirmation, check=check_changes, shown_paths=shown.order,
        )
        done = time.perf_counter()
        timings |= {"deep": (replied - gathered) * 1000, "edit": (done - replied) * 1000, "total": (done - started) * 1000}
        return TaskOutcome(edit, route, "deep", shown, reply, timings)

    plan = parse_plan(reply.text)
    env.phase(f"fast tier: 0/{len(plan.steps)} steps")
    changes, steps_ms = await _run_steps(env, plan)
    steps_done = time.perf_counter()
    check_changes([c for c, _ in changes], made_by="the fast tier")
    edit = build_workspace_edit(
        [c for c, _ in changes], {c.path: s for c, s in changes}, encoding=env.encoding,
        needs_confirmation=env.needs_confirmation, made_by="the fast tier's plan step",
    )
    done = time.perf_counter()
    timings |= {
        "plan": (replied - gathered) * 1000,
        "steps": (steps_done - replied) * 1000,
        "edit": (done - steps_done) * 1000,
        "total": (done - started) * 1000,
    }
    return TaskOutcome(edit, route, "delegate", shown, reply, timings, plan, env.fast.tier.model, steps_ms)


def _files(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def _read_for_edit(env: TaskEnv, path: ResolvedPath) -> FileState:
    """A file as the reply applies to it; files that may never be sent are never edited."""
    if path.exists and (reason := env.path_filter.reason(_rel(env, path))) is not None:
        raise PathRefused(
            f"The deep tier named {path.display}, which sparkls never sends or edits ({reason}); "
            "nothing was changed.",
            path=path.display,
        )
    return read_state(env.store, path)


def _rel(env: TaskEnv, path: ResolvedPath) -> str:
    """The path as the PathFilter (built at the root) reads it."""
    if env.root is not None:
        try:
            return Path(path.absolute).relative_to(env.root).as_posix()
        except ValueError:
            pass
    return path.relative


async def _run_steps(env: TaskEnv, plan: Plan) -> tuple[list[tuple[FileChange, FileSource]], list[float]]:
    """Every step on the fast tier, in parallel; all of them, or the first failure."""
    targets = []
    for step in plan.steps:
        try:
            path = resolve_reply_path(step.path, env.folders)
        except PathRefused as exc:
            raise PathRefused(f"Plan step {step.number}: {exc}", path=step.path, block=step.number) from None
        targets.append((step, path, _read_for_edit(env, path)))
    finished = 0

    async def one(step: PlanStep, path: ResolvedPath, state: FileState) -> tuple[FileChange | None, FileSource, float]:
        nonlocal finished
        began = time.perf_counter()
        change = await _run_step(env, step, path, state)
        finished += 1
        env.phase(f"fast tier: {finished}/{len(plan.steps)} steps")
        return change, FileSource(state.uri or path.uri, state.version), (time.perf_counter() - began) * 1000

    try:
        async with asyncio.TaskGroup() as group:
            running = [group.create_task(one(*target)) for target in targets]
    except BaseExceptionGroup as group_error:
        first = group_error.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    results = [task.result() for task in running]
    return [(c, s) for c, s, _ in results if c is not None], [ms for _, _, ms in results]


async def _run_step(env: TaskEnv, step: PlanStep, path: ResolvedPath, state: FileState) -> FileChange | None:
    """One plan step as a fast-tier edit whose region is the whole file."""
    text = state.text or ""
    doc = Document(path.uri, text, 0, language_id_for(path.absolute), env.encoding)
    where = f"Plan step {step.number} ({path.display})"
    try:
        ctx, prompt = await prepare_edit(
            doc, 0, len(text), guard=env.request.guard, settings=env.settings, instruction=step.instruction,
            lookup=env.lookup,
        )
        reply = await env.fast.complete(prompt, notify=env.notify, patient=True)  # a step of a task: may wait
        view = RegionView.of(ctx, text, doc.language_id)
        region = read_region(reply.text, view, path.display)
    except (EditError, DeepEditError) as exc:
        raise type(exc)(f"{where}: {exc}") from None
    except SparkError:
        raise
    if state.text is None and region and not region.endswith(view.line_ending):
        region += view.line_ending  # a new file ends with a line break
    new_text = text[: ctx.region.start] + region + text[ctx.region.end :]
    if new_text == state.text:
        return None
    return FileChange(path.display, state.text, new_text, (step.number,))
