"""LSP glue only: translate params, call one service, build lsprotocol results."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register_all(server: SparkServer) -> None:
    from sparkls.completion import handlers as inline
    from sparkls.deep import handlers as task
    from sparkls.fastedit import handlers as code_actions
    from sparkls.lsp import edge as commands
    from sparkls.lsp.handlers import actions, context, documents, lifecycle
    from sparkls.nextedit import followup_handlers as followups
    from sparkls.nextedit import handlers as nextedit
    from sparkls.refine import handlers as refine

    # Each module registers its own requests and contributes its own code actions.
    for module in (lifecycle, documents, commands, actions, code_actions, context, inline, task, nextedit, followups, refine):
        module.register(server)
