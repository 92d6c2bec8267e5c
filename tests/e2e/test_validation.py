"""Edits users can trust: a reply that does not parse is retried, escalated or refused;
typing while the model answers is rebased or the edit dropped; invented names are told."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_emulator

SAMPLE = "import math\n\n\ndef area(radius):\n    return 3.14 * raduis ** 2\n"
FIXED = "import math\n\n\ndef area(radius):\n    return 3.14 * radius ** 2\n"
FIX = "REPLACE raduis WITH radius"
REGION_LINE = 3


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def _messages(client, kind: types.MessageType) -> list[str]:
    return [m.message for m in client.messages if m.type == kind]


async def test_a_reply_that_does_not_parse_is_asked_again_with_the_error(client, emulator, tmp_path, sample):
    """The first reply breaks the syntax; the second request (told why) is applied."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(reply="broken", count=1)
    result = await run_edit(client, sample, REGION_LINE, FIX)
    assert result["applied"] is True and result["tier"] == "fast"
    assert client.editor.text(sample) == FIXED
    assert emulator.stats()["responses"] == 2


async def test_a_second_broken_reply_escalates_to_the_deep_tier(client, emulator, tmp_path, sample):
    """Two broken fast replies: the deep tier (over HTTP) serves the edit, and the summary says why."""
    deep = {"deep": {"baseUrl": emulator.url, "apiKey": emulator.api_key, "transport": "http"}}
    await start(client, emulator, tmp_path, options=deep)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(reply="broken", count=2)
    result = await run_edit(client, sample, REGION_LINE, FIX)
    assert result["applied"] is True and result["tier"] == "deep"
    assert "failed validation" in result["escalation"]
    assert client.editor.text(sample) == FIXED
    assert emulator.stats()["http_requests"] == 1


async def test_broken_replies_without_a_deep_tier_change_nothing(client, emulator, tmp_path, sample):
    """Fast tier twice broken, no deep tier configured: a clear message, an unchanged buffer."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(reply="broken", count=2)
    result = await run_edit(client, sample, REGION_LINE, FIX)
    assert result["applied"] is False and result["error"]["code"] == "invalid_edit"
    assert "does not parse" in _messages(client, types.MessageType.Error)[0]
    assert client.editor.text(sample) == SAMPLE and client.editor.applied == []
    assert emulator.stats()["responses"] == 2


@pytest.mark.parametrize("full_sync", [False, True], ids=["ranged changes", "whole-text changes"])
async def test_typing_elsewhere_while_the_model_answers_is_rebased(client, emulator, tmp_path, sample, full_sync):
    """A line typed above the region mid-stream (paced emulator): the edit follows the
    text, whether the client sends the change or the whole text after it."""
    await start(client, emulator, tmp_path)
    client.editor.full_sync = full_sync
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, REGION_LINE, FIX))
    await wait_emulator(emulator, lambda s: s["deltas"] >= 1)  # the reply is streaming
    client.editor.type_text(sample, 0, 0, "# 😀 note\n")
    result = await edit
    assert result["applied"] is True
    assert client.editor.text(sample) == "# 😀 note\n" + FIXED
    assert result["region"] == {"start_line": REGION_LINE + 1, "end_line": REGION_LINE + 2}


@pytest.mark.parametrize(
    "where, typed",
    [((REGION_LINE, 0), "@staticmethod\n"), ((REGION_LINE + 2, 0), "\n\ndef perimeter(r):\n    return 2 * r\n")],
    ids=["right above the function", "right below it"],
)
async def test_typing_at_the_region_edge_while_the_model_answers_is_rebased(
    client, emulator, tmp_path, sample, where, typed
):
    """A line typed right against the edited function (its first character, or just past
    its end) is outside it: the edit follows the text."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, REGION_LINE + 1, FIX))
    await wait_emulator(emulator, lambda s: s["deltas"] >= 1)  # the reply is streaming
    client.editor.type_text(sample, *where, typed)
    result = await edit
    assert result["applied"] is True, result
    lines = SAMPLE.splitlines(keepends=True)
    expected = "".join(lines[: where[0]]) + typed + "".join(lines[where[0] :])
    assert client.editor.text(sample) == expected.replace("raduis", "radius")


async def test_typing_in_the_region_while_the_model_answers_drops_the_edit(client, emulator, tmp_path, sample):
    """A change inside the region mid-stream (paced emulator): nothing applied, the typing kept, a message."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, REGION_LINE, FIX))
    await wait_emulator(emulator, lambda s: s["deltas"] >= 1)  # the reply is streaming
    client.editor.type_text(sample, 4, 4, "x = 1\n    ")
    result = await edit
    assert result["applied"] is False and result["error"]["code"] == "stale_edit"
    assert client.editor.text(sample) == SAMPLE.replace("    return", "    x = 1\n    return")
    assert client.editor.applied == []


async def test_a_call_to_a_name_defined_nowhere_is_told(client, emulator, tmp_path, sample):
    """The edit is applied, and the user is warned about the call the model made up."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, REGION_LINE, "REPLACE 3.14 WITH compute_pi()")
    assert result["applied"] is True
    assert result["warnings"] == ["possible invented API: compute_pi()"]
    assert any("compute_pi()" in m for m in _messages(client, types.MessageType.Warning))
    assert "compute_pi()" in client.editor.text(sample)


async def test_a_call_to_a_known_name_is_not_told(client, emulator, tmp_path, sample):
    """Builtins and names the file defines raise no warning."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    result = await run_edit(client, sample, REGION_LINE, "REPLACE 3.14 WITH float(area(1))")
    assert result["applied"] is True and result["warnings"] == []
