"""Responses API objects and streaming events, as pure builders.

This module owns the JSON of one Responses API response: the ``response`` object in
each status, the output items (a reasoning item, assistant messages with ``phase``,
output text or refusal parts), every streaming event with its ``sequence_number``,
``item_id``, ``output_index`` and ``content_index``, and ``usage``. It does no I/O
and keeps no state beyond the one response it describes.

:class:`ResponseEvents` is called in stream order (``replies.py`` decides the
order); the output items it has closed are the ``output`` of every later response
object, so the final response holds exactly what the events built. Deltas are the
hot path (one per token), so their JSON comes from a per-item template with only the
delta string (and the ``obfuscation`` padding) filled in per call.
"""

from __future__ import annotations

import base64
import secrets
import time
from typing import Any, Sequence

from sparkls.emulator.events import (
    HOLE,
    OBFUSCATION_POOL,
    encode_string,
    error_event,
    json_template,
    new_id,
    sse_error_event,
)

CACHE_MINIMUM_TOKENS = 1024  # the service caches prompts from this size on


def responses_usage(
    input_tokens: int, output_tokens: int, cached_tokens: int = 0, reasoning_tokens: int = 0
) -> dict[str, Any]:
    """A Responses API ``usage`` object. A prompt long enough to be cached writes its
    uncached part to the cache (``cache_write_tokens``)."""
    writes = input_tokens - cached_tokens if input_tokens >= CACHE_MINIMUM_TOKENS else 0
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens, "cache_write_tokens": writes},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def encrypted_reasoning() -> str:
    """An opaque ``encrypted_content``, shaped like the service's (Fernet-like base64)."""
    return "gAAAAA" + base64.urlsafe_b64encode(secrets.token_bytes(96)).decode()


class ResponseEvents:
    """Builds the events of one response, numbering them in order.

    Stream order: :meth:`created` (:meth:`queued`) :meth:`in_progress`, then per item
    :meth:`reasoning_item`, or :meth:`open_message`, :meth:`deltas`…, :meth:`close_message`;
    then one ending: :meth:`completed`, :meth:`incomplete`, :meth:`failed` or
    :meth:`stream_error`. Builders return dicts or lists of them; :meth:`deltas` returns
    JSON texts. With *obfuscate*, text deltas carry an ``obfuscation`` string.
    """

    def __init__(
        self,
        request: dict[str, Any],
        *,
        model: str,
        created_at: int,
        response_id: str | None = None,
        obfuscate: bool = True,
    ) -> None:
        self.response_id = response_id or new_id("resp_")
        self.model = model
        self.created_at = created_at
        self.request = request
        self.sequence_number = 0
        self.output: list[dict[str, Any]] = []  # closed items, in output order
        self._obfuscate = obfuscate
        self._template = ""
        self._padded = False
        self._open: dict[str, Any] | None = None  # the message being streamed

    def _next(self) -> int:
        number = self.sequence_number
        self.sequence_number += 1
        return number

    def next_number(self) -> int:
        """Take the next sequence number for an event about this response sent on its
        stream (the steering events, ``steering.py``)."""
        return self._next()

    def output_text(self) -> str:
        """The text of the messages closed so far, blank-line separated."""
        texts = [part.get("text", part.get("refusal", "")) for item in self.output if item["type"] == "message"
                 for part in item["content"]]
        return "\n\n".join(texts)

    # -- objects -----------------------------------------------------------------

    def response(
        self,
        status: str,
        usage: dict[str, Any] | None = None,
        *,
        incomplete_reason: str | None = None,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The ``response`` object in *status*, with the items closed so far."""
        request = self.request
        reasoning = request.get("reasoning") if isinstance(request.get("reasoning"), dict) else {}
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": bool(request.get("background", False)),
            "completed_at": int(time.time()) if status == "completed" else None,
            "error": error,
            "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
            "instructions": request.get("instructions"),
            "max_output_tokens": request.get("max_output_tokens"),
            "max_tool_calls": request.get("max_tool_calls"),
            "model": self.model,
            "output": list(self.output),
            "parallel_tool_calls": request.get("parallel_tool_calls", True),
            "previous_response_id": request.get("previous_response_id"),
            "prompt_cache_key": request.get("prompt_cache_key"),
            "reasoning": {"effort": reasoning.get("effort", "medium"), "summary": reasoning.get("summary")},
            "safety_identifier": request.get("safety_identifier"),
            "service_tier": "default",
            "temperature": request.get("temperature", 1.0),
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": request.get("tool_choice", "auto"),
            "tools": request.get("tools", []),
            "top_logprobs": request.get("top_logprobs", 0),
            "top_p": request.get("top_p", 1.0),
            "truncation": request.get("truncation", "disabled"),
            "usage": usage,
            "user": request.get("user"),
            "metadata": request.get("metadata") or {},
        }

    @staticmethod
    def part(text: str, refusal: bool) -> dict[str, Any]:
        """A message content part: output text (with annotations) or a refusal."""
        if refusal:
            return {"type": "refusal", "refusal": text}
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}

    # -- opening -------------------------------------------------------------------

    def _lifecycle(self, kind: str, status: str) -> dict[str, Any]:
        return {"type": kind, "sequence_number": self._next(), "response": self.response(status)}

    def created(self, status: str = "in_progress") -> dict[str, Any]:
        return self._lifecycle("response.created", status)

    def queued(self) -> dict[str, Any]:
        return self._lifecycle("response.queued", "queued")

    def in_progress(self) -> dict[str, Any]:
        return self._lifecycle("response.in_progress", "in_progress")

    # -- items -----------------------------------------------------------------------

    def reasoning_item(self) -> list[dict[str, Any]]:
        """A reasoning item, added and done (its summary empty, its content opaque)."""
        item = {"id": new_id("rs_"), "type": "reasoning", "summary": [], "encrypted_content": encrypted_reasoning()}
        index = len(self.output)
        self.output.append(item)
        return [
            {"type": "response.output_item.added", "sequence_number": self._next(), "output_index": index,
             "item": {**item, "encrypted_content": None}},
            {"type": "response.output_item.done", "sequence_number": self._next(), "output_index": index,
             "item": item},
        ]

    def patch_call_added(self, item: dict[str, Any]) -> dict[str, Any]:
        """An ``apply_patch_call`` announced: in progress, its diff not written yet."""
        operation = {**item["operation"], "diff": ""} if "diff" in item["operation"] else item["operation"]
        return {"type": "response.output_item.added", "sequence_number": self._next(), "output_index": len(self.output),
                "item": {**item, "status": "in_progress", "operation": operation}}

    def patch_call_done(self, item: dict[str, Any]) -> dict[str, Any]:
        """The ``apply_patch_call`` done (the SDK defines no delta events for its diff)."""
        index = len(self.output)
        self.output.append(item)
        return {"type": "response.output_item.done", "sequence_number": self._next(), "output_index": index,
                "item": item}

    def _message(self, status: str, content: list[dict[str, Any]]) -> dict[str, Any]:
        assert self._open is not None
        item: dict[str, Any] = {
            "id": self._open["id"], "type": "message", "status": status, "role": "assistant", "content": content,
        }
        if self._open["phase"] is not None:
            item["phase"] = self._open["phase"]
        return item

    def open_message(self, phase: str | None, *, refusal: bool = False) -> list[dict[str, Any]]:
        """``output_item.added`` and ``content_part.added`` for a new message."""
        item_id, index = new_id("msg_"), len(self.output)
        self._open = {"id": item_id, "index": index, "phase": phase, "refusal": refusal}
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        self._padded = self._obfuscate and not refusal
        delta: dict[str, Any] = {
            "type": "response.refusal.delta" if refusal else "response.output_text.delta",
            "sequence_number": HOLE, **where, "delta": HOLE,
        }
        if not refusal:
            delta["logprobs"] = []
        if self._padded:
            delta["obfuscation"] = HOLE
        self._template = json_template(delta)
        empty = {"type": "refusal", "refusal": ""} if refusal else {"type": "output_text", "text": "", "annotations": []}
        return [
            {"type": "response.output_item.added", "sequence_number": self._next(), "output_index": index,
             "item": self._message("in_progress", [])},
            {"type": "response.content_part.added", "sequence_number": self._next(), **where, "part": empty},
        ]

    def deltas(self, pieces: Sequence[str]) -> list[str]:
        """The JSON texts of the open message's next deltas, one per piece (the hot
        path: one template fill per piece, no call per piece)."""
        start = self.sequence_number
        self.sequence_number = start + len(pieces)
        template, encode = self._template, encode_string
        if self._padded:
            pool, size = OBFUSCATION_POOL, len(OBFUSCATION_POOL)
            return [template % (start + i, encode(p), pool[(start + i) % size]) for i, p in enumerate(pieces)]
        return [template % (start + i, encode(p)) for i, p in enumerate(pieces)]

    def delta(self, piece: str) -> str:
        """The JSON text of one delta of the open message."""
        return self.deltas((piece,))[0]

    def close_message(self, text: str, status: str = "completed") -> list[dict[str, Any]]:
        """The done events of the open message holding *text* (``status``: completed,
        or incomplete when the response stops early)."""
        assert self._open is not None
        refusal = self._open["refusal"]
        where = {"item_id": self._open["id"], "output_index": self._open["index"], "content_index": 0}
        if refusal:
            done: dict[str, Any] = {"type": "response.refusal.done", "sequence_number": self._next(), **where,
                                    "refusal": text}
        else:
            done = {"type": "response.output_text.done", "sequence_number": self._next(), **where,
                    "text": text, "logprobs": []}
        part = self.part(text, refusal)
        item = self._message(status, [part])
        self.output.append(item)
        self._open = None
        return [
            done,
            {"type": "response.content_part.done", "sequence_number": self._next(), **where, "part": part},
            {"type": "response.output_item.done", "sequence_number": self._next(),
             "output_index": where["output_index"], "item": item},
        ]

    def abandon_message(self, text: str) -> None:
        """Close the open message without events (a failed response): it is in the
        output as ``incomplete`` with the text sent so far."""
        if self._open is not None:
            self.output.append(self._message("incomplete", [self.part(text, self._open["refusal"])]))
            self._open = None

    # -- endings -----------------------------------------------------------------------

    def completed(self, usage: dict[str, Any]) -> dict[str, Any]:
        return {"type": "response.completed", "sequence_number": self._next(),
                "response": self.response("completed", usage)}

    def incomplete(self, reason: str, usage: dict[str, Any]) -> dict[str, Any]:
        return {"type": "response.incomplete", "sequence_number": self._next(),
                "response": self.response("incomplete", usage, incomplete_reason=reason)}

    def failed(self, code: str, message: str) -> dict[str, Any]:
        error = {"code": code, "message": message}
        return {"type": "response.failed", "sequence_number": self._next(),
                "response": self.response("failed", error=error)}

    def stream_error(self, code: str, message: str, *, websocket: bool) -> dict[str, Any]:
        """An error inside the stream: the WebSocket or the SSE shape of it."""
        message = f"{message} Please include the request ID req_{secrets.token_hex(16)} in your message."
        if websocket:
            return error_event(None, code, message, sequence_number=self._next(), kind="server_error")
        return sse_error_event(code, message, self._next())
