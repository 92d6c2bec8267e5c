"""Cancellable progress for work that turns out to be slow.

Fast work shows nothing: the progress appears only if the work is still running after
`PROGRESS_DELAY` seconds, so a 10 ms edit never flickers a spinner and pays no extra
round trip. Once shown, it reports the tokens received so far (every
`REPORT_INTERVAL` seconds while they change), followed by the work's own detail when
the caller gives one (a deep task's phase and files). Cancelling that progress in the editor
(`window/workDoneProgress/cancel`) cancels the work at once, as `$/cancelRequest` does.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

from lsprotocol import types

from sparkls.errors import Cancelled
from sparkls.models.session import STREAM_PROGRESS
from sparkls.server import SparkServer

T = TypeVar("T")
PROGRESS_DELAY = 0.3
REPORT_INTERVAL = 0.1


class _Tokens:
    """Deltas streamed so far for one piece of work (`session.STREAM_PROGRESS`), and
    whether its progress has begun in the editor."""

    def __init__(self) -> None:
        self.count = 0
        self.begun = False

    def add(self, n: int) -> None:
        self.count += n


def _supports_progress(ls: SparkServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


def _message(count: int, detail: Callable[[], str | None] | None) -> str:
    """"N tokens received", then the work's own detail (a phase, say) when it has one."""
    extra = detail() if detail is not None else None
    return f"{count} tokens received" + (f" · {extra}" if extra else "")


async def _show(
    ls: SparkServer,
    title: str,
    work: asyncio.Task[T],
    token: str,
    tokens: _Tokens,
    detail: Callable[[], str | None] | None = None,
) -> bool:
    """Create and begin the progress, then report the tokens received (and `detail()`)
    until `work` is done (the caller cancels this); cancelling the progress cancels `work`."""
    await asyncio.sleep(PROGRESS_DELAY)
    if work.done():
        return False
    await ls.work_done_progress.create_async(token)
    if work.done():
        return False
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    tokens.begun = True
    future = ls.work_done_progress.tokens.get(token)
    if future is not None:
        future.add_done_callback(lambda f: work.cancel() if f.cancelled() else None)
    reported = "0 tokens received" if detail is None else None
    while not work.done():
        message = _message(tokens.count, detail)
        if message != reported:
            reported = message
            ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=message))
        await asyncio.sleep(REPORT_INTERVAL)
    return True


async def with_progress(
    ls: SparkServer, title: str, work: Awaitable[T], *, detail: Callable[[], str | None] | None = None
) -> T:
    """Run `work`, with a cancellable progress if it takes long; `detail()`, when
    given, is added to each report ("N tokens received · planning (4 files)")."""
    if not _supports_progress(ls):
        return await work
    tokens = _Tokens()
    context = contextvars.copy_context()
    context.run(STREAM_PROGRESS.set, tokens.add)  # counted in the work's own context only
    if asyncio.iscoroutine(work):
        task = asyncio.get_running_loop().create_task(work, context=context)
    else:  # a task already running (a fix computed ahead): its tokens are not counted
        task = asyncio.ensure_future(work)
    token = f"sparkls-{uuid.uuid4().hex[:12]}"
    shower = asyncio.ensure_future(_show(ls, title, task, token, tokens, detail))
    try:
        return await task  # cancelling us ($/cancelRequest) cancels `task` too
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # $/cancelRequest: pygls answers the request
        raise Cancelled(f"{title} was cancelled; nothing was changed.") from None
    finally:
        shower.cancel()
        if tokens.begun:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        ls.work_done_progress.tokens.pop(token, None)
