"""Per-document state: registered in one place, and gone when the documents close."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from sparkls.completion.extract import Completion
from sparkls.lsp import build_server

TEXT = "def area(radius):\n    return 3.14 * radius * radius\n"


def _feature(server, method):
    return server.protocol.fm.features[method]


async def test_closing_every_document_empties_every_per_document_store():
    """After didClose of every open document, no store holds anything about any of them."""
    server = build_server()
    uris = [f"file:///w/m{n}.py" for n in range(5)]
    for n, uri in enumerate(uris):
        _feature(server, types.TEXT_DOCUMENT_DID_OPEN)(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, TEXT))
        )
        doc = server.documents.get(uri)
        doc.apply([], 2)
        server.next_edits.record(doc, TEXT, 1)  # a history
        server.completions.cache.remember(uri, TEXT, Completion(len(TEXT), "x", 0))  # a suggestion
        server.completions.scheduler.submit(uri, n, lambda: asyncio.sleep(60), delay=30)  # work going
        server.completions.first_refusal(uri)  # told why a completion was refused (a minified line)
        server.speculation.start(_key(uri), lambda: asyncio.sleep(60), ttl=30, capacity=10)  # a quick fix ahead
        server.refines.remember(server.documents, _outcome(doc), _Session(), "m.py")  # a last edit to refine
        server.in_flight.begin(uri)  # an edit still streaming, for a refine to steer
        server.follow_ups.keep(uri, _follow_ups(uri, doc.version))  # follow-ups in other files
    held = server.held_documents()
    assert set(held) >= {
        "documents", "speculation", "completions", "next_edits", "refines", "in_flight", "preparer", "reparse_timers",
        "follow_ups",
    }
    assert held["documents"] == held["completions"] == held["next_edits"] == held["speculation"] == held["refines"] == 5
    assert held["in_flight"] == held["follow_ups"] == 5
    for uri in uris:
        _feature(server, types.TEXT_DOCUMENT_DID_CLOSE)(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
        )
    assert all(count == 0 for count in server.held_documents().values()), server.held_documents()


class _Session:
    def hold(self, chain) -> None: ...

    def release(self, chain) -> None: ...


def _outcome(doc):
    from sparkls.documents.positions import Position
    from sparkls.edits.tail import EditOutcome, PositionedEdit
    from sparkls.models.chain import Turn
    from tests.sealing import wire

    edit = PositionedEdit(Position(0, 4), Position(0, 8), "surface")
    return EditOutcome(doc.uri, doc.version, [edit], "fast", "m", "websocket", 1, (0, 1), {}, (0, len(TEXT)),
                       turn=Turn(wire("i", "x"), "reply"))


def _follow_ups(uri: str, version: int):
    from sparkls.nextedit.elsewhere import Outward
    from sparkls.nextedit.followups import FileSites, FollowUps

    other = FileSites("file:///w/other.py", "other.py", None, "area(1)\n", "python", ((0, 0, "use of area"),))
    return FollowUps(uri, "m.py", version, (Outward("area", "surface"),), (), (other,))


def _key(uri: str):
    from sparkls.fastedit.speculation import JobKey

    return JobKey(uri, 2, ((0, 0), (0, 4)), "fix")
