"""`sparkls.refine`: revise the last sparkls edit of a document.

Argument: one object `{"uri", "instruction"}`. The last edit applied in that document
(`sparkls.edit`, a quick fix, a comment instruction, or an earlier refine) is revised
by continuing its response (`refine/service.py`), and the result applied as one
versioned edit. Result: the summary of `sparkls.edit` plus `chained` (true when only
the new turn was sent, continuing the response). Nothing to refine, or any failure:
a message to the user and `{"applied": false, "error": {...}}`. Asked while an edit
of that document is still streaming, the words are added to it (`response.steer`):
`{"applied": false, "steered": true}`, and the edit applies the answer to both; when
it cannot be steered, the refine waits for the edit and revises it as usual.

VS Code also gets a code action "Spark: Refine last edit…" on the lines the last edit
changed; it runs the extension's command that asks for the instruction. A plain LSP
code action cannot ask for text, so other editors call the command from a keymap, or
write the instruction as a `spark:` comment on the edit's lines: every client is then
offered "Spark: refine last edit: <words>" beside "Spark: apply instruction", which
refines the last edit following the comment and removes it in the same edit (with
`range`, the comment's, in the command's argument or the action's data).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.errors import EditError
from sparkls.lsp.edge import IN_FLIGHT, Edge, command_action
from sparkls.lsp.feature import Command, Contribution, Feature, Store
from sparkls.lsp.handlers.convert import position

if TYPE_CHECKING:
    from sparkls.edits.instruction import CommentInstruction
    from sparkls.edits.tail import EditOutcome
    from sparkls.refine.service import RefineBook

REFINE_COMMAND = "sparkls.refine"
REFINE_KIND = "refactor.rewrite.sparkls.refine"
# The VS Code extension's command: asks for the instruction, then runs sparkls.refine.
VSCODE_REFINE_COMMAND = "spark.refineLastEdit"
REFINE_TITLE = "Spark: Refine last edit…"
REFINE_COMMENT_TITLE = "Spark: refine last edit"
REFINE_DATA = "refine"  # the `spark` field of a comment refine's data


def _refine_book() -> RefineBook:
    from sparkls.refine.service import RefineBook  # loaded when first used, not at start-up

    return RefineBook()


REFINES = Store("refines", _refine_book)  # each open document's last sparkls edit


def remember(edge: Edge, outcome: EditOutcome) -> None:
    """An edit applied or offered becomes its document's last edit: the one a refine revises."""
    edge.store(REFINES).remember(edge.documents, outcome, edge.fast, edge.path(outcome.uri))


def on_last_edit(edge: Edge, doc: Document, item: CommentInstruction) -> bool:
    """Whether the `spark:` comment `item` lies on the lines of the last edit."""
    where = edge.store(REFINES).where(doc)
    return where is not None and where.start <= item.start < where.end


async def steered(edge: Edge, args: dict[str, Any]) -> bool:
    """A refine of an edit still streaming: its words steer that edit's response (True);
    when they cannot, it waits for the edit to land and is then run as usual (False)."""
    from sparkls.lsp.handlers.args import RefineArgs, one_argument
    from sparkls.refine.service import steer_in_flight

    given = one_argument(REFINE_COMMAND, (args,), RefineArgs, "uri, instruction")
    edit = edge.store(IN_FLIGHT).get(given.uri)
    if edit is None or given.range is not None:
        return False
    if await steer_in_flight(await edge.environment(given.uri), edit, given.instruction):
        return True
    await edit.done.wait()
    return False


async def refine_outcome(edge: Edge, args: dict[str, Any]) -> EditOutcome:
    """The refine `args` ask for (`sparkls.refine`'s argument, or a comment refine's data)."""
    from sparkls.edits.instruction import nearest_instruction
    from sparkls.lsp.handlers.args import RefineArgs, one_argument
    from sparkls.refine.service import run_refine

    given = one_argument(REFINE_COMMAND, (args,), RefineArgs, "uri, instruction")
    env = await edge.environment(given.uri)
    comment = None
    if given.range is not None:
        max_lines = edge.settings.context.max_region_lines
        comment = nearest_instruction(env.document(given.uri), given.instruction, given.range.start.line, max_lines=max_lines)
    return await run_refine(env, edge.store(REFINES), given.uri, given.instruction, comment=comment)


def refine_actions(edge: Edge, doc: Document, selection: types.Range) -> list[types.CodeAction]:
    """The refine action, for VS Code, when `selection` meets the last edit's lines."""
    if not (edge.client_name or "").startswith("Visual Studio Code"):
        return []
    where = edge.store(REFINES).where(doc)
    if where is None:
        return []
    first, last = doc.lines.span(where.start, where.end)
    start, end = position(selection.start), position(selection.end)
    if end.line < first or start.line > last:
        return []
    return [command_action(REFINE_TITLE, REFINE_KIND, VSCODE_REFINE_COMMAND, {"uri": doc.uri})]


def _menu(edge: Edge, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """A `spark:` comment on the last edit's lines is offered as a refine of it (any
    client); VS Code also gets "Refine last edit…", which asks for the words."""
    from sparkls.edits.instruction import instructions_at

    selection, actions = params.range, []
    if edge.store(REFINES).get(doc.uri) is None:
        return []  # nothing to refine here: no need to look for comments (the lightbulb asks at every key)
    start, end = sorted((doc.offset(position(selection.start)), doc.offset(position(selection.end))))
    for item in instructions_at(doc, start, end, max_lines=edge.settings.context.max_region_lines):
        if on_last_edit(edge, doc, item):
            first, last = doc.position(item.start), doc.position(item.end)
            rng = {"start": {"line": first.line, "character": first.character},
                   "end": {"line": last.line, "character": last.character}}
            args = {"spark": REFINE_DATA, "uri": doc.uri, "range": rng, "instruction": item.instruction}
            title = f"{REFINE_COMMENT_TITLE}: {item.instruction}"
            actions.append(edge.action(title, types.CodeActionKind.RefactorRewrite, args, None, command=REFINE_COMMAND))
    return actions + refine_actions(edge, doc, selection)


async def refine(edge: Edge, *args: Any) -> dict[str, Any]:
    """`sparkls.refine` (see the module doc)."""
    try:
        if len(args) != 1 or not isinstance(args[0], dict):
            raise EditError(f"{REFINE_COMMAND} takes one argument {{uri, instruction}}, got {len(args)}.")
        if await steered(edge, args[0]):
            edge.notify_user("your words were added to the edit still being written.", types.MessageType.Info)
            return {"applied": False, "steered": True}
        outcome = await edge.with_progress("Spark refine", refine_outcome(edge, args[0]))
        if not outcome.edits:
            edge.notify_user("the model proposed no change.", types.MessageType.Info)
        result = await edge.apply_outcome(outcome)
        edge.tell_warnings(outcome)
        return {**result, "chained": bool(outcome.turn and outcome.turn.chained)}
    except Exception as exc:  # every failure becomes a message; the server stays up
        return edge.failure(exc)


FEATURE = Feature(
    "refine",
    commands=(Command(REFINE_COMMAND, refine),),
    actions=(
        Contribution((types.CodeActionKind.RefactorRewrite,), _menu, rank=30, tag=REFINE_DATA, resolve=refine_outcome),
    ),
    stores=(REFINES, IN_FLIGHT),
    edited=remember,
)
