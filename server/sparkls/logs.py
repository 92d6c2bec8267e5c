"""Where sparkls's log records go, and that none of them carries an API key.

- **stderr**: WARNING and above. Editors treat a server's stderr as trouble (Neovim
  writes every line of it to its LSP log as `[ERROR]`), so a healthy session writes
  nothing there. `--log-level` lowers it only when there is no `--log-file` (a server
  or a command run by hand).
- **the log file** (`--log-file`): at `--log-level`, INFO by default; 0600 (`LogFile`).
- **the editor's log** (`window/logMessage`): as the client's trace asks
  (`initialize`'s `trace`, then `$/setTrace`): `off` (the default) nothing,
  `messages` INFO and above, `verbose` DEBUG too. `ClientLog` is that handler; it
  hands each line to a function the server gives it and knows nothing of LSP. Only
  sparkls's own records go there below WARNING (not pygls's, websockets' or httpx's).
- **never stdout**: in the server it is the protocol.

Each record passes `redact` before it is written anywhere, whatever logger produced it
(pygls logs whole messages at DEBUG, `initializationOptions` with an `apiKey` included).
The `sparkls` logger's level follows the lowest level any destination wants, so a
`logger.debug` costs nothing unless a file or the editor asked for DEBUG.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Callable

from sparkls.private import open_private

_SECRETS = [
    # "api_key": "...", apiKey='...', api-key=...
    (re.compile(r"""(?i)(api[_-]?key['"]?\s*[:=]\s*['"]?)[^'"\s,}]+"""), r"\1[redacted]"),
    (re.compile(r"(?i)(bearer\s+)\S+"), r"\1[redacted]"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-[redacted]"),
    (re.compile(r"(?i)(SecretStr\()'[^']*'"), r"\1'[redacted]'"),
]

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
STDERR_LEVEL = logging.WARNING
FILE_LEVEL = logging.INFO
# The client's trace value -> the lowest level sent to its log (None: nothing).
TRACE_LEVELS: dict[str, int | None] = {"off": None, "messages": logging.INFO, "verbose": logging.DEBUG}
# A record the server already showed in the editor's log (SparkServer.log): not sent twice.
SHOWN_TO_CLIENT = "sparkls_shown_to_client"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_OFF = logging.CRITICAL + 1
_configured_level: int | None = None  # the lowest level stderr or the file wants; None: not set up


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def setup_logging(level: str | None, log_file: str | None) -> None:
    """stderr at WARNING (or `level` when there is no file), and `log_file` at `level`
    (INFO by default). Raises OSError when the file cannot be opened for appending."""
    global _configured_level
    formatter = RedactingFormatter(FORMAT)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(STDERR_LEVEL if log_file or level is None else level)
    handlers: list[logging.Handler] = [stderr]
    if log_file:
        file = LogFile(log_file)
        file.setLevel(level or FILE_LEVEL)
        handlers.append(file)
    for handler in handlers:
        handler.setFormatter(formatter)
    _configured_level = min(handler.level for handler in handlers)
    logging.basicConfig(level=_configured_level, handlers=handlers, force=True)
    # pygls logs every message's params at INFO and DEBUG: only a DEBUG log wants them.
    logging.getLogger("pygls").setLevel(logging.NOTSET if _configured_level <= logging.DEBUG else logging.WARNING)
    _apply_levels()


def _apply_levels() -> None:
    if _configured_level is None:  # in a test's process: its logging is pytest's
        return
    clients = [h.level for h in logging.getLogger().handlers if isinstance(h, ClientLog)]
    logging.getLogger("sparkls").setLevel(min([_configured_level, *clients]))


class LogFile(logging.StreamHandler):  # type: ignore[type-arg]
    """The `--log-file`, appended to, readable by the user only (`sparkls.private`:
    made 0600, or an older one made private), whatever the umask: a DEBUG log holds
    whole messages, the text of files included."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND), "a", encoding="utf-8"))

    def close(self) -> None:
        with self.lock:  # as logging.FileHandler closes: flushed, closed, never written again
            try:
                if self.stream is not None:
                    self.flush()
                    self.stream.close()
            finally:
                self.stream = None
                super().close()


class ClientLog(logging.Handler):
    """Sends records to the editor's log through `send(levelno, text)`, at the level the
    client's trace asks for (`set_trace`); nothing until then. `send` may be called from
    any thread that logs: it is the server's business to get the line onto its loop."""

    def __init__(self, send: Callable[[int, str], None]) -> None:
        super().__init__(_OFF)
        self.send = send
        self.setFormatter(RedactingFormatter("%(name)s: %(message)s"))
        self._sending = threading.local()  # a record logged while sending one is dropped

    def set_trace(self, value: str | None) -> None:
        """Follow the client's trace value ("off", "messages", "verbose"; None is "off")."""
        level = TRACE_LEVELS.get(value or "off")
        self.setLevel(_OFF if level is None else level)
        _apply_levels()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, SHOWN_TO_CLIENT, False) or getattr(self._sending, "active", False):
            return False
        return record.levelno >= logging.WARNING or record.name == "sparkls" or record.name.startswith("sparkls.")

    def emit(self, record: logging.LogRecord) -> None:
        self._sending.active = True
        try:
            self.send(record.levelno, self.format(record))
        except Exception:
            self.handleError(record)
        finally:
            self._sending.active = False


def attach(handler: ClientLog) -> None:
    """Add `handler` to the root logger: from now on the client's trace counts."""
    logging.getLogger().addHandler(handler)
    _apply_levels()
