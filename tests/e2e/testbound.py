"""The bound on every end-to-end test: no test awaits forever.

A test that awaits what never comes (a notification the server never sends, an answer
its own client failed to send) would hang the whole suite, for as long as CI lets it.
The request watchdog (watchdog.py) bounds requests; this bounds the rest. Every e2e
test runs within `TEST_BOUND` seconds (`@pytest.mark.bound(seconds)` for one that
needs longer): past it, the test is cancelled where it awaits, and fails saying what
was pending — the line it awaited at, each request still unanswered on every client it
started (their methods, both directions), the notifications it waited for, and an
answer its client could not send (after which pytest-lsp sends no `shutdown`, so the
server would never be told to exit).

At the test's end every server one of its clients started and did not stop is stopped
(`end_session` stops one with `shutdown` and `exit`, bounded), and what was overdue
fails the test. Why not pytest-timeout: it dumps the threads' stacks, where an asyncio
test shows only the loop's `select`; it names no awaited line, no pending request,
and (in its signal mode) interrupts the loop wherever it is. This runs on the test's
own loop, so it cannot catch a test that blocks the loop itself: the tests' blocking
calls (subprocesses, the emulator's control endpoint) carry their own timeouts.
"""

from __future__ import annotations

import asyncio
import inspect
import linecache
import os
from pathlib import Path
from typing import Any

from tests.e2e.watchdog import LSP_BOUND, Watchdog

TEST_BOUND = float(os.environ.get("SPARKLS_TEST_BOUND", 150))  # seconds; above the watchdog's longest request bound
RECHECK = 1.0  # seconds: past its bound, how often to look for the test to cancel
_current: TestBound | None = None


def adopt(client: Any) -> None:
    """Watch `client` (its requests, its server) if a test is running under its bound."""
    if _current is not None and getattr(client, "watchdog", None) is None:
        client.watchdog = Watchdog(client)
        _current.clients.append(client)


class TestBound:
    """The running test's bound, and the clients it started."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    def __init__(self, item: Any, seconds: float) -> None:
        self.item, self.seconds = item, seconds
        self.clients: list[Any] = []
        self.expired: str | None = None  # what was pending when the bound ran out
        self.cancelled = False  # the test was cancelled with it (so it failed saying so)
        self._handle = asyncio.get_running_loop().call_later(seconds, self._expire)

    def __enter__(self) -> TestBound:
        global _current
        _current = self
        return self

    def __exit__(self, *exc: object) -> None:
        global _current
        _current = None
        self._handle.cancel()

    def _expire(self) -> None:
        task = self._test_task()
        self.expired = self.pending(task)
        if task is not None:
            self.cancelled = task.cancel(self.expired)
        else:  # a fixture's setup or teardown: the test itself, if it ever starts, is cut at once
            self._handle = asyncio.get_running_loop().call_later(RECHECK, self._expire)

    def _test_task(self) -> asyncio.Task[Any] | None:
        code = getattr(inspect.unwrap(self.item.function), "__code__", None)
        for task in asyncio.all_tasks():
            coro = task.get_coro()
            if getattr(coro, "cr_code", None) is code and not task.done():
                return task
        return None

    def pending(self, task: asyncio.Task[Any] | None) -> str:
        """What the test awaited and what was pending, one item a line."""
        lines = [f"the test bound: still running after {self.seconds:g} s"]
        if task is not None and (where := _awaiting(task)):
            lines.append(f"awaiting {where}")
        for client in self.clients:
            lines += [f"pending: {p}" for p in client.watchdog.pending()]
            futures = getattr(client.protocol, "_notification_futures", {})
            lines += [f"awaiting the notification {method}" for method, f in futures.items() if not f.done()]
            lines += client.watchdog.failures()
        return "\n  ".join(lines)

    async def end(self) -> list[str]:
        """Stop every server left running; what was overdue or failed, as messages."""
        problems = [self.expired] if self.expired is not None and not self.cancelled else []
        for client in self.clients:
            if (stopped := await _stop_left_running(client)) is not None:
                client.watchdog.note(stopped)
            said = client.watchdog.overdue() + client.watchdog.failures()
            problems += [p for p in said if self.expired is None or p not in self.expired]
        return problems


def _awaiting(task: asyncio.Task[Any]) -> str:
    """The test's line it awaits at, and the innermost await under it."""
    frames, coro = [], task.get_coro()
    while coro is not None and (frame := getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)):
        frames.append(frame)  # down the chain of awaits: the task's own stack shows only its top
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    if not frames:
        return ""
    mine = [f for f in frames if Path(f.f_code.co_filename).name.startswith("test_")] or frames[:1]
    test, inner = mine[-1], frames[-1]
    line = linecache.getline(test.f_code.co_filename, test.f_lineno).strip()
    said = f"{Path(test.f_code.co_filename).name}:{test.f_lineno} `{line}`"
    if inner is not test:
        said += f" (in {inner.f_code.co_name}, {Path(inner.f_code.co_filename).name}:{inner.f_lineno})"
    return said


def _running(client: Any) -> bool:
    server = getattr(client, "_server", None)
    return server is not None and server.returncode is None


async def end_session(client: Any) -> str | None:
    """`shutdown` and `exit` for `client`'s server, bounded; a server still running after
    (or never initialized) is stopped. What went wrong fails the test at its end (and
    is returned). (pytest-lsp sends no `shutdown` once its client has failed, and its
    `stop()` then waits for an exit that never comes.)"""
    problem = None
    if getattr(client, "error", None) is not None:
        problem = f"the client failed ({type(client.error).__name__}: {client.error}): no shutdown could be sent"
    elif getattr(client, "capabilities", None) is not None:
        try:
            async with asyncio.timeout(LSP_BOUND):
                await client.shutdown_session()
        except TimeoutError:
            problem = f"the server had not exited {LSP_BOUND:g} s after shutdown and exit"
        except Exception as exc:  # the server is stopped below all the same
            problem = f"shutdown failed: {type(exc).__name__}: {exc}"
    await _stop_left_running(client)
    if problem is not None and getattr(client, "watchdog", None) is not None:
        client.watchdog.note(problem)
    return problem


async def _stop_left_running(client: Any) -> str | None:
    if not _running(client):
        return None
    server = client._server
    server.terminate()
    try:
        async with asyncio.timeout(10):
            await server.wait()
    except TimeoutError:
        server.kill()
    return f"a server the test started (pid {server.pid}) was still running at its end: stopped"
