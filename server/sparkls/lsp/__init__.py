"""The LSP edge: the server (server.py), pygls's protocol as sparkls changes it
(protocol.py), JSON-RPC framing and the gate (rpc.py), stdio (stdio.py), and the
handlers (handlers/), thin: params in, one service called, lsprotocol results out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def build_server() -> SparkServer:
    """A `SparkServer` with every handler registered (and no state made before)."""
    from sparkls.lsp.handlers import register_all
    from sparkls.lsp.server import SparkServer

    server = SparkServer()
    register_all(server)
    return server
