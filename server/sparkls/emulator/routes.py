"""The emulator's plain HTTP routes (everything but the WebSocket upgrade).

This module owns what one HTTP request gets: ``POST /v1/responses`` (SSE when
``"stream": true``, else one JSON response object), ``POST /v1/chat/completions``
(SSE chunks then ``data: [DONE]``, or one ``chat.completion``), ``GET /v1/models``,
the control endpoint (``/_emulator/stats``, ``/_emulator/faults``,
``/_emulator/reset``, ``/_emulator/disconnect``, ``/_emulator/refuse_websocket``, also
under ``/v1/_emulator/``), and 404 for the rest. Errors
are an HTTP status with ``{"error": {"message", "type", "code", "param"}}``.

State (faults, stats, stored response ids) lives on the :class:`Emulator`; the
Responses stream itself is :meth:`Emulator.serve_response`, shared with WebSocket mode.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

from sparkls.emulator import httpwire, model
from sparkls.emulator.control import (
    INVALID_API_KEY,
    INVALID_FAULTS,
    INVALID_JSON,
    UNKNOWN_URL,
    ApiError,
    check_request,
    injected_error,
)
from sparkls.emulator.events import (
    ChatChunks,
    ResponseEvents,
    chat_usage,
    http_error_body,
    models_list,
    responses_usage,
)
from sparkls.emulator.streaming import (
    Item,
    SseSink,
    Wire,
    stream_chat,
    wait_as_generating,
    will_drop,
)

if TYPE_CHECKING:
    from sparkls.emulator.app import Emulator

DEFAULT_MODELS = ("gpt-5.3-codex-spark", "gpt-5.3-codex")
# The control endpoint answers under the API root too, so that a client whose base
# URL is ".../v1" reaches it with a relative path.
CONTROL_PREFIXES = ("/_emulator/", "/v1/_emulator/")


async def serve_http(emulator: Emulator, request: httpwire.HttpRequest, wire: Wire) -> bool:
    """Answer one request; False when the connection must not be reused."""
    control = control_route(request.path)
    if control is not None:
        wire.counted = False  # reading the stats must not change them
        try:
            _serve_control(emulator, request.method, control, request, wire)
        finally:
            wire.counted = True
        return True
    stats = emulator.counters
    stats.http_requests += 1
    stats.bytes_in += request.size
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
    if body is None:
        body = http_error_body(error.status, error.code, error.message, error.param)
    wire.write(httpwire.json_response(error.status, body, keep_alive=keep_alive))


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
    request_text = model.responses_request_text(body)
    cached = emulator.prompt_cache.lookup(request_text)
    reply = ResponseEvents(body, model=body["model"], created_at=int(time.time()))
    input_tokens = model.count_tokens(request_text)
    if body.get("generate") is False:
        stats.warmups += 1
        response = reply.response("completed", [], responses_usage(input_tokens, 0, cached))
    else:
        faults = emulator.fault_state.take(body["model"])
        error = injected_error(faults)
        if error is not None:
            raise error
        stats.count_response(body["model"], "http")
        text = model.answer(request_text, reply=faults.reply)
        pieces = model.split_tokens(text)
        await wait_as_generating(text, faults)
        if will_drop(faults, len(pieces)):
            await wire.abort()
            return False
        response = reply.final_response(text, responses_usage(input_tokens, len(pieces), cached))
    if body.get("store", True) is not False:
        emulator.remember(reply.response_id)
    wire.write(httpwire.json_response(200, response, keep_alive=keep_alive))
    return True


async def _post_chat(emulator: Emulator, request: httpwire.HttpRequest, wire: Wire) -> bool:
    keep_alive = request.keep_alive
    try:
        body = _json_body(request)
        check_request(body, models=emulator.models, previous_known=lambda _: False)
        faults = emulator.fault_state.take(body["model"])
        error = injected_error(faults)
        if error is not None:
            raise error
    except ApiError as error:
        write_error(emulator, wire, error, keep_alive)
        return True
    stats = emulator.counters
    stats.count_response(body["model"], "chat")
    request_text = model.chat_request_text(body)
    cached = emulator.prompt_cache.lookup(request_text)
    text = model.answer(request_text, reply=faults.reply)
    pieces = model.split_tokens(text)
    usage = chat_usage(model.count_tokens(request_text), len(pieces), cached)
    chunks = ChatChunks(model=body["model"], created=int(time.time()))
    if body.get("stream"):
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        sink = SseSink(wire, named=False)
        wire.write(httpwire.stream_head(keep_alive=keep_alive))
        usage_chunk = usage if include_usage else None
        if not await stream_chat(chunks, text, usage_chunk, faults, sink, stats):
            return False
        sink.finish(done_marker=True)
        await wire.drain()
        return True
    await wait_as_generating(text, faults)
    if will_drop(faults, len(pieces)):
        await wire.abort()
        return False
    completion = chunks.completion(text, usage)
    wire.write(httpwire.json_response(200, completion, keep_alive=keep_alive))
    return True


def _serve_control(
    emulator: Emulator, method: str, name: str, request: httpwire.HttpRequest, wire: Wire
) -> None:
    keep_alive = request.keep_alive
    route = (method, name)
    status = 200
    if route == ("GET", "stats"):
        result: Any = emulator.stats
    elif route == ("GET", "faults"):
        result = emulator.faults.to_json()
    elif route == ("POST", "faults"):
        try:
            changes = request.json() if request.body.strip() else {}
            if not isinstance(changes, dict):
                raise ValueError("the body must be a JSON object")
            result = emulator.fault_state.override(changes).to_json()
        except ValueError as exc:
            status, result = 400, http_error_body(400, INVALID_FAULTS, str(exc))
    elif route == ("POST", "reset"):
        emulator.reset()
        result = {"reset": True}
    elif route == ("POST", "disconnect"):
        result = {"disconnected": emulator.disconnect_websockets()}
    elif route == ("POST", "refuse_websocket"):
        try:
            body = request.json() if request.body.strip() else {}
            emulator.refuse_websocket = bool(body.get("refuse", True))
            result = {"refuse_websocket": emulator.refuse_websocket}
        except (ValueError, AttributeError) as exc:
            status, result = 400, http_error_body(400, INVALID_FAULTS, str(exc))
    else:
        message = f"Invalid URL ({request.method} {request.path})"
        status, result = 404, http_error_body(404, UNKNOWN_URL, message)
    wire.write(httpwire.json_response(status, result, keep_alive=keep_alive))


class _LazySseSink(SseSink):
    """A Responses SSE sink that sends the 200 head together with its first events.

    Until then a refusal (an injected error) can still be a plain HTTP error status.
    """

    def __init__(self, wire: Wire, *, keep_alive: bool) -> None:
        super().__init__(wire, named=True)
        self._head: bytes | None = httpwire.stream_head(keep_alive=keep_alive)

    def send(self, items: Sequence[Item]) -> bool:
        if self._head is not None:
            self.wire.write(self._head)
            self._head = None
        return super().send(items)


def control_route(path: str) -> str | None:
    """The control endpoint's name ("stats", "faults", "reset") for *path*, if any."""
    for prefix in CONTROL_PREFIXES:
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None
