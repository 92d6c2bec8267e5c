"""The language server: state for one editor session, and the services it owns.

`sparkls.lsp.build_server()` makes a `SparkServer` over the features (lsp/features.py)
and registers the handlers (handlers/); no state exists at import time. The server
names no capability: it keeps the stores the features declare (`store`), made on first
use and emptied on `didClose`, and preloads what they ask for. The core handlers reach
it through their `ls` argument; a feature's handlers through an `Edge` (lsp/edge.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from lsprotocol import types

from sparkls import __version__
from sparkls.documents.background import Preparer
from sparkls.documents.store import Document, DocumentStore
from sparkls.errors import DocumentClosed, SparkError
from sparkls.logs import ClientLog
from sparkls.lsp.indexing import IndexKeeper
from sparkls.lsp.messages import Messages
from sparkls.lsp.preload import CORE_PRELOAD, WAITING, Preload
from sparkls.lsp.protocol import SHUTDOWN_GRACE, SparkProtocol
from sparkls.lsp.sessions import FirstSettings, SessionLeases, tier_identity
from sparkls.lsp.status import StatusBoard
from sparkls.lsp.timers import DocumentTimers

# What a request needs beyond the documents (settings, the model clients, context,
# the features' work, the index) is imported when first used, never at start-up:
# `initialize` is answered after pygls and lsprotocol alone (lsp/preload.py loads the
# rest in a worker thread right after `initialized`).
if TYPE_CHECKING:
    from sparkls.config import Settings
    from sparkls.guard.exclusions import PathFilter
    from sparkls.guard import Guard
    from sparkls.lsp.feature import Feature, Store
    from sparkls.models.session import TierSession
    from sparkls.request.environment import RequestEnv

T = TypeVar("T")

logger = logging.getLogger(__name__)

_OWN_STORES = ("documents", "preparer", "reparse_timers", "indexing")  # the session's, not a feature's

REPARSE_DELAY = 0.02  # seconds of quiet after a change before the tree is refreshed
# A big document's refresh holds the worker (and, in stretches, the GIL) for a whole-file
# parse and extraction; requests need none of it (its tree is edited forward, its facts
# carried), so it waits for a real pause in the typing.
BIG_REPARSE_DELAY = 0.3


class PerDocument(Protocol):
    """A store of per-document state: registered once, emptied on `didClose`."""

    def forget(self, uri: str) -> None: ...

    def held(self) -> int: ...


def _warm(doc: Document) -> None:
    """Parse (if needed) and cache what a request will ask of the document."""
    from sparkls.context.builder import file_imports
    from sparkls.context.definitions import file_symbols

    file_imports(doc)  # parses, and caches the imports...
    file_symbols(doc)  # ...and the definitions, before a request needs them


class SparkServer(Messages):
    def __init__(self, features: tuple[Feature, ...] = ()) -> None:
        super().__init__(
            "sparkls",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=SparkProtocol,
        )
        self.features = features  # every capability, as its LSP face declares it (lsp/feature.py)
        self.documents = DocumentStore()
        self.preparer = Preparer(_warm)
        self._settings: Settings | None = None
        self.root: Path | None = None
        # Raw settings by source, lowest precedence first (see config/load.py).
        self.settings_sources: dict[str, dict[str, Any] | None] = {
            "project": None,
            "initialization": None,
            "workspace": None,
        }
        self._fast: TierSession | None = None
        self._deep: tuple[tuple[Any, ...], TierSession] | None = None
        # Requests wait for the editor's first settings (bounded), and hold their tier
        # sessions: a replaced one closes once they are done (lsp/sessions.py).
        self.first_settings = FirstSettings(self._settings_late)
        self.leases = SessionLeases()
        self.client_name: str | None = None  # the editor's clientInfo.name, from initialize
        # What `initialize` declares of code actions (handlers/actions.py); lsp-mode 8 is
        # declared no `resolveProvider` and gets commands (lsp/clients.py).
        self.code_action_options = types.CodeActionOptions(resolve_provider=True)
        self.pending_problems: list[str] = []  # found before the client could be told
        self._initialized = False  # notifications wait for the client to be ready
        self._path_filter: asyncio.Future[PathFilter] | None = None
        self.status_board = StatusBoard(self)  # `sparkls/status`, the split warning
        self._tasks: set[asyncio.Task[Any]] = set()
        # What requests need, imported after `initialized` (lsp/preload.py): the core's
        # modules, then each feature's own (`Feature.preload`).
        self.preload = Preload(CORE_PRELOAD + tuple(name for feature in features for name in feature.preload))
        self.reparse_timers = DocumentTimers()
        # The guard of this session's requests: its verdicts on files are kept until the
        # path filter is rebuilt, the folders change or files change on disk.
        self._guard: Guard | None = None
        self.indexing = IndexKeeper(self)  # the workspace index and its refreshes
        # Every store of per-document state, by name: each forgets a document when it
        # closes (`close_document`), and says how many documents it holds (`held`).
        self.per_document: dict[str, PerDocument] = {
            "preparer": self.preparer, "reparse_timers": self.reparse_timers, "indexing": self.indexing,
        }
        # The features' per-document stores: made on first use (`store`).
        self._stores = _declared_stores(features)
        # Log records for the editor's log, as its trace asks (logs.py); the loop they go out on.
        self.client_log = ClientLog(self._log_to_client)

    @property
    def settings(self) -> Settings:
        """The settings in force (the defaults until `initialized` has read them)."""
        if self._settings is None:
            from sparkls.config import Settings

            self._settings = Settings()
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value

    @property
    def fast(self) -> TierSession:
        """The fast tier's session (made on first use, and anew when its settings change)."""
        if self._fast is None:
            self._fast = self._new_fast_session()
        return self._fast

    def store(self, declared: Store[T]) -> T:
        """The per-document store a feature declared (`Feature.stores`), made on first
        use and registered in `per_document`, so that `didClose` empties it."""
        if declared not in self._stores:
            raise LookupError(f"no feature declares the per-document store {declared.name!r}")
        if (store := self.per_document.get(declared.name)) is None:
            store = self.per_document[declared.name] = declared.make()
        return store  # type: ignore[return-value]

    def close_document(self, uri: str) -> None:
        """`didClose`: the document and everything kept about it, in every store."""
        self.documents.close(uri)
        for store in self.per_document.values():
            store.forget(uri)

    def held_documents(self) -> dict[str, int]:
        """How many documents each per-document store holds state for (0 once all are closed)."""
        return {"documents": len(self.documents)} | {name: store.held() for name, store in self.per_document.items()}

    def folders(self) -> list[str]:
        """The workspace folders' absolute paths (the root when the editor named none)."""
        from pygls.uris import to_fs_path

        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()] if self.workspace else []
        paths = [p for p in folders if p]
        return paths or ([str(self.root)] if self.root is not None else [])

    async def environment(self, uri: str | None = None) -> RequestEnv:
        """Everything one request may use (request/environment.py), built once: the
        document `uri` ready to read (a big text parsed off the loop), the settings in
        force, the guard with the path filter built, the tier sessions, the index."""
        from sparkls.guard import Guard
        from sparkls.request.environment import RequestEnv

        await self.first_settings.wait()
        if uri is not None:
            await self.ready(uri)
        folders = self.folders()
        path_filter = await self.path_filter()
        guard = self._guard
        if guard is None or guard.path_filter is not path_filter or guard.root != self.root or guard.folders != folders:
            guard = self._guard = Guard(self.root, path_filter, folders)
        fast, deep = self.fast, self.deep_session()
        self.leases.hold(fast, deep)  # until this request's task ends
        return RequestEnv(
            store=self.documents,
            settings=self.settings,
            guard=guard,
            fast=fast,
            deep=deep,
            lookup=self.indexing.lookup(),
            notify=lambda message: self.notify_user(message, types.MessageType.Warning),
            folders=tuple(folders),
            encoding=self.documents.encoding,
        )

    def _new_fast_session(self) -> TierSession:
        from sparkls.context.prompt import FAST_INSTRUCTIONS
        from sparkls.guard import fixed_wire
        from sparkls.models.session import TierSession

        return TierSession(
            "fast",
            self.settings,
            warm=fixed_wire(FAST_INSTRUCTIONS),
            cache_key=workspace_cache_key(self.root),
            on_status=self.status_board.send,
        )

    def deep_session(self) -> TierSession | None:
        """The deep tier, when it is configured (its key resolves); made on first use
        and again when its settings change. Escalations go there."""
        try:
            self.settings.api_key_for("deep")
        except SparkError:
            return None
        from sparkls.models.session import TierSession

        identity = tier_identity(self.settings, "deep")
        if self._deep is None or self._deep[0] != identity:
            if self._deep is not None:
                self.spawn(self.leases.close_when_free(self._deep[1]), "closing the old deep-tier connection")
            session = TierSession("deep", self.settings, cache_key=workspace_cache_key(self.root), on_status=self.status_board.send)
            self._deep = (identity, session)
        return self._deep[1]

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[Any], Any]:
        """pygls's registration; the requests that run what the preload imports wait for it."""
        register = super().feature(feature_name, options)
        return (lambda handler: register(self.preload.first(handler))) if feature_name in WAITING else register

    def command(self, command_name: str) -> Callable[[Any], Any]:
        """pygls's registration; every command waits for the preload (lsp/preload.py)."""
        register = super().command(command_name)
        return lambda handler: register(self.preload.first(handler))

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run `coro` in the background, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self.log(f"{what} failed: {t.exception()}", types.MessageType.Warning)

        task.add_done_callback(done)
        return task

    def forget_path_filter(self) -> None:
        """What may be sent changed (a .gitignore, `context.exclude`): rebuilt on next use."""
        self._path_filter = None
        self._guard = None

    def files_changed(self) -> None:
        """Files changed on disk (a link may lead elsewhere now): the guard decides anew."""
        if self._guard is not None:
            self._guard.forget()

    def path_filter(self) -> Awaitable[PathFilter]:
        """What may never be sent: built once in a thread (it reads every .gitignore).

        Shared by every request, so each awaits it shielded: a cancelled edit must not
        cancel the build the others wait on."""
        if self._path_filter is None:
            from sparkls.guard.exclusions import PathFilter

            exclude = list(self.settings.context.exclude)
            if self.root is not None:
                self._path_filter = asyncio.ensure_future(asyncio.to_thread(PathFilter.from_root, self.root, exclude))
            else:
                self._path_filter = asyncio.get_running_loop().create_future()
                self._path_filter.set_result(PathFilter(exclude))
        return asyncio.shield(self._path_filter)

    def schedule_reparse(self, uri: str) -> None:
        """Reparse `uri` once changes stop for REPARSE_DELAY seconds (BIG_REPARSE_DELAY
        for a big document).

        A burst of keystrokes costs one parse and one extraction of the document's
        facts, both in a worker thread (documents/background.py); a request that comes
        sooner carries the last facts forward, and reparses a small document on demand.
        """

        def run() -> None:
            if self.documents.has(uri):
                self.preparer.schedule(self.documents.get(uri))

        doc = self.documents.get(uri) if self.documents.has(uri) else None
        delay = BIG_REPARSE_DELAY if doc is not None and doc.is_big and doc.tree_is_cheap else REPARSE_DELAY
        self.reparse_timers.schedule(uri, delay, run)

    async def ready(self, uri: str) -> Document:
        """The open document `uri`, once a request may read its tree without parsing a
        big text on the event loop (`prepared`); raises DocumentClosed."""
        doc = self.documents.get(uri)
        await self.prepared(doc)
        if not self.documents.is_open(uri, doc):
            raise DocumentClosed(f"{uri} was closed before Spark could read it; nothing was sent.")
        return doc

    async def prepared(self, doc: Document) -> None:
        """`doc`'s lines and tree readable, and its language's queries compiled, with
        neither a parse of a big text (`Preparer.ready`) nor the compiling (100 ms and
        more for TypeScript's: `queries.compiled`) done on the event loop."""
        from sparkls.context.queries import compiled

        await compiled(doc.language_id)
        await self.preparer.ready(doc)

    def reload_settings(self, *, renew: bool = False) -> list[str]:
        """Recompute settings from all sources; reconnect a tier whose settings changed."""
        from sparkls.config import load_settings

        settings, problems = load_settings(*self.settings_sources.values())
        old_settings, self.settings = self.settings, settings
        self.documents.max_tree_bytes = settings.context.max_file_bytes or None  # for documents opened from now on
        if settings.context.exclude != old_settings.context.exclude or renew:
            self.forget_path_filter()  # rebuilt on next use
        if renew or tier_identity(settings, "fast") != tier_identity(old_settings, "fast"):
            old, self._fast = self._fast, self._new_fast_session()
            if old is not None:  # closed once the requests that hold it are done
                self.spawn(self.leases.close_when_free(old), "closing the old fast-tier connection")
            if self._initialized:
                self.warm_up()
        if renew or tier_identity(settings, "deep") != tier_identity(old_settings, "deep"):
            self.status_board.announce_deep()
        return problems

    def warm_up(self) -> None:
        """Open and warm the fast tier's connections in the background; startup does not wait."""
        self._initialized = True
        self.spawn(self.fast.warm(), "warming the fast tier")
        self.spawn(self.path_filter(), "reading .gitignore files")
        self.indexing.start()

    def _settings_late(self, waited: float) -> None:
        self.notify_user(
            f"the editor has not answered workspace/configuration in {waited:g} s: requests run on the settings"
            " known so far (initializationOptions, .sparkls.toml) until it does.",
            types.MessageType.Warning,
        )

    async def shut_down(self) -> None:
        """`shutdown`: close the tier sessions and the index, then cancel the background
        work still running (a preload, a pull the editor never answered) and let it
        unwind, bounded: `exit` should find nothing left to cancel."""
        await self.fast.close()
        if self._deep is not None:
            await self._deep[1].close()
        await self.indexing.close()
        if left := [task for task in self._tasks if not task.done()]:
            for task in left:
                task.cancel()
            await asyncio.wait(left, timeout=SHUTDOWN_GRACE)


def _declared_stores(features: tuple[Feature, ...]) -> set[Store[Any]]:
    """Every store the features declare. Two features may share one (both declare the
    same `Store`); two stores may not share a name, nor take one of the server's own."""
    declared: dict[str, Store[Any]] = {}
    for feature in features:
        for store in feature.stores:
            if declared.setdefault(store.name, store) is not store or store.name in _OWN_STORES:
                raise ValueError(f"{feature.name}: another per-document store is named {store.name!r}")
    return set(declared.values())


def workspace_cache_key(root: Path | None) -> str | None:
    """`prompt_cache_key` for this workspace: requests from one project share a cache."""
    if root is None:
        return None
    return "sparkls-" + hashlib.sha256(str(root).encode()).hexdigest()[:16]

