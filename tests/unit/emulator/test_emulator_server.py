"""The emulator over real loopback sockets: WebSocket mode, SSE, Chat, faults, stats."""

from __future__ import annotations

import json

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedError, InvalidStatus

from sparkls.emulator import Emulator, Faults
from sparkls.emulator.model import split_tokens

pytestmark = pytest.mark.asyncio

REGION_REQUEST = (
    "REPLACE foo WITH bar\n"
    "<|editable_region_start|>\n"
    "def foo():\n"
    "    return foo(1)<|cursor|>\n"
    "<|editable_region_end|>\n"
)
EXPECTED_TEXT = "```\ndef bar():\n    return bar(1)\n```"
EXPECTED_TYPES_HEAD = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",  # the reasoning item
    "response.output_item.done",
    "response.output_item.added",  # the message
    "response.content_part.added",
]
EXPECTED_TYPES_TAIL = [
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


@pytest_asyncio.fixture
async def keyed_emulator():
    async with Emulator(api_key="sk-test") as server:
        yield server


def create(**fields) -> str:
    body = {"type": "response.create", "model": "spark", "input": REGION_REQUEST}
    body.update(fields)
    return json.dumps(body)


async def collect(ws) -> list[dict]:
    """Read events until the response completes or an error event arrives."""
    received = []
    while True:
        event = json.loads(await ws.recv())
        received.append(event)
        if event["type"] in ("response.completed", "error"):
            return received


def sse_events(text: str) -> list[tuple[str | None, str]]:
    """Parse an SSE body into (event name, data) pairs."""
    parsed = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        parsed.append((name, "\n".join(data)))
    return parsed


async def test_websocket_streams_full_event_sequence(emulator):
    """A response.create yields the real event sequence, numbered, with the edit."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        received = await collect(ws)
    types = [event["type"] for event in received]
    deltas = [event for event in received if event["type"] == "response.output_text.delta"]
    assert types == EXPECTED_TYPES_HEAD + [d["type"] for d in deltas] + EXPECTED_TYPES_TAIL
    assert [event["sequence_number"] for event in received] == list(range(len(received)))
    assert "".join(d["delta"] for d in deltas) == EXPECTED_TEXT
    assert len(deltas) == len(split_tokens(EXPECTED_TEXT))
    reasoning = received[3]["item"]
    assert reasoning["type"] == "reasoning" and reasoning["summary"] == []
    assert reasoning["id"].startswith("rs_") and reasoning["encrypted_content"]
    message = received[4]["item"]
    assert message["id"].startswith("msg_") and message["phase"] == "final_answer"
    assert all(d["item_id"] == message["id"] and d["output_index"] == 1 for d in deltas)
    assert all(d["content_index"] == 0 and d["obfuscation"] for d in deltas)
    response = received[-1]["response"]
    assert response["id"].startswith("resp_")
    assert response["id"] == received[0]["response"]["id"]
    assert response["object"] == "response" and response["status"] == "completed"
    assert response["model"] == "spark"
    assert response["output"][0] == reasoning
    assert response["output"][1]["content"][0] == {
        "type": "output_text", "text": EXPECTED_TEXT, "annotations": [], "logprobs": []
    }
    usage = response["usage"]
    reasoning_tokens = usage["output_tokens_details"]["reasoning_tokens"]
    assert reasoning_tokens > 0
    assert usage["output_tokens"] == len(deltas) + reasoning_tokens
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    assert usage["input_tokens_details"] == {"cached_tokens": 0, "cache_write_tokens": 0}


async def test_warmup_returns_id_without_output(emulator):
    """generate: false answers created then completed with empty output."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(generate=False))
        received = await collect(ws)
    assert [event["type"] for event in received] == ["response.created", "response.completed"]
    assert received[-1]["response"]["output"] == []
    assert received[-1]["response"]["id"].startswith("resp_")
    assert emulator.stats["warmups"] == 1
    assert emulator.stats["responses"] == 0


async def test_previous_response_id_chains_to_latest(emulator):
    """previous_response_id naming the connection's last response is accepted."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(generate=False))
        first = (await collect(ws))[-1]["response"]["id"]
        await ws.send(create(previous_response_id=first))
        received = await collect(ws)
    assert received[-1]["type"] == "response.completed"
    assert received[-1]["response"]["previous_response_id"] == first


async def test_previous_response_id_unknown_is_refused(emulator):
    """An unknown previous_response_id gets an in-band 400 previous_response_not_found."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(previous_response_id="resp_nope"))
        (event,) = await collect(ws)
    assert event["type"] == "error"
    assert event["status"] == 400
    assert event["error"]["code"] == "previous_response_not_found"
    assert event["error"]["param"] == "previous_response_id"
    assert event["error"]["type"] == "invalid_request_error"


async def test_previous_response_id_older_than_latest_is_refused(emulator):
    """With store: false, only the most recent response on the connection can be continued."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(generate=False, store=False))
        first = (await collect(ws))[-1]["response"]["id"]
        await ws.send(create(generate=False, store=False))
        await collect(ws)
        await ws.send(create(previous_response_id=first))
        (event,) = await collect(ws)
    assert event["error"]["code"] == "previous_response_not_found"


async def test_previous_response_id_from_another_connection_is_refused(emulator):
    """A response not stored, from another WebSocket connection, cannot be continued."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(generate=False, store=False))
        first = (await collect(ws))[-1]["response"]["id"]
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(previous_response_id=first))
        (event,) = await collect(ws)
    assert event["error"]["code"] == "previous_response_not_found"


async def test_second_create_while_streaming_gets_error_and_first_completes(emulator):
    """One response in flight per socket: a second create errors, the first goes on."""
    emulator.set_faults(Faults(tokens_per_second=200))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        first = json.loads(await ws.recv())
        assert first["type"] == "response.created"
        await ws.send(create())
        received = [first]
        while received[-1]["type"] != "response.completed":
            received.append(json.loads(await ws.recv()))
    errors = [event for event in received if event["type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["error"]["code"] == "response_already_in_progress"
    text = "".join(e["delta"] for e in received if e["type"] == "response.output_text.delta")
    assert text == EXPECTED_TEXT
    assert received[-1]["response"]["id"] == first["response"]["id"]


async def test_handshake_without_key_is_refused_with_401(keyed_emulator):
    """With an API key set, a handshake without Authorization gets HTTP 401."""
    with pytest.raises(InvalidStatus) as caught:
        async with connect(keyed_emulator.ws_url):
            pass
    response = caught.value.response
    assert response.status_code == 401
    assert json.loads(response.body)["error"]["code"] == "invalid_api_key"


async def test_handshake_with_wrong_key_is_refused_with_401(keyed_emulator):
    """A wrong bearer token is refused at the handshake."""
    headers = {"Authorization": "Bearer sk-wrong"}
    with pytest.raises(InvalidStatus) as caught:
        async with connect(keyed_emulator.ws_url, additional_headers=headers):
            pass
    assert caught.value.response.status_code == 401


async def test_handshake_with_right_key_is_accepted(keyed_emulator):
    """The right bearer token opens the socket and serves responses."""
    headers = {"Authorization": "Bearer sk-test"}
    async with connect(keyed_emulator.ws_url, additional_headers=headers) as ws:
        await ws.send(create())
        received = await collect(ws)
    assert received[-1]["type"] == "response.completed"


async def test_post_without_key_gets_401(keyed_emulator):
    """With an API key set, POST without Authorization gets 401 invalid_api_key."""
    async with httpx.AsyncClient(base_url=keyed_emulator.url) as client:
        reply = await client.post("/responses", json={"model": "spark", "input": "hi"})
        wrong = await client.post(
            "/responses", json={"model": "spark", "input": "hi"},
            headers={"Authorization": "Bearer nope"},
        )
    assert reply.status_code == 401
    assert reply.json()["error"]["code"] == "invalid_api_key"
    assert set(reply.json()["error"]) == {"message", "type", "code", "param"}
    assert wrong.status_code == 401


async def test_sse_stream_and_keep_alive_reuse(emulator):
    """POST stream: true gives SSE events, and the next POST reuses the connection."""
    body = {"model": "spark", "input": REGION_REQUEST, "stream": True}
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        first = await client.post("/responses", json=body)
        second = await client.post("/responses", json=body)
    assert first.headers["content-type"].startswith("text/event-stream")
    events = sse_events(first.text)
    assert all(name == json.loads(data)["type"] for name, data in events)
    types = [name for name, _ in events]
    assert types[:6] == EXPECTED_TYPES_HEAD and types[-4:] == EXPECTED_TYPES_TAIL
    completed = json.loads(events[-1][1])
    assert completed["response"]["output"][-1]["content"][0]["text"] == EXPECTED_TEXT
    assert second.status_code == 200
    assert emulator.stats["tcp_connections"] == 1
    assert emulator.stats["http_requests"] == 2


async def test_post_without_stream_returns_response_object(emulator):
    """POST without stream returns one completed response object."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/responses", json={"model": "spark", "input": REGION_REQUEST})
    response = reply.json()
    assert response["object"] == "response" and response["status"] == "completed"
    assert response["output"][-1]["content"][0]["text"] == EXPECTED_TEXT


async def test_post_previous_response_id_of_stored_response(emulator):
    """Over HTTP, a stored earlier response can be continued; an unknown id cannot."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        first = (await client.post("/responses", json={"model": "spark", "input": "x"})).json()
        ok = await client.post(
            "/responses", json={"model": "spark", "input": "y", "previous_response_id": first["id"]}
        )
        bad = await client.post(
            "/responses", json={"model": "spark", "input": "y", "previous_response_id": "resp_x"}
        )
    assert ok.status_code == 200
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "previous_response_not_found"


async def test_chat_completions_stream_ends_with_done(emulator):
    """Chat SSE sends role, content chunks, a stop chunk, then [DONE]."""
    body = {"model": "spark", "stream": True,
            "messages": [{"role": "user", "content": REGION_REQUEST}]}
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/chat/completions", json=body)
    events = sse_events(reply.text)
    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(data) for _, data in events[:-1]]
    assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
    assert chunks[0]["id"].startswith("chatcmpl-")
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all(chunk["choices"][0]["finish_reason"] is None for chunk in chunks[:-1])
    text = "".join(chunk["choices"][0]["delta"].get("content", "") for chunk in chunks)
    assert text == EXPECTED_TEXT


async def test_chat_completions_without_stream(emulator):
    """Chat without stream returns a chat.completion object with usage."""
    body = {"model": "spark", "messages": [{"role": "user", "content": REGION_REQUEST}]}
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        completion = (await client.post("/chat/completions", json=body)).json()
    assert completion["object"] == "chat.completion"
    assert completion["choices"][0]["message"]["content"] == EXPECTED_TEXT
    usage = completion["usage"]
    reasoning_tokens = usage["completion_tokens_details"]["reasoning_tokens"]
    assert usage["completion_tokens"] == len(split_tokens(EXPECTED_TEXT)) + reasoning_tokens


async def test_drop_after_deltas_closes_websocket_without_completed(emulator):
    """drop_after_deltas cuts the connection after N deltas, with no completed event."""
    emulator.set_faults(Faults(drop_after_deltas=3))
    received = []
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        with pytest.raises(ConnectionClosedError):
            while True:
                received.append(json.loads(await ws.recv()))
    types = [event["type"] for event in received]
    assert types.count("response.output_text.delta") == 3
    assert "response.completed" not in types


async def test_drop_after_deltas_cuts_sse_stream(emulator):
    """Over SSE, drop_after_deltas ends the HTTP stream early with a transport error."""
    emulator.set_faults(Faults(drop_after_deltas=2))
    body = {"model": "spark", "input": REGION_REQUEST, "stream": True}
    received = b""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        with pytest.raises(httpx.TransportError):
            async with client.stream("POST", "/responses", json=body) as reply:
                async for data in reply.aiter_bytes():
                    received += data
    text = received.decode()
    assert text.count("event: response.output_text.delta") == 2
    assert "response.completed" not in text


async def test_error_status_fault_gives_error_event_once(emulator):
    """error_status answers the next create in-band; with count 1 it then reverts."""
    emulator.set_faults(Faults(error_status=429, error_code="rate_limit_exceeded", count=1))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        (event,) = await collect(ws)
        await ws.send(create())
        after = await collect(ws)
    assert event == {
        "type": "error",
        "status": 429,
        "error": {
            "type": "requests",
            "code": "rate_limit_exceeded",
            "message": event["error"]["message"],
            "param": None,
        },
    }
    assert after[-1]["type"] == "response.completed"


async def test_error_status_fault_gives_http_status_on_post(emulator):
    """Over HTTP, error_status is the response's status code with an error body."""
    emulator.set_faults(Faults(error_status=503))
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post(
            "/responses", json={"model": "spark", "input": "x", "stream": True}
        )
    assert reply.status_code == 503
    assert reply.json()["error"]["type"] == "server_error"


async def test_faults_set_through_control_endpoint(emulator):
    """POST /_emulator/faults installs faults; count makes them expire."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        set_reply = await client.post("/_emulator/faults", json={"reply": "bare", "count": 1})
        first = (await client.post("/responses", json={"model": "s", "input": REGION_REQUEST}))
        second = (await client.post("/responses", json={"model": "s", "input": REGION_REQUEST}))
    assert set_reply.json()["reply"] == "bare"
    assert first.json()["output"][-1]["content"][0]["text"] == "def bar():\n    return bar(1)"
    assert second.json()["output"][-1]["content"][0]["text"] == EXPECTED_TEXT


async def test_invalid_faults_are_refused(emulator):
    """An unknown field or bad value in /_emulator/faults gets a 400."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        unknown = await client.post("/_emulator/faults", json={"speed": 3})
        bad = await client.post("/_emulator/faults", json={"reply": "loud"})
    assert unknown.status_code == 400 and bad.status_code == 400
    assert unknown.json()["error"]["code"] == "invalid_faults"


async def test_paced_stream_delivers_every_delta_in_order(emulator):
    """With tokens_per_second set, all deltas still arrive, in order."""
    emulator.set_faults(Faults(tokens_per_second=5000, delay_ms=1))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        received = await collect(ws)
    deltas = [e["delta"] for e in received if e["type"] == "response.output_text.delta"]
    assert "".join(deltas) == EXPECTED_TEXT


async def test_empty_reply_fault_streams_no_text(emulator):
    """reply: empty completes with an empty output text and no deltas."""
    emulator.set_faults(Faults(reply="empty"))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        received = await collect(ws)
    assert not any(e["type"] == "response.output_text.delta" for e in received)
    assert received[-1]["response"]["output"][-1]["content"][0]["text"] == ""


async def test_stats_count_websocket_traffic(emulator):
    """Stats count connections, responses, deltas and bytes."""
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        received = await collect(ws)
        stats = emulator.stats
    deltas = sum(1 for e in received if e["type"] == "response.output_text.delta")
    assert stats["ws_connections"] == 1 and stats["ws_open"] == 1
    assert stats["responses"] == 1 and stats["deltas"] == deltas
    assert stats["bytes_in"] > 0 and stats["bytes_out"] > stats["bytes_in"]
    assert stats["errors"] == 0


async def test_stats_endpoint_and_reset(emulator):
    """GET /_emulator/stats reports counters; POST /_emulator/reset zeroes them."""
    emulator.set_faults(Faults(reply="bare"))
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        await client.post("/responses", json={"model": "spark", "input": "hi"})
        await client.get("/nowhere")
        before = (await client.get(emulator.url.removesuffix("/v1") + "/_emulator/stats")).json()
        await client.post("/_emulator/reset")
        after = (await client.get("/_emulator/stats")).json()
        faults = (await client.get("/_emulator/faults")).json()
    assert before["http_requests"] == 2 and before["responses"] == 1
    assert before["errors"] == 1
    assert after["http_requests"] == 0 and after["responses"] == 0 and after["bytes_in"] == 0
    assert faults["reply"] == "fenced"


async def test_unknown_path_is_404_json(emulator):
    """An unknown path answers 404 with an OpenAI-style error body."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        reply = await client.post("/nothing/here", json={})
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "unknown_url"


async def test_unknown_model_is_404_in_band():
    """With a model list, an unknown model gets a 404 model_not_found error event."""
    async with Emulator(models=["spark"]) as server:
        async with connect(server.ws_url) as ws:
            await ws.send(create(model="gpt-nope"))
            (event,) = await collect(ws)
    assert event["status"] == 404
    assert event["error"]["code"] == "model_not_found"
    assert "gpt-nope" in event["error"]["message"]


async def test_connection_limit_errors_and_closes_when_asked():
    """With close_on_connection_limit, a request past the limit gets an error and the socket closes."""
    async with Emulator(max_connection_seconds=0, close_on_connection_limit=True) as server:
        async with connect(server.ws_url) as ws:
            await ws.send(create())
            (event,) = await collect(ws)
            with pytest.raises(ConnectionClosed):
                await ws.recv()
    assert event["error"]["code"] == "websocket_connection_limit_reached"


async def test_ping_is_answered(emulator):
    """The server answers WebSocket pings."""
    async with connect(emulator.ws_url) as ws:
        pong = await ws.ping()
        await pong


async def test_invalid_message_gets_error_event(emulator):
    """A message that is not a response.create gets an error event, socket stays open."""
    async with connect(emulator.ws_url) as ws:
        await ws.send("not json")
        (bad_json,) = await collect(ws)
        await ws.send(json.dumps({"type": "session.update"}))
        (bad_type,) = await collect(ws)
        await ws.send(create())
        received = await collect(ws)
    assert bad_json["error"]["code"] == "invalid_json"
    assert bad_type["error"]["code"] == "unknown_event_type"
    assert received[-1]["type"] == "response.completed"
