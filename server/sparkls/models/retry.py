"""What is retried, and after how long. One function decides: `is_retryable`.

A request is sent again only when the failure proves it was not processed (it never
left, or the service answered with a refusal such as 5xx, 429 or a stale
`previous_response_id`), when the service failed it (`response.failed` with
`server_error`, an in-band `server_error`: like a 5xx), or when the stream broke
mid-way: that one is retried once, with the full input, because the partial answer
is lost and never applied. A 429 waits what the service asked (`retry-after`, or "try
again in 1.3s" in its message). Authentication, a missing model, bad requests,
timeouts, refusals and cut-off replies (`ReplyCutOff`: the same request would be cut
off again) are not retried.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sparkls.errors import (
    ApiError,
    ConnectError,
    HandshakeRefused,
    ModelError,
    RateLimited,
    ServerError,
    StreamError,
)

if TYPE_CHECKING:
    from sparkls.models.deadline import Deadline

MAX_ATTEMPTS = 3  # in all, the first one included
MAX_RATE_LIMIT_WAIT = 30.0  # seconds; a longer retry-after is reported, not waited for
RESEND_CODES = frozenset({"previous_response_not_found", "websocket_connection_limit_reached"})


def is_retryable(exc: BaseException, *, max_wait: float = MAX_RATE_LIMIT_WAIT) -> bool:
    """True when sending the same request again is safe and may succeed (a rate limit:
    when the wait it asks for is at most `max_wait` seconds)."""
    if isinstance(exc, HandshakeRefused):
        return True  # the other transport may get through where the upgrade did not
    if isinstance(exc, (ConnectError, StreamError, ServerError)):
        return True
    if isinstance(exc, RateLimited):
        return exc.retry_after is None or exc.retry_after <= max_wait
    if isinstance(exc, ApiError):
        return exc.api_code in RESEND_CODES
    return False


def backoff(base: float = 0.25, cap: float = 4.0, rng: random.Random | None = None) -> Iterator[float]:
    """Delays with full jitter: uniform(0, min(cap, base * 2**n)) for n = 0, 1, ..."""
    rng = rng or random.Random()
    n = 0
    while True:
        yield rng.uniform(0, min(cap, base * 2**n))
        n += 1


def retry_delay(exc: BaseException, delays: Iterator[float]) -> float:
    """Seconds to wait before retrying after `exc` (only for retryable errors)."""
    if isinstance(exc, RateLimited):
        return exc.retry_after if exc.retry_after is not None else next(delays) + 1.0
    if isinstance(exc, (ServerError, ConnectError)) and not isinstance(exc, HandshakeRefused):
        return next(delays)
    return 0.0  # a fresh socket or the full input is the remedy, not time


class Tries:
    """One request's tries: how many so far, the jittered backoff, the bound on the
    whole request (`Deadline`), and the broken stream it was sent again after."""

    def __init__(self, deadline: Deadline, *, max_wait: float) -> None:
        self.deadline = deadline
        self.max_wait = max_wait  # the longest rate-limit wait this request sits out
        self.attempt = 0
        self.resent: ModelError | None = None  # the broken stream a request was sent again after
        self._delays = backoff()
        self._stream_retried = False

    def again_after(self, exc: ModelError) -> float | None:
        """Seconds to wait before the next try after `exc`, or None: no more tries (not
        retryable, the attempts used up, a second broken stream, or past the deadline)."""
        retry = is_retryable(exc, max_wait=self.max_wait) and self.attempt < MAX_ATTEMPTS
        if isinstance(exc, StreamError):
            retry, self._stream_retried = retry and not self._stream_retried, True
        delay = retry_delay(exc, self._delays) if retry else 0.0
        if not retry or not self.deadline.allows(delay):
            return None
        if isinstance(exc, StreamError):
            self.resent = exc
        return delay
