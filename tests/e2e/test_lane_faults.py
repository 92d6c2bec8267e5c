"""Faults on the lane connection, through the real server: an edit whose stream the
peer breaks (a frame that is not JSON, a silence with no pongs) is sent again on a
new connection and applied once; one that meets the fault again changes nothing and
says so. The model here is the independent lane peer (tests/peer/lanes.py), in this
test's process."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start
from tests.peer.lane_faults import HEAD, STALL, whole
from tests.peer.lanes import LanePeer
from tests.peer.variants import KEY

SAMPLE = "import math\n\n\ndef area(radius):\n    return math.pi * raduis ** 2\n"
FIXED = "import math\n\n\ndef area(radius):\n    return math.pi * radius ** 2\n"
NOT_JSON = ("raw", "<html>502 Bad Gateway</html>")


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


async def _edit_against(client, tmp_path, sample, peer: LanePeer) -> dict:
    model = SimpleNamespace(url=peer.base_url(), api_key=KEY)
    await start(client, model, tmp_path, fast={"keepaliveTimeout": STALL}, options={"context": {"index": False}})
    client.editor.open(sample, SAMPLE)
    return await run_edit(client, sample, 4, "use the parameter")


@pytest.mark.parametrize("fault", [NOT_JSON, ("silent",)], ids=["not JSON", "silent"])
async def test_an_edit_cut_by_a_fault_is_resent_and_applied_once(client, tmp_path, sample, fault):
    async with LanePeer(lambda n: [*whole()[:HEAD], fault] if n == 1 else whole()) as peer:
        result = await _edit_against(client, tmp_path, sample, peer)
    assert result["applied"] is True, result
    assert client.editor.text(sample) == FIXED and len(client.editor.applied) == 1
    assert peer.requests == 2 and peer.connections == 2


async def test_an_edit_that_meets_the_fault_again_changes_nothing_and_says_so(client, tmp_path, sample):
    async with LanePeer(lambda n: [*whole()[:HEAD], NOT_JSON]) as peer:
        result = await _edit_against(client, tmp_path, sample, peer)
    assert result["applied"] is False and result["error"]["code"] == "stream_broken"
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1 and "sent a frame that is not JSON" in errors[0] and errors[0].endswith("Nothing was changed.")
    assert client.editor.text(sample) == SAMPLE and client.editor.applied == []
    assert peer.requests == 2
