"""WebSocket lanes, forks and steering on a real emulator, over a raw WebSocket.

Every message sent and every frame read goes through bench/kit/sdk_conformance.py's
LaneDriver: held to the SDK's ResponsesClientEvent / ResponsesServerEvent models, and
each lane's responses to the stream invariants. Ordering facts only, no timings."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from typing import Any, AsyncIterator

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from sparkls.emulator import Emulator, Faults, cli, lanes, streaming
from bench.kit.sdk_conformance import TERMINAL, LaneDriver

EXPECTED = "```\ndef circle_area(r):\n    # r is the radius\n    return math.pi * r * r\n```"
DISK = EXPECTED.replace("circle_area", "disk_area")
RING = EXPECTED.replace("circle_area", "ring_area")
TO_DISK = "REPLACE circle_area WITH disk_area"
TO_RING = "REPLACE disk_area WITH ring_area"
STALL = 60_000  # delay_ms: no first token unless a steer ends the wait


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


@contextlib.asynccontextmanager
async def driving(emulator: Emulator, *, finished: bool = True) -> AsyncIterator[LaneDriver]:
    """A LaneDriver on a fresh connection; on leaving, nothing it saw may break the SDK
    models or the lane invariants."""
    async with connect(emulator.ws_url) as ws:
        driver = LaneDriver(ws)
        yield driver
    assert driver.problems(finished=finished) == []


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    return [frame["type"] for frame in frames]


def text_of(final: dict[str, Any]) -> str:
    """The text of the last message of a terminal event's response."""
    message = [item for item in final["response"]["output"] if item["type"] == "message"][-1]
    return message["content"][0]["text"]


def first(frames: list[dict[str, Any]], kind: str, **match: Any) -> int:
    """The index of the first frame of *kind* whose keys match."""
    return next(i for i, f in enumerate(frames) if f["type"] == kind and all(f.get(k) == v for k, v in match.items()))


def last(frames: list[dict[str, Any]], kind: str, **match: Any) -> int:
    return max(i for i, f in enumerate(frames) if f["type"] == kind and all(f.get(k) == v for k, v in match.items()))


async def wait_until(condition) -> None:
    """Poll the in-process emulator until *condition* holds (the server side catches up)."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the emulator never got there")


# -- lanes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [3, 8])
async def test_lanes_stream_concurrently_and_echo_their_stream_id(emulator, count):
    """Lanes started together stream at once: every lane's first delta arrives before
    any lane completes, and every event of a lane carries its stream_id."""
    emulator.set_faults(Faults(tokens_per_second=100))
    names = [f"lane-{i}" for i in range(count)]
    async with driving(emulator) as d:
        for name in names:
            await d.create(name)
        ends = await d.ended(count)
    frames = d.frames
    assert all(f.get("stream_id") in names for f in frames)
    assert sorted(end["stream_id"] for end in ends) == sorted(names)
    assert all(end["type"] == "response.completed" and text_of(end) == EXPECTED for end in ends)
    first_completed = first(frames, "response.completed")
    for name in names:
        assert first(frames, "response.output_text.delta", stream_id=name) < first_completed
    assert emulator.stats["lanes"] == count
    assert emulator.stats["max_lanes"] == count


async def test_four_paced_lanes_overlap(emulator):
    """Four paced lanes take about one lane's time: each lane's first delta comes
    before the first lane's last delta (they are not served one after another)."""
    emulator.set_faults(Faults(tokens_per_second=60))
    async with driving(emulator) as d:
        for name in "abcd":
            await d.create(name)
        await d.ended(4)
    frames = d.frames
    a_done = last(frames, "response.output_text.delta", stream_id="a")
    for name in "bcd":
        assert first(frames, "response.output_text.delta", stream_id=name) < a_done
    assert emulator.stats["max_lanes"] == 4


async def test_a_lane_serves_its_requests_in_order(emulator):
    """Three requests on one busy lane: served one after another, in order, no error."""
    emulator.set_faults(Faults(tokens_per_second=400))
    inputs = [EXPECTED_INPUT.replace("circle_area", name) for name in ("one", "two", "three")]
    async with driving(emulator) as d:
        for text in inputs:
            await d.create("a", input=text)
        ends = await d.ended(3)
    assert [end["type"] for end in ends] == ["response.completed"] * 3
    assert [text_of(end) for end in ends] == [EXPECTED.replace("circle_area", n) for n in ("one", "two", "three")]
    assert kinds(d.frames).count("response.created") == 3


async def test_unnamed_and_named_lanes_coexist(emulator):
    """An unnamed response and a lane stream together; a second unnamed request meanwhile
    is still refused with response_already_in_progress (no stream_id on it)."""
    emulator.set_faults(Faults(tokens_per_second=100))
    async with driving(emulator) as d:
        await d.create()
        await d.create("a")
        await d.until(lambda f: f["type"] == "response.output_text.delta" and "stream_id" not in f)
        await d.create()
        ends = await d.ended(3)
    refused = [e for e in ends if e["type"] == "error"]
    assert len(refused) == 1 and "stream_id" not in refused[0]
    assert refused[0]["error"]["code"] == "response_already_in_progress"
    assert sorted(str(e.get("stream_id")) for e in ends if e["type"] == "response.completed") == ["None", "a"]


async def test_fork_from_another_lane(emulator):
    """A new lane continues (forks) a response that ended on another lane; an unknown
    previous_response_id is refused on its lane."""
    async with driving(emulator) as d:
        await d.create("a")
        (origin,) = await d.ended()
        await d.create("b", previous_response_id=origin["response"]["id"], input=TO_DISK)
        await d.create("c", previous_response_id="resp_nope")
        ends = await d.ended(2)
    fork = next(e for e in ends if e.get("stream_id") == "b")
    refused = next(e for e in ends if e.get("stream_id") == "c")
    assert fork["type"] == "response.completed"
    assert fork["response"]["previous_response_id"] == origin["response"]["id"]
    assert text_of(fork) == DISK
    assert refused["type"] == "error" and refused["error"]["code"] == "previous_response_not_found"


async def test_only_the_256_most_recently_used_lanes_can_be_forked(emulator):
    """Each lane's most recent response is kept for the 256 most recently used lanes
    (and the unnamed lane's): the 257th lane pushes the oldest out."""
    async with driving(emulator) as d:
        await d.create(None, input="x", generate=False, store=False)
        (unnamed,) = await d.ended()
        ids = []
        for index in range(257):  # store: false, so only the connection can resolve them
            await d.create(f"l{index}", input="x", generate=False, store=False)
            ids.append((await d.ended())[0]["response"]["id"])
        await d.create("f1", previous_response_id=ids[0], input="x", generate=False)
        await d.create("f2", previous_response_id=ids[1], input="x", generate=False)
        await d.create("f3", previous_response_id=unnamed["response"]["id"], input="x", generate=False)
        ends = await d.ended(3)
    by_lane = {e["stream_id"]: e for e in ends}
    assert by_lane["f1"]["type"] == "error" and by_lane["f1"]["error"]["code"] == "previous_response_not_found"
    assert by_lane["f2"]["type"] == "response.completed"
    assert by_lane["f3"]["type"] == "response.completed"


async def test_an_error_fails_only_its_lane(emulator):
    """A stream error and a refusal on lane a carry its stream_id; lane b streams on
    past them, and lane a goes on to its next request."""
    emulator.set_faults(Faults(tokens_per_second=100, models={
        "broken": {"behaviour": "stream_error"}, "limited": {"behaviour": "rate_limited"}}))
    async with driving(emulator) as d:
        await d.create("b")
        await d.create("a", model="broken")
        await d.create("a", model="limited")
        await d.create("a")
        await d.ended(4)
    frames = d.frames
    stream_error = first(frames, "error", stream_id="a")
    assert "sequence_number" in frames[stream_error]
    refusal = last(frames, "error", stream_id="a")
    assert frames[refusal]["status"] == 429 and frames[refusal]["error"]["code"] == "rate_limit_exceeded"
    assert last(frames, "response.output_text.delta", stream_id="b") > stream_error
    assert frames[last(frames, "response.completed", stream_id="a")]["stream_id"] == "a"
    assert kinds(d.lane("a")).count("response.completed") == 1


async def test_connection_limit_error_carries_the_lane(emulator):
    """Past the connection limit, the error names the lane of the refused request."""
    emulator.set_connection_limit(0)
    async with driving(emulator) as d:
        await d.create("a")
        (event,) = await d.ended()
    assert event["error"]["code"] == "websocket_connection_limit_reached" and event["stream_id"] == "a"


async def test_closing_with_several_lanes_streaming_counts_each_abandoned(emulator):
    """A client that closes while three lanes stream abandoned three responses."""
    emulator.set_faults(Faults(delay_ms=STALL))
    async with driving(emulator, finished=False) as d:
        for name in "abc":
            await d.create(name)
        for _ in range(3):
            await d.until(lambda f: f["type"] == "response.in_progress")
    await wait_until(lambda: emulator.stats["ws_open"] == 0 and emulator.stats["streaming"] == 0)
    assert emulator.stats["abandoned"] == 3


async def test_a_bad_stream_id_is_refused(emulator):
    """stream_id must be a non-empty string."""
    async with driving(emulator) as d:
        await d.send({"type": "response.create", "model": "spark", "input": "x", "stream_id": ""}, valid=False)
        (event,) = await d.ended()
    assert event["error"]["code"] == "invalid_value" and event["error"]["param"] == "stream_id"


# -- the switch ---------------------------------------------------------------------------


async def _refused_as_without_lanes(server: Emulator) -> None:
    async with driving(server) as d:
        await d.create("a")
        refused = await d.recv()
        await d.steer("resp_x")
        unsupported = await d.recv()
        await d.create(None, input="x", generate=False)
        served = await d.recv()
        await d.ended()
    assert refused == {"type": "error", "status": 400, "error": {
        "type": "invalid_request_error", "code": "unknown_parameter",
        "message": "Unknown parameter: 'stream_id'.", "param": "stream_id"}}
    assert unsupported["error"]["code"] == "unknown_event_type" and "stream_id" not in unsupported
    assert unsupported["error"]["message"] == "Unsupported event type: 'response.steer'."
    assert served["type"] == "response.created"  # nothing was served for the refused one


async def test_without_lanes_stream_id_and_steer_are_refused():
    """Emulator(lanes=False) answers as a server without lanes: stream_id is an
    unknown parameter, response.steer an unsupported event type."""
    async with Emulator(lanes=False) as server:
        await _refused_as_without_lanes(server)


async def test_the_control_endpoint_switches_lanes_off_until_reset(emulator):
    """POST /_emulator/lanes {"lanes": false} switches lanes off; a reset turns them back on."""
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        assert (await http.get("/_emulator/lanes")).json() == {"lanes": True}
        assert (await http.post("/_emulator/lanes", json={"lanes": False})).json() == {"lanes": False}
        await _refused_as_without_lanes(emulator)
        assert (await http.post("/_emulator/lanes", json={"lanes": "no"})).status_code == 400
        await http.post("/_emulator/reset")
        assert (await http.get("/_emulator/lanes")).json() == {"lanes": True}


async def test_the_steer_fault_is_validated(emulator):
    """The steer fault takes its four values, per model too; anything else is a 400."""
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        ok = await http.post("/_emulator/faults", json={"models": {"m": {"steer": "pending"}}, "steer": "unsupported"})
        bad = await http.post("/_emulator/faults", json={"steer": "sometimes"})
    assert ok.status_code == 200 and ok.json()["steer"] == "unsupported"
    assert emulator.faults.for_model("m").steer == "pending"
    assert bad.status_code == 400


# -- steering ------------------------------------------------------------------------------

EXPECTED_INPUT = (
    "File: app/geometry.py\n\nREPLACE area WITH circle_area\n```python\nimport math\n\n"
    "<|editable_region_start|>\ndef area(r):\n    # r is the radius\n"
    "    return math.pi * r * r<|cursor|>\n<|editable_region_end|>\n\nprint(area(2))\n```\n"
)


async def _created(d: LaneDriver) -> str:
    return (await d.until(lambda f: f["type"] == "response.created"))["response"]["id"]


@pytest.mark.parametrize("lane", ["a", None])
async def test_a_steer_in_the_first_token_wait_ends_the_response_and_a_successor_answers(emulator, lane):
    """Steered while waiting for its first token, the response ends at once as
    incomplete (reason steered, no output); the successor, on the same lane, answers
    the request with the steer input as its latest turn."""
    emulator.set_faults(Faults(delay_ms=STALL, count=1))
    async with driving(emulator) as d:
        await d.create(lane)
        target = await _created(d)
        await d.steer(target, TO_DISK)
        steered, successor = await d.ended(2)
    accepted = next(f for f in d.frames if f["type"] == "response.steer.accepted")
    assert accepted["steer"]["previous_response_id"] == target and accepted["steer"]["id"].startswith("steer_")
    assert accepted.get("stream_id") == lane
    assert steered["type"] == "response.incomplete" and steered["response"]["id"] == target
    assert steered["response"]["incomplete_details"] == {"reason": "steered"}
    assert steered["response"]["output"] == [] and steered["response"]["usage"]["output_tokens"] == 0
    assert successor["type"] == "response.completed" and successor.get("stream_id") == lane
    assert successor["response"]["previous_response_id"] == target
    assert text_of(successor) == DISK
    stats = emulator.stats
    assert (stats["steers_accepted"], stats["steered"], stats["successors"]) == (1, 1, 1)


async def test_steers_mid_stream_cut_at_a_batch_boundary_and_all_reach_the_successor(emulator):
    """Two steers while the response streams: it ends at the next boundary with its
    open message incomplete, holding exactly the deltas sent; the successor takes both
    inputs, in order."""
    emulator.set_faults(Faults(tokens_per_second=2, count=1))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.until(lambda f: f["type"] == "response.output_text.delta")
        await d.steer(target, TO_DISK)
        await d.steer(target, [{"type": "message", "role": "user",
                                "content": [{"type": "input_text", "text": TO_RING}]}])
        steered, successor = await d.ended(2)
    response = steered["response"]
    message = response["output"][-1]
    deltas = [f["delta"] for f in d.frames if f["type"] == "response.output_text.delta"
              and f["item_id"] == message["id"]]
    assert response["incomplete_details"] == {"reason": "steered"}
    assert message["status"] == "incomplete" and message["content"][0]["text"] == "".join(deltas)
    assert len(deltas) < len(successor["response"]["output"][-1]["content"][0]["text"])
    usage = response["usage"]
    assert usage["output_tokens"] == len(deltas) + usage["output_tokens_details"]["reasoning_tokens"]
    assert kinds(d.frames).count("response.steer.accepted") == 2
    assert text_of(successor) == RING


async def test_a_steer_as_the_response_ends_gets_a_successor_after_completed(emulator, monkeypatch):
    """A steer that arrives after the last delta batch went out: the response completes
    normally, and a successor continuing its full answer follows."""
    arrived = asyncio.Event()
    held = []
    deltas, steer = streaming.Pacer.deltas, lanes.Lanes.steer

    async def hold_after_last_batch(self, kind, pieces, build):
        sent = await deltas(self, kind, pieces, build)
        if not held:  # the first response only: wait for the steer before completing
            held.append(True)
            await arrived.wait()
        return sent

    def steer_and_tell(self, event):
        steer(self, event)
        arrived.set()

    monkeypatch.setattr(streaming.Pacer, "deltas", hold_after_last_batch)
    monkeypatch.setattr(lanes.Lanes, "steer", steer_and_tell)
    emulator.set_faults(Faults(behaviour="plain"))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.steer(target, TO_DISK)
        completed, successor = await d.ended(2)
    assert completed["type"] == "response.completed" and text_of(completed) == EXPECTED
    assert successor["type"] == "response.completed"
    assert successor["response"]["previous_response_id"] == target
    assert text_of(successor) == DISK
    assert emulator.stats["steered"] == 0 and emulator.stats["successors"] == 1


async def test_a_steer_for_an_unknown_response_fails(emulator):
    """An id not known on this connection: failed response_not_found, number 0, no
    lane, no steer id, the input returned."""
    async with driving(emulator) as d:
        await d.steer("resp_nope", TO_DISK)
        event = await d.recv()
    assert event == {"type": "response.steer.failed", "sequence_number": 0, "error": {
        "code": "response_not_found", "type": "invalid_request_error",
        "message": "Response 'resp_nope' is not available on this connection."},
        "steer": {"input": TO_DISK, "previous_response_id": "resp_nope"}}
    assert emulator.stats["steers_failed"] == 1


async def test_a_steer_for_an_ended_response_fails(emulator):
    """A response that ended: failed response_already_completed, on its lane, numbered
    right after its last event."""
    async with driving(emulator) as d:
        await d.create("a")
        (done,) = await d.ended()
        await d.steer(done["response"]["id"], TO_DISK)
        event = await d.recv()
    assert event["type"] == "response.steer.failed" and event["error"]["code"] == "response_already_completed"
    assert event["stream_id"] == "a" and event["sequence_number"] == done["sequence_number"] + 1
    assert "id" not in event["steer"]


@pytest.mark.parametrize("value", ["", [], [{"type": "message", "role": "user", "content": []}],
                                   [{"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "x", "detail": "auto"}]}]])
async def test_invalid_steering_input_fails(emulator, value):
    """Empty input, or a message without text parts: failed invalid_input, the input returned."""
    emulator.set_faults(Faults(delay_ms=STALL))
    async with driving(emulator, finished=False) as d:
        await d.create("a")
        target = await _created(d)
        await d.send({"type": "response.steer", "previous_response_id": target, "input": value}, valid=False)
        event = await d.until(lambda f: f["type"].startswith("response.steer"))
    assert event["type"] == "response.steer.failed" and event["error"]["code"] == "invalid_input"
    assert event["steer"] == {"input": value, "previous_response_id": target} and event["stream_id"] == "a"


@pytest.mark.parametrize("event", [
    {"input": [{"role": "assistant", "content": "x"}]},
    {"input": "x", "stream_id": "a"},
    {"input": [{"role": "user", "content": "x", "name": "n"}]},
])
async def test_a_steer_with_other_roles_or_keys_fails(emulator, event):
    """Only user messages, and only type/previous_response_id/input: else invalid_input."""
    emulator.set_faults(Faults(delay_ms=STALL))
    async with connect(emulator.ws_url) as ws:
        await ws.send(json.dumps({"type": "response.create", "model": "m", "input": "x", "stream_id": "a"}))
        target = json.loads(await ws.recv())["response"]["id"]
        await ws.send(json.dumps({"type": "response.steer", "previous_response_id": target, **event}))
        while (reply := json.loads(await ws.recv()))["type"] == "response.in_progress":
            pass
    assert reply["type"] == "response.steer.failed" and reply["error"]["code"] == "invalid_input"


async def test_more_than_four_pending_steers_fail(emulator):
    """The fifth steer pending on one response fails too_many_pending_steers, returning its input."""
    emulator.set_faults(Faults(delay_ms=STALL, steer="pending"))
    async with driving(emulator, finished=False) as d:
        await d.create("a")
        target = await _created(d)
        for index in range(5):
            await d.steer(target, f"steer {index}")
        replies = [await d.until(lambda f: f["type"].startswith("response.steer")) for _ in range(5)]
    assert kinds(replies) == ["response.steer.accepted"] * 4 + ["response.steer.failed"]
    assert replies[-1]["error"]["code"] == "too_many_pending_steers"
    assert replies[-1]["steer"] == {"input": "steer 4", "previous_response_id": target}


async def test_steering_unsupported(emulator):
    """steer: unsupported: failed steering_not_supported, and the response goes on to complete."""
    emulator.set_faults(Faults(delay_ms=100, steer="unsupported", count=1))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.steer(target, TO_DISK)
        (done,) = await d.ended()
    failed = next(f for f in d.frames if f["type"] == "response.steer.failed")
    assert failed["error"]["code"] == "steering_not_supported" and failed["stream_id"] == "a"
    assert done["type"] == "response.completed" and text_of(done) == EXPECTED


async def test_pending_steering_input_goes_to_the_next_explicit_create(emulator):
    """steer: pending: accepted, the response completes, then response.steer.pending
    and no successor; the next create continuing it gets the queued input first."""
    emulator.set_faults(Faults(delay_ms=100, steer="pending", count=1))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.steer(target, TO_DISK)
        (done,) = await d.ended()
        pending = await d.recv()
        await d.create("a", previous_response_id=target, input=TO_RING)
        after = await d.recv()
        (explicit,) = await d.ended()
    accepted = next(f for f in d.frames if f["type"] == "response.steer.accepted")
    assert done["type"] == "response.completed" and text_of(done) == EXPECTED
    assert pending == {"type": "response.steer.pending", "sequence_number": done["sequence_number"] + 1,
                       "reason": "waiting_for_required_input", "required_input": [],
                       "steer": accepted["steer"], "stream_id": "a"}
    assert after["type"] == "response.created" and after["response"]["previous_response_id"] == target
    assert text_of(explicit) == RING
    prompt = emulator.prompt_cache.recent()[-1]
    assert prompt.index(TO_DISK) < prompt.index(TO_RING)
    assert emulator.stats["successors"] == 0


async def test_successor_creation_can_fail(emulator):
    """steer: successor_fails: the response is cut (steered), then the steer fails with
    successor_creation_failed under the same id, and nothing follows."""
    emulator.set_faults(Faults(delay_ms=STALL, steer="successor_fails", count=1))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.steer(target, TO_DISK)
        (steered,) = await d.ended()
        failed = await d.recv()
        await d.create("a", input="x", generate=False)
        after = await d.recv()
        await d.ended()
    accepted = next(f for f in d.frames if f["type"] == "response.steer.accepted")
    assert steered["response"]["incomplete_details"] == {"reason": "steered"}
    assert failed["type"] == "response.steer.failed" and failed["error"]["code"] == "successor_creation_failed"
    assert failed["steer"] == {"id": accepted["steer"]["id"], "input": TO_DISK, "previous_response_id": target}
    assert failed["stream_id"] == "a" and failed["sequence_number"] == steered["sequence_number"] + 1
    assert after["type"] == "response.created" and after["response"]["previous_response_id"] is None
    assert emulator.stats["successors"] == 0


async def test_terminal_events_are_the_steered_response_then_its_successor(emulator):
    """On a lane, the steered response's terminal event comes before the successor's
    response.created, whose sequence numbers start at 0."""
    emulator.set_faults(Faults(delay_ms=STALL, count=1))
    async with driving(emulator) as d:
        await d.create("a")
        target = await _created(d)
        await d.steer(target, TO_DISK)
        await d.ended(2)
    lane = d.lane("a")
    incomplete = first(lane, "response.incomplete")
    successor = last(lane, "response.created")
    assert incomplete < successor and lane[successor]["sequence_number"] == 0
    assert all(f["type"] not in TERMINAL for f in lane[incomplete + 1:successor])


async def test_a_refused_successor_returns_the_steering_input():
    """When the faults refuse the successor (an injected error), each steer it was to
    carry fails with successor_creation_failed, on the lane, and no error event is sent."""
    async with Emulator(faults=Faults(error_status=503)) as server:
        server.set_faults(Faults(delay_ms=STALL, count=1))  # the target streams; its successor is refused
        async with driving(server) as d:
            await d.create("a")
            target = await _created(d)
            await d.steer(target, TO_DISK)
            (steered,) = await d.ended()
            failed = await d.recv()
        assert steered["response"]["incomplete_details"] == {"reason": "steered"}
        assert failed["type"] == "response.steer.failed" and failed["error"]["code"] == "successor_creation_failed"
        assert failed["steer"]["input"] == TO_DISK and failed["stream_id"] == "a"
        assert server.stats["errors"] == 0


def test_the_no_lanes_flag():
    """sparkls emulate --no-lanes builds an emulator without lanes; lanes are on by default."""
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert cli.build_emulator(parser.parse_args(["--no-lanes"])).lanes is False
    assert cli.build_emulator(parser.parse_args([])).lanes is True
