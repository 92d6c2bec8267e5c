"""The bound on one whole model request, and what the user is told when it fails for good.

`Deadline` is `request_timeout` counted from when the request was asked, over every
attempt and every wait between them (a resend after a broken stream, a reconnect, a
rate limit waited out): a request never runs past it, however many faults it meets.
`gave_up` words a transport failure that ended a request: what happened, the first
fault when the request had been sent again after it, and that nothing was changed
(a reply that did not come whole is never applied).
"""

from __future__ import annotations

import time

from sparkls.errors import ConnectError, ModelError, RequestTimeout, StreamError

NOTHING_CHANGED = "Nothing was changed."


class Deadline:
    """`seconds` from now for the whole request (None: no bound)."""

    def __init__(self, seconds: float | None, tier: str) -> None:
        self.seconds = seconds
        self.tier = tier
        self._end = time.monotonic() + seconds if seconds is not None else None

    def left(self) -> float | None:
        """Seconds left (at least 0), or None without a bound: what `asyncio.timeout` takes."""
        return None if self._end is None else max(0.0, self._end - time.monotonic())

    def allows(self, wait: float) -> bool:
        """Whether waiting `wait` seconds still leaves time to try again."""
        left = self.left()
        return left is None or wait < left

    def passed(self) -> RequestTimeout:
        return RequestTimeout(
            f"The {self.tier} tier did not finish within {self.seconds:g} s (setting `request_timeout`). {NOTHING_CHANGED}"
        )


def gave_up(exc: ModelError, resent_after: ModelError | None) -> ModelError:
    """`exc`, the failure that ends a request, said whole: for a broken transport, the
    fault the request had been resent after (if any) and that nothing was changed."""
    if not isinstance(exc, (StreamError, ConnectError, RequestTimeout)) or NOTHING_CHANGED in str(exc):
        return exc
    message = str(exc)
    if resent_after is not None and resent_after is not exc:
        message = f"{resent_after} It was sent again on a new connection: {message}"
    exc.args = (f"{message} {NOTHING_CHANGED}",)
    return exc
