"""`sparkls.task`: a multi-file task on the deep tier, applied as one WorkspaceEdit.

Argument: one object `{"instruction", "uris"?: [...], "range"?: {...}}` (the range is
a selection in the first URI). The work is tasks.run_task, under a cancellable
progress that names its phase; the result is one `workspace/applyEdit` with
`documentChanges` (change annotations per file where the editor supports them,
`needsConfirmation` with `deep.confirm`), or plain `changes` for an editor without
documentChanges (lsp/workspace_edit.py). Right before it is sent, every file it changes must
still be what the edit was computed from (an open document at its version, a file on
disk with the same text); else nothing is sent. Every failure, a refusal by the editor
included, is shown with `window/showMessage` and returned as
`{"applied": false, "tier": "deep", "error": {...}}`; nothing is applied in part.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.lsp.edge import Edge, command_action, range_json
from sparkls.lsp.feature import Command, Contribution, Feature

if TYPE_CHECKING:
    from sparkls.deep.tasks import TaskEnv, TaskOutcome

TASK_COMMAND = "sparkls.task"
TASK_KIND = "refactor.sparkls.task"
# The VS Code extension's command that asks for the instruction, then runs sparkls.task.
VSCODE_TASK_COMMAND = "spark.multiFileTask"


async def _environment(edge: Edge, phase: list[str]) -> TaskEnv:
    from sparkls.lsp.workspace_edit import client_edit_support
    from sparkls.deep.tasks import TaskEnv

    env = await edge.environment()
    if env.deep is None:
        env.settings.api_key_for("deep")  # raises MissingApiKey: which variable to set
    assert env.deep is not None
    support = client_edit_support(edge.client_capabilities)
    return TaskEnv(
        env,
        env.deep,
        needs_confirmation=env.settings.deep.confirm and support.change_annotations,
        phase=lambda text: phase.__setitem__(0, text),
    )


async def _apply(edge: Edge, outcome: TaskOutcome) -> dict[str, Any]:
    started = time.perf_counter()
    await edge.send_multi_file_edit(
        outcome.edit, "Spark task", what="the task's edit", during="while the task ran", again="run the task again"
    )
    summary = outcome.summary(edge.settings)
    summary["timings_ms"]["apply"] = round((time.perf_counter() - started) * 1000, 3)
    return summary


def _tell(edge: Edge, outcome: TaskOutcome) -> None:
    files = outcome.edit.files
    what = ", ".join(f.path + (" (new)" if f.created else "") for f in files) or "no file"
    timings = outcome.timings_ms
    split = (
        f"; plan {timings['plan'] / 1000:.1f} s, fast-tier steps {timings['steps'] / 1000:.1f} s"
        if outcome.mode == "delegate" else ""
    )
    edge.notify_user(
        f"task applied to {what}; {outcome.route.summary}{split}, {timings['total'] / 1000:.1f} s in all.",
        types.MessageType.Info,
    )
    for warning in outcome.shown.warnings:
        edge.notify_user(warning, types.MessageType.Warning)


def _menu(edge: Edge, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """VS Code's "Spark: multi-file task…" (its input box asks for the instruction);
    other editors have no input box behind a code action: they use their keymaps."""
    if not (edge.client_name or "").startswith("Visual Studio Code"):
        return []
    args = {"uris": [doc.uri], "range": range_json(params.range)}
    return [command_action("Spark: multi-file task…", TASK_KIND, VSCODE_TASK_COMMAND, args)]


async def task(edge: Edge, *args: Any) -> dict[str, Any]:
    """`sparkls.task` (see the module doc)."""
    try:
        from sparkls.lsp.handlers.args import TaskArgs, one_argument
        from sparkls.deep.files import TaskRequest
        from sparkls.deep.tasks import run_task

        given = one_argument(TASK_COMMAND, args, TaskArgs, "instruction, uris?, range?")
        request = TaskRequest(instruction=given.instruction, uris=tuple(given.uris), start=given.start, end=given.end)
        phase = ["starting"]
        env = await _environment(edge, phase)
        for uri in request.uris:  # a big named buffer is parsed off the event loop first
            if edge.documents.has(uri):
                await edge.ready(uri)
        outcome = await edge.with_progress("Spark task", run_task(env, request), detail=lambda: phase[0])
        if not outcome.edit.operations:
            edge.notify_user("the deep tier proposed no change.", types.MessageType.Info)
            return {**outcome.summary(edge.settings), "applied": False}
        result = await _apply(edge, outcome)
        _tell(edge, outcome)
        return {"applied": True, **result}
    except Exception as exc:  # every failure becomes a message; the server stays up
        return edge.failure(exc, tier="deep")


FEATURE = Feature(
    "deep task",
    commands=(Command(TASK_COMMAND, task),),
    actions=(Contribution((TASK_KIND,), _menu, rank=50),),
    preload=("sparkls.deep.tasks",),
)
