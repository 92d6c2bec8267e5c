"""sparkls's own notifications (`sparkls/status`, `sparkls/nextEdit`) go only to clients
that ask for them: a client with no handler (lsp-mode) shows each one as a warning."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, wait_emulator, wait_status
from tests.e2e.editor import capabilities
from tests.e2e.test_next_edit import SAMPLE as RENAME_SAMPLE
from tests.e2e.test_next_edit import actions_at, next_edit_actions, rename_parameter

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"


async def _initialize(client, emulator, root, *, options: dict[str, Any], experimental: Any = None) -> None:
    caps = capabilities("visual_studio_code")
    caps.experimental = experimental
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            initialization_options={"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}, **options},
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )


async def _edit(client, root) -> None:
    path = root / "area.py"
    path.write_text(SAMPLE)
    client.editor.open(path.as_uri(), SAMPLE)
    assert (await run_edit(client, path.as_uri(), 1, FIX))["applied"] is True


@pytest.mark.parametrize(
    "options, experimental",
    [
        ({"notifications": ["status"]}, None),
        ({"notifications": ["sparkls/status", "sparkls/nextEdit"]}, None),
        ({}, {"sparkls": {"notifications": ["status", "nextEdit"]}}),
    ],
    ids=["option", "full-names", "experimental-capability"],
)
async def test_a_client_that_asks_gets_the_status(client, emulator, tmp_path, options, experimental):
    """Asked for by the initialization option or the experimental capability, the
    status arrives; the option is not taken for an unknown setting."""
    await _initialize(client, emulator, tmp_path, options=options, experimental=experimental)
    assert (await wait_status(client, lambda s: s["state"] == "ready"))["transport"] == "websocket"
    await _edit(client, tmp_path)
    assert not [m.message for m in client.messages if "setting" in m.message], client.messages


async def test_a_client_that_does_not_ask_gets_none(client, emulator, tmp_path):
    """No option, no capability: the fast tier warms, an edit applies and a next edit is
    offered (as a code action), and neither `sparkls/status` nor `sparkls/nextEdit` is
    sent (the same session sends both to a client that asks: test_next_edit.py)."""
    await _initialize(client, emulator, tmp_path, options={"nextEdit": {"debounceMs": 50}})
    await wait_emulator(emulator, lambda s: s["warmups"] >= 1)
    await _edit(client, tmp_path)
    uri = (tmp_path / "shapes.py").as_uri()
    client.editor.open(uri, RENAME_SAMPLE)
    rename_parameter(client, uri)
    async with asyncio.timeout(30):  # offered: the notification, had it been sent, came before this answer
        while not next_edit_actions(await actions_at(client, uri, 0)):
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # well past the status's 50 ms coalescing: a status sent has arrived
    assert client.editor.statuses == [] and client.editor.next_edits == []


async def test_a_command_picker_without_arguments_gets_a_message(client, emulator, tmp_path):
    """`sparkls.nextEdit` run with no argument (a command picker) answers with a
    message naming the argument, not an internal error."""
    await _initialize(client, emulator, tmp_path, options={})
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="sparkls.nextEdit", arguments=[]))
    assert result["applied"] is False and '{"uri": ...}' in result["error"]["message"]


async def test_an_unknown_notification_name_is_reported(client, emulator, tmp_path):
    """A name sparkls does not send is named in the problems shown, the known one still asked for."""
    await _initialize(client, emulator, tmp_path, options={"notifications": ["status", "diagnostics"]})
    await wait_status(client, lambda s: s["state"] == "ready")
    (problem,) = [m.message for m in client.messages if "notification" in m.message]
    assert "unknown notification diagnostics" in problem and "nextEdit" in problem
