"""The fast tier on lanes: one WebSocket connection carries concurrent requests, each on
a lane of its own (`stream_id`), against the in-process emulator (which runs lanes as
the service does). Forks, cancellation, faults with 1, 3 and 8 lanes in flight, the
fallback to a pool, and steering."""

from __future__ import annotations

import asyncio

import pytest

from sparkls.config import Settings
from sparkls.emulator import Emulator, Faults
from sparkls.errors import ApiError
from sparkls.models.chain import FollowUp
from sparkls.models.session import TierSession
from sparkls.models.steering import Steering
from bench.kit.sealing import wire

KEY = "sk-unit"


def _edit(n: int) -> object:
    return wire("Edit.", f"<|editable_region_start|>\nx = {n}\n<|editable_region_end|>\nREPLACE {n} WITH {n + 1}")


LONG = wire("Edit.", "<|editable_region_start|>\n" + "".join(f"v{i} = {i}\n" for i in range(60))
            + "<|editable_region_end|>\nREPLACE v WITH w")


@pytest.fixture
async def emulator():
    async with Emulator(api_key=KEY) as em:
        yield em


def _session(emulator: Emulator, statuses: list | None = None, **tier) -> TierSession:
    fast = {"model": "m", "base_url": emulator.url, "api_key": KEY, **tier}
    on_status = statuses.append if statuses is not None else None
    return TierSession("fast", Settings.model_validate({"fast": fast}), warm=wire("Edit."), on_status=on_status)


async def test_concurrent_requests_share_one_connection_on_lanes(emulator):
    """Eight requests at once: one WebSocket, eight lanes streaming together, each
    request its own right answer."""
    emulator.set_faults(Faults(tokens_per_second=400))
    session = _session(emulator)
    await session.warm()
    replies = await asyncio.gather(*(session.complete(_edit(n)) for n in range(8)))
    assert [r.text for r in replies] == [f"```\nx = {n + 1}\n```" for n in range(8)]
    stats = emulator.stats
    assert stats["ws_connections"] == 1 and stats["lanes"] == 8
    assert stats["max_lanes"] >= 2  # they really streamed at the same time
    assert all(r.mode == "lanes" and r.wait_ms >= 0 for r in replies)
    assert session.status.mode == "lanes" and session.status.last["mode"] == "lanes"
    assert "wait_ms" in session.status.last
    await session.close()


async def test_a_server_without_lanes_is_remembered_and_served_by_the_pool(emulator):
    """The warm-up's `stream_id` is refused: the pool serves, requests never fail."""
    emulator.lanes = False
    statuses: list = []
    session = _session(emulator, statuses)
    await session.warm()
    assert session.mode == "pool" and "stream_id" in (session.status.lanes_off or "")
    replies = await asyncio.gather(*(session.complete(_edit(n)) for n in range(3)))
    assert [r.mode for r in replies] == ["pool"] * 3
    assert [r.text for r in replies] == [f"```\nx = {n + 1}\n```" for n in range(3)]
    assert emulator.stats["lanes"] == 0
    assert statuses[-1].mode == "pool"
    await session.close()


async def test_a_request_refused_for_its_lane_is_resent_on_the_pool(emulator):
    """Lanes refused only when the first request goes (no warm-up): that request is
    sent again on the pool at once, and the session stays on the pool."""
    session = _session(emulator)
    await session.warm()
    emulator.lanes = False  # as if the endpoint changed behind the connection
    await session.transports[0].socket.current.close()  # type: ignore[attr-defined]  # lanes; the next request opens a new connection
    reply = await session.complete(_edit(1))
    assert reply.text == "```\nx = 2\n```" and reply.mode == "pool" and reply.attempts == 1
    assert session.mode == "pool"
    await session.close()


async def test_the_lanes_setting_off_uses_the_pool(emulator):
    session = _session(emulator, lanes=False)
    await session.warm()
    reply = await session.complete(_edit(1))
    assert reply.mode == "pool" and session.status.lanes_off == "the tier's `lanes` setting is off"
    assert emulator.stats["lanes"] == 0
    await session.close()


async def test_a_follow_up_forks_from_its_edit_after_other_requests(emulator):
    """On lanes nothing is held: other requests on the same connection leave the edit's
    response continuable, and the refine sends the short turn only."""
    session = _session(emulator)
    await session.warm()
    first = await session.complete(_edit(1))
    await asyncio.gather(*(session.complete(_edit(n)) for n in range(5, 8)))
    short = wire("Edit.", "Revise: REPLACE 2 WITH 3")
    full = wire("Edit.", "Revise: REPLACE 2 WITH 3", (("user", _edit(1).input), ("assistant", first.text)))
    reply = await session.follow(FollowUp(first.chain, short, full))
    assert reply.chained and "x = 3" in reply.text
    assert emulator.stats["chained"] == 1
    await session.close()


async def test_a_cancelled_lane_leaves_the_others_streaming_and_counts_its_waste(emulator):
    """Cancelling one request: the others finish on the same connection; the rest of
    the cancelled response is dropped as it arrives and its tokens counted."""
    emulator.set_faults(Faults(tokens_per_second=300))
    session = _session(emulator)
    await session.warm()
    doomed = asyncio.ensure_future(session.complete(LONG))
    others = [asyncio.ensure_future(session.complete(_edit(n))) for n in range(3)]
    while emulator.stats["deltas"] < 5:
        await asyncio.sleep(0.01)
    doomed.cancel()
    replies = await asyncio.gather(*others)
    assert [r.text for r in replies] == [f"```\nx = {n + 1}\n```" for n in range(3)]
    while session.wasted_tokens < 20:  # the cancelled one streams on until its end
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)
    assert emulator.stats["ws_connections"] == 1 and emulator.stats["abandoned"] == 0
    assert session.status.state == "ready"
    await session.close()


async def test_wasted_tokens_past_the_limit_close_the_connection(emulator):
    """Only a cancelled response left streaming, past `lane_waste_limit`: the connection
    is closed (the only hard cancel) and a new one serves the next request."""
    emulator.set_faults(Faults(tokens_per_second=500))
    session = _session(emulator, lane_waste_limit=10)
    await session.warm()
    doomed = asyncio.ensure_future(session.complete(LONG))
    while emulator.stats["deltas"] < 3:
        await asyncio.sleep(0.01)
    doomed.cancel()
    while emulator.stats["abandoned"] < 1:
        await asyncio.sleep(0.02)
    reply = await session.complete(_edit(1))
    assert reply.text == "```\nx = 2\n```"
    assert emulator.stats["ws_connections"] == 2
    await session.close()


@pytest.mark.parametrize("lanes", [1, 3, 8])
async def test_a_lost_connection_resends_each_request_in_flight_once(emulator, lanes):
    """The connection drops with N lanes streaming: each request is sent once more on a
    new connection and answered once; the tier counts one failure, not N."""
    emulator.set_faults(Faults(tokens_per_second=200))
    session = _session(emulator)
    await session.warm()
    tasks = [asyncio.ensure_future(session.complete(_edit(n))) for n in range(lanes)]
    while emulator.stats["deltas"] < lanes:
        await asyncio.sleep(0.005)
    served_before = emulator.stats["responses"]
    assert emulator.disconnect_websockets() == 1
    replies = await asyncio.gather(*tasks)
    assert [r.text for r in replies] == [f"```\nx = {n + 1}\n```" for n in range(lanes)]
    assert [r.attempts for r in replies] == [2] * lanes
    assert emulator.stats["responses"] == served_before + lanes  # each resent exactly once
    assert emulator.stats["ws_connections"] == 2
    assert session.transport == "websocket" and session.status.state == "ready"
    await session.close()


@pytest.mark.parametrize("lanes", [1, 3, 8])
async def test_a_retired_connection_lets_its_lanes_finish_and_serves_new_ones_on_a_new_one(emulator, lanes):
    """The service retires the connection (its age limit) while N lanes stream: they
    finish where they are; the next requests are refused there, sent again on a new
    connection, and never fail."""
    emulator.set_faults(Faults(tokens_per_second=200))
    session = _session(emulator)
    await session.warm()
    emulator.set_connection_limit(0.5)
    running = [asyncio.ensure_future(session.complete(LONG)) for n in range(lanes)]
    while emulator.stats["deltas"] < lanes:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.6)  # the connection is past the limit, its lanes still streaming
    assert emulator.stats["streaming"] == lanes
    later = [asyncio.ensure_future(session.complete(_edit(n))) for n in range(lanes)]
    replies = await asyncio.gather(*running, *later)
    assert all("w0 = 0" in r.text for r in replies[:lanes])
    assert [r.text for r in replies[lanes:]] == [f"```\nx = {n + 1}\n```" for n in range(lanes)]
    assert emulator.stats["ws_connections"] == 2 and emulator.stats["abandoned"] == 0
    await session.close()


async def test_age_rotation_keeps_lanes_in_flight(emulator):
    """A connection past `max_connection_age` takes no new requests; the ones on it finish."""
    emulator.set_faults(Faults(tokens_per_second=100))
    session = _session(emulator, max_connection_age=1.0)
    await session.warm()
    running = [asyncio.ensure_future(session.complete(LONG)) for _ in range(3)]
    await asyncio.sleep(1.1)
    late = await session.complete(_edit(1))
    replies = await asyncio.gather(*running)
    assert late.text == "```\nx = 2\n```" and late.chain.socket is not replies[0].chain.socket
    assert all("w0 = 0" in r.text for r in replies)
    assert emulator.stats["ws_connections"] >= 2 and emulator.stats["abandoned"] == 0
    await session.close()


async def test_an_error_on_one_lane_fails_only_that_request(emulator):
    """A request the service refuses fails alone; the lanes beside it finish."""
    emulator.set_faults(Faults(tokens_per_second=300))
    session = _session(emulator)
    await session.warm()
    others = [asyncio.ensure_future(session.complete(_edit(n))) for n in range(3)]
    while emulator.stats["deltas"] < 3:
        await asyncio.sleep(0.005)
    emulator.fault_state.override({"error_status": 400, "error_code": "invalid_prompt", "count": 1})
    with pytest.raises(ApiError, match="invalid_prompt"):
        await session.complete(_edit(9))
    replies = await asyncio.gather(*others)
    assert [r.text for r in replies] == [f"```\nx = {n + 1}\n```" for n in range(3)]
    await session.close()


# -- steering ----------------------------------------------------------------------


async def _steered(emulator: Emulator, session: TierSession, *, then: Faults | None = None) -> tuple[bool, object]:
    """LONG sent with steering; "REPLACE w WITH z" added once it streams (then the
    faults `then`, if given); whether the steer was committed, and the reply."""
    await session.warm()
    steering = Steering()
    task = asyncio.ensure_future(session.complete(LONG, steering=steering))
    while steering.response_id is None or emulator.stats["deltas"] < 3:
        await asyncio.sleep(0.005)
    committed = await steering.steer(wire("Edit.", "Revise: REPLACE w WITH z"))
    if then is not None:
        emulator.set_faults(then)
    return committed, await task


async def test_steering_an_edit_in_flight_answers_the_added_words(emulator):
    emulator.set_faults(Faults(tokens_per_second=100))
    session = _session(emulator)
    committed, reply = await _steered(emulator, session)
    assert committed and reply.steered == 1
    assert "z0 = 0" in reply.text and "w0" not in reply.text
    assert emulator.stats["steered"] == 1 and emulator.stats["successors"] == 1
    await session.close()


@pytest.mark.parametrize("fault", ["unsupported", "pending"])
async def test_steering_not_taken_leaves_the_first_answer(emulator, fault):
    """Refused or left queued: `steer` says False and the request answers its own question."""
    emulator.set_faults(Faults(tokens_per_second=100, steer=fault))
    session = _session(emulator)
    committed, reply = await _steered(emulator, session)
    assert not committed and reply.steered == 0 and "w0 = 0" in reply.text
    await session.close()


async def test_a_steered_response_whose_successor_fails_is_asked_again(emulator):
    """Cut for steering, then no successor: the first request is sent once more whole."""
    emulator.set_faults(Faults(tokens_per_second=100, steer="successor_fails"))
    session = _session(emulator)
    committed, reply = await _steered(emulator, session, then=Faults(tokens_per_second=2000))
    assert not committed and reply.attempts == 2 and "w0 = 0" in reply.text
    await session.close()


async def test_steering_is_refused_off_lanes(emulator):
    session = _session(emulator, lanes=False)
    await session.warm()
    steering = Steering()
    reply = await session.complete(_edit(1), steering=steering)
    assert reply.text == "```\nx = 2\n```"
    assert not await steering.steer(wire("Edit.", "more"))
    await session.close()


async def test_ready_waits_for_a_lane_request_to_be_created_and_not_off_lanes(emulator):
    """`Steering.ready`: a request that left on a lane but whose response is not created
    yet becomes steerable (a newer question waits for it instead of stopping it); one
    off lanes answers False at once; one that ended answers False."""
    emulator.set_faults(Faults(tokens_per_second=100))
    session = _session(emulator)
    await session.warm()
    steering = Steering()
    task = asyncio.ensure_future(session.complete(LONG, steering=steering))
    while not steering.attached:
        await asyncio.sleep(0)
    assert await steering.ready(5.0) and steering.response_id is not None
    await task
    assert not await steering.ready(5.0)  # the request ended
    await session.close()
    off = Steering()
    assert not off.attached and not await off.ready(5.0)  # never left on a lane: no wait
