"""Code actions: "Fix with Spark" per diagnostic, and rewrite presets on a selection.

Listing actions never calls the model. Clients that can resolve an action's `edit`
get it computed lazily in `codeAction/resolve`; other clients get a `command` that
runs `sparkls.edit` with the same arguments.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from sparkls.handlers.commands import EDIT_COMMAND, EditArgs, compute_edit, failure
from sparkls.handlers.context import SHOW_CONTEXT
from sparkls.handlers.convert import workspace_edit
from sparkls.handlers.progress import with_progress
from sparkls.server import SparkServer

QUICKFIX = types.CodeActionKind.QuickFix
REWRITE = types.CodeActionKind.RefactorRewrite
SHOW_CONTEXT_KIND = "source.sparkls.showContext"

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


def _action(ls: SparkServer, title: str, kind: str, args: dict[str, Any], diagnostic: types.Diagnostic | None) -> types.CodeAction:
    action = types.CodeAction(title=title, kind=kind, diagnostics=[diagnostic] if diagnostic else None)
    if _resolves_edit(ls):
        action.data = args
    else:
        action.command = types.Command(title=title, command=EDIT_COMMAND, arguments=[args])
    return action


def _range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def register(server: SparkServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICKFIX, REWRITE, SHOW_CONTEXT_KIND], resolve_provider=True),
    )
    def code_action(ls: SparkServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            return []
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(QUICKFIX, only):
            for d in params.context.diagnostics:
                args = {
                    "uri": uri,
                    "range": _range_json(d.range),
                    "instruction": f"Fix this problem: {d.message}",
                    "diagnostics": [
                        {"range": _range_json(d.range), "message": d.message, "source": d.source, "code": d.code}
                    ],
                }
                first_line = d.message.splitlines()[0] if d.message else "problem"
                actions.append(_action(ls, f"Fix with Spark: {first_line}", QUICKFIX, args, d))
        selection = params.range
        if _wanted(REWRITE, only) and selection.start != selection.end:
            for title, instruction in REWRITE_PRESETS:
                args = {"uri": uri, "range": _range_json(selection), "instruction": instruction}
                actions.append(_action(ls, title, REWRITE, args, None))
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
            request = EditArgs.model_validate(action.data).request()
            outcome = await with_progress(ls, "Spark fix", compute_edit(ls, request))
        except Exception as exc:  # shown to the user; the action resolves with no edit
            failure(ls, exc)
            return action
        if not outcome.edits:
            ls.notify_user("the model proposed no change.", types.MessageType.Info)
        action.edit = workspace_edit(outcome, ls.client_capabilities)
        return action
