"""The edge's toolkit: what a feature's handlers get of the session, and nothing more.

Every command, method, code action and hook a `Feature` (lsp/feature.py) declares is
called with an `Edge` first. Through it a handler reads the open documents and the
settings, builds the request environment (`environment`: what a feature's work may
use), keeps per-document state (`store`), talks to the user (`notify_user`, `log`,
`failure`, `tell_warnings`, `show`), runs slow work under a cancellable progress
(`with_progress`), and hands the editor edits: every one passes `checked_edit`
(lsp/writes.py: a git directory never, a protected file after a yes) before
`workspace/applyEdit` (`apply_edit`, `apply_outcome`, `send_multi_file_edit`) or a
code action's `edit`, and every applied or offered `EditOutcome` is told to the
features that keep one (`remember`: refine's last edit). A failure is a message
and `{"applied": false, "error": {...}}`; the document is never half-changed.

An `Edge` holds nothing but the server: it is made wherever one is needed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from sparkls.errors import Cancelled, EditRejected, SparkError
from sparkls.lsp.feature import Store
from sparkls.private import FOLDER_MODE, open_private

if TYPE_CHECKING:
    from sparkls.config import Settings
    from sparkls.documents.store import Document, DocumentStore
    from sparkls.edits.tail import EditOutcome
    from sparkls.edits.workspace import MultiFileEdit
    from sparkls.lsp.feature import Shown
    from sparkls.lsp.server import SparkServer
    from sparkls.models.session import TierSession
    from sparkls.request.environment import RequestEnv
    from sparkls.request.inflight import InFlightEdits

logger = logging.getLogger(__name__)

T = TypeVar("T")


def _in_flight() -> InFlightEdits:
    from sparkls.request.inflight import InFlightEdits

    return InFlightEdits()


# Each document's fast edit still streaming: registered by the edit that streams it
# and steered by a refine, so declared by both features (request/inflight.py).
IN_FLIGHT = Store("in_flight", _in_flight)


class Edge:
    """The session as a feature's handlers see it (see the module doc)."""

    __slots__ = ("_ls",)

    def __init__(self, server: SparkServer) -> None:
        self._ls = server

    # -- what the session knows ---------------------------------------------------------

    @property
    def documents(self) -> DocumentStore:
        return self._ls.documents

    @property
    def settings(self) -> Settings:
        return self._ls.settings

    @property
    def client_name(self) -> str | None:
        """The editor's `clientInfo.name` ("Visual Studio Code", "Neovim", ...)."""
        return self._ls.client_name

    @property
    def client_capabilities(self) -> types.ClientCapabilities:
        return self._ls.client_capabilities

    @property
    def fast(self) -> TierSession:
        """The fast tier's session now (a remembered edit holds the socket that served it)."""
        return self._ls.fast

    def path(self, uri: str) -> str:
        """How `uri` is named to the user and to the model (workspace-relative)."""
        from sparkls.guard import display_path

        return display_path(uri, self._ls.root)

    async def environment(self, uri: str | None = None) -> RequestEnv:
        """What one request may use (`SparkServer.environment`): the document `uri`
        ready to read, the settings, the guard, the tier sessions, the index."""
        return await self._ls.environment(uri)

    async def ready(self, uri: str) -> Document:
        """The open document `uri`, its tree readable without a parse on the loop."""
        return await self._ls.ready(uri)

    async def prepared(self, doc: Document) -> None:
        """`doc`'s lines, tree and queries readable with no parse or compiling on the loop
        (closed or not)."""
        await self._ls.prepared(doc)

    def path_filter(self) -> Awaitable[Any]:
        """What may never be sent, built once and shared (awaited shielded)."""
        return self._ls.path_filter()

    def store(self, declared: Store[T]) -> T:
        """The per-document store a feature declared (`Feature.stores`), made on first use."""
        return self._ls.store(declared)

    def hold(self, env: RequestEnv) -> None:
        """Work that outlives its request (asked ahead, asked later) holds `env`'s sessions:
        a replaced one is closed only once it is done."""
        self._ls.leases.hold(env.fast, env.deep)

    # -- telling the user ---------------------------------------------------------------

    def notify_user(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self._ls.notify_user(message, kind)

    def notify_extension(self, name: str, params: Any) -> None:
        """`sparkls/<name>`, to a client that asked for it (lsp/notifications.py)."""
        self._ls.notify_extension(name, params)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self._ls.log(message, kind)

    def failure(self, error: Exception, *, tier: str = "fast") -> dict[str, Any]:
        """Tell the user, log, and build the `applied: false` result; a deep-tier error
        also names its `path` and `block`."""
        if isinstance(error, SparkError):
            code, message = error.code, str(error)
            logger.info("%s edit failed [%s]: %s", tier, code, message)
        else:
            code, message = "internal_error", f"internal error ({type(error).__name__}: {error}); see the server log"
            logger.exception("%s edit failed", tier, exc_info=error)
        if not isinstance(error, Cancelled):  # the user asked for it: no need to tell them
            self.notify_user(message)
        detail: dict[str, Any] = {"code": code, "message": message}
        for key in ("path", "block"):
            if getattr(error, key, None) is not None:
                detail[key] = getattr(error, key)
        return {"applied": False, "tier": tier, "error": detail}

    def tell_warnings(self, outcome: EditOutcome) -> None:
        """Warnings about an edit that is applied anyway (a call to a name defined nowhere)."""
        if outcome.warnings:
            self.notify_user("; ".join(outcome.warnings) + " (applied; check it).", types.MessageType.Warning)

    async def with_progress(
        self, title: str, work: Awaitable[T], *, detail: Callable[[], str | None] | None = None
    ) -> T:
        """Run `work`, with a cancellable progress if it takes long (handlers/progress.py)."""
        from sparkls.lsp.handlers.progress import with_progress

        return await with_progress(self._ls, title, work, detail=detail)

    # -- edits --------------------------------------------------------------------------

    def workspace_edit(self, outcome: EditOutcome) -> types.WorkspaceEdit:
        """`outcome` as this editor takes it: a versioned TextDocumentEdit, or `changes`."""
        from sparkls.lsp.handlers.convert import workspace_edit

        return workspace_edit(outcome, self._ls.client_capabilities)

    def writes_freely(self, uri: str) -> bool:
        """Whether an edit of `uri` may be offered ready-made (lsp/writes.py)."""
        from sparkls.lsp.writes import writes_freely

        return writes_freely(self._ls, uri)

    async def checked_edit(self, edit: types.WorkspaceEdit, *, what: str = "the edit") -> types.WorkspaceEdit:
        """`edit` as it may go to the editor, or EditRejected (lsp/writes.py)."""
        from sparkls.lsp.writes import checked_edit

        return await checked_edit(self._ls, edit, what=what)

    async def apply_edit(
        self, edit: types.WorkspaceEdit, label: str, *, what: str = "the edit", checked: bool = False
    ) -> None:
        """`workspace/applyEdit`, or EditRejected when the editor refuses it, by a result
        (`applied: false`) or by an error (eglot: "Edits on X require version N"), or when
        it writes where it may not (lsp/writes.py: checked first, unless the caller has
        just done so, `checked`)."""
        if not checked:  # a git directory: never; a protected file: asked (lsp/writes.py)
            edit = await self.checked_edit(edit, what=what)
        params = types.ApplyWorkspaceEditParams(edit=edit, label=label)
        try:
            # Shielded: a $/cancelRequest meanwhile ends this command, and the editor's
            # answer, when it comes, finds its request alive (not cancelled, not leaked).
            result = await asyncio.shield(self._ls.workspace_apply_edit_async(params))
        except JsonRpcException as exc:
            raise EditRejected(f"The editor did not apply {what} ({exc.message}); nothing was changed.") from exc
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise EditRejected(f"The editor did not apply {what} ({reason}); nothing was changed.")

    def remember(self, outcome: EditOutcome) -> None:
        """`outcome` is applied or offered now: each feature that keeps edits is told
        (refine keeps it as the document's last edit)."""
        for feature in self._ls.features:
            if feature.edited is not None:
                feature.edited(self, outcome)

    async def apply_outcome(self, outcome: EditOutcome) -> dict[str, Any]:
        """Apply `outcome` (remembered first) and return the command's summary."""
        from sparkls.lsp.handlers.convert import summary

        started = time.perf_counter()
        self.remember(outcome)
        if outcome.edits:
            await self.apply_edit(self.workspace_edit(outcome), "Spark edit")
        return summary(outcome, applied=bool(outcome.edits), apply_ms=(time.perf_counter() - started) * 1000)

    async def send_multi_file_edit(self, edit: MultiFileEdit, label: str, *, what: str, during: str, again: str) -> None:
        """Apply a multi-file edit whole, or EditRejected (handlers/multifile.py)."""
        from sparkls.lsp.handlers.multifile import send_multi_file_edit

        await send_multi_file_edit(self, edit, label, what=what, during=during, again=again)

    # -- code actions and what is shown -------------------------------------------------

    def resolves_edit(self) -> bool:
        """Whether the client resolves an action's `edit` (else it gets a command): it says
        it can, and sparkls declared `codeAction/resolve` to it (lsp/clients.py)."""
        if not self._ls.code_action_options.resolve_provider:
            return False
        text = self._ls.client_capabilities.text_document
        action = text.code_action if text else None
        support = action.resolve_support if action else None
        return bool(action and action.data_support and support and "edit" in support.properties)

    def action(
        self, title: str, kind: str, args: dict[str, Any], diagnostic: types.Diagnostic | None, *, command: str
    ) -> types.CodeAction:
        """An action resolved when picked (`data`), or, for a client that cannot resolve
        one, a `command` with the same argument."""
        made = types.CodeAction(title=title, kind=kind, diagnostics=[diagnostic] if diagnostic else None)
        if self.resolves_edit():
            made.data = args
        else:
            made.command = types.Command(title=title, command=command, arguments=[args])
        return made

    def can_show_documents(self) -> bool:
        window = self._ls.client_capabilities.window
        return bool(window and window.show_document and window.show_document.support)

    async def show_document(self, path: Path) -> None:
        """Open `path` in the editor (`window/showDocument`, focused)."""
        show = self._ls.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
        await asyncio.shield(show)  # as in apply_edit: a late answer finds its request alive

    async def show(self, shown: Shown) -> Path | None:
        """Show `shown`: its markdown in a private file the editor opens, where it can
        (the path returned); else its message."""
        if not self.can_show_documents():
            self.notify_user(shown.message, types.MessageType.Info)
            return None
        path = write_private(shown.markdown, shown.name)
        await self.show_document(path)
        return path


def command_action(title: str, kind: str, command: str, args: dict[str, Any]) -> types.CodeAction:
    """An action that runs `command` with `args` (the client asks the user for nothing more)."""
    return types.CodeAction(title=title, kind=kind, command=types.Command(title=title, command=command, arguments=[args]))


def range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


_FOLDER: tempfile.TemporaryDirectory[str] | None = None  # this server's own, removed when it exits


def write_private(text: str, name: str = "context.md") -> Path:
    """`text` in the file `name` of a folder only this user can enter, made for this
    server (never a fixed shared path another user could create or link first); the
    file 0600, opened without following a link, both whatever the umask."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = tempfile.TemporaryDirectory(prefix="sparkls-")
        os.chmod(_FOLDER.name, FOLDER_MODE)  # 0700 whatever the umask
    path = Path(_FOLDER.name) / name
    fd = open_private(path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))  # 0600
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return path
