"""Shared fixtures: a real emulator process on loopback, reset for every test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from sparkls.tools.devclient import start_emulator

EMULATOR_KEY = "sk-test-emulator-key"

# Servers started by the tests keep their workspace index here, not in ~/.cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="sparkls-test-cache-")
# Nothing started by the tests sees a developer's real key: a test that wants a key in
# the environment sets its own.
os.environ.pop("OPENAI_API_KEY", None)


@dataclass
class EmulatorHandle:
    """Talks to a running `sparkls emulate` through its control endpoint."""

    url: str  # the API root, e.g. http://127.0.0.1:PORT/v1
    api_key: str

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[1].split("/", 1)[0]

    def _control(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        root = self.url.removesuffix("/v1")
        response = httpx.request(method, f"{root}/_emulator/{path}", json=payload, timeout=10)
        response.raise_for_status()
        return response.json()

    def stats(self) -> dict[str, Any]:
        return self._control("GET", "stats")

    def set_faults(self, **faults: Any) -> None:
        self._control("POST", "faults", faults)

    def reset(self) -> None:
        self._control("POST", "reset")

    def disconnect(self) -> int:
        return self._control("POST", "disconnect")["disconnected"]

    def refuse_websocket(self, refuse: bool = True) -> None:
        self._control("POST", "refuse_websocket", {"refuse": refuse})

    def prompts(self) -> list[str]:
        """The request texts the emulator received since the last reset (the last 64)."""
        return self._control("GET", "prompts")["prompts"]

    def connection_limit(self, seconds: float | None, *, close: bool = False) -> None:
        """WebSocket connections older than `seconds` are refused (None: no limit)."""
        self._control("POST", "connection_limit", {"seconds": seconds, "close": close})


@pytest.fixture(scope="session")
def emulator_process() -> Iterator[EmulatorHandle]:
    proc, url = start_emulator("--api-key", EMULATOR_KEY)
    try:
        yield EmulatorHandle(url, EMULATOR_KEY)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def emulator(emulator_process: EmulatorHandle) -> EmulatorHandle:
    """The shared emulator with counters and faults reset for this test."""
    emulator_process.reset()
    return emulator_process


@pytest.fixture(scope="session")
def keyless_emulator_process() -> Iterator[EmulatorHandle]:
    """An emulator that asks for no key, as `sparkls emulate` runs by default."""
    proc, url = start_emulator()
    try:
        yield EmulatorHandle(url, "")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def keyless_emulator(keyless_emulator_process: EmulatorHandle) -> EmulatorHandle:
    """The keyless emulator with counters and faults reset for this test."""
    keyless_emulator_process.reset()
    return keyless_emulator_process
