"""Each feature's commands and methods registered with pygls, called with an `Edge`.

A feature's handler takes the `Edge` (lsp/edge.py) first, not the server: what it may
reach of the session is the edge's toolkit and the request environment. Most are
registered when the server is built (`register_features`); a method with `when` is
registered at `initialize`, only for a client that needs it (`register_for_client`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sparkls.lsp.edge import Edge

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register_features(server: SparkServer) -> None:
    """Every feature's commands, and its methods for every client."""
    edge = Edge(server)
    for feature in server.features:
        for command in feature.commands:
            server.command(command.name)(_bound(command.run, edge))
        for method in feature.methods:
            if method.when is None:
                server.feature(method.name, method.options)(_bound(method.run, edge))


def register_for_client(server: SparkServer) -> None:
    """At `initialize`: the features' methods this client needs (the completion-item
    path, for a client without inline completion)."""
    edge = Edge(server)
    registered = server.protocol.fm.features
    for feature in server.features:
        for method in feature.methods:
            if method.when is not None and method.name not in registered and method.when(server.client_capabilities):
                server.feature(method.name, method.options)(_bound(method.run, edge))


def _bound(run: Callable[..., Any], edge: Edge) -> Callable[..., Any]:
    """`run` called with `edge` first, sync or async as `run` is (pygls runs a handler by
    what it is); its first parameter is not `ls`, so pygls passes it no server."""
    if inspect.iscoroutinefunction(run):

        async def handler(*args: Any) -> Any:
            return await run(edge, *args)

    else:

        def handler(*args: Any) -> Any:
            return run(edge, *args)

    handler.__name__ = handler.__qualname__ = getattr(run, "__name__", "handler")
    return handler
