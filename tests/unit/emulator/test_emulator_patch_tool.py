"""The emulator speaks the apply_patch tool as the SDK types it, and refuses what the
service refuses: a continuation that leaves an apply_patch_call unanswered."""

from __future__ import annotations

import json

import httpx
import pytest_asyncio
import websockets

from bench.kit.sdk_conformance import check_sse_event, check_ws_event, parse_sse, stream_problems, ws_events
from sparkls.emulator import Emulator
from sparkls.emulator.ideal import KnownEdit

OLD = "".join(f"    value_{i} = compute(argument_{i})\n" for i in range(8))
OLD = "def build():\n" + OLD + "    return value_0\n"
NEW = OLD.replace("return value_0", "return value_7")
TEXT = f"File: calc.py\n<|editable_region_start|>\n{OLD}<|editable_region_end|>\nInstruction: return the last"


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        server.ideal.learn([KnownEdit(OLD, NEW, "calc.py")])
        yield server


def _body(**extra) -> dict:
    return {"model": "spark", "store": False, "tools": [{"type": "apply_patch"}],
            "input": [{"role": "user", "content": [{"type": "input_text", "text": TEXT}]}], **extra}


async def test_the_apply_patch_call_streams_as_the_sdk_types_it_over_the_websocket(emulator):
    events = await ws_events(emulator.ws_url, _body())
    assert [e["type"] for e in events] == ["response.created", "response.in_progress", "response.output_item.added",
                                           "response.output_item.done", "response.completed"]
    assert [p for e in events for p in check_ws_event(e)] == [] and stream_problems(events) == []
    item = events[-1]["response"]["output"][0]
    assert item["type"] == "apply_patch_call" and item["operation"]["type"] == "update_file"
    assert item["operation"]["path"] == "calc.py" and "+    return value_7\n" in item["operation"]["diff"]
    assert events[2]["item"]["status"] == "in_progress"


async def test_the_apply_patch_call_streams_as_the_sdk_types_it_over_sse(emulator):
    async with httpx.AsyncClient() as client:
        response = await client.post(f"{emulator.url}/responses", json=_body(stream=True))
    parsed, _ = parse_sse(response.text)
    events = [json.loads(data) for _, data in parsed if data != "[DONE]"]
    assert [p for e in events for p in check_sse_event(e)] == [] and stream_problems(events) == []
    assert events[-2]["item"]["type"] == "apply_patch_call"


async def test_a_request_without_the_tool_gets_text(emulator):
    body = _body()
    del body["tools"]
    events = await ws_events(emulator.ws_url, body)
    assert not any(e.get("item", {}).get("type") == "apply_patch_call" for e in events)


async def test_a_continuation_must_answer_the_call_first(emulator):
    """Continuing (previous_response_id) a response whose apply_patch_call is unanswered is
    refused, naming the call; with its apply_patch_call_output it is served."""
    async with websockets.connect(emulator.ws_url) as ws:
        await ws.send(json.dumps({"type": "response.create", **_body()}))
        while (event := json.loads(await ws.recv()))["type"] != "response.completed":
            pass
        response_id = event["response"]["id"]
        call_id = event["response"]["output"][0]["call_id"]
        turn = {"role": "user", "content": [{"type": "input_text", "text": "Revise: shorter names"}]}
        await ws.send(json.dumps({"type": "response.create", "model": "spark", "store": False,
                                  "previous_response_id": response_id, "input": [turn]}))
        error = json.loads(await ws.recv())
        assert error["type"] == "error" and error["status"] == 400
        assert call_id in error["error"]["message"] and error["error"]["type"] == "invalid_request_error"
        assert check_ws_event(error) == []
        output = {"type": "apply_patch_call_output", "call_id": call_id, "status": "completed", "output": "applied"}
        await ws.send(json.dumps({"type": "response.create", "model": "spark", "store": False,
                                  "previous_response_id": response_id, "input": [output, turn]}))
        while (event := json.loads(await ws.recv()))["type"] not in ("response.completed", "error"):
            pass
        assert event["type"] == "response.completed"
    assert emulator.counters.patch_calls == 1 and emulator.counters.patch_outputs == 1
