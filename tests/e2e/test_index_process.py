"""The index worker process never outlives the server: shut down or killed mid-index."""

from __future__ import annotations

import asyncio
import os
import select
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from sparkls.context.index.process import WORKER_MODULE
from tests.e2e.conftest import SERVER, start

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

TIMEOUT = 60  # seconds: a bound on a hang, not a measurement


def _workspace(root: Path, files: int) -> None:
    for number in range(files):
        path = root / f"pkg_{number // 100:02d}/mod_{number:04d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"def helper_{number}(x):\n    return x * {number}\n\n\nclass Store{number}:\n    pass\n")


def _index_workers(server_pid: int) -> list[int]:
    """The server's child processes running the index worker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == server_pid and WORKER_MODULE.encode() in cmdline:
            found.append(int(entry.name))
    return found


async def _building_worker(client) -> int:
    """Wait for the index's first progress report (the worker is building); its pid."""
    async with asyncio.timeout(TIMEOUT):
        while not any(value.kind == "report" for value in client.progress_reports.get("sparkls-index", [])):
            await client.wait_for_notification(types.PROGRESS)
    (pid,) = _index_workers(client._server.pid)
    return pid


def _wait_exit(pid: int) -> bool:
    """Whether the process `pid` exits within TIMEOUT (waited on through a pidfd, no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # already gone
    try:
        readable, _, _ = select.select([fd], [], [], TIMEOUT)
        return bool(readable)
    finally:
        os.close(fd)


async def _stop(client) -> None:
    if client._server.returncode is None:  # a failed test: do not wait for an exit that never comes
        client._server.kill()
    await client.stop()


async def test_shutdown_mid_index_ends_the_worker(emulator, tmp_path):
    """Shutting down while the workspace is being indexed ends the index worker before the answer."""
    _workspace(tmp_path, 1500)
    client = await SERVER.start()
    try:
        await start(client, emulator, tmp_path)
        pid = await _building_worker(client)
        await client.shutdown_async(None)
        assert not Path(f"/proc/{pid}").exists()
        client.exit(None)
    finally:
        await _stop(client)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs os.pidfd_open")
async def test_killed_server_leaves_no_worker(emulator, tmp_path):
    """A server killed mid-index (SIGKILL: no shutdown, no cleanup) takes its index worker with it."""
    _workspace(tmp_path, 1500)
    client = await SERVER.start()
    try:
        await start(client, emulator, tmp_path)
        pid = await _building_worker(client)
        client._server.kill()
        assert await asyncio.to_thread(_wait_exit, pid)
    finally:
        await _stop(client)
