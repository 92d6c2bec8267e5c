"""Settings from every source, changed at run time, without restarting the server."""

from __future__ import annotations

import pytest
from lsprotocol import types

from sparkls.tools.devclient import start_emulator
from tests.conftest import EmulatorHandle
from tests.e2e.conftest import run_edit, start, wait_emulator, wait_status

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"


@pytest.fixture
def second_emulator():
    proc, url = start_emulator("--api-key", "sk-second")
    yield EmulatorHandle(url, "sk-second")
    proc.terminate()
    proc.wait(timeout=10)


async def test_project_file_is_read(client, emulator, tmp_path):
    """`.sparkls.toml` at the root configures the tier (here: a pool of one)."""
    (tmp_path / ".sparkls.toml").write_text("[fast]\npool_size = 1\n")
    await start(client, emulator, tmp_path)
    await wait_status(client, lambda s: s["state"] == "ready")
    assert emulator.stats()["ws_connections"] == 1


async def test_changed_configuration_moves_the_tier(client, emulator, second_emulator, tmp_path):
    """didChangeConfiguration with a new base_url: the old sockets close, the new ones warm."""
    await start(client, emulator, tmp_path)
    await wait_status(client, lambda s: s["state"] == "ready")
    client.set_configuration({"fast": {"baseUrl": second_emulator.url, "apiKey": second_emulator.api_key}}, section="sparkls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_status(client, lambda s: s["state"] == "ready" and s["host"] == second_emulator.host)
    await wait_emulator(emulator, lambda s: s["ws_open"] == 0)
    sample = (tmp_path / "a.py").as_uri()
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
    assert second_emulator.stats()["responses"] == 1 and emulator.stats()["responses"] == 0


async def test_invalid_change_keeps_working_settings(client, emulator, tmp_path):
    """A bad value pushed at run time is reported; the tier keeps its working settings."""
    await start(client, emulator, tmp_path)
    await wait_status(client, lambda s: s["state"] == "ready")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"sparkls": {"fast": {"poolSize": 99}}})
    )
    message = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert "fast.pool_size" in message.message
    sample = (tmp_path / "a.py").as_uri()
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
