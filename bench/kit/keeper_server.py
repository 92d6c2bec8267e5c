"""A stand-in for the LSP server as `lsp.indexing.IndexKeeper` uses it (what it tells
the user, what it logs, the tasks it spawns), for the index-fault tests and bench."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace


class KeeperServer:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.settings = SimpleNamespace(context=SimpleNamespace(index=True, exclude=[]))
        self.client_capabilities = SimpleNamespace(window=None)
        self.shown: list[str] = []  # window/showMessage
        self.logged: list[str] = []  # window/logMessage
        self.tasks: list[asyncio.Task] = []

    def notify_user(self, message: str, kind: object = None) -> None:
        self.shown.append(message)

    def log(self, message: str, kind: object = None) -> None:
        self.logged.append(message)

    def spawn(self, coro, what: str) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.append(task)
        return task
