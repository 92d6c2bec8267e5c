"""The request watchdog of the end-to-end suite: no request may stay pending past its bound.

A request that never ends would hang the suite, or surface as a timeout that names
nothing. The watchdog sees both directions on the test's client: the requests the test
sends (it wraps the client protocol's `send_request`) and the server's requests to the
client (`_handle_request`, until the client's `_send_response`). Every `CHECK_EVERY`
seconds it looks at what is pending: a request of the test's past its bound has its
future failed with a message naming the method, so the test awaiting it fails there;
a request of the server's the client left unanswered is noted, and so is an answer the
client failed to send (pytest-lsp then stops talking to the server). Whatever went
overdue or failed fails the test at its end (testbound.py asks `overdue()` and
`failures()`), awaited or not; `pending()` says what is still waiting, for a test
that outlived its own bound.

Bounds are the server's own (docs/model-protocol.md, "Every request ends"): a request
that waits on the model ends within `request_timeout` (120 s unless the test set its
own, `fast.requestTimeout`) plus `MARGIN`; any other within `LSP_BOUND`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

CHECK_EVERY = 0.5
LSP_BOUND = 30.0  # seconds: requests that wait on no model (initialize, a code action list, shutdown, ...)
MARGIN = 15.0  # beyond the request's own limit: the progress, the apply, a loaded machine
MODEL_METHODS = frozenset({
    "workspace/executeCommand", "codeAction/resolve", "textDocument/inlineCompletion", "textDocument/completion",
})
DEFAULT_REQUEST_TIMEOUT = 120.0


@dataclass
class Pending:
    method: str
    direction: str  # "sent by the test" | "sent by the server"
    since: float
    bound: float

    def overdue_for(self, now: float) -> bool:
        return now - self.since > self.bound

    def describe(self) -> str:
        return f"{self.method} ({self.direction}) stayed pending past its bound of {self.bound:g} s"

    def waiting(self, now: float) -> str:
        return f"{self.method} ({self.direction}) for {now - self.since:.1f} s"


class Watchdog:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.request_timeout = DEFAULT_REQUEST_TIMEOUT
        self._pending: dict[Any, Pending] = {}
        self._served: dict[Any, Pending] = {}
        self._overdue: list[Pending] = []
        self._failures: list[str] = []
        protocol = client.protocol
        self._send_request, self._handle_request = protocol.send_request, protocol._handle_request
        self._send_response = protocol._send_response
        protocol.send_request = self._on_send_request
        protocol._handle_request = self._on_handle_request
        protocol._send_response = self._on_send_response
        self._task = asyncio.ensure_future(self._watch())

    def bound(self, method: str) -> float:
        return self.request_timeout + MARGIN if method in MODEL_METHODS else LSP_BOUND

    def _on_send_request(self, method: str, params: Any = None, callback: Any = None, msg_id: Any = None) -> Any:
        msg_id = msg_id if msg_id is not None else str(uuid.uuid4())
        self._pending[msg_id] = Pending(method, "sent by the test", time.monotonic(), self.bound(method))
        future = self._send_request(method, params, callback, msg_id)
        future.add_done_callback(lambda _: self._pending.pop(msg_id, None))
        return future

    def _on_handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        self._served[msg_id] = Pending(method_name, "sent by the server", time.monotonic(), LSP_BOUND)
        self._handle_request(msg_id, method_name, params)

    def _on_send_response(self, msg_id: Any, *args: Any, **kwargs: Any) -> None:
        served, failed_before = self._served.pop(msg_id, None), getattr(self.client, "error", None)
        self._send_response(msg_id, *args, **kwargs)
        error = getattr(self.client, "error", None)
        if error is not None and error is not failed_before:  # pygls reports a send that failed, and goes on
            method = served.method if served is not None else f"request {msg_id!r}"
            self.note(f"the client's answer to {method} could not be sent ({type(error).__name__}: {error})")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(CHECK_EVERY)
            now = time.monotonic()
            for msg_id, pending in list(self._pending.items()):
                if pending.overdue_for(now):
                    self._overdue.append(self._pending.pop(msg_id))
                    future = self.client.protocol._request_futures.get(msg_id)
                    if future is not None and not future.done():
                        future.set_exception(AssertionError(f"the request watchdog: {pending.describe()}"))
            for msg_id, pending in list(self._served.items()):
                if pending.overdue_for(now):
                    self._overdue.append(self._served.pop(msg_id))

    def overdue(self) -> list[str]:
        """What went overdue so far (and stop watching)."""
        self._task.cancel()
        return [p.describe() for p in self._overdue]

    def pending(self) -> list[str]:
        """What is waiting now, in both directions, and for how long."""
        now = time.monotonic()
        return [p.waiting(now) for p in (*self._pending.values(), *self._served.values())]

    def note(self, failure: str) -> None:
        self._failures.append(failure)

    def failures(self) -> list[str]:
        """What went wrong on the client's side (an answer it could not send, a server
        that would not stop)."""
        return list(self._failures)
