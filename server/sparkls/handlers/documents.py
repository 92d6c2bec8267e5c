"""didOpen / didChange / didClose: keep the document store in step with the editor."""

from __future__ import annotations

from lsprotocol import types

from sparkls.documents.store import TextChange
from sparkls.handlers.convert import position
from sparkls.server import SparkServer


def _change(event: types.TextDocumentContentChangeEvent) -> TextChange:
    if isinstance(event, types.TextDocumentContentChangePartial):
        return TextChange(event.text, (position(event.range.start), position(event.range.end)))
    return TextChange(event.text)


def register(server: SparkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SparkServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.documents.open(doc.uri, doc.text, doc.version, doc.language_id)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SparkServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            ls.log(f"didChange for {uri}, which is not open; ignored", types.MessageType.Warning)
            return
        ls.documents.change(uri, [_change(c) for c in params.content_changes], params.text_document.version)
        ls.schedule_reparse(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SparkServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.documents.close(params.text_document.uri)
