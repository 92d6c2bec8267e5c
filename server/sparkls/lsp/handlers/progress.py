"""Cancellable progress for work that turns out to be slow.

Fast work shows nothing: the progress appears only if the work is still running after
`PROGRESS_DELAY` seconds, so a 10 ms edit never flickers a spinner and pays no extra
round trip. Once shown, it reports the tokens received so far (every
`REPORT_INTERVAL` seconds while they change), followed by the work's own detail when
the caller gives one (a deep task's phase and files). Cancelling that progress in the editor
(`window/workDoneProgress/cancel`) cancels the work at once, as `$/cancelRequest` does.

When the model has sent no text after its tier's `first_token_timeout`
(`session.STREAM_STALLED`), the user is asked once (`window/showMessageRequest`,
"Cancel" / "Keep waiting") and the progress says so; "Cancel" cancels the work.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

from lsprotocol import types

from sparkls.errors import Cancelled
from sparkls.models.progress import STREAM_PROGRESS, STREAM_STALLED
from sparkls.lsp.server import SparkServer

T = TypeVar("T")
PROGRESS_DELAY = 0.3
REPORT_INTERVAL = 0.1
CANCEL, KEEP_WAITING = "Cancel", "Keep waiting"


class _Tokens:
    """Deltas streamed so far for one piece of work (`session.STREAM_PROGRESS`), and
    whether its progress has begun in the editor."""

    def __init__(self) -> None:
        self.count = 0
        self.begun = False
        self.stalled = False  # no text after the tier's first_token_timeout
        self.created: asyncio.Future[None] | None = None  # the editor's answer to the token's creation

    def add(self, n: int) -> None:
        self.count += n


def _supports_progress(ls: SparkServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


def _message(tokens: _Tokens, detail: Callable[[], str | None] | None) -> str:
    """"N tokens received", then the work's own detail (a phase, say) when it has one."""
    extra = detail() if detail is not None else None
    waiting = " · still no text from the model (cancel to stop)" if tokens.stalled and not tokens.count else ""
    return f"{tokens.count} tokens received{waiting}" + (f" · {extra}" if extra else "")


def _offer_cancel(ls: SparkServer, work: asyncio.Future[T], tokens: _Tokens, message: str) -> None:
    """Ask once whether to cancel `work`, whose model has sent no text for a while."""
    tokens.stalled = True

    async def ask() -> None:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"Spark: {message}",
            actions=[types.MessageActionItem(title=CANCEL), types.MessageActionItem(title=KEEP_WAITING)],
        )
        try:
            # Shielded, as the progress token below: when the work ends first and this
            # is cancelled, the editor's late answer still finds a live request.
            choice = await asyncio.shield(ls.window_show_message_request_async(params))
        except Exception:  # a client without showMessageRequest: tell, at least
            ls.notify_user(message, types.MessageType.Warning)
            return
        if choice is not None and choice.title == CANCEL and not work.done():
            work.cancel()

    asking = ls.spawn(ask(), "asking whether to cancel a silent request")
    work.add_done_callback(lambda _: asking.cancel())


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
    # Shielded: when the work ends first and this is cancelled, the request stays open
    # for the editor's late answer (Helix answers while it blocks on a resolve), which
    # then finds a live future instead of a cancelled one (InvalidStateError on stderr).
    tokens.created = asyncio.ensure_future(ls.work_done_progress.create_async(token))
    await asyncio.shield(tokens.created)
    if work.done():
        return False
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    tokens.begun = True
    future = ls.work_done_progress.tokens.get(token)
    if future is not None:
        future.add_done_callback(lambda f: work.cancel() if f.cancelled() else None)
    reported = "0 tokens received" if detail is None else None
    while not work.done():
        message = _message(tokens, detail)
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
    tokens = _Tokens()
    context = contextvars.copy_context()
    context.run(STREAM_PROGRESS.set, tokens.add)  # counted in the work's own context only
    if asyncio.iscoroutine(work):
        task = asyncio.get_running_loop().create_task(work, context=context)
    else:  # a task already running (a fix computed ahead): its tokens are not counted
        task = asyncio.ensure_future(work)
    context.run(STREAM_STALLED.set, lambda message: _offer_cancel(ls, task, tokens, message))
    token = f"sparkls-{uuid.uuid4().hex[:12]}"
    shower = asyncio.ensure_future(_show(ls, title, task, token, tokens, detail)) if _supports_progress(ls) else None
    try:
        return await task  # cancelling us ($/cancelRequest) cancels `task` too
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # $/cancelRequest: pygls answers the request
        raise Cancelled(f"{title} was cancelled; nothing was changed.") from None
    finally:
        if shower is not None:
            shower.cancel()
        if tokens.begun:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        elif tokens.created is not None:
            _end_when_granted(ls, title, token, tokens.created)
        ls.work_done_progress.tokens.pop(token, None)


def _end_when_granted(ls: SparkServer, title: str, token: str, created: asyncio.Future[None]) -> None:
    """The work ended while the editor had yet to grant its progress token: once it
    does, begin and end that progress at once. An editor that starts a spinner when it
    grants a token (Helix, which answers after a blocking resolve) stops it only at an
    end, so without one it would spin for the rest of the session."""

    def granted(future: asyncio.Future[None]) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # refused, or the session ended: there is nothing to close
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
        ls.work_done_progress.tokens.pop(token, None)

    if created.done():
        granted(created)
    else:
        created.add_done_callback(granted)
