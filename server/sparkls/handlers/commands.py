"""`sparkls.edit`: a fast-tier edit of the region around a range, applied for the user.

Argument: one object `{"uri", "range", "instruction"}` (DESIGN.md). Result: a summary
(`applied`, `tier`, `model`, `timings_ms`, ...). Every failure is shown to the user
with `window/showMessage` and returned as `{"applied": false, "error": {...}}`; the
document is never touched by a failed edit.
"""

from __future__ import annotations

import logging
import time
from typing import Any, TypeVar

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, ValidationError

from sparkls.context.builder import DiagnosticInfo
from sparkls.documents.positions import Position
from sparkls.engine import EditOutcome, EditRequest, run_fast_edit
from sparkls.errors import Cancelled, EditRejected, SparkError
from sparkls.handlers.convert import summary, workspace_edit
from sparkls.handlers.progress import with_progress
from sparkls.server import SparkServer
from sparkls.speculation import take_outcome

logger = logging.getLogger(__name__)

EDIT_COMMAND = "sparkls.edit"
Argument = TypeVar("Argument", bound=BaseModel)


class _Pos(BaseModel):
    line: int
    character: int


class _Range(BaseModel):
    start: _Pos
    end: _Pos


class _Diagnostic(BaseModel):
    range: _Range
    message: str
    source: str | None = None
    code: int | str | None = None


class EditArgs(BaseModel):
    """The `sparkls.edit` argument; `diagnostics` is set by quick fixes."""

    model_config = ConfigDict(extra="ignore")
    uri: str
    range: _Range
    instruction: str
    diagnostics: list[_Diagnostic] = []

    def request(self) -> EditRequest:
        return EditRequest(
            uri=self.uri,
            start=Position(self.range.start.line, self.range.start.character),
            end=Position(self.range.end.line, self.range.end.character),
            instruction=self.instruction,
            diagnostics=[
                DiagnosticInfo(
                    line=d.range.start.line,
                    message=d.message,
                    source=d.source,
                    code=None if d.code is None else str(d.code),
                )
                for d in self.diagnostics
            ],
        )


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


def one_argument(command: str, args: tuple[Any, ...], model: type[Argument], shape: str) -> Argument:
    """A command's single argument, validated; a `SparkError` naming what is wrong."""
    if len(args) != 1:
        raise SparkError(f"{command} takes one argument {{{shape}}}, got {len(args)}.")
    try:
        return model.model_validate(args[0])
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SparkError(f"{command}: invalid argument: {first['loc']} {first['msg']}") from exc


async def compute_edit(ls: SparkServer, request: EditRequest) -> EditOutcome:
    await ls.ready(request.uri)
    return await run_fast_edit(
        ls.documents,
        ls.fast,
        ls.settings,
        request,
        root=ls.root,
        path_filter=await ls.path_filter(),
        lookup=ls.index_lookup(),
        notify=lambda message: ls.notify_user(message, types.MessageType.Warning),
        escalate=ls.deep_session(),
    )


def tell_warnings(ls: SparkServer, outcome: EditOutcome) -> None:
    """Warnings about an edit that is applied anyway (a call to a name defined nowhere)."""
    if outcome.warnings:
        ls.notify_user("; ".join(outcome.warnings) + " (applied; check it).", types.MessageType.Warning)


async def apply_outcome(ls: SparkServer, outcome: EditOutcome) -> dict[str, Any]:
    started = time.perf_counter()
    if outcome.edits:
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                edit=workspace_edit(outcome, ls.client_capabilities), label="Spark edit"
            )
        )
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise EditRejected(f"The editor did not apply the edit ({reason}); nothing was changed.")
    return summary(outcome, applied=bool(outcome.edits), apply_ms=(time.perf_counter() - started) * 1000)


def register(server: SparkServer) -> None:
    @server.command(EDIT_COMMAND)
    async def edit(ls: SparkServer, *args: Any) -> dict[str, Any]:
        try:
            request = one_argument(EDIT_COMMAND, args, EditArgs, "uri, range, instruction").request()
            # A quick fix listed for a client without resolve may be computed already.
            work = take_outcome(ls.speculation, ls.documents, request, lambda: compute_edit(ls, request))
            outcome, _ = await with_progress(ls, "Spark edit", work)
            if not outcome.edits:
                ls.notify_user("the model proposed no change.", types.MessageType.Info)
            result = await apply_outcome(ls, outcome)
            tell_warnings(ls, outcome)
            return result
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
