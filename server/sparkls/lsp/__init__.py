"""The LSP edge: the server (server.py), pygls's protocol as sparkls changes it
(protocol.py), JSON-RPC framing and the gate (rpc.py), stdio (stdio.py), the core
handlers (handlers/), thin: params in, one service called, lsprotocol results out;
and what a feature declares (feature.py), the features (features.py) and the toolkit
their handlers get (edge.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def build_server() -> SparkServer:
    """A `SparkServer` with every feature and handler registered (and no state made before)."""
    from sparkls.lsp.features import FEATURES
    from sparkls.lsp.handlers import register_all
    from sparkls.lsp.server import SparkServer

    server = SparkServer(FEATURES)
    register_all(server)
    return server
