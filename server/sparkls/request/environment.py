"""`RequestEnv`: everything one request may use, built once by the LSP edge.

A feature gets one of these and nothing else of the session: the documents (and the
snapshot it was asked about), the settings in force, the guard (what may be sent,
and how a file is named), the tier sessions, the workspace index, and where to tell
the user of something on the way (a rate limit, say). The LSP edge builds it
(`lsp/server.py`, `SparkServer.environment`) after the document is ready and the
path filter is built, so a feature never assembles any of it by hand, and cannot
reach the transport except with the guard's output. No LSP types.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sparkls.documents.positions import Encoding
from sparkls.documents.store import Document, DocumentStore
from sparkls.guard import Draft, Guard, Wire

if TYPE_CHECKING:
    from sparkls.config import Settings
    from sparkls.context.lookup import Lookup
    from sparkls.models.session import TierSession


@dataclass(frozen=True, slots=True)
class RequestEnv:
    store: DocumentStore
    settings: Settings
    guard: Guard
    fast: TierSession
    deep: TierSession | None = None  # the deep tier, when it is configured (escalations, tasks)
    lookup: Lookup | None = None  # definitions from other files, once the index is built
    notify: Callable[[str], None] | None = None  # news on the way (a rate limit): a warning to the user
    folders: tuple[str, ...] = ()  # the workspace folders' absolute paths
    encoding: Encoding = "utf-16"

    @property
    def root(self) -> Path | None:
        return self.guard.root

    def path(self, uri: str) -> str:
        """How `uri` is named to the model and in messages."""
        return self.guard.display_path(uri)

    def document(self, uri: str) -> Document:
        """The open document `uri` (`DocumentClosed` when it is not)."""
        return self.store.get(uri)

    async def seal(self, draft: Draft) -> Wire:
        """The guard's wire text for `draft` (the only thing a tier session sends),
        checked and redacted without holding up the event loop (`Guard.seal_async`:
        a small draft at once, a big one in a worker thread)."""
        return await self.guard.seal_async(draft)
