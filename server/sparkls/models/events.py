"""The Responses API's wire events, as pure functions over parsed JSON.

`response_create` builds what the client sends; `classify` turns each server event
into a small record or raises the `ModelError` it means; `api_error` is the single
mapping from (status, code, message) to our error tree, shared by every transport.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparkls.context.prompt import Prompt
from sparkls.errors import ApiError, AuthError, ModelError, ModelNotFound, RateLimited, ServerError, StreamError


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


@dataclass(frozen=True, slots=True)
class Completed:
    response_id: str
    usage: dict[str, Any] = field(default_factory=dict)


Event = Created | TextDelta | Completed


def _responses_fields(
    model: str, prompt: Prompt, *, previous_response_id: str | None, cache_key: str | None
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "model": model,
        "instructions": prompt.instructions,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": prompt.input}]}],
        "store": False,
    }
    if previous_response_id is not None:
        fields["previous_response_id"] = previous_response_id
    if cache_key is not None:
        fields["prompt_cache_key"] = cache_key
    return fields


def response_create(
    model: str,
    prompt: Prompt,
    *,
    previous_response_id: str | None = None,
    generate: bool | None = None,
    cache_key: str | None = None,
) -> dict[str, Any]:
    """A `response.create` message for WebSocket mode (no `stream`: it is implicit)."""
    message = {
        "type": "response.create",
        **_responses_fields(model, prompt, previous_response_id=previous_response_id, cache_key=cache_key),
    }
    if generate is not None:
        message["generate"] = generate
    return message


def responses_body(model: str, prompt: Prompt, *, cache_key: str | None = None) -> dict[str, Any]:
    """The body of `POST /responses` with `stream: true`."""
    return {**_responses_fields(model, prompt, previous_response_id=None, cache_key=cache_key), "stream": True}


def chat_body(model: str, prompt: Prompt) -> dict[str, Any]:
    """The body of `POST /chat/completions` with `stream: true` (OpenAI-compatible servers)."""
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": prompt.instructions},
            {"role": "user", "content": prompt.input},
        ],
        "stream": True,
    }


def api_error(
    where: Where,
    status: int | None,
    code: str | None,
    message: str,
    *,
    retry_after: float | None = None,
) -> ModelError:
    """The one mapping from an API error to our error tree (see errors.py)."""
    detail = message.strip() or (code or "no detail")
    if status in (401, 403) or code in ("invalid_api_key", "insufficient_permissions"):
        return AuthError(f"API key rejected for the {where.tier} tier at {where.host}: {detail}")
    if code == "model_not_found" or (status == 404 and code is None):
        return ModelNotFound(f"Model {where.model!r} of the {where.tier} tier was not found at {where.host}: {detail}")
    if status == 429 or code == "rate_limit_exceeded":
        wait = f" Retry in {retry_after:g} s." if retry_after else ""
        return RateLimited(f"Rate limited by {where.host} ({where.tier} tier): {detail}.{wait}", retry_after=retry_after)
    if status is not None and status >= 500:
        return ServerError(f"{where.host} failed with status {status} ({where.tier} tier): {detail}")
    return ApiError(
        f"The {where.tier} tier's API at {where.host} reported an error"
        + (f" [{code}]" if code else "")
        + f": {detail}",
        api_code=code,
        status=status,
    )


def _error_fields(payload: dict[str, Any]) -> tuple[str | None, str]:
    err = payload.get("error")
    if isinstance(err, dict):
        return err.get("code") or err.get("type"), str(err.get("message") or "")
    return payload.get("code"), str(payload.get("message") or "")


def classify(event: dict[str, Any], where: Where) -> Event | None:
    """The record an event stands for; None for events we do not need; raises on errors."""
    kind = event.get("type")
    if kind == "response.output_text.delta":
        return TextDelta(event.get("delta", ""))
    if kind == "response.created":
        return Created(event.get("response", {}).get("id", ""))
    if kind == "response.completed":
        response = event.get("response") or {}
        return Completed(response.get("id", ""), response.get("usage") or {})
    if kind == "error":
        code, message = _error_fields(event)
        return _raise(api_error(where, event.get("status"), code, message))
    if kind == "response.failed":
        code, message = _error_fields(event.get("response") or {})
        return _raise(api_error(where, None, code, message or "the response failed"))
    if kind == "response.incomplete":
        details = (event.get("response") or {}).get("incomplete_details") or {}
        return _raise(StreamError(f"The {where.tier} tier stopped early ({details.get('reason', 'incomplete')})."))
    return None


def _raise(error: ModelError) -> Event:
    raise error


def classify_chat(chunk: dict[str, Any], where: Where) -> Event | None:
    """A `chat.completion.chunk` as a record; `data: [DONE]` is handled by the caller."""
    if "error" in chunk:
        code, message = _error_fields(chunk)
        return _raise(api_error(where, chunk.get("status"), code, message))
    for choice in chunk.get("choices") or []:
        content = (choice.get("delta") or {}).get("content")
        if content:
            return TextDelta(content)
    return None
