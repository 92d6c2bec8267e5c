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

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types

from sparkls.errors import SparkError
from sparkls.documents.store import Document
from sparkls.lsp.handlers.actions import Contribution, command_action, contribute, range_json
from sparkls.lsp.handlers.commands import failure
from sparkls.lsp.server import SparkServer
from sparkls.private import FOLDER_MODE, open_private

SHOW_CONTEXT = "sparkls.showContext"
SHOW_CONTEXT_KIND = "source.sparkls.showContext"


def _can_show_documents(ls: SparkServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.show_document and window.show_document.support)


async def _show(ls: SparkServer, report: dict[str, Any], text: str) -> Path:
    """Write `text` where only this user can read it, and show or name that file."""
    region = report["region"]
    snippets = len(report["snippets"])
    summary = (
        f"context for {region['path']} lines {region['start_line']}-{region['end_line']} "
        f"({snippets} snippet{'s' if snippets != 1 else ''}, about {report['tokens']} tokens)"
    )
    path = write_private(text)
    ls.log(f"{summary} in {path}")
    if _can_show_documents(ls):
        show = ls.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
        await asyncio.shield(show)  # as in commands.apply_outcome
    else:
        ls.notify_user(f"{summary} in {path}", types.MessageType.Info)
    return path


_FOLDER: tempfile.TemporaryDirectory[str] | None = None  # this server's own, removed when it exits


def write_private(text: str) -> Path:
    """`text` in `context.md` of a folder only this user can enter, made for this server
    (never a fixed shared path another user could create or link first)."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = tempfile.TemporaryDirectory(prefix="sparkls-")
        os.chmod(_FOLDER.name, FOLDER_MODE)  # 0700 whatever the umask
    path = Path(_FOLDER.name) / "context.md"
    fd = open_private(path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))  # 0600
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def _menu(ls: SparkServer, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """"Show Spark context" for the selection, in every client."""
    args = {"uri": doc.uri, "range": range_json(params.range)}
    return [command_action("Show Spark context", SHOW_CONTEXT_KIND, SHOW_CONTEXT, args)]


def register(server: SparkServer) -> None:
    contribute(server, Contribution((SHOW_CONTEXT_KIND,), _menu, rank=90))

    @server.command(SHOW_CONTEXT)
    async def show_context(ls: SparkServer, *args: Any) -> dict[str, Any]:
        from pydantic import ValidationError

        from sparkls.tools.context_cli import PLACEHOLDER
        from sparkls.context.report import context_result, render_report
        from sparkls.context.prompt import prepare_edit
        from sparkls.lsp.handlers.args import EditArgs

        try:
            raw = dict(args[0]) if args and isinstance(args[0], dict) else {}
            raw.setdefault("instruction", PLACEHOLDER)
            try:
                request = EditArgs.model_validate(raw).request()
            except ValidationError as exc:
                raise SparkError(f"{SHOW_CONTEXT}: invalid argument: {exc.errors()[0]['msg']}") from exc
            env = await ls.environment(request.uri)
            env.guard.check_document(request.uri)
            doc = env.document(request.uri)
            start, end = sorted((doc.offset(request.start), doc.offset(request.end)))
            ctx, prompt = await prepare_edit(
                doc, start, end, guard=env.guard, settings=env.settings,
                instruction=request.instruction, diagnostics=request.diagnostics, lookup=env.lookup,
            )
        except Exception as exc:  # shown to the user; the server stays up
            return failure(ls, exc)
        result = context_result(ctx, prompt)
        try:
            path = await _show(ls, result, render_report(result, prompt))
        except OSError as exc:  # no private folder to be had: say so, return the report
            ls.notify_user(f"the context could not be written to a private file ({exc}).")
            return result
        return {**result, "path": str(path)}
