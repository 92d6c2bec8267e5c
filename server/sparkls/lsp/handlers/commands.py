"""`sparkls.edit`: a fast-tier edit of the region around a range, applied for the user.

Argument: one object `{"uri", "range", "instruction"}` (README.md, "What you get"). Result: a summary
(`applied`, `tier`, `model`, `timings_ms`, ...). Every failure is shown to the user
with `window/showMessage` and returned as `{"applied": false, "error": {...}}`; the
document is never touched by a failed edit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from sparkls.errors import Cancelled, EditRejected, SparkError
from sparkls.lsp.handlers.convert import summary, workspace_edit
from sparkls.lsp.handlers.progress import with_progress
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.edits.tail import EditOutcome
    from sparkls.fastedit.engine import EditRequest
    from sparkls.models.steering import Steering

logger = logging.getLogger(__name__)

EDIT_COMMAND = "sparkls.edit"


def failure(ls: SparkServer, error: Exception, *, tier: str = "fast") -> dict[str, Any]:
    """Tell the user, log, and build the `applied: false` result; a deep-tier error
    also names its `path` and `block`."""
    if isinstance(error, SparkError):
        code, message = error.code, str(error)
        logger.info("%s edit failed [%s]: %s", tier, code, message)
    else:
        code, message = "internal_error", f"internal error ({type(error).__name__}: {error}); see the server log"
        logger.exception("%s edit failed", tier, exc_info=error)
    if not isinstance(error, Cancelled):  # the user asked for it: no need to tell them
        ls.notify_user(message)
    detail: dict[str, Any] = {"code": code, "message": message}
    for key in ("path", "block"):
        if getattr(error, key, None) is not None:
            detail[key] = getattr(error, key)
    return {"applied": False, "tier": tier, "error": detail}


async def compute_edit(ls: SparkServer, request: EditRequest, *, steering: Steering | None = None) -> EditOutcome:
    """The edit of `request`; with `steering`, a refine may add words while it streams."""
    from dataclasses import replace

    from sparkls.fastedit.engine import run_fast_edit

    return await run_fast_edit(await ls.environment(request.uri), replace(request, steering=steering))


def tell_warnings(ls: SparkServer, outcome: EditOutcome) -> None:
    """Warnings about an edit that is applied anyway (a call to a name defined nowhere)."""
    if outcome.warnings:
        ls.notify_user("; ".join(outcome.warnings) + " (applied; check it).", types.MessageType.Warning)


def remember_edit(ls: SparkServer, outcome: EditOutcome) -> None:
    """`outcome` becomes its document's last edit: the one `sparkls.refine` revises."""
    from sparkls.guard import display_path

    ls.refines.remember(ls.documents, outcome, ls.fast, display_path(outcome.uri, ls.root))


async def apply_edit(
    ls: SparkServer, edit: types.WorkspaceEdit, label: str, *, what: str = "the edit", checked: bool = False
) -> None:
    """`workspace/applyEdit`, or EditRejected when the editor refuses it, by a result
    (`applied: false`) or by an error (eglot: "Edits on X require version N"), or when
    it writes where it may not (lsp/writes.py: checked first, unless the caller has
    just done so, `checked`)."""
    from sparkls.lsp.writes import checked_edit

    if not checked:  # a git directory: never; a protected file: asked (lsp/writes.py)
        edit = await checked_edit(ls, edit, what=what)
    params = types.ApplyWorkspaceEditParams(edit=edit, label=label)
    try:
        # Shielded: a $/cancelRequest meanwhile ends this command, and the editor's
        # answer, when it comes, finds its request alive (not cancelled, not leaked).
        result = await asyncio.shield(ls.workspace_apply_edit_async(params))
    except JsonRpcException as exc:
        raise EditRejected(f"The editor did not apply {what} ({exc.message}); nothing was changed.") from exc
    if not result.applied:
        reason = result.failure_reason or "no reason given"
        raise EditRejected(f"The editor did not apply {what} ({reason}); nothing was changed.")


async def apply_outcome(ls: SparkServer, outcome: EditOutcome) -> dict[str, Any]:
    started = time.perf_counter()
    remember_edit(ls, outcome)
    if outcome.edits:
        await apply_edit(ls, workspace_edit(outcome, ls.client_capabilities), "Spark edit")
    return summary(outcome, applied=bool(outcome.edits), apply_ms=(time.perf_counter() - started) * 1000)


def register(server: SparkServer) -> None:
    @server.command(EDIT_COMMAND)
    async def edit(ls: SparkServer, *args: Any) -> dict[str, Any]:
        try:
            from sparkls.lsp.handlers.args import EditArgs, one_argument
            from sparkls.fastedit.speculation import take_outcome

            request = one_argument(EDIT_COMMAND, args, EditArgs, "uri, range, instruction").request()
            # Until it has landed, a refine of this document steers the edit or waits for it.
            in_flight = ls.in_flight.begin(request.uri)
            try:
                # A quick fix listed for a client without resolve may be computed already.
                work = take_outcome(
                    ls.speculation, ls.documents, request,
                    lambda: compute_edit(ls, request, steering=in_flight.steering),
                )
                outcome, _ = await with_progress(ls, "Spark edit", work)
                if not outcome.edits:
                    ls.notify_user("the model proposed no change.", types.MessageType.Info)
                result = await apply_outcome(ls, outcome)
            finally:
                ls.in_flight.end(in_flight)
            tell_warnings(ls, outcome)
            return result
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
