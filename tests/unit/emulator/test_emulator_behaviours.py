"""Model behaviours on demand, over real loopback sockets: one behaviour per test."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from sparkls.emulator import Emulator, Faults, streaming
from sparkls.emulator.behaviours import FEW_DELTAS, REFUSAL_TEXT, SERVER_ERROR_MESSAGE, emulate_directives, format_wait
from sparkls.emulator.model import split_tokens

REQUEST = (
    "File: geometry.py\nREPLACE area WITH circle_area\n<|editable_region_start|>\n"
    "def area(r):\n    return 3.14159 * r * r<|cursor|>\n<|editable_region_end|>\n"
)
ANSWER = "```\ndef circle_area(r):\n    return 3.14159 * r * r\n```"
TERMINAL = ("response.completed", "response.incomplete", "response.failed", "error")
TEXT_DELTA = "response.output_text.delta"


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


def create(text: str = REQUEST, **fields) -> str:
    return json.dumps({"type": "response.create", "model": "spark", "input": text, **fields})


async def collect(ws) -> list[dict]:
    received = []
    while True:
        received.append(json.loads(await ws.recv()))
        if received[-1]["type"] in TERMINAL:
            return received


async def one_reply(emulator: Emulator, text: str = REQUEST, **fields) -> list[dict]:
    async with connect(emulator.ws_url) as ws:
        await ws.send(create(text, **fields))
        return await collect(ws)


def messages(events: list[dict]) -> list[dict]:
    return [item for item in events[-1]["response"]["output"] if item["type"] == "message"]


def text_of(events: list[dict], kind: str = TEXT_DELTA) -> str:
    return "".join(e["delta"] for e in events if e["type"] == kind)


async def sse_post(emulator: Emulator, path: str, body: dict) -> httpx.Response:
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        return await client.post(path, json=body)


def sse_datas(text: str) -> list[str]:
    return [line[len("data: "):] for line in text.split("\n") if line.startswith("data: ")]


def chat_chunks(reply: httpx.Response) -> list[dict]:
    return [json.loads(data) for data in sse_datas(reply.text) if data != "[DONE]"]


def chat_body(**extra) -> dict:
    return {"model": "spark", "messages": [{"role": "user", "content": REQUEST}], "stream": True, **extra}


# -- Responses API ----------------------------------------------------------------


async def test_commentary_comes_before_the_final_answer(emulator):
    """commentary: a prose message with phase commentary, then the answer with phase final_answer."""
    emulator.set_faults(Faults(behaviour="commentary"))
    events = await one_reply(emulator)
    commentary, final = messages(events)
    assert (commentary["phase"], final["phase"]) == ("commentary", "final_answer")
    prose = commentary["content"][0]["text"]
    assert "`area`" in prose and "```" not in prose
    assert final["content"][0]["text"] == ANSWER
    assert events[-1]["response"]["output"][0]["type"] == "reasoning"


async def test_unlabelled_sends_two_messages_without_phase(emulator):
    """unlabelled: prose then the answer, neither with a phase."""
    emulator.set_faults(Faults(behaviour="unlabelled"))
    prose, final = messages(await one_reply(emulator))
    assert "phase" not in prose and "phase" not in final
    assert final["content"][0]["text"] == ANSWER


async def test_plain_sends_one_message_and_no_reasoning(emulator):
    """plain: one message without phase and no reasoning item; usage has no reasoning tokens."""
    emulator.set_faults(Faults(behaviour="plain"))
    events = await one_reply(emulator)
    (item,) = events[-1]["response"]["output"]
    assert item["type"] == "message" and "phase" not in item
    assert events[-1]["response"]["usage"]["output_tokens_details"]["reasoning_tokens"] == 0


async def test_refusal_streams_refusal_deltas(emulator):
    """refusal: refusal.delta pieces, refusal.done, a refusal part; the response completes."""
    emulator.set_faults(Faults(behaviour="refusal"))
    events = await one_reply(emulator)
    assert text_of(events, "response.refusal.delta") == REFUSAL_TEXT
    assert not any(e["type"] == TEXT_DELTA for e in events)
    assert next(e for e in events if e["type"] == "response.refusal.done")["refusal"] == REFUSAL_TEXT
    assert messages(events)[0]["content"] == [{"type": "refusal", "refusal": REFUSAL_TEXT}]
    assert events[-1]["type"] == "response.completed"


async def test_max_output_tokens_ends_incomplete_halfway(emulator):
    """max_output_tokens: about half the deltas, then response.incomplete with that reason."""
    emulator.set_faults(Faults(behaviour="max_output_tokens"))
    events = await one_reply(emulator)
    sent = text_of(events)
    assert ANSWER.startswith(sent) and len(split_tokens(sent)) == len(split_tokens(ANSWER)) // 2
    response = events[-1]["response"]
    assert events[-1]["type"] == "response.incomplete" and response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert messages(events)[0]["status"] == "incomplete" and messages(events)[0]["content"][0]["text"] == sent


async def test_content_filter_ends_incomplete(emulator):
    """content_filter: the stream stops with response.incomplete, reason content_filter."""
    emulator.set_faults(Faults(behaviour="content_filter"))
    events = await one_reply(emulator)
    assert events[-1]["response"]["incomplete_details"] == {"reason": "content_filter"}


async def test_failed_ends_with_response_failed(emulator):
    """failed: a few deltas, then response.failed with server_error."""
    emulator.set_faults(Faults(behaviour="failed"))
    events = await one_reply(emulator)
    assert sum(e["type"] == TEXT_DELTA for e in events) == FEW_DELTAS
    response = events[-1]["response"]
    assert events[-1]["type"] == "response.failed" and response["status"] == "failed"
    assert response["error"] == {"code": "server_error", "message": SERVER_ERROR_MESSAGE}


async def test_stream_error_on_a_websocket_leaves_it_open(emulator):
    """stream_error: a few deltas, an in-band error with a sequence number; the socket serves on."""
    emulator.set_faults(Faults(behaviour="stream_error", count=1))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        events = await collect(ws)
        await ws.send(create())
        after = await collect(ws)
    error = events[-1]
    assert error["type"] == "error" and error["error"]["code"] == "server_error"
    assert error["sequence_number"] == len(events) - 1
    assert sum(e["type"] == TEXT_DELTA for e in events) == FEW_DELTAS
    assert after[-1]["type"] == "response.completed"


async def test_stream_error_over_sse_has_the_sse_shape(emulator):
    """stream_error over SSE: an error event with top-level code and message; no completed."""
    emulator.set_faults(Faults(behaviour="stream_error"))
    reply = await sse_post(emulator, "/responses", {"model": "spark", "input": REQUEST, "stream": True})
    last = json.loads(sse_datas(reply.text)[-1])
    assert set(last) == {"type", "sequence_number", "code", "message", "param"}
    assert last["code"] == "server_error"
    assert "response.completed" not in reply.text


async def test_rate_limited_is_in_band_on_a_websocket(emulator):
    """rate_limited: an in-band 429 with retry-after headers; the socket stays open."""
    emulator.set_faults(Faults(behaviour="rate_limited", retry_after=1.3, count=1))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        (event,) = await collect(ws)
        await ws.send(create())
        after = await collect(ws)
    assert event["status"] == 429
    error = event["error"]
    assert (error["type"], error["code"], error["param"]) == ("requests", "rate_limit_exceeded", None)
    assert error["headers"]["retry-after"] == "1.3"
    assert error["headers"]["x-ratelimit-reset-tokens"] == "1.3s"
    assert "Please try again in 1.3s." in error["message"] and "spark" in error["message"]
    assert after[-1]["type"] == "response.completed"


async def test_rate_limited_over_http_is_a_429(emulator):
    """rate_limited over HTTP: status 429, a retry-after header, the same error body."""
    emulator.set_faults(Faults(behaviour="rate_limited", retry_after=123.5))
    reply = await sse_post(emulator, "/responses", {"model": "spark", "input": REQUEST, "stream": True})
    assert reply.status_code == 429
    assert reply.headers["retry-after"] == "123.5" and reply.headers["retry-after-ms"] == "123500"
    assert "try again in 2m3.5s" in reply.json()["error"]["message"]


def test_waits_are_written_as_the_service_writes_them():
    """Waits read 120ms, 1.3s, 2m3.5s, 1h0m0s."""
    assert [format_wait(s) for s in (0.12, 1.3, 123.5, 3600)] == ["120ms", "1.3s", "2m3.5s", "1h0m0s"]


async def test_queued_sends_response_queued_after_created(emulator):
    """queued: response.queued right after response.created, then the default stream."""
    emulator.set_faults(Faults(behaviour="queued"))
    events = await one_reply(emulator)
    assert [e["type"] for e in events[:3]] == ["response.created", "response.queued", "response.in_progress"]
    assert events[1]["response"]["status"] == "queued"
    assert messages(events)[0]["content"][0]["text"] == ANSWER


async def test_delay_sends_the_opening_then_no_token(emulator):
    """delay_ms: created and in_progress go out, then nothing until the delay is over."""
    emulator.set_faults(Faults(delay_ms=60_000))
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        opening = [json.loads(await ws.recv()) for _ in range(2)]
        stats = emulator.stats
    assert [e["type"] for e in opening] == ["response.created", "response.in_progress"]
    assert stats["deltas"] == 0


async def test_delay_over_sse_sends_keep_alive_comments(emulator, monkeypatch):
    """delay_ms over SSE: keep-alive comment lines while no token comes."""
    monkeypatch.setattr(streaming, "KEEPALIVE_SECONDS", 0.01)
    emulator.set_faults(Faults(delay_ms=60_000))
    body = {"model": "spark", "input": REQUEST, "stream": True}
    received = ""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        async with client.stream("POST", "/responses", json=body) as reply:
            async for text in reply.aiter_text():
                received += text
                if received.count(": keep-alive\n\n") >= 2:
                    break
    assert "event: response.in_progress" in received and TEXT_DELTA not in received


async def test_paced_commentary_delivers_every_delta(emulator):
    """Pacing works across items: every delta of both messages arrives."""
    emulator.set_faults(Faults(behaviour="commentary", tokens_per_second=5000, delay_ms=1))
    events = await one_reply(emulator)
    assert messages(events)[1]["content"][0]["text"] == ANSWER
    assert text_of(events).endswith(ANSWER)


async def test_drop_counts_deltas_across_messages(emulator):
    """drop_after_deltas counts the deltas of every message."""
    emulator.set_faults(Faults(behaviour="commentary", drop_after_deltas=30))
    received = []
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        with pytest.raises(ConnectionClosed):
            while True:
                received.append(json.loads(await ws.recv()))
    assert sum(e["type"] == TEXT_DELTA for e in received) == 30


# -- selecting a behaviour ------------------------------------------------------------


async def test_emulate_directive_selects_a_behaviour(emulator):
    """EMULATE <name> in the request text plays that behaviour, whatever the faults."""
    events = await one_reply(emulator, "EMULATE refusal\n" + REQUEST)
    assert messages(events)[0]["content"][0]["type"] == "refusal"


async def test_emulate_directive_selects_a_reply_shape(emulator):
    """EMULATE <shape> in the request text answers in that reply shape."""
    events = await one_reply(emulator, "EMULATE tilde\n" + REQUEST)
    assert messages(events)[0]["content"][0]["text"] == ANSWER.replace("```", "~~~")


async def test_behaviour_per_model(emulator):
    """The models map gives one model its own behaviour; others keep the default."""
    emulator.set_faults(Faults(models={"gpt-5.3-codex": {"behaviour": "commentary"}}))
    deep = await one_reply(emulator, model="gpt-5.3-codex")
    fast = await one_reply(emulator)
    assert [m.get("phase") for m in messages(deep)] == ["commentary", "final_answer"]
    assert [m.get("phase") for m in messages(fast)] == ["final_answer"]


async def test_behaviour_through_the_control_endpoint(emulator):
    """POST /_emulator/faults {"behaviour", "count"} plays it for that many requests."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        set_reply = await client.post("/_emulator/faults", json={"behaviour": "plain", "count": 1})
        bad = await client.post("/_emulator/faults", json={"behaviour": "sulk"})
    first, second = await one_reply(emulator), await one_reply(emulator)
    assert set_reply.json()["behaviour"] == "plain" and bad.status_code == 400
    assert len(first[-1]["response"]["output"]) == 1
    assert len(second[-1]["response"]["output"]) == 2


# -- the connection limit -----------------------------------------------------------------


async def test_connection_limit_leaves_the_socket_open():
    """Past the limit, every request gets websocket_connection_limit_reached; the socket stays open."""
    async with Emulator(max_connection_seconds=0) as server:
        async with connect(server.ws_url) as ws:
            await ws.send(create())
            (first,) = await collect(ws)
            await ws.send(create())
            (second,) = await collect(ws)
            await (await ws.ping())
    assert first["error"]["code"] == second["error"]["code"] == "websocket_connection_limit_reached"
    assert first["status"] == 400


async def test_connection_limit_set_at_run_time(emulator):
    """POST /_emulator/connection_limit applies to open sockets; reset restores the default."""
    async with connect(emulator.ws_url) as ws, httpx.AsyncClient(base_url=emulator.url) as client:
        await ws.send(create())
        before = await collect(ws)
        limit = (await client.post("/_emulator/connection_limit", json={"seconds": 0})).json()
        await ws.send(create())
        (refused,) = await collect(ws)
        await client.post("/_emulator/reset")
        await ws.send(create())
        after = await collect(ws)
    assert limit == {"seconds": 0.0, "close": False}
    assert before[-1]["type"] == after[-1]["type"] == "response.completed"
    assert refused["error"]["code"] == "websocket_connection_limit_reached"


async def test_connection_limit_can_close_the_socket(emulator):
    """With close: true, the socket that reached the limit is closed after the error."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        await client.post("/_emulator/connection_limit", json={"seconds": 0, "close": True})
    async with connect(emulator.ws_url) as ws:
        await ws.send(create())
        (event,) = await collect(ws)
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert event["error"]["code"] == "websocket_connection_limit_reached"


async def test_handshake_pause_holds_the_upgrade_until_it_ends(emulator):
    """POST /_emulator/handshake: an upgrade is not answered while the pause runs; a
    short pause still opens a working socket; bad values are refused; reset ends it."""
    async with httpx.AsyncClient(base_url=emulator.url) as client:
        bad = [(await client.post("/_emulator/handshake", json=body)).status_code
               for body in ({"ms": -1}, {"ms": 1.5}, {"ms": True}, {"ms": 60_001}, {"seconds": 1})]
        assert (await client.post("/_emulator/handshake", json={"ms": 60_000})).json() == {"ms": 60_000}
        waiting = asyncio.create_task(connect(emulator.ws_url).__aenter__())
        while emulator.counters.bytes_in == 0:  # the upgrade request has arrived
            await asyncio.sleep(0)
        held = (waiting.done(), emulator.counters.ws_connections)
        waiting.cancel()
        await client.post("/_emulator/handshake", json={"ms": 20})
        async with connect(emulator.ws_url) as ws:
            await ws.send(create())
            events = await collect(ws)
        await client.post("/_emulator/reset")
        after_reset = (await client.get("/_emulator/handshake")).json()
    assert bad == [400] * 5
    assert held == (False, 0)
    assert events[-1]["type"] == "response.completed"
    assert after_reset == {"ms": 0}


# -- Chat Completions -----------------------------------------------------------------------


async def test_llama_cpp_streams_reasoning_content_then_content_with_timings(emulator):
    """llama.cpp: reasoning_content deltas before the content; timings and usage on the last chunk."""
    emulator.set_faults(Faults(chat_flavour="llama.cpp"))
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions",
                                        chat_body(stream_options={"include_usage": True})))
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    kinds = [("reasoning_content" in d, "content" in d and d["content"]) for d in deltas]
    first_content = next(i for i, (_, content) in enumerate(kinds) if content)
    assert any(reasoning for reasoning, _ in kinds[:first_content])
    assert not any(reasoning for reasoning, _ in kinds[first_content:])
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert chunks[-1]["timings"]["predicted_n"] == chunks[-1]["usage"]["completion_tokens"]
    assert "".join(d.get("content") or "" for d in deltas) == ANSWER


async def test_ollama_streams_reasoning_with_role_on_every_delta(emulator):
    """Ollama: thinking as delta.reasoning, role on every delta, fp_ollama."""
    emulator.set_faults(Faults(chat_flavour="ollama"))
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions", chat_body()))
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert all(d["role"] == "assistant" for d in deltas)
    assert any(d.get("reasoning") for d in deltas)
    assert {c["system_fingerprint"] for c in chunks} == {"fp_ollama"}


async def test_vllm_marks_the_finish_with_stop_reason(emulator):
    """vLLM: reasoning_content deltas, stop_reason beside finish_reason, usage chunk last."""
    emulator.set_faults(Faults(chat_flavour="vllm"))
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions",
                                        chat_body(stream_options={"include_usage": True})))
    finish = chunks[-2]["choices"][0]
    assert finish["finish_reason"] == "stop" and finish["stop_reason"] is None
    assert chunks[-1]["choices"] == []
    assert any(c["choices"][0]["delta"].get("reasoning_content") for c in chunks[:-1])


async def test_openai_chat_hides_reasoning_and_pads_chunks(emulator):
    """OpenAI chat: no visible reasoning, every chunk padded with obfuscation."""
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions", chat_body()))
    assert all(c["obfuscation"] for c in chunks)
    assert not any("reasoning_content" in c["choices"][0]["delta"] for c in chunks)


@pytest.mark.parametrize(("behaviour", "reason"), [("max_output_tokens", "length"), ("content_filter", "content_filter")])
async def test_chat_stream_cut_off_has_its_finish_reason(emulator, behaviour, reason):
    """A cut-off chat reply stops halfway with finish_reason length or content_filter."""
    emulator.set_faults(Faults(behaviour=behaviour))
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions", chat_body()))
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == reason
    assert ANSWER.startswith(text) and text != ANSWER


async def test_chat_refusal_is_delta_refusal(emulator):
    """An OpenAI chat refusal arrives as delta.refusal pieces."""
    emulator.set_faults(Faults(behaviour="refusal"))
    chunks = chat_chunks(await sse_post(emulator, "/chat/completions", chat_body()))
    assert "".join(c["choices"][0]["delta"].get("refusal") or "" for c in chunks) == REFUSAL_TEXT


async def test_chat_rate_limited_is_a_429(emulator):
    """rate_limited over Chat Completions: 429 with retry-after, in every flavour."""
    emulator.set_faults(Faults(behaviour="rate_limited", chat_flavour="llama.cpp", retry_after=2))
    reply = await sse_post(emulator, "/chat/completions", chat_body())
    assert reply.status_code == 429 and reply.headers["retry-after"] == "2"
    assert reply.json()["error"]["code"] == "rate_limit_exceeded"


async def test_chat_stream_error_breaks_off_without_done(emulator):
    """stream_error over chat: a few chunks, then data: {"error": ...} and no [DONE]."""
    emulator.set_faults(Faults(behaviour="stream_error"))
    datas = sse_datas((await sse_post(emulator, "/chat/completions", chat_body())).text)
    assert json.loads(datas[-1])["error"]["type"] == "server_error"
    assert "[DONE]" not in datas


def test_emulate_directives_name_behaviours_shapes_and_flavours():
    """EMULATE names a behaviour, a reply shape or a chat flavour; other words are text."""
    text = "EMULATE commentary\nEMULATE diff and EMULATE vllm, EMULATE nonsense; emulate plain"
    assert emulate_directives(text) == {"behaviour": "commentary", "reply": "diff", "chat_flavour": "vllm"}


def test_faults_refuse_unknown_names_and_negative_waits():
    """An unknown behaviour or chat flavour, or a negative retry_after, is refused."""
    for changes in ({"behaviour": "sulk"}, {"chat_flavour": "lmstudio"}, {"retry_after": -1}):
        with pytest.raises(ValueError):
            Faults().merged(changes)
    assert Faults().merged({"retry_after": 2}).retry_after == 2.0
