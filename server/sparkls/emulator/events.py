"""Wire shapes of the OpenAI APIs the emulator speaks, as pure builders.

This module owns the JSON the emulator sends: Responses API objects and streaming
events (:class:`ResponseEvents`), Chat Completions objects and chunks
(:class:`ChatChunks`), and error bodies (:func:`error_event`, :func:`http_error_body`).
It does no I/O and keeps no state beyond the one response it describes.

Deltas are the hot path (one per token, thousands per reply), so their JSON is
produced from a prebuilt template with only the delta string encoded per call.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

_encode_string = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]

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


def new_id(prefix: str) -> str:
    """A fresh identifier in OpenAI's style, e.g. ``resp_`` + 48 hex digits."""
    return prefix + secrets.token_hex(24)


def dumps(obj: Any) -> str:
    """Compact JSON, as the service sends it."""
    return json.dumps(obj, separators=(",", ":"))


def error_type(status: int) -> str:
    """The ``error.type`` OpenAI uses for an HTTP *status*."""
    if status >= 500:
        return "server_error"
    return ERROR_TYPES.get(status, "invalid_request_error")


def error_code(status: int) -> str:
    """A default ``error.code`` for an HTTP *status* when none was given."""
    return DEFAULT_ERROR_CODES.get(status, f"http_{status}")


def error_object(
    status: int, code: str | None, message: str, param: str | None = None
) -> dict[str, Any]:
    """The inner ``error`` object shared by HTTP error bodies and error events."""
    return {
        "type": error_type(status),
        "code": code if code is not None else error_code(status),
        "message": message,
        "param": param,
    }


def error_event(
    status: int, code: str | None, message: str, param: str | None = None
) -> dict[str, Any]:
    """An in-band WebSocket error event: ``{"type": "error", "status", "error"}``."""
    return {"type": "error", "status": status, "error": error_object(status, code, message, param)}


def http_error_body(
    status: int, code: str | None, message: str, param: str | None = None
) -> dict[str, Any]:
    """An HTTP error body: ``{"error": {"message", "type", "code", "param"}}``."""
    return {"error": error_object(status, code, message, param)}


def responses_usage(input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> dict:
    """A Responses API ``usage`` object."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


class ResponseEvents:
    """Builds the events of one Responses API response, numbering them in order.

    Call the builders in stream order: :meth:`created`, :meth:`in_progress`,
    :meth:`item_added`, :meth:`part_added`, :meth:`delta` for each piece,
    :meth:`text_done`, :meth:`part_done`, :meth:`item_done`, :meth:`completed`.
    Every builder but :meth:`delta` returns a dict; :meth:`delta` returns JSON text.
    """

    def __init__(
        self,
        request: dict[str, Any],
        *,
        model: str,
        created_at: int,
        response_id: str | None = None,
    ) -> None:
        self.response_id = response_id or new_id("resp_")
        self.item_id = new_id("msg_")
        self.model = model
        self.created_at = created_at
        self.request = request
        self.sequence_number = 0
        self._delta_template = (
            '{"type":"response.output_text.delta","sequence_number":%d,'
            f'"item_id":"{self.item_id}","output_index":0,"content_index":0,'
            '"delta":%s,"logprobs":[]}'
        )

    def _next(self) -> int:
        number = self.sequence_number
        self.sequence_number += 1
        return number

    def response(
        self, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The ``response`` object in the given *status*."""
        request = self.request
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": request.get("instructions"),
            "max_output_tokens": request.get("max_output_tokens"),
            "model": self.model,
            "output": output,
            "parallel_tool_calls": request.get("parallel_tool_calls", True),
            "previous_response_id": request.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None},
            "store": request.get("store", True),
            "temperature": request.get("temperature", 1.0),
            "text": {"format": {"type": "text"}},
            "tool_choice": request.get("tool_choice", "auto"),
            "tools": request.get("tools", []),
            "top_p": request.get("top_p", 1.0),
            "truncation": request.get("truncation", "disabled"),
            "usage": usage,
            "user": request.get("user"),
            "metadata": request.get("metadata") or {},
        }

    def message_item(self, status: str, text: str | None) -> dict[str, Any]:
        """The assistant message item; *text* None means no content part yet."""
        content = [] if text is None else [self.text_part(text)]
        return {
            "id": self.item_id,
            "type": "message",
            "status": status,
            "role": "assistant",
            "content": content,
        }

    @staticmethod
    def text_part(text: str) -> dict[str, Any]:
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}

    def created(self) -> dict[str, Any]:
        return {
            "type": "response.created",
            "sequence_number": self._next(),
            "response": self.response("in_progress", [], None),
        }

    def in_progress(self) -> dict[str, Any]:
        return {
            "type": "response.in_progress",
            "sequence_number": self._next(),
            "response": self.response("in_progress", [], None),
        }

    def item_added(self) -> dict[str, Any]:
        return {
            "type": "response.output_item.added",
            "sequence_number": self._next(),
            "output_index": 0,
            "item": self.message_item("in_progress", None),
        }

    def part_added(self) -> dict[str, Any]:
        return {
            "type": "response.content_part.added",
            "sequence_number": self._next(),
            "item_id": self.item_id,
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        }

    def delta(self, piece: str) -> str:
        """The JSON text of one ``response.output_text.delta`` event."""
        return self._delta_template % (self._next(), _encode_string(piece))

    def text_done(self, text: str) -> dict[str, Any]:
        return {
            "type": "response.output_text.done",
            "sequence_number": self._next(),
            "item_id": self.item_id,
            "output_index": 0,
            "content_index": 0,
            "text": text,
            "logprobs": [],
        }

    def part_done(self, text: str) -> dict[str, Any]:
        return {
            "type": "response.content_part.done",
            "sequence_number": self._next(),
            "item_id": self.item_id,
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": text, "annotations": []},
        }

    def item_done(self, text: str) -> dict[str, Any]:
        return {
            "type": "response.output_item.done",
            "sequence_number": self._next(),
            "output_index": 0,
            "item": self.message_item("completed", text),
        }

    def completed(self, text: str | None, usage: dict[str, Any]) -> dict[str, Any]:
        """``response.completed``; *text* None means no output (a warm-up)."""
        output = [] if text is None else [self.message_item("completed", text)]
        return {
            "type": "response.completed",
            "sequence_number": self._next(),
            "response": self.response("completed", output, usage),
        }

    def final_response(self, text: str, usage: dict[str, Any]) -> dict[str, Any]:
        """The complete response object, for a request without streaming."""
        return self.response("completed", [self.message_item("completed", text)], usage)


def chat_usage(prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> dict:
    """A Chat Completions ``usage`` object."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


class ChatChunks:
    """Builds the ``chat.completion.chunk`` objects of one streamed chat completion.

    Stream order: :meth:`role`, :meth:`content` for each piece, :meth:`stop`, then
    :meth:`usage` when the request asked for it (``stream_options.include_usage``).
    :meth:`content` returns JSON text (the hot path); the others return dicts.
    """

    def __init__(self, *, model: str, created: int, completion_id: str | None = None) -> None:
        self.completion_id = completion_id or new_id("chatcmpl-")
        self.model = model
        self.created = created
        self._content_template = (
            f'{{"id":"{self.completion_id}","object":"chat.completion.chunk",'
            f'"created":{created},"model":{_encode_string(model)},"system_fingerprint":null,'
            '"choices":[{"index":0,"delta":{"content":%s},"logprobs":null,"finish_reason":null}]}'
        )

    def _chunk(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": choices,
        }

    def role(self) -> dict[str, Any]:
        return self._chunk(
            [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
              "finish_reason": None}]
        )

    def content(self, piece: str) -> str:
        return self._content_template % _encode_string(piece)

    def stop(self) -> dict[str, Any]:
        return self._chunk([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}])

    def usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        chunk = self._chunk([])
        chunk["usage"] = usage
        return chunk

    def completion(self, text: str, usage: dict[str, Any]) -> dict[str, Any]:
        """The complete ``chat.completion`` object, for a request without streaming."""
        return {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }


def models_list(models: list[str], created: int) -> dict[str, Any]:
    """The ``GET /v1/models`` body."""
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": created, "owned_by": "sparkls-emulator"}
            for name in models
        ],
    }


__all__ = [
    "ChatChunks",
    "ResponseEvents",
    "chat_usage",
    "dumps",
    "error_event",
    "error_object",
    "http_error_body",
    "models_list",
    "new_id",
    "responses_usage",
]
