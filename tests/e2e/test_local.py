"""Local endpoints through LSP: no key needed, `localBaseUrl` for both tiers, the split warning."""

from __future__ import annotations

import os
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import EMULATOR_KEY
from tests.e2e.conftest import run_edit, wait_status
from tests.e2e.editor import capabilities, make_editor_client
from tests.e2e.testbound import end_session

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"
DEEP_MODEL = "gpt-5.3-codex"


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "sparkls", "--stdio"],
        client_factory=make_editor_client,
        # The emulator's key as the user's OPENAI_API_KEY: it would open the door if it were sent.
        server_env={**os.environ, "OPENAI_API_KEY": EMULATOR_KEY},
    )
)
async def client_with_env_key(lsp_client: LanguageClient):
    """A started sparkls whose environment holds OPENAI_API_KEY."""
    yield
    await end_session(lsp_client)


async def _initialize(client: LanguageClient, root, options: dict) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities("visual_studio_code"),
            initialization_options={**options, "notifications": ["status"]},
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )


def _warnings(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Warning]


async def test_an_edit_applies_against_a_local_endpoint_with_no_key(client, keyless_emulator, tmp_path):
    """No key anywhere, the fast tier on loopback: the edit applies."""
    await _initialize(client, tmp_path, {"fast": {"baseUrl": keyless_emulator.url}})
    uri = (tmp_path / "a.py").as_uri()
    client.editor.open(uri, SAMPLE)
    result = await run_edit(client, uri, 1, FIX)
    assert result["applied"] is True, client.messages
    assert client.editor.text(uri) == SAMPLE.replace("raduis", "radius")


async def test_the_environment_key_is_not_sent_to_a_local_endpoint(client_with_env_key, emulator, tmp_path):
    """OPENAI_API_KEY holds the emulator's key, but a loopback tier is sent none: refused, not served."""
    await _initialize(client_with_env_key, tmp_path, {"localBaseUrl": emulator.url})
    uri = (tmp_path / "a.py").as_uri()
    client_with_env_key.editor.open(uri, SAMPLE)
    result = await run_edit(client_with_env_key, uri, 1, FIX)
    assert result["applied"] is False and result["error"]["code"] == "auth_failed"
    assert "No key was sent" in result["error"]["message"] and "fast.api_key_env" in result["error"]["message"]
    assert emulator.stats()["responses"] == 0


async def test_local_base_url_sends_a_task_to_the_local_deep_model(client, keyless_emulator, tmp_path):
    """With only `localBaseUrl` and no key, `sparkls.task` is served by the emulator's deep model."""
    (tmp_path / "shapes.py").write_text(SAMPLE)
    await _initialize(client, tmp_path, {"localBaseUrl": keyless_emulator.url})
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, SAMPLE)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": FIX, "uris": [uri]}])
    )
    assert result["applied"] is True, (result, client.messages)
    assert keyless_emulator.stats()["by_model"][DEEP_MODEL] == {"http": 1}
    assert client.editor.text(uri) == SAMPLE.replace("raduis", "radius")


async def test_status_says_both_tiers_are_local(client, keyless_emulator, tmp_path):
    """`sparkls/status` carries `location: local` for the fast tier and, before any task, the deep one."""
    await _initialize(client, tmp_path, {"localBaseUrl": keyless_emulator.url})
    fast = await wait_status(client, lambda s: s["state"] == "ready")
    assert fast["location"] == "local"
    deep = client.editor.statuses[-1]["tiers"]["deep"]
    assert deep["location"] == "local" and deep["host"] == keyless_emulator.host


async def test_a_local_fast_tier_and_a_remote_deep_tier_raise_one_warning(client, keyless_emulator, tmp_path):
    """Fast on loopback, deep at OpenAI with a key: one warning names where the deep tier goes."""
    options = {"fast": {"baseUrl": keyless_emulator.url}, "deep": {"apiKey": "sk-not-used-here"}}
    await _initialize(client, tmp_path, options)
    message = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert message.type == types.MessageType.Warning
    assert "deep tier still goes to api.openai.com" in message.message and "local_base_url" in message.message
    status = await wait_status(client, lambda s: s["state"] == "ready")
    assert status["location"] == "local"
    assert client.editor.statuses[-1]["tiers"]["deep"]["location"] == "remote"
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"sparkls": options}))
    uri = (tmp_path / "a.py").as_uri()
    client.editor.open(uri, SAMPLE)
    assert (await run_edit(client, uri, 1, FIX))["applied"] is True
    assert len(_warnings(client)) == 1
