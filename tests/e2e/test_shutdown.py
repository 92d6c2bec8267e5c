"""`shutdown` with requests in flight, then `exit`: fifty sessions in a row.

Each session is the real server (`stdio.serve`, in a thread of this process: see
pipes.py) against the emulator, shut down with 0, 1 or 10 requests in flight: edits
streaming, an edit whose `workspace/applyEdit` the editor has not answered, a
`workspace/configuration` pull the editor has not answered. `shutdown` answers null;
every request in flight is answered "cancelled" before it, and each of the server's
requests still awaiting the editor is withdrawn (`$/cancelRequest`); `exit` ends the
process's work with no task abandoned and no thread left behind.
"""

from __future__ import annotations

import itertools
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.pipes import SAMPLE, shut_down_with

REQUEST_CANCELLED = -32800
SESSIONS = 50


async def _session(emulator: Any, root: Path, in_flight: int, *, index: bool) -> int:
    """One session shut down with `in_flight` requests in flight; its exit code."""
    ended = await shut_down_with(emulator, root, in_flight, index=index)
    assert "error" not in ended.shutdown_answer and ended.shutdown_answer["result"] is None
    codes = [a.get("error", {}).get("code") for a in ended.in_flight_answers]
    assert codes == [REQUEST_CANCELLED] * len(codes), "shutdown answered before the requests in flight"
    assert ended.withdrawn == ended.unanswered
    return ended.exit_code


async def test_shutdown_with_requests_in_flight_fifty_times(emulator, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """0, 1 and 10 requests in flight, in turn, fifty sessions: each shuts down clean."""
    (tmp_path / "area.py").write_text(SAMPLE)  # as the editor opens it
    caplog.set_level(logging.WARNING)
    caplog.set_level(logging.INFO, "sparkls.lsp.stdio")  # a task still running at exit
    await _session(emulator, tmp_path, 1, index=True)  # the first one loads what every session shares
    threads = set(threading.enumerate())
    counts = itertools.cycle([0, 1, 10])
    for n in range(SESSIONS):
        in_flight = next(counts)
        assert await _session(emulator, tmp_path, in_flight, index=n % 2 == 0) == 0
        for thread in set(threading.enumerate()) - threads:
            thread.join(10)  # one on its way out (a child's reaper) is not left behind
        left = {t for t in threading.enumerate() if t not in threads}
        assert not left, f"session {n} ({in_flight} in flight) left threads behind: {left}"
    problems = [r.getMessage() for r in caplog.records if r.name.startswith("sparkls.lsp") and "exit" in r.getMessage()]
    problems += [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("sparkls.lsp")]
    assert not problems, problems
