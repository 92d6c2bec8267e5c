"""What is retried, and after how long."""

import random

import pytest

from sparkls.errors import (
    ApiError,
    AuthError,
    ConnectError,
    HandshakeRefused,
    ModelNotFound,
    RateLimited,
    RequestTimeout,
    ServerError,
    StreamError,
)
from sparkls.models.retry import backoff, is_retryable, retry_delay


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (ConnectError("refused"), True),
        (HandshakeRefused("proxy"), True),
        (StreamError("dropped"), True),
        (ServerError("503"), True),
        (RateLimited("slow down", retry_after=2), True),
        (RateLimited("slow down", retry_after=3600), False),
        (ApiError("gone", api_code="previous_response_not_found"), True),
        (ApiError("old", api_code="websocket_connection_limit_reached"), True),
        (ApiError("bad", api_code="invalid_prompt"), False),
        (AuthError("401"), False),
        (ModelNotFound("404"), False),
        (RequestTimeout("slow"), False),
        (ValueError("bug"), False),
    ],
)
def test_is_retryable(error, retryable):
    """One function decides; refusals and breaks are retried, verdicts are not."""
    assert is_retryable(error) is retryable


def test_backoff_is_jittered_and_capped():
    """Delays grow with the attempt, stay under the cap, and vary."""
    delays = backoff(base=0.25, cap=1.0, rng=random.Random(1))
    values = [next(delays) for _ in range(50)]
    assert all(0 <= v <= 1.0 for v in values)
    assert len(set(values)) > 40


def test_retry_after_is_honoured():
    """A 429 with retry-after waits exactly that long."""
    assert retry_delay(RateLimited("x", retry_after=1.5), backoff()) == 1.5
    assert retry_delay(StreamError("x"), backoff()) == 0.0
