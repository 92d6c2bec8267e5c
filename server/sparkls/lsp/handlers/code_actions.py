"""Code actions: "Fix with Spark" per diagnostic, rewrite presets on a selection, and
"Spark: apply instruction" on a `spark:` comment.

Listing actions never waits on the model. Quick fixes are computed speculatively as
soon as they are listed (`speculation.py`, setting `speculation`), so that resolving
the one the user picks usually returns an edit that is already there. Clients that can
resolve an action's `edit` get it in `codeAction/resolve` (and its timings in the
resolved action's `data.timings_ms`, as in `sparkls.edit`'s summary, without `apply`:
the editor applies it); other clients get a `command` (`sparkls.edit`, or
`sparkls.applyInstruction` for a comment instruction) with the same arguments.

The comment instruction is a `refactor.rewrite` action: the user asks for a change, no
diagnostic is being fixed. It edits the code the comment belongs to and removes the
comment in the same edit (`edits/instruction.py`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.errors import EditError
from sparkls.lsp.handlers import nextedit
from sparkls.lsp.handlers.commands import EDIT_COMMAND, apply_outcome, compute_edit, failure, remember_edit, tell_warnings
from sparkls.lsp.handlers.context import SHOW_CONTEXT
from sparkls.lsp.handlers.convert import position, workspace_edit
from sparkls.lsp.handlers.progress import with_progress
from sparkls.lsp.handlers.refine import (
    REFINE_COMMAND, REFINE_COMMENT_TITLE, REFINE_DATA, on_last_edit, refine_actions, refine_outcome,
)
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.edits.instruction import CommentInstruction
    from sparkls.edits.tail import EditOutcome
    from sparkls.fastedit.engine import EditRequest
    from sparkls.fastedit.speculation import JobKey

QUICKFIX = types.CodeActionKind.QuickFix
REWRITE = types.CodeActionKind.RefactorRewrite
SHOW_CONTEXT_KIND = "source.sparkls.showContext"
TASK_KIND = "refactor.sparkls.task"
# The VS Code extension's command that asks for the instruction, then runs sparkls.task.
# Other editors have no input box behind a code action: they use their keymaps.
VSCODE_TASK_COMMAND = "spark.multiFileTask"
INSTRUCTION_COMMAND = "sparkls.applyInstruction"
INSTRUCTION_TITLE = "Spark: apply instruction"
INSTRUCTION_DATA = "instruction"  # the `spark` field of a comment instruction's data

# (title, instruction) of the rewrite presets offered on a selection.
REWRITE_PRESETS: list[tuple[str, str]] = [
    ("Spark: Add a docstring", "Add a concise docstring to the selected code. Change nothing else."),
    ("Spark: Add type hints", "Add type hints to the selected code's signatures and variables where they help. Change nothing else."),
    ("Spark: Simplify", "Simplify the selected code without changing its behaviour."),
]


def _wanted(kind: str, only: list[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _resolves_edit(ls: SparkServer) -> bool:
    text = ls.client_capabilities.text_document
    action = text.code_action if text else None
    support = action.resolve_support if action else None
    return bool(action and action.data_support and support and "edit" in support.properties)


def _action(
    ls: SparkServer,
    title: str,
    kind: str,
    args: dict[str, Any],
    diagnostic: types.Diagnostic | None,
    command: str = EDIT_COMMAND,
) -> types.CodeAction:
    action = types.CodeAction(title=title, kind=kind, diagnostics=[diagnostic] if diagnostic else None)
    if _resolves_edit(ls):
        action.data = args
    else:
        action.command = types.Command(title=title, command=command, arguments=[args])
    return action


def _range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _fix_args(uri: str, d: types.Diagnostic) -> dict[str, Any]:
    return {
        "uri": uri,
        "range": _range_json(d.range),
        "instruction": f"Fix this problem: {d.message}",
        "diagnostics": [{"range": _range_json(d.range), "message": d.message, "source": d.source, "code": d.code}],
    }


# -- speculation ------------------------------------------------------------------


def speculate(ls: SparkServer, doc: Document, fixes: list[dict[str, Any]]) -> None:
    """Start the fast-tier edits of the first `max_fixes` quick fixes just listed.

    Jobs of this document that a change since touched are dropped first. The chosen
    fix is served by `codeAction/resolve`, or by `sparkls.edit` for clients without it.
    """
    from sparkls.guard import display_path
    from sparkls.lsp.handlers.args import EditArgs
    from sparkls.fastedit.speculation import key_for

    settings = ls.settings.speculation
    ls.speculation.discard_touched(doc.uri, doc.version, doc.changes_since)
    if not settings.enabled:
        return
    path = display_path(doc.uri, ls.root)

    def expired(key: JobKey) -> None:
        ls.log(f"Spark: a fix for {path}:{key.range[0] + 1} was not chosen in time; dropped", types.MessageType.Log)

    async def job(request: EditRequest) -> EditOutcome:
        # A job is cancelled when it expires. `compute_edit` awaits the shared
        # path-filter future, which a cancelled awaiter would cancel for everyone:
        # wait for it behind a shield first, so that later awaits do not suspend.
        await asyncio.shield(ls.path_filter())
        return await compute_edit(ls, request)

    for args in fixes[: settings.max_fixes]:
        request = EditArgs.model_validate(args).request()
        lines = doc.lines
        first = lines.starts[min(request.start.line, lines.line_count - 1)]
        last = min(request.end.line + 1, lines.line_count)
        anchor = (len(doc.text), first, lines.starts[last] if last < lines.line_count else len(doc.text))
        ls.speculation.start(
            key_for(request, doc.version),
            lambda request=request: job(request),
            ttl=settings.ttl_seconds,
            capacity=settings.max_fixes,
            on_expire=expired,
            anchor=anchor,
        )


async def fix_outcome(ls: SparkServer, request: EditRequest) -> EditOutcome:
    """The chosen fix: from its speculative job when there is a usable one."""
    from sparkls.fastedit.speculation import take_outcome

    if ls.documents.has(request.uri):
        doc = ls.documents.get(request.uri)
        ls.speculation.discard_touched(doc.uri, doc.version, doc.changes_since)
    outcome, _ = await take_outcome(ls.speculation, ls.documents, request, lambda: compute_edit(ls, request))
    return outcome


# -- comment instructions -----------------------------------------------------------


def _instruction_args(uri: str, doc: Document, item: CommentInstruction) -> dict[str, Any]:
    start, end = doc.position(item.start), doc.position(item.end)
    rng = {"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}}
    return {"spark": INSTRUCTION_DATA, "uri": uri, "range": rng, "instruction": item.instruction}


def _instruction_actions(ls: SparkServer, doc: Document, selection: types.Range) -> list[types.CodeAction]:
    from sparkls.edits.instruction import instructions_at

    start, end = sorted((doc.offset(position(selection.start)), doc.offset(position(selection.end))))
    found = instructions_at(doc, start, end, max_lines=ls.settings.context.max_region_lines)
    actions = []
    for item in found:
        title = INSTRUCTION_TITLE if len(found) == 1 else f"{INSTRUCTION_TITLE} (line {item.line + 1})"
        args = _instruction_args(doc.uri, doc, item)
        actions.append(_action(ls, title, REWRITE, args, None, command=INSTRUCTION_COMMAND))
        if on_last_edit(ls, doc, item):  # the comment is about the edit just made: revise it
            refine = {**args, "spark": REFINE_DATA}
            actions.append(_action(ls, f"{REFINE_COMMENT_TITLE}: {item.instruction}", REWRITE, refine, None, command=REFINE_COMMAND))
    return actions


async def instruction_outcome(ls: SparkServer, args: dict[str, Any]) -> EditOutcome:
    """Apply a comment's instruction: found again in the document as it is now (the
    nearest `spark:` comment with the same words), edited, the comment removed."""
    from sparkls.edits.instruction import finish_outcome, model_instruction, nearest_instruction
    from sparkls.fastedit.engine import EditRequest
    from sparkls.lsp.handlers.args import EditArgs

    given = EditArgs.model_validate(args)
    doc = ls.documents.get(given.uri)
    item = nearest_instruction(doc, given.instruction, given.range.start.line, max_lines=ls.settings.context.max_region_lines)
    request = EditRequest(
        uri=given.uri,
        start=doc.position(item.target[0]),
        end=doc.position(item.target[1]),
        instruction=model_instruction(item),
    )
    outcome = await compute_edit(ls, request)
    return finish_outcome(ls.documents.get(given.uri), outcome, item)


# -- handlers -------------------------------------------------------------------------


def register(server: SparkServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICKFIX, REWRITE, SHOW_CONTEXT_KIND, TASK_KIND], resolve_provider=True),
    )
    async def code_action(ls: SparkServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            return []
        doc = await ls.ready(uri)  # a big file just opened: its lines and tree come off the loop first
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(QUICKFIX, only):
            fixes = []
            for d in params.context.diagnostics:
                args = _fix_args(uri, d)
                fixes.append(args)
                first_line = d.message.splitlines()[0] if d.message else "problem"
                actions.append(_action(ls, f"Fix with Spark: {first_line}", QUICKFIX, args, d))
            # VS Code also asks on its own, for the lightbulb, at every cursor move:
            # speculating then would spend model calls on menus nobody opened.
            if params.context.trigger_kind != types.CodeActionTriggerKind.Automatic:
                speculate(ls, doc, fixes)
        selection = params.range
        if _wanted(REWRITE, only):
            if selection.start != selection.end:
                for title, instruction in REWRITE_PRESETS:
                    args = {"uri": uri, "range": _range_json(selection), "instruction": instruction}
                    actions.append(_action(ls, title, REWRITE, args, None))
            actions.extend(_instruction_actions(ls, doc, selection))
            actions.extend(refine_actions(ls, doc, selection))
            actions.extend(nextedit.code_actions(ls, doc))
        if _wanted(TASK_KIND, only) and (ls.client_name or "").startswith("Visual Studio Code"):
            title = "Spark: multi-file task…"
            args = {"uris": [uri], "range": _range_json(selection)}
            command = types.Command(title=title, command=VSCODE_TASK_COMMAND, arguments=[args])
            actions.append(types.CodeAction(title=title, kind=TASK_KIND, command=command))
        if _wanted(SHOW_CONTEXT_KIND, only):
            args = {"uri": uri, "range": _range_json(selection)}
            title = "Show Spark context"
            actions.append(
                types.CodeAction(
                    title=title, kind=SHOW_CONTEXT_KIND, command=types.Command(title=title, command=SHOW_CONTEXT, arguments=[args])
                )
            )
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: SparkServer, action: types.CodeAction) -> types.CodeAction:
        if not isinstance(action.data, dict) or action.edit is not None:
            return action
        try:
            from sparkls.lsp.handlers.args import EditArgs

            if action.data.get("spark") == INSTRUCTION_DATA:
                work = instruction_outcome(ls, action.data)
            elif action.data.get("spark") == REFINE_DATA:
                work = refine_outcome(ls, action.data)
            else:
                work = fix_outcome(ls, EditArgs.model_validate(action.data).request())
            outcome = await with_progress(ls, "Spark fix", work)
        except Exception as exc:  # shown to the user; the action resolves with no edit
            failure(ls, exc)
            return action
        if not outcome.edits:
            ls.notify_user("the model proposed no change.", types.MessageType.Info)
        action.edit = workspace_edit(outcome, ls.client_capabilities)
        remember_edit(ls, outcome)
        action.data = {**action.data, "timings_ms": {k: round(v, 3) for k, v in outcome.timings_ms.items()}}
        tell_warnings(ls, outcome)
        return action

    @server.command(INSTRUCTION_COMMAND)
    async def apply_instruction(ls: SparkServer, *args: Any) -> dict[str, Any]:
        """For clients that cannot resolve an action's edit: compute and apply it."""
        try:
            if len(args) != 1 or not isinstance(args[0], dict):
                raise EditError(f"{INSTRUCTION_COMMAND} takes the code action's one argument.")
            outcome = await with_progress(ls, "Spark instruction", instruction_outcome(ls, args[0]))
            result = await apply_outcome(ls, outcome)
            tell_warnings(ls, outcome)
            return result
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
