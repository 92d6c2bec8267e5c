"""A capability is one `Feature` value: the server registers, lists, keeps and preloads
what it declares, and names nothing else (lsp/feature.py, the server, the core handlers).

A toy feature, made here, goes through the real server as a capability folder's would.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from lsprotocol import types

from sparkls.lsp.edge import Edge
from sparkls.lsp.feature import Command, Contribution, Feature, Shown, Store
from sparkls.lsp.handlers import register_all
from sparkls.lsp.server import SparkServer

URI = "file:///w/toy.py"
TEXT = "def area(radius):\n    return 3.14 * radius * radius\n"


class _Notes:
    """A per-document store: the documents something was noted for."""

    def __init__(self) -> None:
        self.uris: set[str] = set()

    def forget(self, uri: str) -> None:
        self.uris.discard(uri)

    def held(self) -> int:
        return len(self.uris)


NOTES = Store("toy_notes", _Notes)
CHANGES: list[tuple[str, str, int]] = []


def _changed(edge: Edge, doc: Any, before: str, version: int) -> None:
    CHANGES.append((doc.uri, before, version))
    edge.store(NOTES).uris.add(doc.uri)


async def _run(edge: Edge, *args: Any) -> dict[str, Any]:
    return {"edge": type(edge).__name__, "args": list(args), "documents": len(edge.documents)}


def _offer(title: str, kind: str):
    def offer(edge: Edge, doc: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
        return [types.CodeAction(title=title, kind=kind, data={"spark": title, "uri": doc.uri})]

    return offer


async def _shown(edge: Edge, data: dict[str, Any]) -> Shown:
    return Shown("toy.md", f"# Toy\n\nAbout {data['uri']}\n", "Toy: about the selection")


TOY = Feature(
    "toy",
    commands=(Command("toy.run", _run),),
    actions=(Contribution(("refactor.toy",), _offer("Toy", "refactor.toy"), rank=20, tag="Toy", resolve=_shown),),
    stores=(NOTES,),
    changed=_changed,
    preload=("colorsys",),
)
FIRST = Feature("first", actions=(Contribution(("quickfix.first",), _offer("First", "quickfix.first"), rank=10),))


def _server(*features: Feature, caps: types.ClientCapabilities | None = None) -> tuple[SparkServer, list[str]]:
    server, shown = SparkServer(features), []
    register_all(server)
    server.protocol.client_capabilities = caps or types.ClientCapabilities()
    server.notify_user = lambda message, kind=None: shown.append(message)  # type: ignore[method-assign]
    return server, shown


def _open(server: SparkServer) -> None:
    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_OPEN](
        types.DidOpenTextDocumentParams(types.TextDocumentItem(URI, "python", 1, TEXT))
    )


def _actions(server: SparkServer, only: list[str] | None = None):
    params = types.CodeActionParams(
        types.TextDocumentIdentifier(URI), types.Range(types.Position(0, 0), types.Position(1, 0)),
        types.CodeActionContext(diagnostics=[], only=only),
    )
    return server.protocol.fm.features[types.TEXT_DOCUMENT_CODE_ACTION](params)


async def test_a_features_command_is_registered_and_called_with_the_edge():
    """`workspace/executeCommand toy.run` reaches the feature's function, with an Edge first."""
    server, _ = _server(TOY)
    result = await server.protocol.fm.commands["toy.run"]({"x": 1})
    assert result == {"edge": "Edge", "args": [{"x": 1}], "documents": 0}


async def test_the_features_actions_make_one_menu_in_rank_order():
    """Each feature's contribution is listed, lower rank first; the kinds are advertised in the features' order."""
    server, _ = _server(TOY, FIRST)
    _open(server)
    assert [a.title for a in await _actions(server)] == ["First", "Toy"]
    assert [a.title for a in await _actions(server, only=["refactor"])] == ["Toy"]
    options = server.protocol.fm.feature_options[types.TEXT_DOCUMENT_CODE_ACTION]
    assert options.code_action_kinds == ["refactor.toy", "quickfix.first"] and options.resolve_provider


async def test_an_action_resolved_to_something_shown_is_said_where_no_document_can_open():
    """A resolve that ends in `Shown`: the message to a client without showDocument, the action back without an edit."""
    server, shown = _server(TOY)
    _open(server)
    (action,) = await _actions(server, only=["refactor"])
    resolved = await server.protocol.fm.features[types.CODE_ACTION_RESOLVE](action)
    assert resolved.edit is None and shown == ["Toy: about the selection"]


async def test_an_action_resolved_to_something_shown_opens_as_a_document(monkeypatch):
    """Where the client shows documents, the markdown is written to a private file and opened."""
    caps = types.ClientCapabilities(window=types.WindowClientCapabilities(show_document=types.ShowDocumentClientCapabilities(True)))
    server, shown = _server(TOY, caps=caps)
    opened: list[str] = []

    async def show_document(edge: Edge, path: Any) -> None:
        opened.append(path.read_text(encoding="utf-8"))

    monkeypatch.setattr(Edge, "show_document", show_document)
    _open(server)
    (action,) = await _actions(server, only=["refactor"])
    resolved = await server.protocol.fm.features[types.CODE_ACTION_RESOLVE](action)
    assert resolved.edit is None and shown == [] and opened == [f"# Toy\n\nAbout {URI}\n"]


async def test_a_change_is_told_to_the_feature_and_its_store_is_emptied_on_close():
    """didChange calls `changed` (text and version before); the store it fills is made then, emptied on didClose."""
    CHANGES.clear()
    server, _ = _server(TOY)
    _open(server)
    assert "toy_notes" not in server.held_documents()  # made on first use, not before
    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_CHANGE](
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=URI),
            [types.TextDocumentContentChangePartial(types.Range(types.Position(0, 4), types.Position(0, 8)), "size")],
        )
    )
    assert CHANGES == [(URI, TEXT, 1)] and server.held_documents()["toy_notes"] == 1
    server.protocol.fm.features[types.TEXT_DOCUMENT_DID_CLOSE](types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(URI)))
    assert server.held_documents()["toy_notes"] == 0


def test_a_store_no_feature_declares_is_refused():
    """A handler cannot make a per-document store its feature did not declare (it would never be emptied)."""
    server, _ = _server(FIRST)
    with pytest.raises(LookupError, match="toy_notes"):
        Edge(server).store(NOTES)


def test_two_stores_may_not_share_a_name():
    """Two features declaring different stores of one name, or one named as the server's own, are refused at start."""
    with pytest.raises(ValueError, match="toy_notes"):
        SparkServer((TOY, Feature("other", stores=(Store("toy_notes", _Notes),))))
    with pytest.raises(ValueError, match="documents"):
        SparkServer((Feature("other", stores=(Store("documents", _Notes),)),))
    SparkServer((TOY, Feature("sharing", stores=(NOTES,))))  # one store declared by two features: fine


async def test_what_a_feature_asks_preloaded_is_loaded_after_initialized(monkeypatch):
    """`preload` imports each feature's modules (here one nothing else imports)."""
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    monkeypatch.setattr("gc.freeze", lambda: None)  # the test process keeps collecting
    server, _ = _server(TOY)
    server.preload.start(server.spawn)
    await server.preload.done()
    assert "colorsys" in sys.modules
