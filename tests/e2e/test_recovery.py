"""The endpoint goes away and comes back: through a real LSP session against a real
`sparkls emulate` on a fixed port, stopped and started again on that port.

The status is asked for (`notifications: ["status"]`); a server that sends it to every
client passes the same way.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from sparkls.tools.devclient import start_emulator
from tests.conftest import SESSION_CANARIES, EmulatorHandle
from tests.e2e.conftest import run_edit, start, wait_status

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"


class Restartable:
    """`sparkls emulate` (no key, as it runs by default) on one port, stopped and started at will."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.handle = self.start(port=0)

    def start(self, port: int) -> EmulatorHandle:
        self.proc, url = start_emulator("--port", str(port))
        self.handle = EmulatorHandle(url, "")
        self.handle.set_canaries(SESSION_CANARIES)
        return self.handle

    @property
    def port(self) -> int:
        return int(self.handle.host.rsplit(":", 1)[1])

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture
def restartable() -> Iterator[Restartable]:
    emulator = Restartable()
    try:
        yield emulator
    finally:
        if emulator.proc is not None:
            emulator.stop()


async def test_the_status_is_ready_again_soon_after_the_emulator_comes_back(client, restartable, tmp_path: Path):
    """Emulator stopped: an edit fails with "is `sparkls emulate` running?"-style advice
    and the tier is failing; started again on the same port: the status says ready
    without any request (no 30-second cool-down), and the next edit goes over the WebSocket."""
    emulator = restartable.handle
    # A cool-down far longer than the test: only the reconnect probe can bring it back.
    await start(client, emulator, tmp_path, fast={"fallbackCooldown": 600}, options={"notifications": ["status"]})
    await wait_status(client, lambda s: s["state"] == "ready")
    sample = tmp_path / "area.py"
    sample.write_text(SAMPLE)
    client.editor.open(sample.as_uri(), SAMPLE)
    port = restartable.port

    restartable.stop()
    result = await run_edit(client, sample.as_uri(), 1, "REPLACE raduis WITH radius")
    assert result["applied"] is False and result["error"]["code"] == "connect_failed"
    assert f"cannot connect to http://127.0.0.1:{port}/v1 (connection refused)" in result["error"]["message"]
    assert f"running at 127.0.0.1:{port}?" in result["error"]["message"]
    failing = await wait_status(client, lambda s: s["state"] == "failing")
    assert "connection refused" in failing["reason"]

    emulator = restartable.start(port)
    seen = len(client.editor.statuses)
    # wait_status's own bound (30 s) is generous: the probe comes within a few seconds.
    ready = await wait_status(client, lambda s: len(client.editor.statuses) > seen and s["state"] == "ready")
    assert ready["transport"] == "websocket" and ready["reason"] is None
    result = await run_edit(client, sample.as_uri(), 1, "REPLACE raduis WITH radius")
    assert result["applied"] is True and result["transport"] == "websocket"
    assert emulator.canary_hits() == []
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1, errors  # the one failed edit
