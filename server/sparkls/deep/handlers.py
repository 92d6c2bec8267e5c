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
from sparkls.lsp.handlers.actions import Contribution, command_action, contribute, range_json
from sparkls.lsp.edge import failure
from sparkls.lsp.handlers.multifile import send_multi_file_edit
from sparkls.lsp.handlers.progress import with_progress
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.deep.tasks import TaskEnv, TaskOutcome

TASK_COMMAND = "sparkls.task"
TASK_KIND = "refactor.sparkls.task"
# The VS Code extension's command that asks for the instruction, then runs sparkls.task.
VSCODE_TASK_COMMAND = "spark.multiFileTask"


async def _environment(ls: SparkServer, phase: list[str]) -> TaskEnv:
    from sparkls.lsp.workspace_edit import client_edit_support
    from sparkls.deep.tasks import TaskEnv

    deep = ls.deep_session()
    if deep is None:
        ls.settings.api_key_for("deep")  # raises MissingApiKey: which variable to set
    assert deep is not None
    support = client_edit_support(ls.client_capabilities)
    return TaskEnv(
        await ls.environment(),
        deep,
        needs_confirmation=ls.settings.deep.confirm and support.change_annotations,
        phase=lambda text: phase.__setitem__(0, text),
    )


async def _apply(ls: SparkServer, outcome: TaskOutcome) -> dict[str, Any]:
    started = time.perf_counter()
    await send_multi_file_edit(
        ls, outcome.edit, "Spark task", what="the task's edit", during="while the task ran", again="run the task again"
    )
    summary = outcome.summary(ls.settings)
    summary["timings_ms"]["apply"] = round((time.perf_counter() - started) * 1000, 3)
    return summary


def _tell(ls: SparkServer, outcome: TaskOutcome) -> None:
    files = outcome.edit.files
    what = ", ".join(f.path + (" (new)" if f.created else "") for f in files) or "no file"
    timings = outcome.timings_ms
    split = (
        f"; plan {timings['plan'] / 1000:.1f} s, fast-tier steps {timings['steps'] / 1000:.1f} s"
        if outcome.mode == "delegate" else ""
    )
    ls.notify_user(
        f"task applied to {what}; {outcome.route.summary}{split}, {timings['total'] / 1000:.1f} s in all.",
        types.MessageType.Info,
    )
    for warning in outcome.shown.warnings:
        ls.notify_user(warning, types.MessageType.Warning)


def _menu(ls: SparkServer, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """VS Code's "Spark: multi-file task…" (its input box asks for the instruction);
    other editors have no input box behind a code action: they use their keymaps."""
    if not (ls.client_name or "").startswith("Visual Studio Code"):
        return []
    args = {"uris": [doc.uri], "range": range_json(params.range)}
    return [command_action("Spark: multi-file task…", TASK_KIND, VSCODE_TASK_COMMAND, args)]


def register(server: SparkServer) -> None:
    contribute(server, Contribution((TASK_KIND,), _menu, rank=50))

    @server.command(TASK_COMMAND)
    async def task(ls: SparkServer, *args: Any) -> dict[str, Any]:
        try:
            from sparkls.lsp.handlers.args import TaskArgs, one_argument
            from sparkls.deep.tasks import run_task

            request = one_argument(TASK_COMMAND, args, TaskArgs, "instruction, uris?, range?").request()
            phase = ["starting"]
            env = await _environment(ls, phase)
            for uri in request.uris:  # a big named buffer is parsed off the event loop first
                if ls.documents.has(uri):
                    await ls.ready(uri)
            outcome = await with_progress(ls, "Spark task", run_task(env, request), detail=lambda: phase[0])
            if not outcome.edit.operations:
                ls.notify_user("the deep tier proposed no change.", types.MessageType.Info)
                return {**outcome.summary(ls.settings), "applied": False}
            result = await _apply(ls, outcome)
            _tell(ls, outcome)
            return {"applied": True, **result}
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc, tier="deep")
