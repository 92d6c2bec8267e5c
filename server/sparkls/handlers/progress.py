"""Cancellable progress for work that turns out to be slow.

Fast work shows nothing: the progress appears only if the work is still running after
`PROGRESS_DELAY` seconds, so a 10 ms edit never flickers a spinner and pays no extra
round trip. Cancelling that progress in the editor (`window/workDoneProgress/cancel`)
cancels the work at once, as `$/cancelRequest` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable
from typing import TypeVar

from lsprotocol import types

from sparkls.errors import Cancelled
from sparkls.server import SparkServer

T = TypeVar("T")
PROGRESS_DELAY = 0.15


def _supports_progress(ls: SparkServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


async def _show(ls: SparkServer, title: str, work: asyncio.Task[T], token: str) -> bool:
    """Create and begin the progress; cancelling it cancels `work`. True if begun."""
    await asyncio.sleep(PROGRESS_DELAY)
    if work.done():
        return False
    await ls.work_done_progress.create_async(token)
    if work.done():
        return False
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    future = ls.work_done_progress.tokens.get(token)
    if future is not None:
        future.add_done_callback(lambda f: work.cancel() if f.cancelled() else None)
    return True


async def with_progress(ls: SparkServer, title: str, work: Awaitable[T]) -> T:
    """Run `work`, with a cancellable progress if it takes long."""
    task = asyncio.ensure_future(work)
    if not _supports_progress(ls):
        return await task
    token = f"sparkls-{uuid.uuid4().hex[:12]}"
    shower = asyncio.ensure_future(_show(ls, title, task, token))
    try:
        return await task  # cancelling us ($/cancelRequest) cancels `task` too
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # $/cancelRequest: pygls answers the request
        raise Cancelled(f"{title} was cancelled; nothing was changed.") from None
    finally:
        shower.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            if shower.done() and shower.result():
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        ls.work_done_progress.tokens.pop(token, None)
