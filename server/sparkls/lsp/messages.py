"""The server's voice in the editor: messages to the user, lines in the editor's log,
the log records its trace level asks for, and errors no request owns. A mixin of
`SparkServer` (lsp/server.py), so that handlers say `ls.notify_user(...)`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer

from sparkls.logs import SHOWN_TO_CLIENT, ClientLog

logger = logging.getLogger("sparkls.lsp.server")

PROTOCOL_NOISE = (JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcMethodNotFound, JsonRpcParseError, JsonRpcServerNotInitialized)

# Errors about a message, not about our work: logged, never shown. (A failed handler
# arrives as JsonRpcInternalError and is shown.)
# A log record's level -> the editor's message type (LSP's Debug type is 3.18: Log for older clients).
_MESSAGE_TYPES = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
    (logging.NOTSET, types.MessageType.Log),
)
_LOG_LEVELS = {
    types.MessageType.Error: logging.ERROR,
    types.MessageType.Warning: logging.WARNING,
    types.MessageType.Info: logging.INFO,
    types.MessageType.Log: logging.DEBUG,
}


class Messages(LanguageServer):
    """What `SparkServer` says to the editor (see the module doc)."""

    _reporting = False  # in report_server_error (no reporting an error about reporting)
    _log_loop: asyncio.AbstractEventLoop | None = None
    client_log: ClientLog
    # sparkls's own notifications the client asked for (lsp/notifications.py): none
    # until `initialize` says otherwise.
    asked_notifications: frozenset[str] = frozenset()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's hook for errors no request owns: logged, and shown to the user only
        for a failure of our own handlers. Protocol noise (a message that could not be
        read, a JSON-RPC error) is never a popup; nor is a failed write, while reporting
        it by writing would fail again and loop."""
        logger.error("server error (%s): %s", getattr(source, "__name__", source), error)
        if self._reporting or isinstance(error, (OSError, ValueError, *PROTOCOL_NOISE)) or source is JsonRpcException:
            return
        self._reporting = True
        try:
            super().report_server_error(error, source)
        finally:
            self._reporting = False

    def notify_user(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"Spark: {message}"))

    def notify_extension(self, name: str, params: Any) -> None:
        """`sparkls/<name>` (`status`, `nextEdit`), to a client that asked for it only:
        one with no handler would show each as an error (lsp/notifications.py)."""
        from sparkls.lsp.notifications import method_name

        if name in self.asked_notifications:
            self.protocol.notify(method_name(name), params)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A line for the editor's log whatever its trace level (what the user asked to
        see, a problem with this session), recorded in the server's own log too (a
        warning on stderr). Everything else goes through `logging` (logs.py)."""
        logger.log(_LOG_LEVELS.get(kind, logging.INFO), "%s", message, extra={SHOWN_TO_CLIENT: True})
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def set_trace(self, value: types.TraceValue | str | None) -> None:
        """The client's trace level (`initialize`, `$/setTrace`) decides which log
        records reach its log: off none, messages INFO and up, verbose DEBUG too."""
        self._log_loop = asyncio.get_running_loop()
        self.client_log.set_trace(value.value if isinstance(value, types.TraceValue) else value)

    def _log_to_client(self, levelno: int, text: str) -> None:
        """Send a log record to the editor, on the loop's thread (records come from any)."""
        loop = self._log_loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            try:
                loop.call_soon_threadsafe(self._log_to_client, levelno, text)
            except RuntimeError:  # the loop closed meanwhile: the session is over
                pass
            return
        kind = next(kind for level, kind in _MESSAGE_TYPES if levelno >= level)
        self.window_log_message(types.LogMessageParams(type=kind, message=text))
