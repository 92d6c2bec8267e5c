"""The emulator held to the official openai SDK: every behaviour over every transport,
validated strictly against the SDK's models, and read back by the SDK's own clients."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
import pytest_asyncio
from openai.types.responses.response_error_event import ResponseErrorEvent
from openai.types.responses.responses_server_event import ResponseWsError

from sparkls.emulator import Emulator, Faults, streaming
from sparkls.emulator.behaviours import BEHAVIOURS, REFUSAL_TEXT
from sparkls.emulator.chat import CHAT_FLAVOURS
from sparkls.emulator.shapes import REPLY_STYLES
from bench.kit.sdk_conformance import (
    LANE_CASES,
    REQUEST_TEXT,
    TRANSPORTS,
    check_case,
    check_lane_case,
    check_sse_event,
    check_ws_event,
    chat_invariants,
    lane_invariants,
    parse_sse,
    response_invariants,
    ws_events,
)

EXPECTED = "```\ndef circle_area(r):\n    # r is the radius\n    return math.pi * r * r\n```"
MESSAGES = [{"role": "user", "content": REQUEST_TEXT}]


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


@pytest_asyncio.fixture
async def client(emulator):
    sdk = openai.AsyncOpenAI(base_url=emulator.url, api_key="sk-test", max_retries=0)
    yield sdk
    await sdk.close()


# -- strict validation of everything the emulator sends ------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("behaviour", BEHAVIOURS)
async def test_every_behaviour_conforms_on_every_transport(emulator, behaviour, transport):
    """Every event, chunk and body of the behaviour validates strictly, and the stream holds together."""
    result = await check_case(emulator, transport, behaviour)
    assert result.events > 0
    assert result.problems == []


@pytest.mark.parametrize("transport", ["websocket", "sse", "chat-stream:openai"])
@pytest.mark.parametrize("reply", REPLY_STYLES)
async def test_every_reply_shape_conforms(emulator, reply, transport):
    """Every reply shape streams as valid events (CRLF, tabs and backticks included)."""
    result = await check_case(emulator, transport, "final_answer", reply=reply)
    assert result.problems == []


async def test_deltas_without_obfuscation_conform(emulator):
    """stream_options.include_obfuscation false: deltas carry no obfuscation and still validate."""
    body = {"model": "spark", "input": REQUEST_TEXT, "stream_options": {"include_obfuscation": False}}
    events = await ws_events(emulator.ws_url, body)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert deltas and not any("obfuscation" in e for e in deltas)
    assert [p for e in events for p in check_ws_event(e)] == []


async def test_warmup_conforms(emulator):
    """A generate: false warm-up's events validate."""
    events = await ws_events(emulator.ws_url, {"model": "spark", "input": "x", "generate": False})
    assert [p for e in events for p in check_ws_event(e)] + response_invariants(events) == []


async def test_keep_alive_comments_while_no_first_token(emulator, monkeypatch):
    """Waiting for the first token, an SSE stream sends keep-alive comments, and its events still validate."""
    monkeypatch.setattr(streaming, "KEEPALIVE_SECONDS", 0.01)
    emulator.set_faults(Faults(delay_ms=50))
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        reply = await http.post("/responses", json={"model": "m", "input": REQUEST_TEXT, "stream": True})
    pairs, comments = parse_sse(reply.text)
    events = [json.loads(data) for _, data in pairs]
    assert comments >= 1
    assert reply.text.index(": keep-alive") > reply.text.index("response.in_progress")
    assert [p for e in events for p in check_sse_event(e)] + response_invariants(events) == []


@pytest.mark.parametrize("flavour", CHAT_FLAVOURS)
async def test_chat_stream_without_usage_conforms(emulator, flavour):
    """Without include_usage no chunk carries usage, in every flavour."""
    emulator.set_faults(Faults(chat_flavour=flavour))
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        reply = await http.post("/chat/completions", json={"model": "m", "messages": MESSAGES, "stream": True})
    pairs, _ = parse_sse(reply.text)
    chunks = [json.loads(data) for _, data in pairs if data != "[DONE]"]
    assert not any(chunk.get("usage") for chunk in chunks)
    assert chat_invariants(chunks, flavour) == []


# -- the checks themselves catch what they should ----------------------------------


def test_checks_flag_an_undeclared_key():
    """A key no SDK model declares is a problem; obfuscation on a text delta is not."""
    delta = {"type": "response.output_text.delta", "sequence_number": 0, "item_id": "msg_1",
             "output_index": 0, "content_index": 0, "delta": "x", "logprobs": [], "obfuscation": "ab"}
    assert check_ws_event(delta) == []
    assert check_ws_event({**delta, "surprise": 1}) == ["response.output_text.delta: undeclared key 'surprise'"]


def test_checks_flag_a_missing_field():
    """An event missing a required field fails validation."""
    assert check_sse_event({"type": "error", "code": "server_error", "message": "m"})


def test_invariants_flag_a_gap_and_a_lost_delta():
    """A gap in sequence numbers, and output text the deltas did not build, are problems."""
    item = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "ab", "annotations": []}]}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
             "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
    events = [
        {"type": "response.output_item.added", "sequence_number": 0, "output_index": 0, "item": item},
        {"type": "response.content_part.added", "sequence_number": 1, **where, "part": {}},
        {"type": "response.output_text.delta", "sequence_number": 3, **where, "delta": "a"},
        {"type": "response.completed", "sequence_number": 4,
         "response": {"id": "r", "status": "completed", "output": [item], "usage": usage}},
    ]
    problems = response_invariants(events)
    assert any("sequence_number" in p for p in problems)
    assert any("the deltas built 'a'" in p for p in problems)


# -- the SDK's own clients read the emulator --------------------------------------------


async def test_sdk_streams_responses_over_sse(client):
    """client.responses.create(stream=True) reads the answer, after a reasoning item."""
    stream = await client.responses.create(model="spark", input=REQUEST_TEXT, stream=True)
    events = [event async for event in stream]
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    final = events[-1].response
    assert deltas == EXPECTED
    assert final.output_text == EXPECTED
    assert [item.type for item in final.output] == ["reasoning", "message"]
    assert final.output[1].phase == "final_answer"


async def test_sdk_reads_commentary_and_final_answer(client, emulator):
    """With commentary, the SDK sees two messages; the final_answer one holds the answer."""
    emulator.set_faults(Faults(behaviour="commentary"))
    stream = await client.responses.create(model="spark", input=REQUEST_TEXT, stream=True)
    final = [event async for event in stream][-1].response
    messages = [item for item in final.output if item.type == "message"]
    assert [m.phase for m in messages] == ["commentary", "final_answer"]
    assert messages[1].content[0].text == EXPECTED
    assert "```" not in messages[0].content[0].text


async def test_sdk_reads_a_whole_response(client):
    """client.responses.create without streaming gets the answer as output_text."""
    response = await client.responses.create(model="spark", input=REQUEST_TEXT)
    assert response.output_text == EXPECTED and response.status == "completed"


async def test_sdk_websocket_mode_reads_the_answer(client):
    """client.responses.connect() (WebSocket mode over websockets 17) reads the same text."""
    async with client.responses.connect() as connection:
        await connection.response.create(model="spark", input=REQUEST_TEXT)
        events = []
        async for event in connection:
            events.append(event)
            if event.type == "response.completed":
                break
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == EXPECTED
    assert events[-1].response.output_text == EXPECTED


async def test_sdk_websocket_mode_reads_a_rate_limit(client, emulator):
    """In WebSocket mode the SDK reads an in-band 429 with its retry-after header."""
    emulator.set_faults(Faults(behaviour="rate_limited", retry_after=2.5))
    async with client.responses.connect() as connection:
        await connection.response.create(model="spark", input=REQUEST_TEXT)
        event = await connection.recv()
    assert isinstance(event, ResponseWsError) and event.status == 429
    assert event.error.code == "rate_limit_exceeded"
    assert event.error.headers["retry-after"] == "2.5"
    assert "try again in 2.5s" in event.error.message


async def test_sdk_raises_rate_limit_error_with_retry_after(client, emulator):
    """Over HTTP the SDK raises RateLimitError, with retry-after in the response headers."""
    emulator.set_faults(Faults(behaviour="rate_limited", retry_after=0.12))
    with pytest.raises(openai.RateLimitError) as caught:
        await client.responses.create(model="spark", input=REQUEST_TEXT, stream=True)
    assert caught.value.response.headers["retry-after"] == "0.12"
    assert caught.value.code == "rate_limit_exceeded"
    assert "try again in 120ms" in caught.value.message


async def test_sdk_reads_an_sse_stream_error(client, emulator):
    """An in-band SSE error reaches the SDK as a ResponseErrorEvent ending the stream."""
    emulator.set_faults(Faults(behaviour="stream_error"))
    stream = await client.responses.create(model="spark", input=REQUEST_TEXT, stream=True)
    events = [event async for event in stream]
    assert isinstance(events[-1], ResponseErrorEvent) and events[-1].code == "server_error"


async def test_sdk_reads_an_incomplete_response(client, emulator):
    """max_output_tokens reaches the SDK as response.incomplete with its reason."""
    emulator.set_faults(Faults(behaviour="max_output_tokens"))
    stream = await client.responses.create(model="spark", input=REQUEST_TEXT, stream=True)
    final = [event async for event in stream][-1]
    assert final.type == "response.incomplete"
    assert final.response.incomplete_details.reason == "max_output_tokens"
    assert EXPECTED.startswith(final.response.output_text) and final.response.output_text != EXPECTED


async def test_sdk_reads_a_refusal(client, emulator):
    """A refusal reaches the SDK as a refusal content part."""
    emulator.set_faults(Faults(behaviour="refusal"))
    response = await client.responses.create(model="spark", input=REQUEST_TEXT)
    part = response.output[-1].content[0]
    assert part.type == "refusal" and part.refusal == REFUSAL_TEXT


@pytest.mark.parametrize("flavour", CHAT_FLAVOURS)
async def test_sdk_streams_chat_in_every_flavour(client, emulator, flavour):
    """client.chat.completions.create(stream=True) reads the answer and usage from every flavour."""
    emulator.set_faults(Faults(chat_flavour=flavour))
    stream = await client.chat.completions.create(
        model="spark", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == EXPECTED
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0


async def test_sdk_reads_a_whole_chat_completion(client):
    """client.chat.completions.create without streaming gets the answer."""
    completion = await client.chat.completions.create(model="spark", messages=MESSAGES)
    assert completion.choices[0].message.content == EXPECTED
    assert completion.choices[0].finish_reason == "stop"


async def test_sdk_raises_on_a_broken_chat_stream(client, emulator):
    """A chat stream that breaks off with an error makes the SDK raise APIError."""
    emulator.set_faults(Faults(behaviour="failed"))
    stream = await client.chat.completions.create(model="spark", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError):
        async for _ in stream:
            pass


# -- lanes and steering: every frame and message held to the SDK ------------------------


@pytest.mark.parametrize("case", list(LANE_CASES))
async def test_every_lane_and_steering_case_conforms(emulator, case):
    """Each lanes/steering scenario: every client message validates against
    ResponsesClientEvent, every frame against ResponsesServerEvent, and each response
    on each lane (steering events included in its numbering) holds together."""
    result = await check_lane_case(emulator, case)
    assert result.events > 0
    assert result.problems == []


def test_lane_invariants_flag_a_steer_event_out_of_numbering():
    """A steering event numbered outside its response's stream, and a lane that
    starts a response before the previous one ended, are problems."""
    created = {"type": "response.created", "sequence_number": 0, "stream_id": "a",
               "response": {"id": "r1", "status": "in_progress", "output": []}}
    accepted = {"type": "response.steer.accepted", "sequence_number": 5, "stream_id": "a",
                "steer": {"id": "steer_1", "previous_response_id": "r1"}}
    second = {**created, "response": {**created["response"], "id": "r2"}}
    problems = lane_invariants([created, accepted, second], finished=False)
    assert any("r1: sequence_number" in p for p in problems)
    assert any("while r1 still streams" in p for p in problems)
