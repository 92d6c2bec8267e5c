"""The control endpoint: ``/_emulator/...`` (also under ``/v1/_emulator/``).

This module owns what tests, benchmarks and the demo can ask of a running emulator
over HTTP: ``GET stats``, ``GET``/``POST faults``, ``POST reset``, ``POST
disconnect``, ``POST refuse_websocket``, ``GET``/``POST handshake`` (``{"ms": N}``: a
pause before each WebSocket upgrade is answered), ``GET``/``POST connection_limit``,
``GET``/``POST lanes`` (WebSocket lanes and steering on or off),
``GET``/``POST canaries`` (the canary net, ``canaries.py``) and ``GET``/``POST ideal``
(the edits the ideal model knows, ``ideal.py``: a POST sets them, ``[]`` forgets them). No key
is needed, and these requests are not counted in the stats. Answers are JSON; a bad
request gets 400 ``invalid_faults``, an unknown name 404.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sparkls.emulator import httpwire
from sparkls.emulator.canaries import checked_canaries
from sparkls.emulator.control import INVALID_FAULTS, UNKNOWN_URL
from sparkls.emulator.events import http_error_body
from sparkls.emulator.ideal import known_edits

if TYPE_CHECKING:
    from sparkls.emulator.app import Emulator

# The control endpoint answers under the API root too, so that a client whose base
# URL is ".../v1" reaches it with a relative path.
CONTROL_PREFIXES = ("/_emulator/", "/v1/_emulator/")


def control_route(path: str) -> str | None:
    """The control endpoint's name ("stats", "faults", "reset"…) for *path*, if any."""
    for prefix in CONTROL_PREFIXES:
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None


def _object(request: httpwire.HttpRequest) -> dict[str, Any]:
    body = request.json() if request.body.strip() else {}
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    return body


def _check_fields(changes: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(changes) - allowed)
    if unknown:
        raise ValueError(f"unknown field(s): {', '.join(unknown)}")


def _connection_limit(emulator: Emulator, changes: dict[str, Any] | None) -> dict[str, Any]:
    if changes is not None:
        _check_fields(changes, {"seconds", "close"})
        seconds = changes.get("seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0):
            raise ValueError(f"invalid value for seconds: {seconds!r}")
        close = changes.get("close", False)
        if not isinstance(close, bool):
            raise ValueError(f"invalid value for close: {close!r}")
        emulator.set_connection_limit(None if seconds is None else float(seconds), close=close)
    return {"seconds": emulator.max_connection_seconds, "close": emulator.close_on_connection_limit}


def _lanes(emulator: Emulator, changes: dict[str, Any] | None) -> dict[str, Any]:
    if changes is not None:
        _check_fields(changes, {"lanes"})
        enabled = changes.get("lanes", True)
        if not isinstance(enabled, bool):
            raise ValueError(f"invalid value for lanes: {enabled!r}")
        emulator.lanes = enabled
    return {"lanes": emulator.lanes}


def _handshake(emulator: Emulator, changes: dict[str, Any] | None) -> dict[str, Any]:
    if changes is not None:
        _check_fields(changes, {"ms"})
        ms = changes.get("ms", 0)
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= 60_000:
            raise ValueError(f"invalid value for ms: {ms!r} (a whole number from 0 to 60000)")
        emulator.handshake_ms = ms
    return {"ms": emulator.handshake_ms}


def serve_control(emulator: Emulator, name: str, request: httpwire.HttpRequest, wire: Any) -> None:
    """Answer one control request on *wire*."""
    route = (request.method, name)
    status = 200
    result: Any
    try:
        if route == ("GET", "stats"):
            result = emulator.stats
        elif route == ("GET", "faults"):
            result = emulator.faults.to_json()
        elif route == ("POST", "faults"):
            result = emulator.fault_state.override(_object(request)).to_json()
        elif route == ("POST", "reset"):
            emulator.reset()
            result = {"reset": True}
        elif route == ("POST", "disconnect"):
            result = {"disconnected": emulator.disconnect_websockets()}
        elif route == ("POST", "refuse_websocket"):
            emulator.refuse_websocket = bool(_object(request).get("refuse", True))
            result = {"refuse_websocket": emulator.refuse_websocket}
        elif route == ("GET", "handshake"):
            result = _handshake(emulator, None)
        elif route == ("POST", "handshake"):
            result = _handshake(emulator, _object(request))
        elif route == ("GET", "prompts"):
            result = {"prompts": emulator.prompt_cache.recent()}
        elif route == ("GET", "connection_limit"):
            result = _connection_limit(emulator, None)
        elif route == ("POST", "connection_limit"):
            result = _connection_limit(emulator, _object(request))
        elif route == ("GET", "lanes"):
            result = _lanes(emulator, None)
        elif route == ("POST", "lanes"):
            result = _lanes(emulator, _object(request))
        elif route == ("POST", "canaries"):
            emulator.canary_net.set(checked_canaries(_object(request).get("canaries")))
            result = {"canaries": list(emulator.canary_net.canaries)}
        elif route == ("GET", "canaries"):
            result = {"canaries": list(emulator.canary_net.canaries)}
        elif route == ("POST", "ideal"):
            edits = known_edits(_object(request))
            emulator.ideal.forget()
            emulator.ideal.learn(edits)
            result = {"edits": len(emulator.ideal)}
        elif route == ("GET", "ideal"):
            result = {"edits": len(emulator.ideal)}
        else:
            message = f"Invalid URL ({request.method} {request.path})"
            status, result = 404, http_error_body(404, UNKNOWN_URL, message)
    except ValueError as exc:
        status, result = 400, http_error_body(400, INVALID_FAULTS, str(exc))
    wire.write(httpwire.json_response(status, result, keep_alive=request.keep_alive))
