"""What a frame on a lane connection is, read without I/O (lanes.py routes it).

The service sends every event as a JSON object in a text frame. `parsed` reads one
or raises `Untrusted`, which is also what the router raises for a frame it cannot
place (`described` says what it was, for the message): after one of those, no frame
on the connection can be trusted to reach its lane. `steer_failure` reads an error
that answers a `response.steer` from a server that does not steer.
"""

from __future__ import annotations

import json
from typing import Any

ENDINGS = frozenset({"response.completed", "response.incomplete"})
STEER_PREFIX = "response.steer."


class Untrusted(Exception):
    """A frame that leaves the connection's routing in doubt; the text says what came."""


def steer_failure(error: dict[str, Any]) -> dict[str, Any]:
    """An error event answering a `response.steer`, as the steer's failure."""
    detail = error.get("error") if isinstance(error.get("error"), dict) else {}
    code = detail.get("code") or "steering_not_supported"
    return {"type": "response.steer.failed", "error": {"code": code, "message": str(detail.get("message") or "")}, "steer": {}}


def parsed(frame: str | bytes) -> dict[str, Any]:
    """A frame's event; raises `Untrusted` for what is not one (the service sends
    every event as a JSON object in a text frame)."""
    if not isinstance(frame, str):
        raise Untrusted(f"sent a binary frame ({len(frame)} bytes)")
    try:
        data = json.loads(frame)
    except ValueError:
        raise Untrusted(f"sent a frame that is not JSON ({len(frame)} characters)") from None
    if not isinstance(data, dict):
        raise Untrusted("sent a frame that is not a JSON object")
    return data


def described(kind: str, data: dict[str, Any]) -> str:
    if kind == "error":
        detail = data.get("error") if isinstance(data.get("error"), dict) else data
        return f"an error ({str(detail.get('message') or detail.get('code') or '')[:120]!r})"
    return f"a `{kind[:60] or 'untyped'}` event"
