"""LSP glue only: translate params, call one service, build lsprotocol results."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register_all(server: SparkServer) -> None:
    from sparkls.lsp.handlers import (
        actions, code_actions, commands, context, documents, inline, lifecycle, followups, nextedit, refine, task,
    )

    # Each module registers its own requests and contributes its own code actions.
    for module in (lifecycle, documents, commands, actions, code_actions, context, inline, task, nextedit, followups, refine):
        module.register(server)
