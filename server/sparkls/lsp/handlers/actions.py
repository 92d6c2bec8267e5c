"""Code actions as the features contribute them: one list, one resolve, no switchboard.

A feature's handler module calls `contribute(server, Contribution(...))` at
registration: the kinds of action it offers, a function that lists its actions for a
document and a `textDocument/codeAction` request, and, for actions whose edit is
computed when picked, the `data["spark"]` tag it resolves and how. This module lists
every contribution whose kind the client wants (in `rank` order: quick fixes first,
"Show Spark context" last) and sends `codeAction/resolve` to the contribution whose
tag the action carries. Listing never waits on the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.lsp.handlers.commands import EDIT_COMMAND, failure, remember_edit, tell_warnings
from sparkls.lsp.handlers.convert import workspace_edit
from sparkls.lsp.handlers.progress import with_progress
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.documents.store import Document
    from sparkls.edits.tail import EditOutcome

Offer = Callable[[SparkServer, "Document", types.CodeActionParams], list[types.CodeAction]]
Resolve = Callable[[SparkServer, dict[str, Any]], Awaitable["EditOutcome"]]
FIX_TAG = "fix"  # the quick fixes' actions carry no tag: this one


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one feature adds to the code-action menu, and how its picked actions resolve."""

    kinds: tuple[str, ...]
    offer: Offer
    rank: int  # where its actions go in the menu (lower first)
    tag: str | None = None  # the `data["spark"]` of the actions it resolves
    resolve: Resolve | None = None
    title: str = "Spark fix"  # the resolve's progress title


def contribute(server: SparkServer, contribution: Contribution) -> None:
    server.code_action_contributions.append(contribution)
    server.code_action_contributions.sort(key=lambda c: c.rank)
    options = server.code_action_options
    for kind in contribution.kinds:
        if kind not in options.code_action_kinds:
            options.code_action_kinds.append(kind)


def wanted(kind: str, only: list[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def resolves_edit(ls: SparkServer) -> bool:
    """Whether the client resolves an action's `edit` (else it gets a command): it says
    it can, and sparkls declared `codeAction/resolve` to it (lsp/clients.py)."""
    if not ls.code_action_options.resolve_provider:
        return False
    text = ls.client_capabilities.text_document
    action = text.code_action if text else None
    support = action.resolve_support if action else None
    return bool(action and action.data_support and support and "edit" in support.properties)


def action(
    ls: SparkServer, title: str, kind: str, args: dict[str, Any], diagnostic: types.Diagnostic | None,
    command: str = EDIT_COMMAND,
) -> types.CodeAction:
    """An action resolved later (`data`), or, for a client that cannot, a command with the same argument."""
    made = types.CodeAction(title=title, kind=kind, diagnostics=[diagnostic] if diagnostic else None)
    if resolves_edit(ls):
        made.data = args
    else:
        made.command = types.Command(title=title, command=command, arguments=[args])
    return made


def command_action(title: str, kind: str, command: str, args: dict[str, Any]) -> types.CodeAction:
    """An action that runs `command` with `args` (the client asks the user for nothing more)."""
    return types.CodeAction(title=title, kind=kind, command=types.Command(title=title, command=command, arguments=[args]))


def range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def register(server: SparkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, server.code_action_options)
    async def code_action(ls: SparkServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            return []
        doc = await ls.ready(uri)  # a big file just opened: its lines and tree come off the loop first
        actions: list[types.CodeAction] = []
        for contribution in ls.code_action_contributions:
            if any(wanted(kind, params.context.only) for kind in contribution.kinds):
                actions.extend(contribution.offer(ls, doc, params))
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: SparkServer, picked: types.CodeAction) -> types.CodeAction:
        if not isinstance(picked.data, dict) or picked.edit is not None:
            return picked
        tag = picked.data.get("spark") or FIX_TAG
        contribution = next((c for c in ls.code_action_contributions if c.tag == tag and c.resolve), None)
        if contribution is None or contribution.resolve is None:
            return picked
        try:
            outcome = await with_progress(ls, contribution.title, contribution.resolve(ls, picked.data))
            if not outcome.edits:
                ls.notify_user("the model proposed no change.", types.MessageType.Info)
            from sparkls.lsp.writes import checked_edit

            edit = workspace_edit(outcome, ls.client_capabilities)
            picked.edit = await checked_edit(ls, edit, what=f'"{picked.title}"')  # lsp/writes.py
        except Exception as exc:  # shown to the user; the action resolves with no edit
            failure(ls, exc)
            return picked
        remember_edit(ls, outcome)
        picked.data = {**picked.data, "timings_ms": {k: round(v, 3) for k, v in outcome.timings_ms.items()}}
        tell_warnings(ls, outcome)
        return picked
