"""sparkls's language server with a probe on its event loop, for the benchmarks.

    python bench/loop_probe.py REPORT THRESHOLD_MS [sparkls arguments, e.g. --stdio]

Runs `sparkls.cli.main` unchanged, except that every event-loop callback (a task's
step, a protocol's `data_received`, a timer) that runs `THRESHOLD_MS` or longer is
appended to the file `REPORT` as one JSON line: `{"at": <time.monotonic() when it
started>, "ms": <how long it ran>, "what": <the task's coroutine or the callback>}`.
`time.monotonic()` is the system's monotonic clock, so a benchmark in another process
can tell which of its phases a callback fell in. The longest callback is how long
every other request had to wait, at worst, behind that work.

Not part of the server: nothing in `server/` knows of it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any


def _what(handle: asyncio.Handle) -> str:
    callback: Any = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {getattr(coro, '__qualname__', coro)!s}"
    return repr(handle)[:200]


def install(report: str, threshold_ms: float) -> None:
    out = open(report, "a", buffering=1)  # noqa: SIM115 - open for the process's life
    original = asyncio.events.Handle._run
    threshold = threshold_ms / 1000

    def timed_run(self: asyncio.Handle) -> None:
        started = time.monotonic()
        original(self)
        took = time.monotonic() - started
        if took >= threshold:
            out.write(json.dumps({"at": started, "ms": round(took * 1000, 3), "what": _what(self)}) + "\n")

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]


def read_report(report: str, since: float = 0.0, until: float = float("inf")) -> list[dict[str, Any]]:
    """The callbacks of `report` that started within [since, until)."""
    try:
        lines = open(report).read().splitlines()
    except FileNotFoundError:
        return []
    entries = [json.loads(line) for line in lines if line.strip()]
    return [e for e in entries if since <= e["at"] < until]


if __name__ == "__main__":
    install(sys.argv[1], float(sys.argv[2]))
    from sparkls.cli import main

    sys.exit(main(sys.argv[3:]))
