"""The Responses API's wire events, as pure functions over parsed JSON.

`response_create` builds what the client sends; `classify` turns each server event
into a small record or raises the `ModelError` it means; `api_error` is the single
mapping from (status, code, message) to our error tree, shared by every transport.
Which of the records make the answer (the final message, not the commentary before
it) is `models/answer.py`'s business.

Shapes follow the official SDK's types (openai-python `types/responses`): WebSocket
errors are `{"type": "error", "status", "error": {"code", "message", "headers"}}`,
SSE errors `{"type": "error", "code", "message", "sequence_number"}`; both are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sparkls.guard.wire import Wire, require_wire
from sparkls.models.toolcall import PatchCall, patch_call
from sparkls.documents.unicode import for_the_wire
from sparkls.errors import (
    ApiError,
    AuthError,
    ModelError,
    ModelNotFound,
    RateLimited,
    ServerError,
)


@dataclass(frozen=True, slots=True)
class Where:
    """Which tier and endpoint a request went to, for messages."""

    tier: str
    host: str
    model: str


@dataclass(frozen=True, slots=True)
class Created:
    response_id: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str
    item: str = ""  # the output item it belongs to ("" when the stream names none)


@dataclass(frozen=True, slots=True)
class RefusalDelta:
    """A piece of a refusal: the model declined instead of answering."""

    text: str
    item: str = ""


@dataclass(frozen=True, slots=True)
class ItemInfo:
    """An output item announced (`output_item.added`) or finished (`.done`)."""

    item: str
    kind: str  # "message", "reasoning", ...
    phase: str | None = None  # "commentary" | "final_answer" on a message, when given


@dataclass(frozen=True, slots=True)
class Completed:
    """The end of a response. `incomplete` says why it stopped early, if it did
    (`max_output_tokens`, `content_filter`, Chat's `length`): the stream is whole,
    the answer is not."""

    response_id: str
    usage: dict[str, Any] = field(default_factory=dict)
    incomplete: str | None = None
    output: tuple[dict[str, Any], ...] = ()  # the response's output items, when sent


@dataclass(frozen=True, slots=True)
class Sent:
    """The request left: time spent before this was waiting, not the model. `via`: the
    WebSocket connection it left on (None over HTTP); `chained`: it continues an
    earlier response (`previous_response_id`)."""

    via: object = None
    chained: bool = False


@dataclass(frozen=True, slots=True)
class Steered:
    """What became of steering input (`response.steer`): `accepted` (the service owns
    it; the successor's `response.created` commits it), `failed` (not committed: `code`
    says why) or `pending` (queued until an explicit `response.create` continues it)."""

    outcome: str
    steer_id: str | None = None
    code: str | None = None
    message: str = ""


Event = Created | TextDelta | RefusalDelta | ItemInfo | Completed | Sent | Steered | PatchCall

def _input_items(prompt: Wire) -> list[dict[str, Any]]:
    """The earlier turns (an assistant turn as a plain-string message, the SDK's
    `EasyInputMessageParam`), then the new user input."""
    items: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "input_text", "text": for_the_wire(text)}]}
        if role == "user"
        else {"role": role, "content": for_the_wire(text)}
        for role, text in prompt.history
    ]
    items += [
        {"type": "apply_patch_call_output", "call_id": o.call_id, "status": o.status, "output": for_the_wire(o.output)}
        for o in prompt.outputs
    ]  # the earlier response's tool calls answered before the new turn (the service refuses it otherwise)
    items.append({"role": "user", "content": [{"type": "input_text", "text": for_the_wire(prompt.input)}]})
    return items


def _responses_fields(
    model: str, prompt: Wire, *, previous_response_id: str | None, cache_key: str | None, store: bool = False
) -> dict[str, Any]:
    require_wire(prompt)  # nothing but the guard's output goes out
    fields: dict[str, Any] = {
        "model": model,
        "instructions": for_the_wire(prompt.instructions),
        "input": _input_items(prompt),
        "store": store,
    }
    if prompt.tools:
        fields["tools"] = [{"type": tool} for tool in prompt.tools]
    if previous_response_id is not None:
        fields["previous_response_id"] = previous_response_id
    if cache_key is not None:
        fields["prompt_cache_key"] = cache_key
    return fields


def response_create(
    model: str,
    prompt: Wire,
    *,
    previous_response_id: str | None = None,
    generate: bool | None = None,
    cache_key: str | None = None,
    store: bool = False,
    stream_id: str | None = None,
) -> dict[str, Any]:
    """A `response.create` message for WebSocket mode (no `stream`: it is implicit)."""
    message = {
        "type": "response.create",
        **_responses_fields(
            model, prompt, previous_response_id=previous_response_id, cache_key=cache_key, store=store
        ),
    }
    if generate is not None:
        message["generate"] = generate
    if stream_id is not None:
        message["stream_id"] = stream_id
    return message


def warm_up_create(model: str, prompt: Wire, *, cache_key: str | None = None) -> dict[str, Any]:
    """A `generate: false` `response.create`: `prompt`'s instructions only, no input
    (the service caches them and answers with an id, no output)."""
    message = response_create(model, prompt, generate=False, cache_key=cache_key)
    message["input"] = []
    return message


def steer_message(response_id: str, prompt: Wire) -> dict[str, Any]:
    """A `response.steer` for `response_id`: `prompt`'s new input as one user message
    (the event takes only `type`, `previous_response_id` and `input`; no `stream_id`:
    the target response names its lane). Its instructions and earlier turns are the
    response's own already."""
    require_wire(prompt)  # nothing but the guard's output goes out
    text = for_the_wire(prompt.input)
    return {
        "type": "response.steer",
        "previous_response_id": response_id,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
    }


def responses_body(
    model: str,
    prompt: Wire,
    *,
    cache_key: str | None = None,
    previous_response_id: str | None = None,
    store: bool = False,
) -> dict[str, Any]:
    """The body of `POST /responses` with `stream: true`."""
    fields = _responses_fields(
        model, prompt, previous_response_id=previous_response_id, cache_key=cache_key, store=store
    )
    return {**fields, "stream": True}


def chat_body(model: str, prompt: Wire) -> dict[str, Any]:
    """The body of `POST /chat/completions` with `stream: true` (OpenAI-compatible servers)."""
    require_wire(prompt)  # nothing but the guard's output goes out
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": for_the_wire(prompt.instructions)},
            *({"role": role, "content": for_the_wire(text)} for role, text in prompt.history),
            {"role": "user", "content": for_the_wire(prompt.input)},
        ],
        "stream": True,
    }


SERVER_ERROR_CODES = frozenset({"server_error", "internal_error", "server_is_overloaded", "engine_overloaded"})


def api_error(
    where: Where,
    status: int | None,
    code: str | None,
    message: str,
    *,
    retry_after: float | None = None,
    param: str | None = None,
) -> ModelError:
    """The one mapping from an API error to our error tree (see errors.py)."""
    detail = message.strip() or (code or "no detail")
    if status in (401, 403) or code in ("invalid_api_key", "insufficient_permissions"):
        return AuthError(f"API key rejected for the {where.tier} tier at {where.host}: {detail}")
    if code == "model_not_found" or (status == 404 and code is None):
        return ModelNotFound(f"Model {where.model!r} of the {where.tier} tier was not found at {where.host}: {detail}")
    if status == 429 or code in ("rate_limit_exceeded", "requests", "tokens"):
        retry_after = retry_after if retry_after is not None else retry_after_from_message(detail)
        head = f"Rate limited by {where.host} ({where.tier} tier)"
        if retry_after is None:
            return RateLimited(f"{head}: {detail.rstrip('.')}.")
        return RateLimited(f"{head}: retry in {retry_after:.3g} s. ({detail.rstrip('.')}.)", retry_after=retry_after)
    if (status is not None and status >= 500) or code in SERVER_ERROR_CODES:
        shown = f"status {status}" if status is not None else f"error {code}"
        return ServerError(f"{where.host} failed with {shown} ({where.tier} tier): {detail}")
    return ApiError(
        f"The {where.tier} tier's API at {where.host} reported an error"
        + (f" [{code}]" if code else "")
        + f": {detail}",
        api_code=code,
        status=status,
        param=param,
    )


# "Please try again in 1.3s", "in 350ms", "in 1m12.5s", "in 2 seconds" (OpenAI's and
# compatible servers' wording); the number the service computed, so it is honoured.
_TRY_AGAIN = re.compile(
    r"try again in\s+(?:(?P<m>\d+(?:\.\d+)?)\s*m(?![a-z]))?\s*(?:(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|secs|seconds?)\b)?",
    re.IGNORECASE,
)


def retry_after_from_message(message: str) -> float | None:
    """Seconds to wait that an error message names ("try again in 1.3s"), if any."""
    match = _TRY_AGAIN.search(message)
    if match is None or (match.group("m") is None and match.group("n") is None):
        return None
    seconds = float(match.group("m") or 0) * 60
    if match.group("n") is not None:
        value = float(match.group("n"))
        seconds += value / 1000 if match.group("unit").lower() == "ms" else value
    return seconds


def retry_after_from_headers(headers: Any) -> float | None:
    """`retry-after-ms` or `retry-after` (seconds; an HTTP date is not waited for)."""
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in dict(headers).items()}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except (TypeError, ValueError):
            continue
        if seconds >= 0:
            return seconds
    return None


def _error_fields(payload: dict[str, Any]) -> tuple[str | None, str, Any, str | None]:
    """(code, message, headers, param) of an error, nested (`{"error": {...}}`) or flat."""
    err = payload.get("error")
    if isinstance(err, dict):
        param = err.get("param")
        return (
            err.get("code") or err.get("type"), str(err.get("message") or ""), err.get("headers"),
            param if isinstance(param, str) else None,
        )
    return payload.get("code"), str(payload.get("message") or ""), None, None


def error_from(payload: dict[str, Any], where: Where, status: int | None, *, default: str = "") -> ModelError:
    """The error a payload with an error in it (event, body or failed response) means."""
    code, message, headers, param = _error_fields(payload)
    return api_error(
        where, status, code, message or default, retry_after=retry_after_from_headers(headers), param=param
    )


def _item_key(event: dict[str, Any]) -> str:
    item_id = event.get("item_id")
    return item_id if isinstance(item_id, str) and item_id else f"#{event.get('output_index', 0)}"


def _item_info(event: dict[str, Any]) -> ItemInfo | None:
    item = event.get("item")
    if not isinstance(item, dict):
        return None
    key = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else f"#{event.get('output_index', 0)}"
    phase = item.get("phase")
    return ItemInfo(key, str(item.get("type") or ""), phase if isinstance(phase, str) else None)


def _finished(event: dict[str, Any], incomplete: str | None = None) -> Completed:
    response = event.get("response") or {}
    output = response.get("output")
    return Completed(
        response.get("id", ""),
        response.get("usage") or {},
        incomplete,
        tuple(o for o in output if isinstance(o, dict)) if isinstance(output, list) else (),
    )


STEER_EVENTS = {
    "response.steer.accepted": "accepted",
    "response.steer.failed": "failed",
    "response.steer.pending": "pending",
}


def classify(event: dict[str, Any], where: Where) -> Event | None:
    """The record an event stands for; None for events we do not need; raises on errors."""
    kind = event.get("type")
    if kind == "response.output_text.delta":
        return TextDelta(event.get("delta", ""), _item_key(event))
    if kind == "response.output_item.done" and isinstance(event.get("item"), dict):
        info = _item_info(event)
        call = patch_call(event["item"], info.item if info is not None else "")
        if call is not None:
            return call
        return info
    if kind == "response.output_item.added":
        return _item_info(event)
    if kind == "response.refusal.delta":
        return RefusalDelta(event.get("delta", ""), _item_key(event))
    if kind == "response.created":
        return Created(event.get("response", {}).get("id", ""))
    if kind == "response.completed":
        return _finished(event)
    if kind == "response.incomplete":
        details = (event.get("response") or {}).get("incomplete_details") or {}
        return _finished(event, str(details.get("reason") or "incomplete"))
    if kind == "error":
        raise error_from(event, where, event.get("status"))
    if kind in STEER_EVENTS:
        steer = event.get("steer") if isinstance(event.get("steer"), dict) else {}
        error = event.get("error") if isinstance(event.get("error"), dict) else {}
        return Steered(STEER_EVENTS[kind], steer.get("id"), error.get("code"), str(error.get("message") or ""))
    if kind == "response.failed":
        raise error_from(event.get("response") or {}, where, None, default="the response failed")
    return None


def classify_chat(chunk: dict[str, Any], where: Where) -> tuple[list[Event], str | None]:
    """A `chat.completion.chunk` as records, and its `finish_reason` if it has one.

    Only `delta.content` is answer text: `reasoning_content` (llama.cpp, vLLM) and
    `reasoning` (Ollama) are the model thinking aloud; `refusal` is a refusal. A usage
    chunk has no choices. `data: [DONE]` is handled by the caller.
    """
    if "error" in chunk:
        raise error_from(chunk, where, chunk.get("status"))
    records: list[Event] = []
    finish: str | None = None
    for choice in chunk.get("choices") or []:
        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
            continue  # n > 1 is never asked for; only the first choice is the answer
        delta = choice.get("delta") or {}
        if delta.get("content"):
            records.append(TextDelta(delta["content"]))
        if delta.get("refusal"):
            records.append(RefusalDelta(delta["refusal"]))
        if choice.get("finish_reason"):
            finish = str(choice["finish_reason"])
    return records, finish
