"""Realistic response streams, built from the official `openai` SDK's own models.

Every event is constructed (and so validated) by the SDK's pydantic class for it, then
dumped as the wire would carry it; nothing here is shaped by what sparkls expects.
`ResponseStream` builds one Responses API stream (WebSocket frames or SSE events);
`chat_stream` builds Chat Completions chunks as OpenAI and local servers send them.
"""

from __future__ import annotations

import itertools
import secrets
from typing import Any

from openai.types.chat import ChatCompletionChunk
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseIncompleteEvent,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseOutputTextAnnotationAddedEvent,
    ResponseQueuedEvent,
    ResponseReasoningItem,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.responses_server_event import ResponseWsError, ResponseWsErrorError

MODEL = "gpt-5.3-codex-spark"


def dump(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_unset=True)


def pieces(text: str, size: int = 4) -> list[str]:
    """`text` cut as a tokenizer might: a few characters per delta."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def usage(output_tokens: int = 40) -> ResponseUsage:
    return ResponseUsage(
        input_tokens=900,
        input_tokens_details={"cached_tokens": 768, "cache_write_tokens": 132},
        output_tokens=output_tokens,
        output_tokens_details={"reasoning_tokens": 12},
        total_tokens=900 + output_tokens,
    )


class ResponseStream:
    """One response's events, in order, with sequence numbers the SDK's way."""

    def __init__(self, *, obfuscation: bool = False) -> None:
        self.id = "resp_" + secrets.token_hex(16)
        self.events: list[dict[str, Any]] = []
        self.output: list[Any] = []
        self._seq = itertools.count()
        self._obfuscation = obfuscation

    def _add(self, model: Any, **extra: Any) -> None:
        event = dump(model)
        event.update(extra)
        self.events.append(event)

    def _response(self, status: str, **fields: Any) -> Response:
        return Response(
            id=self.id, object="response", created_at=1_763_900_000, model=MODEL, status=status,
            output=list(self.output) if status != "in_progress" else [], parallel_tool_calls=True,
            tool_choice="auto", tools=[], store=False, **fields,
        )

    def start(self, *, queued: bool = False) -> ResponseStream:
        self._add(ResponseCreatedEvent(type="response.created", sequence_number=next(self._seq),
                                       response=self._response("queued" if queued else "in_progress")))
        if queued:
            self._add(ResponseQueuedEvent(type="response.queued", sequence_number=next(self._seq),
                                          response=self._response("queued")))
        self._add(ResponseInProgressEvent(type="response.in_progress", sequence_number=next(self._seq),
                                          response=self._response("in_progress")))
        return self

    def reasoning(self, summary: str = "") -> ResponseStream:
        index, item_id = len(self.output), "rs_" + secrets.token_hex(8)
        self._add(ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=next(self._seq), output_index=index,
            item=ResponseReasoningItem(id=item_id, type="reasoning", summary=[], status="in_progress")))
        for piece in pieces(summary) if summary else []:
            self._add(ResponseReasoningSummaryTextDeltaEvent(
                type="response.reasoning_summary_text.delta", sequence_number=next(self._seq), item_id=item_id,
                output_index=index, summary_index=0, delta=piece))
        item = ResponseReasoningItem(
            id=item_id, type="reasoning", status="completed", encrypted_content="gAAAA" + secrets.token_hex(24),
            summary=[{"type": "summary_text", "text": summary}] if summary else [])
        self._add(ResponseOutputItemDoneEvent(type="response.output_item.done", sequence_number=next(self._seq),
                                              output_index=index, item=item))
        self.output.append(item)
        return self

    def message(self, text: str, *, phase: str | None = None, stop_after: int | None = None,
                annotate: bool = False, size: int = 4) -> ResponseStream:
        """A message streamed as text deltas; `stop_after` N deltas leaves it in progress."""
        index, item_id = len(self.output), "msg_" + secrets.token_hex(8)
        extra = {"phase": phase} if phase else {}
        self._add(ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=next(self._seq), output_index=index,
            item=ResponseOutputMessage(id=item_id, type="message", role="assistant", status="in_progress",
                                       content=[], **extra)))
        self._add(ResponseContentPartAddedEvent(
            type="response.content_part.added", sequence_number=next(self._seq), item_id=item_id, output_index=index,
            content_index=0, part=ResponseOutputText(type="output_text", text="", annotations=[])))
        sent = []
        for n, piece in enumerate(pieces(text, size)):
            if stop_after is not None and n >= stop_after:
                break
            sent.append(piece)
            obfuscation = {"obfuscation": secrets.token_hex(3)} if self._obfuscation else {}
            self._add(ResponseTextDeltaEvent(
                type="response.output_text.delta", sequence_number=next(self._seq), item_id=item_id,
                output_index=index, content_index=0, delta=piece, logprobs=[]), **obfuscation)
        if annotate:
            self._add(ResponseOutputTextAnnotationAddedEvent(
                type="response.output_text.annotation.added", sequence_number=next(self._seq), item_id=item_id,
                output_index=index, content_index=0, annotation_index=0,
                annotation={"type": "url_citation", "url": "https://example.com", "title": "x", "start_index": 0,
                            "end_index": 1}))
        done_text = "".join(sent)
        status = "completed" if stop_after is None else "incomplete"
        part = ResponseOutputText(type="output_text", text=done_text, annotations=[])
        if stop_after is None:
            self._add(ResponseTextDoneEvent(
                type="response.output_text.done", sequence_number=next(self._seq), item_id=item_id,
                output_index=index, content_index=0, text=done_text, logprobs=[]))
            self._add(ResponseContentPartDoneEvent(
                type="response.content_part.done", sequence_number=next(self._seq), item_id=item_id,
                output_index=index, content_index=0, part=part))
        item = ResponseOutputMessage(id=item_id, type="message", role="assistant", status=status, content=[part],
                                     **extra)
        self._add(ResponseOutputItemDoneEvent(type="response.output_item.done", sequence_number=next(self._seq),
                                              output_index=index, item=item))
        self.output.append(item)
        return self

    def refusal(self, text: str) -> ResponseStream:
        index, item_id = len(self.output), "msg_" + secrets.token_hex(8)
        self._add(ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=next(self._seq), output_index=index,
            item=ResponseOutputMessage(id=item_id, type="message", role="assistant", status="in_progress",
                                       content=[], phase="final_answer")))
        self._add(ResponseContentPartAddedEvent(
            type="response.content_part.added", sequence_number=next(self._seq), item_id=item_id, output_index=index,
            content_index=0, part=ResponseOutputRefusal(type="refusal", refusal="")))
        for piece in pieces(text):
            self._add(ResponseRefusalDeltaEvent(
                type="response.refusal.delta", sequence_number=next(self._seq), item_id=item_id, output_index=index,
                content_index=0, delta=piece))
        self._add(ResponseRefusalDoneEvent(
            type="response.refusal.done", sequence_number=next(self._seq), item_id=item_id, output_index=index,
            content_index=0, refusal=text))
        item = ResponseOutputMessage(id=item_id, type="message", role="assistant", status="completed",
                                     content=[ResponseOutputRefusal(type="refusal", refusal=text)],
                                     phase="final_answer")
        self._add(ResponseOutputItemDoneEvent(type="response.output_item.done", sequence_number=next(self._seq),
                                              output_index=index, item=item))
        self.output.append(item)
        return self

    def completed(self) -> list[dict[str, Any]]:
        self._add(ResponseCompletedEvent(type="response.completed", sequence_number=next(self._seq),
                                         response=self._response("completed", usage=usage())))
        return self.events

    def incomplete(self, reason: str) -> list[dict[str, Any]]:
        self._add(ResponseIncompleteEvent(
            type="response.incomplete", sequence_number=next(self._seq),
            response=self._response("incomplete", usage=usage(), incomplete_details={"reason": reason})))
        return self.events

    def failed(self, code: str = "server_error",
               message: str = "The server had an error while processing your request. Sorry about that!") -> list:
        self._add(ResponseFailedEvent(
            type="response.failed", sequence_number=next(self._seq),
            response=self._response("failed", error={"code": code, "message": message})))
        return self.events

    def sse_error(self, code: str, message: str) -> list[dict[str, Any]]:
        """The SSE error event (`ResponseErrorEvent`): the stream ends with it."""
        self._add(ResponseErrorEvent(type="error", sequence_number=next(self._seq), code=code, message=message,
                                     param=None))
        return self.events


def ws_error(status: int, code: str, message: str, *, kind: str = "invalid_request_error",
             headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An in-band WebSocket error (`ResponseWsError`), as sent before a response starts."""
    error = ResponseWsErrorError(type=kind, code=code, message=message, param=None,
                                 **({"headers": headers} if headers else {}))
    return dump(ResponseWsError(type="error", status=status, error=error))


def chat_stream(text: str, *, finish: str = "stop", flavour: str = "openai", refusal: str | None = None,
                usage_chunk: bool = True, thinking: str = "Let me look at the function.") -> list[dict[str, Any]]:
    """`chat.completion.chunk`s as OpenAI, llama.cpp, vLLM or Ollama stream them."""
    cid = "chatcmpl-" + secrets.token_hex(8)

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        body = dump(ChatCompletionChunk(id=cid, object="chat.completion.chunk", created=1_763_900_000,
                                        model=MODEL, choices=choices, **extra))
        return body

    chunks = [chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]
    thinking_field = {"llama.cpp": "reasoning_content", "vllm": "reasoning_content", "ollama": "reasoning"}
    if flavour in thinking_field:
        for piece in pieces(thinking):
            c = chunk([{"index": 0, "delta": {}, "finish_reason": None}])
            c["choices"][0]["delta"][thinking_field[flavour]] = piece  # not an SDK field: the server's own
            chunks.append(c)
    if refusal is not None:
        chunks += [chunk([{"index": 0, "delta": {"refusal": p}, "finish_reason": None}]) for p in pieces(refusal)]
    else:
        chunks += [chunk([{"index": 0, "delta": {"content": p}, "finish_reason": None}]) for p in pieces(text)]
    numbers = {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    last = chunk([{"index": 0, "delta": {}, "finish_reason": finish}])
    if flavour == "ollama":
        last = chunk([{"index": 0, "delta": {}, "finish_reason": finish}], usage=numbers)
    if flavour == "llama.cpp":
        last["timings"] = {"prompt_n": 900, "predicted_n": 40, "predicted_per_second": 88.1}
    chunks.append(last)
    if usage_chunk and flavour != "ollama":
        chunks.append(chunk([], usage=numbers))  # `stream_options.include_usage`: no choices
    return chunks
