"""No request runs on settings that are being replaced (lsp/sessions.py).

An editor whose settings come only from `workspace/configuration` (Neovim's
`settings`) sends its first edit right after `didOpen`, before it has answered the
pull; and a settings change can come while an edit streams.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator
from tests.e2e.editor import capabilities

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"


class HeldConfiguration:
    """The editor's `workspace/configuration` answer, held until `release()`."""

    def __init__(self, client) -> None:
        self.asked, self.released = asyncio.Event(), asyncio.Event()
        answer = client.protocol.fm.features[types.WORKSPACE_CONFIGURATION]

        async def held(params):
            self.asked.set()
            await self.released.wait()
            return answer(params)

        client.protocol.fm.features[types.WORKSPACE_CONFIGURATION] = held

    def release(self) -> None:
        self.released.set()


def _edit(uri: str, line: int, instruction: str) -> types.ExecuteCommandParams:
    place = {"line": line, "character": 0}
    return types.ExecuteCommandParams(command="sparkls.edit", arguments=[{"uri": uri, "range": {"start": place, "end": place}, "instruction": instruction}])


async def test_an_edit_right_after_did_open_waits_for_the_pulled_settings(client, emulator, tmp_path):
    """Settings only in workspace/configuration, answered after the edit was sent: the edit succeeds."""
    client.set_configuration({"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}}, section="sparkls")
    held = HeldConfiguration(client)
    await client.initialize_session(
        types.InitializeParams(capabilities=capabilities("neovim"), root_uri=tmp_path.as_uri(),
                               workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="w")])
    )
    async with asyncio.timeout(30):
        await held.asked.wait()
    uri = (tmp_path / "a.py").as_uri()
    client.editor.open(uri, SAMPLE)
    edit = client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, _edit(uri, 1, "REPLACE raduis WITH radius"))
    held.release()  # the request is written: the server reads it before the answer
    outcome = await edit
    assert outcome["applied"] is True, outcome
    assert "radius ** 2" in client.editor.text(uri)
    assert not [m for m in client.messages if "workspace/configuration" in m.message]  # answered in time: nothing said


async def test_a_settings_change_while_an_edit_streams_does_not_fail_it(client, emulator, tmp_path):
    """The fast tier's settings change mid-stream: the edit ends on its session, the next uses the new one."""
    await start(client, emulator, tmp_path, editor="neovim")
    uri = (tmp_path / "a.py").as_uri()
    client.editor.open(uri, SAMPLE)
    emulator.set_faults(tokens_per_second=15, count=1)
    edit = asyncio.ensure_future(run_edit(client, uri, 1, "REPLACE raduis WITH radius"))
    await wait_emulator(emulator, lambda s: s["streaming"] == 1)
    changed = {"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key, "poolSize": 3}}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"sparkls": changed}))
    outcome = await edit
    assert outcome["applied"] is True, outcome
    after = await run_edit(client, uri, 1, "REPLACE 3.14 WITH 3.14159")
    assert after["applied"] is True, after
    assert emulator.stats()["abandoned"] == 0
    await wait_emulator(emulator, lambda s: s["ws_open"] == 1)  # the replaced session closed once free


async def test_an_editor_that_never_answers_the_pull_delays_the_first_edit_only(client, emulator, tmp_path):
    """No configuration answer: after the bounded wait the edit runs on initializationOptions; said once."""
    held = HeldConfiguration(client)  # never released
    await start(client, emulator, tmp_path, editor="neovim")
    async with asyncio.timeout(30):
        await held.asked.wait()
    uri = (tmp_path / "a.py").as_uri()
    client.editor.open(uri, SAMPLE)
    async with asyncio.timeout(30):  # the wait is bounded (3 s): an unbounded one fails here
        first = await run_edit(client, uri, 1, "REPLACE raduis WITH radius")
    second = await run_edit(client, uri, 1, "REPLACE 3.14 WITH 3.14159")
    assert first["applied"] is True and second["applied"] is True, (first, second)
    told = [m.message for m in client.messages if "workspace/configuration" in m.message]
    assert len(told) == 1 and "settings known so far" in told[0], told
    held.release()
