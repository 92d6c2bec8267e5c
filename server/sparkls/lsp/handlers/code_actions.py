"""The fast edit's code actions: "Fix with Spark" per diagnostic, rewrite presets on a
selection, and "Spark: apply instruction" on a `spark:` comment (contributed to the
menu through actions.py, as every feature's are).

Listing actions never waits on the model. Quick fixes are computed speculatively as
soon as they are listed in a menu the user opened (`triggerKind` Invoked; a request
without it, or Automatic, starts nothing: `speculation.py`, setting `speculation`), so that resolving
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
from sparkls.lsp.handlers.actions import FIX_TAG, Contribution, action, contribute, range_json
from sparkls.lsp.handlers.commands import apply_outcome, compute_edit, failure, tell_warnings
from sparkls.lsp.handlers.convert import position
from sparkls.lsp.handlers.progress import with_progress
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.edits.instruction import CommentInstruction
    from sparkls.edits.tail import EditOutcome
    from sparkls.fastedit.engine import EditRequest
    from sparkls.fastedit.speculation import JobKey

QUICKFIX = types.CodeActionKind.QuickFix
REWRITE = types.CodeActionKind.RefactorRewrite
INSTRUCTION_COMMAND = "sparkls.applyInstruction"
INSTRUCTION_TITLE = "Spark: apply instruction"
INSTRUCTION_DATA = "instruction"  # the `spark` field of a comment instruction's data

# (title, instruction) of the rewrite presets offered on a selection.
REWRITE_PRESETS: list[tuple[str, str]] = [
    ("Spark: Add a docstring", "Add a concise docstring to the selected code. Change nothing else."),
    ("Spark: Add type hints", "Add type hints to the selected code's signatures and variables where they help. Change nothing else."),
    ("Spark: Simplify", "Simplify the selected code without changing its behaviour."),
]


def _fix_args(uri: str, d: types.Diagnostic) -> dict[str, Any]:
    return {
        "uri": uri,
        "range": range_json(d.range),
        "instruction": f"Fix this problem: {d.message}",
        "diagnostics": [{"range": range_json(d.range), "message": d.message, "source": d.source, "code": d.code}],
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
        actions.append(action(ls, title, REWRITE, args, None, command=INSTRUCTION_COMMAND))
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


# -- the menu -------------------------------------------------------------------------


def _fixes(ls: SparkServer, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """"Fix with Spark: <message>" per diagnostic in the request, computed ahead when
    the user opened the menu."""
    actions, fixes = [], []
    for d in params.context.diagnostics:
        args = _fix_args(doc.uri, d)
        fixes.append(args)
        first_line = d.message.splitlines()[0] if d.message else "problem"
        actions.append(action(ls, f"Fix with Spark: {first_line}", QUICKFIX, args, d))
    # Only a menu the user opened is worth model calls before a pick. Editors also ask on
    # their own at every cursor move (VS Code's lightbulb says Automatic; lsp-mode's
    # modeline and sideline say nothing, as do eglot 1.9 and Neovim 0.7 for a menu):
    # speculating then would pay for menus nobody opened. Those fixes run when picked.
    if params.context.trigger_kind == types.CodeActionTriggerKind.Invoked:
        speculate(ls, doc, fixes)
    return actions


def _rewrites(ls: SparkServer, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The rewrite presets on a selection, then the `spark:` comments' instructions."""
    selection, actions = params.range, []
    if selection.start != selection.end:
        for title, instruction in REWRITE_PRESETS:
            args = {"uri": doc.uri, "range": range_json(selection), "instruction": instruction}
            actions.append(action(ls, title, REWRITE, args, None))
    return actions + _instruction_actions(ls, doc, selection)


async def _fix(ls: SparkServer, data: dict[str, Any]) -> EditOutcome:
    from sparkls.lsp.handlers.args import EditArgs

    return await fix_outcome(ls, EditArgs.model_validate(data).request())


def register(server: SparkServer) -> None:
    contribute(server, Contribution((QUICKFIX,), _fixes, rank=10, tag=FIX_TAG, resolve=_fix))
    contribute(server, Contribution((REWRITE,), _rewrites, rank=20, tag=INSTRUCTION_DATA, resolve=instruction_outcome))

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
