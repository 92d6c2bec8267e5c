"""A cloned repository's `.sparkls.toml` cannot move a tier or choose the key, however it
spells the keys: the real server tells the user (window/showMessage naming the file and
the keys as written) and the deep tier stays where the user's settings put it. Eglot's
workspace configuration, which a repository's `.dir-locals.el` sets without asking, is
held to the same rules; another editor's is the user's own."""

from __future__ import annotations

import asyncio
import os
import sys
from urllib.parse import urlsplit

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import start
from tests.e2e.editor import make_editor_client
from tests.e2e.testbound import end_session

# A secret in the server's environment that the repository names as "the key variable".
CHOSEN = "SPARKLS_E2E_REPOSITORY_CHOSEN_SECRET"
# The fast tier's endpoint is also in initializationOptions (the emulator), which win over
# the project file anyway; the deep tier's is not, so there the project file would win.
PROJECT = (
    f'API-KEY-ENV = "{CHOSEN}"\n\n[FAST]\nbaseURL = "http://attacker.example/v1"\n\n'
    '[Deep]\nBase-URL = "http://attacker.example/v1"\n'
)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "sparkls", "--stdio"],
        client_factory=make_editor_client,
        server_env={**os.environ, CHOSEN: "sk-not-the-users-key-0123456789"},
    )
)
async def client_with_secret(lsp_client: LanguageClient):
    """A started sparkls whose environment holds a secret the repository will name."""
    yield
    await end_session(lsp_client)


async def _message_naming(client: LanguageClient, text: str) -> str:
    """The first window/showMessage that contains `text` (event driven, bounded)."""
    async with asyncio.timeout(30):
        while True:
            for message in client.messages:
                if text in message.message:
                    return message.message
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)


async def _tier_status(client: LanguageClient, tier: str) -> dict:
    """A tier's latest `sparkls/status` (it is announced once settings are read)."""
    async with asyncio.timeout(30):
        while not any(tier in status["tiers"] for status in client.editor.statuses):
            await client.wait_for_notification("sparkls/status")
    return [s for s in client.editor.statuses if tier in s["tiers"]][-1]["tiers"][tier]


async def _deep_status(client: LanguageClient) -> dict:
    return await _tier_status(client, "deep")


async def test_a_project_file_cannot_move_a_tier_or_choose_the_key(client_with_secret, emulator, tmp_path):
    """`[FAST] baseURL` and `[Deep] Base-URL` to a remote host and `API-KEY-ENV` naming
    another secret: each named with the file; the fast tier stays on the emulator the
    user's options name, the deep tier on OpenAI's host, asking for the user's own variable."""
    client = client_with_secret
    (tmp_path / ".sparkls.toml").write_text(PROJECT, encoding="utf-8")
    await start(client, emulator, tmp_path)
    deep = await _deep_status(client)
    assert deep["host"] == "api.openai.com"
    assert deep["state"] == "failing" and "OPENAI_API_KEY" in deep["reason"] and CHOSEN not in deep["reason"]
    fast = await _tier_status(client, "fast")
    assert fast["host"] == urlsplit(emulator.url).netloc and fast["location"] == "local"
    message = await _message_naming(client, ".sparkls.toml")
    for written in ("`FAST.baseURL`", "`Deep.Base-URL`", "`API-KEY-ENV`"):
        assert f".sparkls.toml: {written}" in message and "editor's sparkls settings" in message


# What a repository's .dir-locals.el puts in `eglot-workspace-configuration` (:sparkls ...).
DIR_LOCALS = {"deep": {"BaseUrl": "http://attacker.example/v1"}, "API_KEY_ENV": CHOSEN}


async def test_eglots_workspace_configuration_is_checked_as_a_project_file_is(client_with_secret, emulator, tmp_path):
    """Eglot answers `workspace/configuration` from a variable `.dir-locals.el` sets
    silently: the deep tier does not move, the key variable stays the user's, and the
    message names eglot-workspace-configuration and the keys as written."""
    client = client_with_secret
    client.set_configuration(DIR_LOCALS, section="sparkls")
    await start(client, emulator, tmp_path, editor="emacs", client_name="Eglot")
    message = await _message_naming(client, "eglot-workspace-configuration")
    assert "`deep.BaseUrl`" in message and "`API_KEY_ENV`" in message and ":initializationOptions" in message
    deep = await _deep_status(client)
    assert deep["host"] == "api.openai.com" and "OPENAI_API_KEY" in deep["reason"]


async def test_another_editors_workspace_configuration_is_the_users(client, emulator, tmp_path):
    """Neovim's `settings` are the user's own Lua: the same section moves the deep tier."""
    client.set_configuration({"deep": {"BaseUrl": "https://proxy.corp.example/v1"}}, section="sparkls")
    await start(client, emulator, tmp_path, editor="neovim", client_name="Neovim")
    async with asyncio.timeout(30):
        while (await _deep_status(client))["host"] != "proxy.corp.example":
            await client.wait_for_notification("sparkls/status")
    assert not [m.message for m in client.messages if "ignored" in m.message]
