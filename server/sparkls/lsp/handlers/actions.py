"""Code actions as the features contribute them: one list, one resolve, no switchboard.

Each feature declares its contributions (`Feature.actions`, a `Contribution` each:
lsp/feature.py): the kinds of action it offers, a function that lists its actions for
a document and a `textDocument/codeAction` request, and, for actions computed when
picked, the `data["spark"]` tag it resolves and how. This module lists every
contribution whose kind the client wants (in `rank` order: quick fixes first, "Show
Spark context" last) and sends `codeAction/resolve` to the contribution whose tag the
action carries. A resolve ends in an edit (the action's `edit`) or in something
shown (`Shown`: a document or a message; the action comes back without an edit).
Listing never waits on the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from sparkls.lsp.edge import Edge
from sparkls.lsp.feature import UNTAGGED, Shown

if TYPE_CHECKING:
    from sparkls.lsp.feature import Contribution
    from sparkls.lsp.server import SparkServer


def wanted(kind: str, only: list[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def menu(server: SparkServer) -> tuple[list[Contribution], types.CodeActionOptions]:
    """Every feature's contributions in rank order, and the kinds advertised at `initialize`
    (in the features' order)."""
    contributions = [c for feature in server.features for c in feature.actions]
    kinds: list[str] = []
    for contribution in contributions:
        kinds += [kind for kind in contribution.kinds if kind not in kinds]
    options = types.CodeActionOptions(code_action_kinds=kinds, resolve_provider=True)
    return sorted(contributions, key=lambda c: c.rank), options


def register(server: SparkServer) -> None:
    contributions, options = menu(server)
    server.code_action_options = options  # lsp-mode 8 is declared no resolve (lifecycle.py)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    async def code_action(ls: SparkServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            return []
        doc = await ls.ready(uri)  # a big file just opened: its lines and tree come off the loop first
        edge = Edge(ls)
        actions: list[types.CodeAction] = []
        for contribution in contributions:
            if any(wanted(kind, params.context.only) for kind in contribution.kinds):
                actions.extend(contribution.offer(edge, doc, params))
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: SparkServer, picked: types.CodeAction) -> types.CodeAction:
        if not isinstance(picked.data, dict) or picked.edit is not None:
            return picked
        tag = picked.data.get("spark") or UNTAGGED
        contribution = next((c for c in contributions if c.tag == tag and c.resolve), None)
        if contribution is None or contribution.resolve is None:
            return picked
        edge = Edge(ls)
        try:
            outcome = await edge.with_progress(contribution.title, contribution.resolve(edge, picked.data))
            if isinstance(outcome, Shown):  # nothing to edit: shown, and the action stays as it is
                await edge.show(outcome)
                return picked
            if not outcome.edits:
                ls.notify_user("the model proposed no change.", types.MessageType.Info)
            picked.edit = await edge.checked_edit(edge.workspace_edit(outcome), what=f'"{picked.title}"')  # lsp/writes.py
        except Exception as exc:  # shown to the user; the action resolves with no edit
            edge.failure(exc)
            return picked
        edge.remember(outcome)
        picked.data = {**picked.data, "timings_ms": {k: round(v, 3) for k, v in outcome.timings_ms.items()}}
        edge.tell_warnings(outcome)
        return picked
