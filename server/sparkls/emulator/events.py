"""Wire pieces every API the emulator speaks shares: ids, JSON, templates, errors.

This module owns the small things both builders use — Responses events
(``responses.py``) and Chat Completions chunks (``chat.py``): OpenAI-style ids,
compact JSON, %-templates for the per-token hot path, the ``obfuscation`` padding,
and errors: :class:`ApiError` (an error the emulator answers) and its three wire
forms (:func:`error_event` in-band on a WebSocket, :func:`sse_error_event` in an SSE
stream, :func:`http_error_body` with an HTTP status). Pure; no I/O.
"""

from __future__ import annotations

import json
import secrets
import string
from typing import Any

encode_string = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]

ERROR_TYPES = {
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",  # what the service sends for request-rate limits
}
DEFAULT_ERROR_CODES = {
    400: "invalid_request",
    401: "invalid_api_key",
    403: "forbidden",
    404: "not_found",
    408: "request_timeout",
    409: "conflict",
    429: "rate_limit_exceeded",
    500: "server_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}

# A template hole: a string value that json_template turns into %s.
HOLE = "\x00hole\x00"
_HOLE_JSON = json.dumps(HOLE)

_ALPHABET = string.ascii_letters + string.digits
# The service pads delta events with a random string (`obfuscation`) so that an
# event's size does not give its token away. A fixed pool, cycled, costs nothing per
# delta; its size is prime so that it does not line up with other periods.
OBFUSCATION_POOL = tuple(
    json.dumps("".join(secrets.choice(_ALPHABET) for _ in range(4 + secrets.randbelow(13))))
    for _ in range(97)
)


def new_id(prefix: str) -> str:
    """A fresh identifier in OpenAI's style, e.g. ``resp_`` + 48 hex digits."""
    return prefix + secrets.token_hex(24)


def dumps(obj: Any) -> str:
    """Compact JSON, as the service sends it."""
    return json.dumps(obj, separators=(",", ":"))


def json_template(obj: Any) -> str:
    """*obj*'s compact JSON as a %-template: each :data:`HOLE` value becomes ``%s``
    (filled with JSON text, in order of appearance); any other ``%`` is escaped."""
    return dumps(obj).replace("%", "%%").replace(_HOLE_JSON, "%s")


def error_type(status: int) -> str:
    """The ``error.type`` OpenAI uses for an HTTP *status*."""
    if status >= 500:
        return "server_error"
    return ERROR_TYPES.get(status, "invalid_request_error")


def error_code(status: int) -> str:
    """A default ``error.code`` for an HTTP *status* when none was given."""
    return DEFAULT_ERROR_CODES.get(status, f"http_{status}")


class ApiError(Exception):
    """An error the emulator answers: in-band on a WebSocket, an HTTP status otherwise.

    A None *code* means the default code for *status*. *headers* go on the HTTP
    response, and into the WebSocket error event's ``error.headers``.
    """

    def __init__(
        self,
        status: int,
        code: str | None,
        message: str,
        param: str | None = None,
        *,
        error_type: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.error_type = error_type
        self.headers = headers or {}


def error_object(
    status: int, code: str | None, message: str, param: str | None = None, *, kind: str | None = None
) -> dict[str, Any]:
    """The inner ``error`` object shared by HTTP error bodies and error events."""
    return {
        "type": kind or error_type(status),
        "code": code if code is not None else error_code(status),
        "message": message,
        "param": param,
    }


def error_event(
    status: int | None,
    code: str | None,
    message: str,
    param: str | None = None,
    *,
    kind: str | None = None,
    headers: dict[str, str] | None = None,
    sequence_number: int | None = None,
) -> dict[str, Any]:
    """An in-band WebSocket error event (the SDK's ``ResponseWsError``).

    A refused request carries the HTTP *status* it stands for; an error inside a
    response stream carries its *sequence_number* instead (status None).
    """
    inner = error_object(status or 500, code, message, param, kind=kind)
    if headers:
        inner["headers"] = dict(headers)
    event: dict[str, Any] = {"type": "error"}
    if sequence_number is not None:
        event["sequence_number"] = sequence_number
    if status is not None:
        event["status"] = status
    event["error"] = inner
    return event


def api_error_event(error: ApiError) -> dict[str, Any]:
    """The WebSocket error event for a refused request."""
    return error_event(
        error.status, error.code, error.message, error.param,
        kind=error.error_type, headers=error.headers,
    )


def sse_error_event(code: str, message: str, sequence_number: int, param: str | None = None) -> dict[str, Any]:
    """An error inside a Responses SSE stream (the SDK's ``ResponseErrorEvent``)."""
    return {"type": "error", "sequence_number": sequence_number, "code": code, "message": message, "param": param}


def http_error_body(
    status: int, code: str | None, message: str, param: str | None = None, *, kind: str | None = None
) -> dict[str, Any]:
    """An HTTP error body: ``{"error": {"message", "type", "code", "param"}}``."""
    return {"error": error_object(status, code, message, param, kind=kind)}


def api_error_body(error: ApiError) -> dict[str, Any]:
    """The HTTP error body for a refused request."""
    return http_error_body(error.status, error.code, error.message, error.param, kind=error.error_type)


def models_list(models: list[str], created: int) -> dict[str, Any]:
    """The ``GET /v1/models`` body."""
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": created, "owned_by": "sparkls-emulator"}
            for name in models
        ],
    }
