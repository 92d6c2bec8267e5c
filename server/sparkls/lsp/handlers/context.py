"""`sparkls.showContext`: show the user exactly what an edit here would send.

Argument: `{"uri", "range", "instruction"?}`. Returns what `sparkls context --json`
prints (the report and the prompt itself) plus `path`: the text is written to a
`context.md` in a folder of this server's own that only the user can enter (0700,
made per server process, removed when it exits; the file 0600, opened with
O_NOFOLLOW; both whatever the umask).
An editor with `window/showDocument` opens it; any other is told where it is in a
`window/showMessage` ("Spark: context for … in /tmp/sparkls-…/context.md") and gets
the path in the result, for a keymap to open it. Never a fixed shared path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from sparkls.errors import SparkError
from sparkls.documents.store import Document
from sparkls.lsp.edge import Edge, command_action, range_json, write_private
from sparkls.lsp.feature import Command, Contribution, Feature

SHOW_CONTEXT = "sparkls.showContext"
SHOW_CONTEXT_KIND = "source.sparkls.showContext"

__all__ = ["FEATURE", "write_private"]


async def _show(edge: Edge, report: dict[str, Any], text: str) -> Path:
    """Write `text` where only this user can read it, and show or name that file."""
    region = report["region"]
    snippets = len(report["snippets"])
    summary = (
        f"context for {region['path']} lines {region['start_line']}-{region['end_line']} "
        f"({snippets} snippet{'s' if snippets != 1 else ''}, about {report['tokens']} tokens)"
    )
    path = write_private(text)
    edge.log(f"{summary} in {path}")
    if edge.can_show_documents():
        await edge.show_document(path)
    else:
        edge.notify_user(f"{summary} in {path}", types.MessageType.Info)
    return path


def _menu(edge: Edge, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """"Show Spark context" for the selection, in every client."""
    args = {"uri": doc.uri, "range": range_json(params.range)}
    return [command_action("Show Spark context", SHOW_CONTEXT_KIND, SHOW_CONTEXT, args)]


async def show_context(edge: Edge, *args: Any) -> dict[str, Any]:
    from pydantic import ValidationError

    from sparkls.tools.context_cli import PLACEHOLDER
    from sparkls.context.report import context_result, render_report
    from sparkls.context.prompt import prepare_edit
    from sparkls.lsp.handlers.args import EditArgs

    try:
        raw = dict(args[0]) if args and isinstance(args[0], dict) else {}
        raw.setdefault("instruction", PLACEHOLDER)
        try:
            request = EditArgs.model_validate(raw)
        except ValidationError as exc:
            raise SparkError(f"{SHOW_CONTEXT}: invalid argument: {exc.errors()[0]['msg']}") from exc
        env = await edge.environment(request.uri)
        env.guard.check_document(request.uri)
        doc = env.document(request.uri)
        start, end = sorted((doc.offset(request.start), doc.offset(request.end)))
        ctx, prompt = await prepare_edit(
            doc, start, end, guard=env.guard, settings=env.settings,
            instruction=request.instruction, diagnostics=request.diagnostic_infos(), lookup=env.lookup,
        )
    except Exception as exc:  # shown to the user; the server stays up
        return edge.failure(exc)
    result = context_result(ctx, prompt)
    try:
        path = await _show(edge, result, render_report(result, prompt))
    except OSError as exc:  # no private folder to be had: say so, return the report
        edge.notify_user(f"the context could not be written to a private file ({exc}).")
        return result
    return {**result, "path": str(path)}


FEATURE = Feature(
    "show context",
    commands=(Command(SHOW_CONTEXT, show_context),),
    actions=(Contribution((SHOW_CONTEXT_KIND,), _menu, rank=90),),
)
