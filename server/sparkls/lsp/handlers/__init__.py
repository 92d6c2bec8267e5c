"""LSP glue only: translate params, call one service, build lsprotocol results."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register_all(server: SparkServer) -> None:
    from sparkls.lsp.handlers import code_actions, commands, context, documents, inline, lifecycle, nextedit, refine, task

    for module in (lifecycle, documents, commands, context, code_actions, inline, task, nextedit, refine):
        module.register(server)
