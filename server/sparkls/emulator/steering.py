"""Steering a response in WebSocket mode: the checks and the events, as pure functions.

A client steers a response in flight with ``{"type": "response.steer",
"previous_response_id": R, "input": ...}``. This module owns what is pure in that:
whether the event and its input are acceptable (:func:`steer_problem`), the three
server events (``response.steer.accepted``, ``response.steer.failed``,
``response.steer.pending``, as the SDK's ``ResponseSteer*Event`` models), and the
request of the *successor*, the response that continues a steered one
(:func:`successor_body`) or an explicit continuation that takes queued input
(:func:`with_queued_input`). When and on which lane they go out is ``lanes.py``'s
business.
"""

from __future__ import annotations

from typing import Any, Sequence

from sparkls.emulator.events import new_id

STEER_KEYS = frozenset({"type", "previous_response_id", "input"})
MESSAGE_KEYS = frozenset({"type", "role", "content"})
MAX_PENDING_STEERS = 4

# response.steer.failed codes (the SDK's ResponseSteerErrorCode).
RESPONSE_NOT_FOUND = "response_not_found"
INVALID_INPUT = "invalid_input"
STEERING_NOT_SUPPORTED = "steering_not_supported"
TOO_MANY_PENDING_STEERS = "too_many_pending_steers"
RESPONSE_ALREADY_COMPLETED = "response_already_completed"
SUCCESSOR_CREATION_FAILED = "successor_creation_failed"

MESSAGES = {
    RESPONSE_NOT_FOUND: "Response '{rid}' is not available on this connection.",
    STEERING_NOT_SUPPORTED: "Steering is not supported for response '{rid}'.",
    TOO_MANY_PENDING_STEERS: (
        f"Too much steering input is pending for response '{{rid}}' (at most {MAX_PENDING_STEERS})."
    ),
    RESPONSE_ALREADY_COMPLETED: "Response '{rid}' has completed and no longer accepts steering input.",
    SUCCESSOR_CREATION_FAILED: "The successor of response '{rid}' could not be created.",
}
PENDING_REASON = "waiting_for_required_input"


def steer_problem(event: dict[str, Any]) -> str | None:
    """Why a ``response.steer`` event is not acceptable (an ``invalid_input``
    message), or None."""
    unknown = sorted(set(event) - STEER_KEYS)
    if unknown:
        return f"Unknown parameter: '{unknown[0]}'. response.steer accepts only type, previous_response_id and input."
    previous = event.get("previous_response_id")
    if not isinstance(previous, str) or not previous:
        return "Missing required parameter: 'previous_response_id'."
    return input_problem(event.get("input"))


def input_problem(value: Any) -> str | None:
    """Why steering input is not acceptable: it must be a non-empty string or a
    non-empty list of user messages whose content is a string or input_text parts."""
    if isinstance(value, str):
        return None if value else "Invalid 'input': an empty string."
    if not isinstance(value, list) or not value:
        return "Invalid 'input': expected a non-empty string or a non-empty array of user messages."
    for index, item in enumerate(value):
        where = f"input[{index}]"
        if not isinstance(item, dict) or set(item) - MESSAGE_KEYS:
            return f"Invalid '{where}': a message may hold only type, role and content."
        if item.get("type", "message") != "message":
            return f"Invalid '{where}.type': steering accepts only messages."
        if item.get("role") != "user":
            return f"Invalid '{where}.role': steering accepts only messages with the user role."
        content = item.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list) or not content or not all(_is_text_part(p) for p in content):
            return f"Invalid '{where}.content': expected a string or an array of input_text parts."
    return None


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "input_text" and isinstance(part.get("text"), str) \
        and set(part) <= {"type", "text"}


def new_steer_id() -> str:
    return new_id("steer_")


# -- events ------------------------------------------------------------------------


def _with_lane(event: dict[str, Any], stream_id: str | None) -> dict[str, Any]:
    if stream_id is not None:
        event["stream_id"] = stream_id
    return event


def accepted_event(steer_id: str, response_id: str, number: int, stream_id: str | None) -> dict[str, Any]:
    """``response.steer.accepted``: the input is queued for *response_id*."""
    event = {"type": "response.steer.accepted", "sequence_number": number,
             "steer": {"id": steer_id, "previous_response_id": response_id}}
    return _with_lane(event, stream_id)


def failed_event(
    code: str,
    response_id: str,
    value: Any,
    number: int,
    stream_id: str | None,
    *,
    steer_id: str | None = None,
    message: str | None = None,
) -> dict[str, Any]:
    """``response.steer.failed``, returning the input *value* (with the steer's id
    once one was given)."""
    steer: dict[str, Any] = {"input": value, "previous_response_id": response_id}
    if steer_id is not None:
        steer["id"] = steer_id
    text = message or MESSAGES[code].format(rid=response_id)
    event = {"type": "response.steer.failed", "sequence_number": number,
             "error": {"code": code, "type": "invalid_request_error", "message": text}, "steer": steer}
    return _with_lane(event, stream_id)


def pending_event(steer_id: str, response_id: str, number: int, stream_id: str | None) -> dict[str, Any]:
    """``response.steer.pending``: the response completed and the input stays queued
    until an explicit ``response.create`` continues it."""
    event = {"type": "response.steer.pending", "sequence_number": number, "reason": PENDING_REASON,
             "required_input": [], "steer": {"id": steer_id, "previous_response_id": response_id}}
    return _with_lane(event, stream_id)


# -- the continuation's request -------------------------------------------------------


def user_messages(value: Any) -> list[dict[str, Any]]:
    """Steering (or request) input as a list of input items: a string becomes one
    user message."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if isinstance(value, list):
        return list(value)
    return []


def successor_body(
    request: dict[str, Any], response_id: str, output_text: str, complete: bool, inputs: Sequence[Any]
) -> dict[str, Any]:
    """The successor's request: *request* (the steered response's, so the same model,
    instructions and settings), its input continued by the response's output as an
    assistant turn (``status: incomplete`` when it was cut short) and then the queued
    steering *inputs* in submission order, as a continuation of *response_id*."""
    items = user_messages(request.get("input"))
    if output_text:
        items.append({"type": "message", "role": "assistant", "status": "completed" if complete else "incomplete",
                      "content": [{"type": "output_text", "text": output_text}]})
    for value in inputs:
        items += user_messages(value)
    return {**request, "input": items, "previous_response_id": response_id}


def with_queued_input(body: dict[str, Any], inputs: Sequence[Any]) -> dict[str, Any]:
    """An explicit continuation *body* with the queued steering *inputs* prepended to
    its own input, in submission order."""
    items: list[dict[str, Any]] = []
    for value in inputs:
        items += user_messages(value)
    return {**body, "input": items + user_messages(body.get("input"))}
