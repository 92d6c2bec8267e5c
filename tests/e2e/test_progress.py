"""A slow edit shows work-done progress with the tokens received, and can be cancelled from it."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "area.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def _edit_progress(client) -> dict[str, list]:
    """The progress reports of edits (not the workspace index's), by token."""
    return {
        token: reports
        for token, reports in client.progress_reports.items()
        if reports and isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == "Spark edit"
    }


async def _progress_begun(client) -> str:
    """The token of the first edit progress the server began (polled, bounded)."""
    for _ in range(1000):
        if found := _edit_progress(client):
            return next(iter(found))
        await asyncio.sleep(0.01)
    raise AssertionError("no progress was begun")


async def test_a_slow_edit_reports_the_tokens_received(client, emulator, tmp_path, sample):
    """Paced at 20 tokens/s, the edit begins a cancellable progress, reports tokens, and ends it."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=20, count=1)
    result = await run_edit(client, sample, 0, FIX)
    assert result["applied"] is True
    [reports] = _edit_progress(client).values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable is True
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert messages and all(m.endswith(" tokens received") for m in messages)
    counts = [int(m.split()[0]) for m in messages]
    assert counts == sorted(counts) and counts[-1] > 0


async def test_a_fast_edit_shows_no_progress(client, emulator, tmp_path, sample):
    """An unpaced edit finishes before the progress delay: no spinner at all."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    assert (await run_edit(client, sample, 0, FIX))["applied"] is True
    assert _edit_progress(client) == {}


async def test_cancelling_the_progress_cancels_the_edit(client, emulator, tmp_path, sample):
    """window/workDoneProgress/cancel stops the edit at once; nothing is applied."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=2, count=1)
    edit = asyncio.ensure_future(run_edit(client, sample, 0, FIX))
    token = await _progress_begun(client)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await edit
    assert result["applied"] is False and result["error"]["code"] == "cancelled"
    assert client.editor.text(sample) == SAMPLE and client.editor.applied == []
