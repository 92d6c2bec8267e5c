"""A test that would hang the suite fails instead, saying what it waited for
(testbound.py, watchdog.py). Each runs as an e2e test of its own, in a pytest of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOUND = 10  # seconds, for the inner tests: well past a server's start on a loaded machine
CONFTEST = "from tests.conftest import *  # noqa: F403\nfrom tests.e2e.conftest import *  # noqa: F403\n"

AWAITS_FOREVER = '''
async def test_awaits_a_notification_never_sent(client):
    await client.wait_for_notification("sparkls/neverSent")
'''

# The bug that once hung the suite for 20 minutes: a test editor's async handler returned
# what cannot be sent while it held another of the server's requests. pytest-lsp then
# sends no `shutdown`, fails to stop the server (it cannot fail the held handler's task)
# and waits for its exit forever.
ANSWER_NOT_SENT = '''
import asyncio
from lsprotocol import types
from tests.e2e.conftest import start

async def test_its_client_cannot_send_an_answer(client, emulator, tmp_path):
    asked, never = asyncio.Event(), asyncio.Event()
    async def held(params):
        await never.wait()
    async def unsendable(params):
        asked.set()
        return object()
    client.protocol.fm.features[types.WORKSPACE_CONFIGURATION] = held
    client.protocol.fm.features[types.CLIENT_REGISTER_CAPABILITY] = unsendable
    await start(client, emulator, tmp_path)
    await asked.wait()
'''


def _run_inner(tmp_path: Path, test: str) -> str:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(test)
    env = {**os.environ, "SPARKLS_TEST_BOUND": str(BOUND), "PYTHONPATH": str(ROOT)}
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
             "-o", "asyncio_default_fixture_loop_scope=function", "test_inner.py"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=BOUND + 120, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the inner test hung:\n{exc.stdout}")
    assert run.returncode == 1, run.stdout + run.stderr
    return run.stdout


def test_a_test_awaiting_what_never_comes_fails_at_its_bound_naming_it(tmp_path):
    out = _run_inner(tmp_path, AWAITS_FOREVER)
    assert f"the test bound: still running after {BOUND} s" in out, out
    assert "awaiting test_inner.py:3 `await client.wait_for_notification(\"sparkls/neverSent\")` (in wait_for_notification" in out, out
    assert "awaiting the notification sparkls/neverSent" in out, out


def test_an_answer_the_client_cannot_send_fails_the_test_and_stops_the_server(tmp_path):
    out = _run_inner(tmp_path, ANSWER_NOT_SENT)
    assert "the client's answer to client/registerCapability could not be sent (AttributeError" in out, out
    assert "no shutdown could be sent" in out and "1 error" in out, out
