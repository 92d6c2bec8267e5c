"""Adding input to a response still streaming: `response.steer`, as a handle.

A caller that may want to steer its request passes a `Steering` to
`TierSession.complete`; while the response streams on a lane, `steer(prompt)` sends
`prompt`'s new input as a `response.steer` for it. The service may stop the response
at a safe boundary (`response.incomplete`, reason `steered`) or let it finish, and
then starts a successor that continues it with the new input; the successor's
`response.created` commits the input. `steer()` returns True only then: the reply
`complete` returns answers the steered conversation. It returns False when the input
was not committed (not a lane, no response yet, already finished, refused with
`response.steer.failed`, or left queued with `response.steer.pending`): the caller
then does what it would have done without steering (a new request), and the first
request's reply answers only its own question.

No I/O of its own: the session gives it the send function and its events.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from sparkls.errors import ModelError
from sparkls.guard.wire import Wire, require_wire
from sparkls.models.events import Steered, steer_message

logger = logging.getLogger(__name__)


class Steering:
    """One request's steering: where to send, and what became of each input."""

    def __init__(self) -> None:
        self._send: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        self.prompt: Wire | None = None  # the whole request, as sent
        self.response_id: str | None = None
        self._sent: deque[asyncio.Future[bool]] = deque()  # no answer yet
        self._accepted: deque[asyncio.Future[bool]] = deque()  # accepted, not committed
        self.committed: list[Wire] = []  # the conversations a successor answered, in order
        self._pending: list[Wire] = []  # inputs sent, in order, not yet committed or refused
        self.closed = False
        self._between = False  # its response ended, its successor (if any) not yet created
        self._waiters: list[asyncio.Future[None]] = []  # `ready()` callers, woken by `created`/`close`

    # -- the caller's side ---------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether a steer may be sent now."""
        return not self.closed and not self._between and self._send is not None and self.response_id is not None

    @property
    def attached(self) -> bool:
        """Whether the request left on a lane (a steer may be sent once its response is created)."""
        return self._send is not None and not self.closed

    async def ready(self, timeout: float) -> bool:
        """Until a steer may be sent: the request on a lane whose response (or the
        successor a steer makes) is not created yet is waited for, `timeout` seconds at
        most; whether one may be sent now. Not on a lane: at once, False."""
        if self.live or not self.attached:
            return self.live
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout)
        except TimeoutError:
            pass
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        return self.live

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def steer(self, prompt: Wire, *, whole: Wire | None = None) -> bool:
        """Send `prompt`'s input to the response in flight; True once a successor
        committed it, False when it was not (see the module doc). `whole`: the
        conversation with this input at its end, as a follow-up resent in full would
        send it (`committed` keeps it)."""
        require_wire(prompt)
        if not self.live:
            return False
        assert self._send is not None and self.response_id is not None
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        kept = require_wire(whole) if whole is not None else prompt
        self._sent.append(future)
        self._pending.append(kept)
        try:
            await self._send(steer_message(self.response_id, prompt))
        except ModelError as exc:
            logger.info("steering could not be sent: %s", exc)
            self._drop(future, kept)
            return False
        return await future

    # -- the session's side ---------------------------------------------------------

    def attach(self, send: Callable[[dict[str, Any]], Awaitable[None]], prompt: Wire) -> None:
        """`prompt` is leaving on a lane: steering goes through `send`."""
        self._send, self.prompt = send, prompt

    def created(self, response_id: str) -> None:
        """A response (the first, or a successor) was created: a successor commits
        every input accepted before it."""
        if self.response_id is not None and self._accepted:
            while self._accepted:
                self._settle(self._accepted.popleft(), True)
        self.response_id, self._between = response_id, False
        self._wake()

    def ended(self) -> None:
        """The response ended; a steer now would name a finished response: none is sent
        until its successor (if any) is created."""
        self._between = True

    def on(self, event: Steered) -> None:
        if event.outcome == "accepted" and self._sent:
            self._accepted.append(self._sent.popleft())
            return
        # failed or pending: not committed. An accepted input that fails later names
        # its steering id; one refused at once has none.
        queue = self._accepted if event.steer_id is not None and self._accepted else self._sent
        if queue:
            logger.info("steering not applied (%s%s)", event.outcome, f": {event.code}" if event.code else "")
            self._settle(queue.popleft(), False)

    @property
    def awaiting_successor(self) -> bool:
        """Accepted input that only a successor can commit (the stream goes on)."""
        return bool(self._accepted)

    def close(self) -> None:
        """The request ended: whatever was not committed never will be."""
        self.closed = True
        for queue in (self._sent, self._accepted):
            while queue:
                self._settle(queue.popleft(), False)
        self._wake()

    def _settle(self, future: asyncio.Future[bool], committed: bool) -> None:
        prompt = self._pending.pop(0) if self._pending else None
        if committed and prompt is not None:
            self.committed.append(prompt)
        if not future.done():
            future.set_result(committed)

    def _drop(self, future: asyncio.Future[bool], prompt: Wire) -> None:
        if future in self._sent:
            self._sent.remove(future)
        if prompt in self._pending:
            self._pending.remove(prompt)
        if not future.done():
            future.set_result(False)
