"""The order of one response's frames on a pool socket, checked without I/O.

A pool socket (websocket.py) carries one response at a time and its frames name no
lane: only their order tells one response's frames from another's. A response
begins with `response.created` (or is refused by an `error` before it begins), every
frame that names a response names that one, and it ends once. A frame that cannot
belong to the response awaited (the tail of an earlier response sent after its end,
read now by the next request; a second `response.created` before the first ended; a
new response given an id this connection already saw; a frame naming another
response) raises `OutOfOrder`, saying what came: the socket is closed and the request
sent again on a new connection, none of what came used. Without this check the tail
of one answer would be read as the beginning of the next.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from sparkls.models.laneframes import described

KNOWN = 64  # response ids remembered per connection


class OutOfOrder(Exception):
    """A frame that cannot belong to the response awaited; the text says what came."""


class ResponseOrder:
    """The response a pool socket awaits, and the ids its connection has seen."""

    def __init__(self) -> None:
        self.current: str | None = None  # the awaited response's id, once it began
        self.begun = False
        self._seen: OrderedDict[str, None] = OrderedDict()

    def sent(self) -> None:
        """A `response.create` went out: the next response is awaited."""
        self.current, self.begun = None, False

    def check(self, data: dict[str, Any]) -> None:
        """Raise `OutOfOrder` unless `data` can be the awaited response's next frame."""
        kind = str(data.get("type") or "")
        response = data.get("response")
        named = response.get("id") if isinstance(response, dict) else None
        if kind == "response.created":
            if self.begun:
                raise OutOfOrder(f"started a second response ({str(named)[:40]!r}) before the first ended")
            if isinstance(named, str) and named in self._seen:
                raise OutOfOrder(f"gave a new response the id of an earlier one ({named[:40]!r})")
            self.begun, self.current = True, named if isinstance(named, str) else None
            if self.current is not None:
                self._remember(self.current)
        elif not self.begun:
            if kind != "error":  # an error may refuse a request before its response begins
                raise OutOfOrder(f"sent {described(kind, data)} before the response it belongs to began")
        elif isinstance(named, str) and self.current is not None and named != self.current:
            raise OutOfOrder(f"sent {described(kind, data)} of another response ({named[:40]!r})")

    def _remember(self, response_id: str) -> None:
        self._seen[response_id] = None
        while len(self._seen) > KNOWN:
            self._seen.popitem(last=False)
