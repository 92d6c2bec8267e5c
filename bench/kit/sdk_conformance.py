"""The emulator held to the official ``openai`` SDK: strict checks of what it sends.

Used by tests/unit/emulator/test_emulator_sdk.py (assertions) and bench/sdk_conformance.py
(figures). Three layers:

- **validation** of one event, chunk or body against the SDK's pydantic models
  (strict mode), plus a recursive walk of ``model_extra``: a key the SDK does not
  declare is a problem unless :data:`ALLOWED_EXTRA` names it, with the reason;
- **invariants** of a whole stream: ``sequence_number`` from 0 by one, every delta
  inside the item and part announced before it, the final output holding exactly the
  text the deltas built, usage adding up; the same for chat chunks;
- **drivers** that read one reply raw off a real emulator (WebSocket frames, SSE
  events, JSON bodies) and :func:`check_case` / :func:`run_matrix`, which run every
  behaviour over every transport and count what was validated;
- **lanes and steering**: :class:`LaneDriver`, a raw WebSocket that validates every
  client message it sends against ``ResponsesClientEvent`` and every frame it reads
  against ``ResponsesServerEvent``, and :func:`lane_invariants`, the stream
  invariants applied per response within each lane (steering events numbered in the
  stream of the response they name); :data:`LANE_CASES` / :func:`check_lane_case`
  run each lanes-and-steering scenario through it.

Every check returns a list of problems (strings); empty means conforming.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
from typing import Any, Awaitable, Callable

import httpx
import pydantic
from openai.types import ErrorObject
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponsesServerEvent, ResponseStreamEvent
from openai.types.responses.response_error_event import ResponseErrorEvent
from openai.types.responses.responses_client_event import ResponsesClientEvent
from openai.types.responses.responses_server_event import ResponseWsError
from websockets.asyncio.client import connect

from sparkls.emulator import Emulator, Faults
from sparkls.emulator.behaviours import BEHAVIOURS
from sparkls.emulator.chat import CHAT_FLAVOURS

WS_EVENT = pydantic.TypeAdapter(ResponsesServerEvent)
WS_CLIENT_EVENT = pydantic.TypeAdapter(ResponsesClientEvent)
SSE_EVENT = pydantic.TypeAdapter(ResponseStreamEvent)
RESPONSE = pydantic.TypeAdapter(Response)
CHAT_COMPLETION = pydantic.TypeAdapter(ChatCompletion)
CHAT_CHUNK = pydantic.TypeAdapter(ChatCompletionChunk)
ERROR_OBJECT = pydantic.TypeAdapter(ErrorObject)

# Keys the SDK's models do not declare but the real services send. Paths use "[]"
# for any list index; a Responses key is qualified by its event type.
ALLOWED_EXTRA: dict[str, dict[str, str]] = {
    "responses": {
        # Stream obfuscation: the service pads text deltas with random characters
        # (off with stream_options.include_obfuscation: false); the SDK's delta
        # event models do not declare the field.
        "response.output_text.delta:obfuscation": "stream obfuscation padding",
    },
    "openai": {},  # ChatCompletionChunk declares obfuscation and service_tier itself
    "llama.cpp": {
        "timings": "llama.cpp's per-request speed figures, on its last chunk and completions",
        "choices[].delta.reasoning_content": "llama.cpp streams thinking before the content",
        "choices[].message.reasoning_content": "llama.cpp returns thinking beside the content",
    },
    "ollama": {
        "choices[].delta.reasoning": "Ollama streams thinking as delta.reasoning",
        "choices[].message.reasoning": "Ollama returns thinking as message.reasoning",
    },
    "vllm": {
        "choices[].delta.reasoning_content": "vLLM's reasoning parsers stream thinking here",
        "choices[].message.reasoning_content": "vLLM returns thinking beside the content",
        "choices[].stop_reason": "vLLM names the stop string or token that ended generation",
    },
}
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
TEXT_DELTAS = ("response.output_text.delta", "response.refusal.delta")
TRANSPORTS = ("websocket", "sse", "http") + tuple(f"chat-stream:{f}" for f in CHAT_FLAVOURS) + tuple(
    f"chat:{f}" for f in CHAT_FLAVOURS
)
REQUEST_TEXT = (
    "File: app/geometry.py\n\nREPLACE area WITH circle_area\n```python\nimport math\n\n"
    "<|editable_region_start|>\ndef area(r):\n    # r is the radius\n"
    "    return math.pi * r * r<|cursor|>\n<|editable_region_end|>\n\nprint(area(2))\n```\n"
)


# -- validation ------------------------------------------------------------------


def undeclared(value: Any, path: str = "") -> list[str]:
    """Paths of every key, at any depth, that the SDK models holding it do not declare."""
    found: list[str] = []
    if isinstance(value, pydantic.BaseModel):
        for key in value.model_extra or {}:
            found.append(f"{path}{key}")
        for name in type(value).model_fields:
            found += undeclared(getattr(value, name), f"{path}{name}.")
    elif isinstance(value, (list, tuple)):
        for item in value:
            found += undeclared(item, f"{path.rstrip('.')}[].")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += undeclared(item, f"{path}{key}.")
    return found


def validate(adapter: pydantic.TypeAdapter, obj: Any, allowed: dict[str, str], qualifier: str = "") -> tuple[Any, list[str]]:
    """Validate *obj* strictly; return the model and the problems (failures, undeclared keys)."""
    try:
        model = adapter.validate_python(obj, strict=True)
    except pydantic.ValidationError as exc:
        return None, [f"{qualifier or 'object'}: invalid: {exc.errors()[0]}"]
    problems = []
    for path in undeclared(model):
        if path not in allowed and f"{qualifier}:{path}" not in allowed:
            problems.append(f"{qualifier or 'object'}: undeclared key {path!r}")
    return model, problems


def check_ws_event(event: dict[str, Any]) -> list[str]:
    """One WebSocket frame, against ``ResponsesServerEvent`` (errors: ``ResponseWsError``)."""
    model, problems = validate(WS_EVENT, event, ALLOWED_EXTRA["responses"], str(event.get("type")))
    if model is not None and event.get("type") == "error" and not isinstance(model, ResponseWsError):
        problems.append(f"error event read as {type(model).__name__}, not ResponseWsError")
    return problems


def check_client_event(event: dict[str, Any]) -> list[str]:
    """One client message, against ``ResponsesClientEvent`` (response.create, response.steer)."""
    return validate(WS_CLIENT_EVENT, event, {}, f"client {event.get('type')}")[1]


def check_sse_event(event: dict[str, Any]) -> list[str]:
    """One SSE event, against ``ResponseStreamEvent`` (errors: ``ResponseErrorEvent``)."""
    model, problems = validate(SSE_EVENT, event, ALLOWED_EXTRA["responses"], str(event.get("type")))
    if model is not None and event.get("type") == "error" and not isinstance(model, ResponseErrorEvent):
        problems.append(f"error event read as {type(model).__name__}, not ResponseErrorEvent")
    return problems


def check_error_body(body: Any) -> list[str]:
    """An HTTP error body: ``{"error": ErrorObject}`` and nothing else."""
    if not isinstance(body, dict) or set(body) != {"error"}:
        return [f"error body is not {{'error': ...}}: {body!r}"]
    return validate(ERROR_OBJECT, body["error"], {}, "error")[1]


# -- stream invariants -------------------------------------------------------------


def _usage_problems(usage: dict[str, Any] | None) -> list[str]:
    if usage is None:
        return []
    problems = []
    if usage["total_tokens"] != usage["input_tokens"] + usage["output_tokens"]:
        problems.append("usage: total_tokens is not input + output")
    details = usage["input_tokens_details"]
    if details["cached_tokens"] + details["cache_write_tokens"] > usage["input_tokens"]:
        problems.append("usage: cached + cache_write exceed input_tokens")
    if usage["output_tokens_details"]["reasoning_tokens"] > usage["output_tokens"]:
        problems.append("usage: reasoning_tokens exceed output_tokens")
    return problems


def response_invariants(events: list[dict[str, Any]]) -> list[str]:
    """Invariants of one Responses stream (events in order)."""
    return numbering_problems(events) + stream_problems(events)


def numbering_problems(events: list[dict[str, Any]]) -> list[str]:
    """``sequence_number`` from 0 by one."""
    numbers = [event.get("sequence_number") for event in events]
    if numbers != list(range(len(events))):
        return [f"sequence_number is not 0, 1, 2…: {numbers}"]
    return []


def stream_problems(events: list[dict[str, Any]]) -> list[str]:
    """The invariants of one Responses stream but its numbering: items and parts
    announced before their deltas, one terminal event last, the final output holding
    exactly what the deltas built, usage adding up."""
    problems: list[str] = []
    items: list[str] = []  # item ids by output_index, as announced
    parts: dict[tuple[str, int, int], str] = {}  # open and closed parts: text so far
    closed: set[tuple[str, int, int]] = set()
    ids = {event["response"]["id"] for event in events if "response" in event}
    if len(ids) > 1:
        problems.append(f"several response ids: {ids}")
    for event in events:
        kind = event["type"]
        key = (event.get("item_id"), event.get("output_index"), event.get("content_index"))
        if kind == "response.output_item.added":
            if event["output_index"] != len(items):
                problems.append(f"item added at output_index {event['output_index']}, expected {len(items)}")
            items.append(event["item"]["id"])
        elif kind in ("response.content_part.added", *TEXT_DELTAS, "response.output_text.done",
                      "response.refusal.done", "response.content_part.done"):
            index = key[1]
            if not (isinstance(index, int) and index < len(items) and items[index] == key[0]):
                problems.append(f"{kind}: item {key[0]} at {index} was not announced there")
            if kind == "response.content_part.added":
                parts[key] = ""
            elif key not in parts or key in closed:
                problems.append(f"{kind}: part {key} is not open")
            elif kind in TEXT_DELTAS:
                parts[key] += event["delta"]
            elif kind == "response.output_text.done" and event["text"] != parts[key]:
                problems.append("output_text.done text differs from its deltas")
            elif kind == "response.refusal.done" and event["refusal"] != parts[key]:
                problems.append("refusal.done text differs from its deltas")
            elif kind == "response.content_part.done":
                closed.add(key)
    terminals = [i for i, event in enumerate(events) if event["type"] in TERMINAL]
    last = events[-1]["type"] if events else None
    if last == "error":
        if terminals:
            problems.append("an error event after the response ended")
        return problems
    if terminals != [len(events) - 1]:
        problems.append(f"not exactly one terminal event, last: {[events[i]['type'] for i in terminals]}")
        return problems
    response = events[-1]["response"]
    expected_status = events[-1]["type"].removeprefix("response.")
    if response["status"] != expected_status:
        problems.append(f"{events[-1]['type']} with status {response['status']}")
    output = response["output"]
    if [item["id"] for item in output] != items:
        problems.append("the final output's items are not the items announced")
    for index, item in enumerate(output):
        for content_index, part in enumerate(item.get("content") or []):
            built = parts.get((item["id"], index, content_index))
            text = part.get("text", part.get("refusal"))
            if built != text:
                problems.append(f"output[{index}] holds {text!r}, the deltas built {built!r}")
    return problems + _usage_problems(response.get("usage"))


def chat_invariants(chunks: list[dict[str, Any]], flavour: str) -> list[str]:
    """Invariants of one chat stream (the chunks before ``[DONE]``)."""
    problems: list[str] = []
    heads = {(c["id"], c["created"], c["model"]) for c in chunks}
    if len(heads) > 1:
        problems.append(f"chunks disagree on id/created/model: {heads}")
    with_choices = [i for i, c in enumerate(chunks) if c["choices"]]
    finishes = [i for i, c in enumerate(chunks) for ch in c["choices"] if ch.get("finish_reason")]
    if finishes and finishes != [with_choices[-1]]:
        problems.append(f"finish_reason not on exactly the last chunk with choices: {finishes}")
    usage_chunks = [c for c in chunks if c.get("usage")]
    for c in usage_chunks:
        usage = c["usage"]
        if usage["total_tokens"] != usage["prompt_tokens"] + usage["completion_tokens"]:
            problems.append("usage: total_tokens is not prompt + completion")
        if c["choices"]:
            problems.append("the usage chunk has choices")
    if usage_chunks and chunks[-1] is not usage_chunks[-1]:
        problems.append("the usage chunk is not the last chunk")
    return problems


def chat_text(chunks: list[dict[str, Any]]) -> str:
    """The content (or refusal) the chunks carry, joined."""
    return "".join(
        (choice["delta"].get("content") or "") + (choice["delta"].get("refusal") or "")
        for chunk in chunks
        for choice in chunk["choices"]
    )


# -- drivers -------------------------------------------------------------------------


@dataclasses.dataclass
class CaseResult:
    transport: str
    behaviour: str
    events: int = 0  # events, chunks and bodies validated
    problems: list[str] = dataclasses.field(default_factory=list)


def _body(model: str = "spark", **extra: Any) -> dict[str, Any]:
    return {"model": model, "input": REQUEST_TEXT, **extra}


async def ws_events(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One ``response.create``'s frames, up to its terminal or error event."""
    events = []
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "response.create", **body}))
        while True:
            event = json.loads(await ws.recv())
            events.append(event)
            if event["type"] in TERMINAL or event["type"] == "error":
                return events


def parse_sse(text: str) -> tuple[list[tuple[str | None, str]], int]:
    """(event name, data) pairs of an SSE body, and how many comment lines it had."""
    parsed, comments = [], 0
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith(":"):
                comments += 1
            elif line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        if data:
            parsed.append((name, "\n".join(data)))
    return parsed, comments


async def check_case(emulator: Emulator, transport: str, behaviour: str, *, reply: str = "fenced") -> CaseResult:
    """Read one reply of *behaviour* over *transport* and check everything in it."""
    result = CaseResult(transport, behaviour)
    kind, _, flavour = transport.partition(":")
    emulator.set_faults(Faults(behaviour=behaviour, reply=reply, chat_flavour=flavour or "openai"))
    try:
        if kind == "websocket":
            events = await ws_events(emulator.ws_url, _body())
            for event in events:
                result.problems += check_ws_event(event)
            result.events = len(events)
            if behaviour != "rate_limited":
                result.problems += response_invariants(events)
        elif kind == "sse":
            await _check_sse(emulator, result)
        elif kind == "http":
            await _check_http(emulator, result)
        else:
            await _check_chat(emulator, result, flavour, stream=kind == "chat-stream")
    finally:
        emulator.set_faults(Faults())
    return result


async def _check_sse(emulator: Emulator, result: CaseResult) -> None:
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/responses", json=_body(stream=True))
    if reply.status_code != 200:
        result.events = 1
        result.problems += check_error_body(reply.json())
        return
    pairs, _ = parse_sse(reply.text)
    events = [json.loads(data) for _, data in pairs]
    for (name, _), event in zip(pairs, events):
        if name != event.get("type"):
            result.problems.append(f"SSE event name {name!r} is not its type {event.get('type')!r}")
        result.problems += check_sse_event(event)
    result.events = len(events)
    result.problems += response_invariants(events)


async def _check_http(emulator: Emulator, result: CaseResult) -> None:
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/responses", json=_body())
    result.events = 1
    if reply.status_code != 200:
        result.problems += check_error_body(reply.json())
        return
    response = reply.json()
    result.problems += validate(RESPONSE, response, {}, "response")[1]
    result.problems += _usage_problems(response.get("usage"))


async def _check_chat(emulator: Emulator, result: CaseResult, flavour: str, *, stream: bool) -> None:
    body: dict[str, Any] = {"model": "spark", "messages": [{"role": "user", "content": REQUEST_TEXT}]}
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/chat/completions", json=body)
    allowed = ALLOWED_EXTRA[flavour]
    if reply.status_code != 200:
        result.events = 1
        result.problems += check_error_body(reply.json())
        return
    if not stream:
        result.events = 1
        result.problems += validate(CHAT_COMPLETION, reply.json(), allowed, "chat.completion")[1]
        return
    pairs, _ = parse_sse(reply.text)
    datas = [data for _, data in pairs]
    chunks = []
    for data in datas:
        if data == "[DONE]":
            continue
        chunk = json.loads(data)
        result.events += 1
        if "error" in chunk:  # a stream broken off: what the SDK raises APIError from
            if not isinstance(chunk["error"].get("message"), str):
                result.problems.append(f"stream error without a message: {chunk}")
            continue
        chunks.append(chunk)
        result.problems += validate(CHAT_CHUNK, chunk, allowed, "chunk")[1]
    broken = any("error" in json.loads(d) for d in datas if d != "[DONE]")
    if broken == (datas[-1:] == ["[DONE]"]):
        result.problems.append("a stream must end with [DONE] exactly when it did not break off")
    result.problems += chat_invariants(chunks, flavour)


async def run_matrix(emulator: Emulator, *, behaviours: tuple[str, ...] = BEHAVIOURS) -> list[CaseResult]:
    """Every behaviour over every transport (see :data:`TRANSPORTS`)."""
    return [await check_case(emulator, t, b) for b in behaviours for t in TRANSPORTS]


# -- lanes and steering ----------------------------------------------------------------

STEER_EVENTS = ("response.steer.accepted", "response.steer.failed", "response.steer.pending")


def lane_invariants(frames: list[dict[str, Any]], *, finished: bool = True) -> list[str]:
    """The invariants of one lane's frames (those carrying one ``stream_id``, or none).

    Responses follow one another on a lane (FIFO: no ``response.created`` before the
    previous response's terminal event); each response's events and the steering
    events naming it are numbered 0, 1, 2… in arrival order, and its own events pass
    :func:`stream_problems`. A refusal (an error with ``status``) belongs to no
    response; a steering event about a response not on this lane must be numbered 0.
    With *finished*, every response seen must have ended."""
    problems: list[str] = []
    lanes = {frame.get("stream_id") for frame in frames}
    if len(lanes) > 1:
        problems.append(f"frames of several lanes: {lanes}")
    groups: dict[str, list[dict[str, Any]]] = {}
    current: str | None = None
    for frame in frames:
        kind = frame["type"]
        if kind in STEER_EVENTS:
            target = frame["steer"]["previous_response_id"]
            if target in groups:
                groups[target].append(frame)
            elif frame["sequence_number"] != 0:
                problems.append(f"{kind} about {target}, not on this lane, numbered {frame['sequence_number']}")
            continue
        if kind == "error" and "status" in frame:
            continue  # a refused request: no response
        if kind == "response.created":
            if current is not None:
                problems.append(f"response.created while {current} still streams on the lane")
            current = frame["response"]["id"]
            groups[current] = []
        if current is None:
            problems.append(f"{kind} outside any response on the lane")
            continue
        groups[current].append(frame)
        if kind in TERMINAL or kind == "error":
            current = None
    if finished and current is not None:
        problems.append(f"{current} never ended")
    for response_id, events in groups.items():
        own = [event for event in events if event["type"] not in STEER_EVENTS]
        for problem in numbering_problems(events) + (stream_problems(own) if response_id != current else []):
            problems.append(f"{response_id}: {problem}")
    return problems


class LaneDriver:
    """A raw WebSocket to the emulator that holds both ends to the SDK: every message
    sent is checked against ``ResponsesClientEvent`` (unless deliberately invalid),
    every frame read against ``ResponsesServerEvent``; :meth:`problems` adds the
    lane invariants of everything read."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.sent = 0
        self._problems: list[str] = []

    async def send(self, event: dict[str, Any], *, valid: bool = True) -> None:
        if valid:
            self._problems += check_client_event(event)
        self.sent += 1
        await self.ws.send(json.dumps(event))

    async def create(self, stream_id: str | None = None, **body: Any) -> None:
        event: dict[str, Any] = {"type": "response.create", "model": "spark", "input": REQUEST_TEXT, **body}
        if stream_id is not None:
            event["stream_id"] = stream_id
        await self.send(event)

    async def steer(self, response_id: str, value: Any = "REPLACE circle_area WITH disk_area") -> None:
        await self.send({"type": "response.steer", "previous_response_id": response_id, "input": value})

    async def recv(self) -> dict[str, Any]:
        frame = json.loads(await self.ws.recv())
        self._problems += check_ws_event(frame)
        self.frames.append(frame)
        return frame

    async def until(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read frames up to the first one *done* accepts; return it."""
        while True:
            frame = await self.recv()
            if done(frame):
                return frame

    async def ended(self, count: int = 1) -> list[dict[str, Any]]:
        """Read until *count* more responses ended (terminal events) or errors came."""
        ends = []
        while len(ends) < count:
            frame = await self.recv()
            if frame["type"] in TERMINAL or frame["type"] == "error":
                ends.append(frame)
        return ends

    def lane(self, stream_id: str | None) -> list[dict[str, Any]]:
        return [frame for frame in self.frames if frame.get("stream_id") == stream_id]

    def problems(self, *, finished: bool = True) -> list[str]:
        by_lane: dict[str | None, list[dict[str, Any]]] = collections.defaultdict(list)
        for frame in self.frames:
            by_lane[frame.get("stream_id")].append(frame)
        found = list(self._problems)
        for lane, frames in by_lane.items():
            found += [f"lane {lane}: {p}" for p in lane_invariants(frames, finished=finished)]
        return found


def _ends_with(kind: str, response_id: str | None = None) -> Callable[[dict[str, Any]], bool]:
    def done(frame: dict[str, Any]) -> bool:
        if frame["type"] != kind:
            return False
        return response_id is None or frame.get("response", {}).get("id") == response_id
    return done


def _created() -> Callable[[dict[str, Any]], bool]:
    return _ends_with("response.created")


async def _lanes_interleaved(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(tokens_per_second=400, models={
        "broken": {"behaviour": "stream_error"}, "limited": {"behaviour": "rate_limited"}}))
    for index in range(6):
        await d.create(f"lane-{index}")
    await d.create("lane-0", model="broken")
    await d.create("lane-1", model="limited")
    await d.create("lane-1", input="x", generate=False)
    await d.ended(9)


async def _fork(emulator: Emulator, d: LaneDriver) -> None:
    await d.create("a")
    first = (await d.ended())[0]["response"]["id"]
    await d.create("b", previous_response_id=first, input="REPLACE circle_area WITH disk_area")
    await d.create("c", previous_response_id="resp_unknown")
    await d.ended(2)


async def _steer_first_token(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(delay_ms=60_000, count=1))
    await d.create("a")
    created = await d.until(_created())
    await d.steer(created["response"]["id"])
    await d.ended(2)


async def _steer_mid_stream(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(tokens_per_second=2, count=1))
    await d.create("a")
    created = await d.until(_created())
    await d.until(_ends_with("response.output_text.delta"))
    await d.steer(created["response"]["id"])
    await d.steer(created["response"]["id"], [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "REPLACE disk_area WITH ring_area"}]}])
    await d.ended(2)


async def _steer_refused(emulator: Emulator, d: LaneDriver) -> None:
    await d.steer("resp_unknown")
    await d.create("a")
    done = (await d.ended())[0]["response"]["id"]
    await d.steer(done)
    await d.steer(done, "")
    await d.steer(done, [])
    await d.send({"type": "response.steer", "previous_response_id": done, "input": "x", "stream_id": "a"}, valid=False)
    await d.until(lambda f: f["type"] == "response.steer.failed" and f["error"]["message"].startswith("Unknown"))


async def _steer_unsupported(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(steer="unsupported", delay_ms=200, count=1))
    await d.create("a")
    created = await d.until(_created())
    await d.steer(created["response"]["id"])
    await d.ended()


async def _steer_pending(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(steer="pending", delay_ms=200, count=1))
    await d.create("a")
    response_id = (await d.until(_created()))["response"]["id"]
    for _ in range(5):
        await d.steer(response_id)
    await d.until(_ends_with("response.steer.pending"))
    await d.create("a", previous_response_id=response_id, input="REPLACE disk_area WITH ring_area")
    await d.ended()


async def _steer_successor_fails(emulator: Emulator, d: LaneDriver) -> None:
    emulator.set_faults(Faults(steer="successor_fails", delay_ms=60_000, count=1))
    await d.create()
    created = await d.until(_created())
    await d.steer(created["response"]["id"])
    await d.until(_ends_with("response.steer.failed"))


# Lanes-and-steering scenarios: name -> what the client does (it reads to the end).
LANE_CASES: dict[str, Callable[[Emulator, LaneDriver], Awaitable[None]]] = {
    "lanes interleaved, an error and a refusal on one": _lanes_interleaved,
    "fork from another lane, unknown previous": _fork,
    "steer in the first-token wait": _steer_first_token,
    "two steers mid-stream": _steer_mid_stream,
    "steer refused: not found, completed, invalid": _steer_refused,
    "steer unsupported": _steer_unsupported,
    "steer pending, too many, explicit create": _steer_pending,
    "steer: successor fails": _steer_successor_fails,
}


async def check_lane_case(emulator: Emulator, name: str) -> CaseResult:
    """Run one of :data:`LANE_CASES` on a fresh connection; every frame and message
    validated, the lane invariants checked."""
    result = CaseResult("websocket-lanes", name)
    try:
        async with connect(emulator.ws_url) as ws:
            driver = LaneDriver(ws)
            await asyncio.wait_for(LANE_CASES[name](emulator, driver), 30)
    finally:
        emulator.set_faults(Faults())
    result.events = len(driver.frames) + driver.sent
    result.problems = driver.problems()
    return result
