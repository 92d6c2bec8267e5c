"""`sparkls.refine`: revise the last sparkls edit of a document.

Argument: one object `{"uri", "instruction"}`. The last edit applied in that document
(`sparkls.edit`, a quick fix, a comment instruction, or an earlier refine) is revised
by continuing its response (`refine/service.py`), and the result applied as one
versioned edit. Result: the summary of `sparkls.edit` plus `chained` (true when only
the new turn was sent, continuing the response). Nothing to refine, or any failure:
a message to the user and `{"applied": false, "error": {...}}`.

VS Code also gets a code action "Spark: Refine last edit…" on the lines the last edit
changed; it runs the extension's command that asks for the instruction. A plain LSP
code action cannot ask for text, so other editors call the command from a keymap.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.handlers.commands import apply_outcome, failure, tell_warnings
from sparkls.handlers.convert import position
from sparkls.handlers.progress import with_progress
from sparkls.server import SparkServer

REFINE_COMMAND = "sparkls.refine"
REFINE_KIND = "refactor.rewrite.sparkls.refine"
# The VS Code extension's command: asks for the instruction, then runs sparkls.refine.
VSCODE_REFINE_COMMAND = "spark.refineLastEdit"
REFINE_TITLE = "Spark: Refine last edit…"


def refine_actions(ls: SparkServer, doc: Document, selection: types.Range) -> list[types.CodeAction]:
    """The refine action, for VS Code, when `selection` meets the last edit's lines."""
    if not (ls.client_name or "").startswith("Visual Studio Code"):
        return []
    where = ls.refines.where(doc)
    if where is None:
        return []
    first, last = doc.position(where.start).line, doc.position(max(where.start, where.end - 1)).line
    start, end = position(selection.start), position(selection.end)
    if end.line < first or start.line > last:
        return []
    command = types.Command(title=REFINE_TITLE, command=VSCODE_REFINE_COMMAND, arguments=[{"uri": doc.uri}])
    return [types.CodeAction(title=REFINE_TITLE, kind=REFINE_KIND, command=command)]


def register(server: SparkServer) -> None:
    @server.command(REFINE_COMMAND)
    async def refine(ls: SparkServer, *args: Any) -> dict[str, Any]:
        try:
            from sparkls.handlers.args import RefineArgs, one_argument
            from sparkls.refine.service import run_refine

            given = one_argument(REFINE_COMMAND, args, RefineArgs, "uri, instruction")
            await ls.ready(given.uri)
            work = run_refine(
                ls.documents, ls.fast, ls.refines, given.uri, given.instruction,
                root=ls.root, path_filter=await ls.path_filter(),
                notify=lambda message: ls.notify_user(message, types.MessageType.Warning),
            )
            outcome = await with_progress(ls, "Spark refine", work)
            if not outcome.edits:
                ls.notify_user("the model proposed no change.", types.MessageType.Info)
            result = await apply_outcome(ls, outcome)
            tell_warnings(ls, outcome)
            return {**result, "chained": bool(outcome.turn and outcome.turn.chained)}
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
