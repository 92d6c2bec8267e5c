"""The language server: state for one editor session, and the services it owns.

`build_server()` makes a `SparkServer` and registers the handlers (handlers/); no
state exists at import time. Handlers reach everything through their `ls` argument.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from sparkls import __version__
from sparkls.config import Settings, load_settings
from sparkls.context.builder import file_imports
from sparkls.documents.store import DocumentStore
from sparkls.models.session import TierSession

logger = logging.getLogger(__name__)

REPARSE_DELAY = 0.02  # seconds of quiet after a change before the tree is refreshed


def _user_handler_only(method: str) -> Any:
    @lsp_method(method)
    def handler(self: LanguageServerProtocol, params: Any) -> Any:
        if (user := self.fm.features.get(method)) is not None:
            yield user, (params,), None

    return handler


class SparkProtocol(LanguageServerProtocol):
    """pygls's protocol minus its own copy of every open document.

    sparkls keeps documents (with their trees) in `DocumentStore`; pygls's second copy
    would cost a pass over the whole file on every keystroke for nothing.
    """

    lsp_text_document__did_open = _user_handler_only(types.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _user_handler_only(types.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _user_handler_only(types.TEXT_DOCUMENT_DID_CLOSE)


class SparkServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "sparkls",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=SparkProtocol,
        )
        self.documents = DocumentStore()
        self.settings = Settings()
        self.root: Path | None = None
        # Raw settings by source, lowest precedence first (see config.py).
        self.settings_sources: dict[str, dict[str, Any] | None] = {
            "project": None,
            "initialization": None,
            "workspace": None,
        }
        self.fast = TierSession("fast", self.settings)
        self.pending_problems: list[str] = []  # found before the client could be told
        self._reparse_timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run `coro` in the background, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                logger.warning("%s failed: %s", what, t.exception())
                self.log(f"{what} failed: {t.exception()}", types.MessageType.Warning)

        task.add_done_callback(done)
        return task

    def schedule_reparse(self, uri: str) -> None:
        """Reparse `uri` once changes stop for REPARSE_DELAY seconds.

        A burst of keystrokes costs one incremental parse, done between requests; a
        request that comes sooner parses on demand (`Document.tree` is lazy).
        """
        if (timer := self._reparse_timers.pop(uri, None)) is not None:
            timer.cancel()

        def run() -> None:
            self._reparse_timers.pop(uri, None)
            if self.documents.has(uri):
                file_imports(self.documents.get(uri))  # parses, and caches the imports

        self._reparse_timers[uri] = asyncio.get_running_loop().call_later(REPARSE_DELAY, run)

    def notify_user(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"Spark: {message}"))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def reload_settings(self) -> list[str]:
        """Recompute settings from all sources; reconnect a tier whose settings changed."""
        settings, problems = load_settings(*self.settings_sources.values())
        old_settings, self.settings = self.settings, settings
        if _fast_identity(settings) != _fast_identity(old_settings):
            old = self.fast
            self.fast = TierSession("fast", settings)
            self.spawn(old.close(), "closing the old fast-tier connection")
        return problems

    def warm_up(self) -> None:
        """Open the fast tier's connection in the background; startup does not wait."""
        self.spawn(self.fast.warm(), "warming the fast tier")

    async def close_sessions(self) -> None:
        await self.fast.close()


def _fast_identity(settings: Settings) -> tuple[Any, ...]:
    """What the fast tier's connection depends on; a change means reconnecting."""
    return (settings.fast, settings.api_key, settings.api_key_env)


def build_server() -> SparkServer:
    from sparkls.handlers import register_all

    server = SparkServer()
    register_all(server)
    return server
