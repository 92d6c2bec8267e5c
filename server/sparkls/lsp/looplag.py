"""The event loop's longest callbacks, measured for the test suite.

The server answers every message on one event loop, so one callback that runs long
(a parse, a diff, a redaction done on the loop) delays everything behind it: typing,
cancellation, the other lanes' streams. With `SPARKLS_LOOP_LAG_DIR` set (the test suite
sets it: tests/looplag.py), `watch(loop)` times every callback the loop runs and
writes the longest few, with what they ran, to a file of its own in that folder every
`WRITE_EVERY` seconds and at the end (`LoopLag.write`): how long each took, and how
much of that was the loop's own thread at work (CPU time: on a loaded machine the
rest is other processes, or a worker thread holding the GIL). Unset (always, for users),
nothing is measured.

Start-up is counted apart: the callbacks that began before `started()` (called once
`initialized` has read the settings) import what reading settings and opening the
first connection need, once, while no request can be served yet anyway.

It times `asyncio.Handle._run`, which runs every callback and every task step; the
wrapper is installed once per process and times only the loops being watched.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

ENV = "SPARKLS_LOOP_LAG_DIR"
WRITE_EVERY = 2.0  # seconds
KEEP = 5  # the longest callbacks kept

_watched: dict[asyncio.AbstractEventLoop, LoopLag] = {}
_original_run: Any = None


class LoopLag:
    def __init__(self, loop: asyncio.AbstractEventLoop, path: Path) -> None:
        self.loop = loop
        self.path = path
        self.callbacks = 0
        self.over_100ms = 0
        # (seconds, CPU seconds of the loop's thread, what), longest first: after start-up, and of it
        self.longest: list[tuple[float, float, str]] = []
        self.startup: list[tuple[float, float, str]] = []
        self.started_at: float | None = None

    def record(self, began: float, seconds: float, cpu: float, what: str) -> None:
        startup = self.started_at is None or began < self.started_at
        if not startup and seconds > 0.1:
            self.over_100ms += 1
        kept = self.startup if startup else self.longest
        if len(kept) < KEEP or seconds > kept[-1][0]:
            kept.append((seconds, cpu, what))
            kept.sort(reverse=True)
            del kept[KEEP:]

    def write(self) -> None:
        report = {
            "pid": os.getpid(),
            "callbacks": self.callbacks,
            "over_100ms": self.over_100ms,
            "longest": [{"ms": round(s * 1000, 1), "cpu_ms": round(c * 1000, 1), "callback": w} for s, c, w in self.longest],
            "startup": [{"ms": round(s * 1000, 1), "cpu_ms": round(c * 1000, 1), "callback": w} for s, c, w in self.startup],
        }
        self.path.write_text(json.dumps(report))

    def _write_later(self) -> None:
        if _watched.get(self.loop) is self:
            self.write()
            self.loop.call_later(WRITE_EVERY, self._write_later)

    def stop(self) -> None:
        _watched.pop(self.loop, None)
        self.write()


def started() -> None:
    """Start-up is over for the running loop's monitor, if it has one (see the module doc)."""
    lag = _watched.get(asyncio.get_running_loop())
    if lag is not None and lag.started_at is None:
        lag.started_at = time.perf_counter()


def watch(loop: asyncio.AbstractEventLoop) -> LoopLag | None:
    """Time `loop`'s callbacks when `SPARKLS_LOOP_LAG_DIR` is set; None otherwise."""
    folder = os.environ.get(ENV)
    if not folder:
        return None
    global _original_run
    if _original_run is None:
        _original_run = asyncio.Handle._run
        asyncio.Handle._run = _timed_run  # type: ignore[method-assign]
    lag = LoopLag(loop, Path(folder) / f"{os.getpid()}-{id(loop)}.json")
    _watched[loop] = lag
    loop.call_later(WRITE_EVERY, lag._write_later)
    return lag


def _timed_run(handle: asyncio.Handle) -> None:
    lag = _watched.get(handle._loop)  # type: ignore[attr-defined]
    if lag is None:
        return _original_run(handle)
    handler = _pygls_handler(handle)  # named before the step: a finished coroutine has no frame
    began, cpu = time.perf_counter(), time.thread_time()
    try:
        return _original_run(handle)
    finally:
        took = time.perf_counter() - began
        lag.callbacks += 1
        if took > 0.005:  # naming it costs more than most callbacks take
            lag.record(began, took, time.thread_time() - cpu, _described(handle, handler))


def _pygls_handler(handle: asyncio.Handle) -> str | None:
    """The handler a pygls handler task runs (its wrapper's `f`), if this step is one's."""
    owner = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
    if not isinstance(owner, asyncio.Task):
        return None
    coro = owner.get_coro()
    if not getattr(coro, "__qualname__", "").endswith("wrap_with_server.<locals>.wrapped"):
        return None
    frame = getattr(coro, "cr_frame", None)
    wrapped = frame.f_locals.get("f") if frame is not None else None
    return getattr(wrapped, "__qualname__", None)


def _described(handle: asyncio.Handle, handler: str | None) -> str:
    """What the callback ran: a task by its coroutine (a pygls handler by the handler),
    and where the step stopped; else the function."""
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if not isinstance(owner, asyncio.Task):
        return str(getattr(callback, "__qualname__", None) or repr(callback))[:200]
    coro = owner.get_coro()
    name = f"handler {handler}" if handler else getattr(coro, "__qualname__", repr(coro))
    inner = coro
    while getattr(inner, "cr_await", None) is not None and hasattr(inner.cr_await, "cr_code"):
        inner = inner.cr_await
    stop = f", stopped in {inner.cr_code.co_qualname}" if inner is not coro and hasattr(inner, "cr_code") else ""
    return f"task {name}{stop}"[:200]
