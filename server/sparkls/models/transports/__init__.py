"""Every transport a tier can use, in the order a tier prefers them.

A transport (base.py) is one way a tier's requests reach its model: `start`, `stream`
a request's events, `close`. Here are all of them, most preferred first: lanes on one
WebSocket (lanes.py), a pool of WebSockets (pool.py), Responses over HTTP
(responses.py), Chat Completions over HTTP (chat.py). Adding one is a module in this
folder and a line in `TRANSPORTS`; the session (models/session.py) picks among those
that fit a tier, by their traits, never by name.
"""

from __future__ import annotations

from sparkls.config import TierSettings
from sparkls.models.transports.base import Link, Request, Transport, ssl_context_for
from sparkls.models.transports.chat import ChatCompletions
from sparkls.models.transports.lanes import Lanes
from sparkls.models.transports.pool import Pool
from sparkls.models.transports.responses import ResponsesSSE

TRANSPORTS: tuple[type[Transport], ...] = (Lanes, Pool, ResponsesSSE, ChatCompletions)

__all__ = ["TRANSPORTS", "Link", "Request", "Transport", "fitting", "preferred", "ssl_context_for"]


def fitting(tier: TierSettings) -> list[type[Transport]]:
    """The transports that can carry `tier`'s requests, most preferred first."""
    return [kind for kind in TRANSPORTS if kind.fits(tier)]


def preferred(tier: TierSettings) -> type[Transport]:
    """The transport `tier`'s requests go by first: the most preferred that fits and
    that no setting switches off (before any server refused one)."""
    return next(kind for kind in fitting(tier) if kind.switched_off(tier) is None)
