"""Logging for the server: stderr or a file, never stdout, and never an API key.

Every record passes `redact` before it is written, whatever logger produced it
(pygls logs whole messages at DEBUG, `initializationOptions` with an `apiKey` included).
"""

from __future__ import annotations

import logging
import re
import sys

_SECRETS = [
    # "api_key": "...", apiKey='...', api-key=...
    (re.compile(r"""(?i)(api[_-]?key['"]?\s*[:=]\s*['"]?)[^'"\s,}]+"""), r"\1[redacted]"),
    (re.compile(r"(?i)(bearer\s+)\S+"), r"\1[redacted]"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-[redacted]"),
    (re.compile(r"(?i)(SecretStr\()'[^']*'"), r"\1'[redacted]'"),
]


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def setup_logging(level: str, log_file: str | None) -> None:
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    if level != "DEBUG":  # pygls logs every message's params at INFO
        logging.getLogger("pygls").setLevel(logging.WARNING)
