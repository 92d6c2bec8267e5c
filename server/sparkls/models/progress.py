"""Where a request's stream reports to whoever shows its progress (handlers/progress.py).

Context variables, so the count follows the request's own task and nothing needs
threading through the calls; kept apart from session.py so that the handlers can set
them without loading the model clients at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

# Where a request's streamed deltas are counted while it runs (set by whoever shows
# progress: `handlers.progress.with_progress`); a context variable, so the count
# follows the request's own task and nothing needs threading through the calls.
STREAM_PROGRESS: ContextVar[Callable[[int], None] | None] = ContextVar("sparkls_stream_progress", default=None)

# Whom to tell, with a message, when a request's first text is late
# (`first_token_timeout`): set by `with_progress`, which offers to cancel the work.
STREAM_STALLED: ContextVar[Callable[[str], None] | None] = ContextVar("sparkls_stream_stalled", default=None)
