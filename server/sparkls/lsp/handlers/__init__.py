"""The LSP edge's own handlers, then each feature's through one loop.

The core is the session's life (lifecycle.py), the documents (documents.py), the
code-action menu (actions.py) and the ghost text (ghost_text.py); everything else
belongs to a feature (`SparkServer.features`, lsp/feature.py), registered by
registry.py. Handlers are LSP glue only: translate params, call one service, build
lsprotocol results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register_all(server: SparkServer) -> None:
    from sparkls.lsp.handlers import actions, documents, ghost_text, lifecycle
    from sparkls.lsp.handlers.registry import register_features

    for module in (lifecycle, documents, actions, ghost_text):
        module.register(server)
    register_features(server)
