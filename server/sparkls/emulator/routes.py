"""The emulator's plain HTTP routes (everything but the WebSocket upgrade).

This module owns what one HTTP request gets: ``POST /v1/responses`` (SSE when
``"stream": true``, else one JSON response object), ``POST /v1/chat/completions``
(SSE chunks then ``data: [DONE]``, or one ``chat.completion``, in the faults' chat
flavour), ``GET /v1/models``, the control endpoint (handed to ``control_routes.py``),
and 404 for the rest. Errors are an HTTP status with ``{"error": {"message", "type",
"code", "param"}}`` and the error's headers (``retry-after`` on a 429).

State (faults, stats, stored response ids) lives on the :class:`Emulator`; the
Responses stream itself is :meth:`Emulator.serve_response`, shared with WebSocket mode.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

from sparkls.emulator import behaviours, httpwire, model
from sparkls.emulator.chat import ChatChunks
from sparkls.emulator.control import INVALID_API_KEY, INVALID_JSON, UNKNOWN_URL, check_request, refusal
from sparkls.emulator.control_routes import control_route, serve_control
from sparkls.emulator.events import ApiError, api_error_body, models_list
from sparkls.emulator.replies import ChatReply, stream_chat, whole_chat, whole_response
from sparkls.emulator.responses import ResponseEvents, responses_usage
from sparkls.emulator.streaming import Item, SseSink, Wire, wait_as_generating, will_drop

if TYPE_CHECKING:
    from sparkls.emulator.app import Emulator

DEFAULT_MODELS = ("gpt-5.3-codex-spark", "gpt-5.3-codex")


async def serve_http(emulator: Emulator, request: httpwire.HttpRequest, wire: Wire) -> bool:
    """Answer one request; False when the connection must not be reused."""
    control = control_route(request.path)
    if control is not None:
        wire.counted = False  # reading the stats must not change them
        try:
            serve_control(emulator, control, request, wire)
        finally:
            wire.counted = True
        return True
    stats = emulator.counters
    stats.http_requests += 1
    stats.bytes_in += request.size
    emulator.canary_net.check(request.body, f"{request.method} {request.path}", stats)
    keep_alive = request.keep_alive
    if not emulator.authorized(request.headers):
        write_error(emulator, wire, ApiError(401, INVALID_API_KEY, ""), keep_alive,
                    body=emulator.unauthorized_body())
        return True
    route = (request.method, request.path)
    if route == ("POST", "/v1/responses"):
        return await _post_responses(emulator, request, wire)
    if route == ("POST", "/v1/chat/completions"):
        return await _post_chat(emulator, request, wire)
    if route == ("GET", "/v1/models"):
        names = sorted(emulator.models) if emulator.models else list(DEFAULT_MODELS)
        wire.write(httpwire.json_response(200, models_list(names, 0), keep_alive=keep_alive))
        return True
    message = f"Invalid URL ({request.method} {request.path})"
    write_error(emulator, wire, ApiError(404, UNKNOWN_URL, message), keep_alive)
    return True


def write_error(
    emulator: Emulator,
    wire: Wire,
    error: ApiError,
    keep_alive: bool,
    *,
    body: dict[str, Any] | None = None,
) -> None:
    emulator.counters.errors += 1
    wire.write(
        httpwire.json_response(
            error.status, body or api_error_body(error), keep_alive=keep_alive, headers=error.headers
        )
    )


def _json_body(request: httpwire.HttpRequest) -> Any:
    try:
        return request.json()
    except ValueError:
        raise ApiError(
            400, INVALID_JSON, "We could not parse the JSON body of your request."
        ) from None


async def _post_responses(emulator: Emulator, request: httpwire.HttpRequest, wire: Wire) -> bool:
    keep_alive = request.keep_alive
    try:
        body = _json_body(request)
        if not (isinstance(body, dict) and body.get("stream")):
            return await _respond_whole(emulator, body, wire, keep_alive)
        sink = _LazySseSink(wire, keep_alive=keep_alive)
        response_id = await emulator.serve_response(
            body, sink, previous_known=emulator.is_stored
        )
    except ApiError as error:  # raised before anything was sent
        write_error(emulator, wire, error, keep_alive)
        return True
    if response_id is None:
        return False
    sink.finish(done_marker=False)
    await wire.drain()
    return True


async def _respond_whole(emulator: Emulator, body: Any, wire: Wire, keep_alive: bool) -> bool:
    """``POST /v1/responses`` without streaming: one JSON response object."""
    check_request(body, models=emulator.models, previous_known=emulator.is_stored)
    stats = emulator.counters
    model_name = body["model"]
    request_text = model.responses_request_text(body)
    cached = emulator.prompt_cache.lookup(request_text)
    reply = ResponseEvents(body, model=model_name, created_at=int(time.time()))
    input_tokens = model.count_tokens(request_text)
    if body.get("generate") is False:
        stats.warmups += 1
        response = reply.response("completed", responses_usage(input_tokens, 0, cached))
    else:
        faults = emulator.fault_state.take(model_name).for_request(request_text)
        error = refusal(faults, model_name)
        if error is not None:
            raise error
        stats.count_response(model_name, "http")
        text, answered = emulator.answer_for(body, faults.reply)
        script = behaviours.script(faults.behaviour, text, answered)
        await wait_as_generating(text, faults)
        if will_drop(faults, script.visible_tokens):
            await wire.abort()
            return False
        usage = responses_usage(input_tokens, script.output_tokens, cached, script.reasoning_tokens)
        response = whole_response(reply, script, usage)
    if body.get("store", True) is not False and response["status"] == "completed":
        emulator.remember(reply.response_id)
        if body.get("generate") is not False:
            emulator.remember_answer(reply.response_id, text)
    wire.write(httpwire.json_response(200, response, keep_alive=keep_alive))
    return True


async def _post_chat(emulator: Emulator, request: httpwire.HttpRequest, wire: Wire) -> bool:
    keep_alive = request.keep_alive
    try:
        body = _json_body(request)
        check_request(body, models=emulator.models, previous_known=lambda _: False)
        request_text = model.chat_request_text(body)
        faults = emulator.fault_state.take(body["model"]).for_request(request_text)
        error = refusal(faults, body["model"])
        if error is not None:
            raise error
    except ApiError as error:
        write_error(emulator, wire, error, keep_alive)
        return True
    stats = emulator.counters
    stats.count_response(body["model"], "chat")
    cached = emulator.prompt_cache.lookup(request_text)
    text = emulator.ideal.answer(request_text) or model.answer(request_text, reply=faults.reply)
    script = behaviours.script(faults.behaviour, text, request_text)
    reply = ChatReply(script, faults.chat_flavour, model.count_tokens(request_text), cached)
    options = body.get("stream_options") if isinstance(body.get("stream_options"), dict) else {}
    chunks = ChatChunks(
        model=body["model"],
        created=int(time.time()),
        flavour=faults.chat_flavour,
        include_usage=bool(options.get("include_usage")),
        obfuscate=options.get("include_obfuscation") is not False,
    )
    if body.get("stream"):
        sink = SseSink(wire, named=False)
        wire.write(httpwire.stream_head(keep_alive=keep_alive))
        outcome = await stream_chat(chunks, reply, faults, sink, stats)
        if outcome == "cut":
            return False
        sink.finish(done_marker=outcome == "completed")
        await wire.drain()
        return True
    await wait_as_generating(reply.thinking + reply.text, faults)
    if will_drop(faults, len(reply.pieces)):
        await wire.abort()
        return False
    try:
        completion = whole_chat(chunks, reply)
    except ApiError as error:
        write_error(emulator, wire, error, keep_alive)
        return True
    wire.write(httpwire.json_response(200, completion, keep_alive=keep_alive))
    return True


class _LazySseSink(SseSink):
    """A Responses SSE sink that sends the 200 head together with its first events.

    Until then a refusal (an injected error) can still be a plain HTTP error status.
    """

    def __init__(self, wire: Wire, *, keep_alive: bool) -> None:
        super().__init__(wire, named=True)
        self._head: bytes | None = httpwire.stream_head(keep_alive=keep_alive)

    def _start(self) -> None:
        if self._head is not None:
            self.wire.write(self._head)
            self._head = None

    def send(self, items: Sequence[Item]) -> bool:
        self._start()
        return super().send(items)

    def keep_alive(self) -> bool:
        self._start()
        return super().keep_alive()
