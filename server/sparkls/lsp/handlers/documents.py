"""didOpen / didChange / didClose: keep the document store in step with the editor."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from sparkls.documents.store import TextChange
from sparkls.lsp.edge import Edge
from sparkls.lsp.handlers.convert import position
from sparkls.lsp.server import SparkServer


def _change(event: types.TextDocumentContentChangeEvent) -> TextChange:
    if isinstance(event, types.TextDocumentContentChangePartial):
        return TextChange(event.text, (position(event.range.start), position(event.range.end)))
    return TextChange(event.text)


def _path(uri: str) -> Path | None:
    fs_path = to_fs_path(uri)
    return Path(fs_path) if fs_path else None


def _reindex(ls: SparkServer, uri: str, path: Path) -> None:
    """A file was saved or changed on disk: an open one is reindexed from its document's
    own symbols, any other is reread in the index worker process."""
    index = ls.indexing.index
    if index is None or not index.ready:
        return
    if ls.documents.has(uri):
        ls.indexing.schedule_refresh(uri, path, delay=0)
    else:
        ls.spawn(index.refresh_file(path), "indexing a changed file")


def register(server: SparkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SparkServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = ls.documents.open(item.uri, item.text, item.version, item.language_id)
        if doc.too_big:
            name = Path(to_fs_path(item.uri) or item.uri).name
            limit = ls.settings.context.max_file_bytes / 1e6
            ls.notify_user(
                f"{name} is over context.max_file_bytes ({limit:g} MB): Spark edits there see the lines "
                "around the edit, not a syntax tree.",
                types.MessageType.Info,
            )
        ls.schedule_reparse(item.uri)  # parsed and warmed before the first request needs it

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SparkServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if not ls.documents.has(uri):
            ls.log(f"didChange for {uri}, which is not open; ignored", types.MessageType.Warning)
            return
        doc = ls.documents.get(uri)
        before, version_before = doc.text, doc.version
        ls.documents.change(uri, [_change(c) for c in params.content_changes], params.text_document.version)
        edge = Edge(ls)
        for feature in ls.features:  # what each feature does after a change (`Feature.changed`)
            if feature.changed is not None:
                feature.changed(edge, doc, before, version_before)
        ls.schedule_reparse(uri)
        if (path := _path(uri)) is not None:
            ls.indexing.schedule_refresh(uri, path)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SparkServer, params: types.DidSaveTextDocumentParams) -> None:
        if (path := _path(params.text_document.uri)) is not None:
            _reindex(ls, params.text_document.uri, path)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: SparkServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed()
        if any(c.uri.endswith("/.gitignore") for c in params.changes):
            ls.indexing.rules_changed()  # what may be sent changed: refilter and reindex
            return
        index = ls.indexing.index
        if index is None or not index.ready:
            return
        for change in params.changes:
            path = _path(change.uri)
            if path is None:
                continue
            if change.type == types.FileChangeType.Deleted:
                ls.spawn(index.remove_file(path), "unindexing a deleted file")
            else:
                _reindex(ls, change.uri, path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SparkServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close_document(params.text_document.uri)
