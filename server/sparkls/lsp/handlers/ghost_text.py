"""Ghost text at the cursor (`textDocument/inlineCompletion`), as the features offer it.

Each feature declares its offers (`Feature.ghost`, a `Ghost` each: lsp/feature.py);
they are asked in `rank` order and the first item is the answer (the next edit on
offer at the cursor before an inline completion), or nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from sparkls.lsp.edge import Edge
from sparkls.lsp.handlers.convert import position

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer


def register(server: SparkServer) -> None:
    offers = sorted((g for feature in server.features for g in feature.ghost), key=lambda g: g.rank)
    if not offers:
        return

    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def inline_completion(ls: SparkServer, params: types.InlineCompletionParams) -> types.InlineCompletionList | None:
        if not ls.documents.has(params.text_document.uri):
            return None
        doc = ls.documents.get(params.text_document.uri)
        await ls.prepared(doc)
        offset = doc.offset(position(params.position))
        edge = Edge(ls)
        for ghost in offers:
            if (item := await ghost.offer(edge, doc, offset, params)) is not None:
                return types.InlineCompletionList(items=[item])
        return None
