"""What the editor's status bar shows of the tiers (`sparkls/status`, to clients that
ask for it: lsp/notifications.py), and the one warning that a local tier has a remote
partner: one object per session, the server's `status_board`. No work of its own: it
coalesces and sends.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.errors import SparkError

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer
    from sparkls.models.session import TierStatus

STATUS_DELAY = 0.05  # seconds: status updates are coalesced, never ahead of an edit


class StatusBoard:
    def __init__(self, server: SparkServer) -> None:
        self._server = server
        self._pending: dict[str, dict[str, Any]] = {}
        self._known: dict[str, dict[str, Any]] = {}  # every tier's latest, as last sent
        self._split_warned: str | None = None  # the split warning last shown (shown once)
        self._timer: asyncio.TimerHandle | None = None

    def send(self, status: TierStatus) -> None:
        """`sparkls/status`: the state of each tier, for the editor's status bar.

        Updates are coalesced and sent STATUS_DELAY seconds later, so a status bar never
        costs the edit it reports on (its applyEdit goes out first). Each notification
        carries every tier known so far, at its latest (`location` says local or remote).
        """
        self._pending[status.tier] = status.to_json()
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(STATUS_DELAY, self._flush)

    def _flush(self) -> None:
        self._timer = None
        pending, self._pending = self._pending, {}
        self._known.update(pending)
        if pending and self._server._initialized:
            self._server.notify_extension("status", {"tiers": dict(self._known)})

    def announce_deep(self) -> None:
        """The deep tier's status before any task: where it goes, and whether it can serve."""
        from sparkls.models.session import TierStatus
        from sparkls.models.transports import preferred

        try:
            self._server.settings.api_key_for("deep")
        except SparkError as exc:  # no key for a remote deep tier: the reason names the variable
            deep = self._server.settings.deep
            kind = preferred(deep)
            self.send(TierStatus(
                "deep", deep.model, deep.host, "failing", kind.carries, str(exc), location=deep.location, mode=kind.name
            ))
            return
        session = self._server.deep_session()
        if session is not None:
            self.send(session.status)

    def warn_if_split(self) -> None:
        """Once, a warning when one tier is local and the other remote and would be sent
        code (its key resolves): whoever believes they are on a local server must not
        learn later that their tasks went to OpenAI."""
        from sparkls.endpoints import split_tiers, split_warning

        split, message = split_tiers(self._server.settings), split_warning(self._server.settings)
        if split is None or message is None or message == self._split_warned:
            return
        try:
            self._server.settings.api_key_for(split[1])
        except SparkError:
            return  # nothing can be sent there; a request says which key is missing
        self._split_warned = message
        self._server.notify_user(message, types.MessageType.Warning)
