"""Every fault a connection can throw at the fast tier, with 1, 3 and 8 lanes in
flight on one connection, against an independent lane peer (tests/peer/lanes.py):
each request in flight ends (with its whole answer, sent again once on a new
connection where the fault cut it), none is answered twice or in part, the
connection is replaced, and the next request works. How long each took to end is
bench/lane_faults.py's business."""

from __future__ import annotations

import asyncio

import pytest

from sparkls.errors import RateLimited, StreamError
from sparkls.models.session import TierSession
from tests.peer.lane_faults import FAULTS, HEAD, LANE_ONLY, NONE, LaneFault, run_fault, settings_for, whole
from tests.peer.lanes import LanePeer
from tests.peer.streams import ws_error
from tests.peer.variants import ANSWER, PROMPT
from tests.sealing import wire

HANG_GUARD = 60  # seconds: a request that never ends fails the test instead of hanging it


@pytest.mark.parametrize("lanes", [1, 3, 8])
@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
async def test_every_request_in_flight_ends_whole_and_the_next_one_works(fault: LaneFault, lanes: int):
    async with asyncio.timeout(HANG_GUARD):
        outcome = await run_fault(fault, lanes)
    assert outcome.texts == [ANSWER] * lanes, outcome.replies  # each whole, once: none twice, none in part
    attempts = fault.attempts(lanes)
    assert sorted(r.attempts for r in outcome.replies) == attempts  # the cut ones sent again once, no more
    assert outcome.requests == sum(attempts) + 1
    assert outcome.connections == (2 if fault.resent else 1)  # replaced (once), or kept
    assert outcome.next_reply.text == ANSWER and outcome.next_reply.attempts == 1
    assert outcome.transport == "websocket"  # one fault is one failure, not one per lane


async def test_a_fault_that_strikes_again_fails_saying_what_happened_and_that_nothing_changed():
    """The resend meets the fault too: the request fails, its message names both faults
    and says nothing was changed."""
    async with LanePeer(lambda n: [*whole()[:HEAD], ("raw", "<html>502 Bad Gateway</html>")]) as peer:
        session = TierSession("fast", settings_for(peer), warm=wire("Edit the region."))
        await session.warm()
        async with asyncio.timeout(HANG_GUARD):
            with pytest.raises(StreamError) as failed:
                await session.complete(PROMPT)
        await session.close()
    message = str(failed.value)
    assert message.count("sent a frame that is not JSON") == 2 and "sent again on a new connection" in message
    assert message.endswith("Nothing was changed.")
    assert peer.requests == 2 and peer.connections == 2


async def test_no_wait_runs_past_the_whole_request_limit():
    """A rate limit asking for longer than the request has left fails at once with it
    (its wait in the message) instead of sleeping past `request_timeout`."""
    limited = ws_error(429, "rate_limit_exceeded", "Rate limit reached.", kind="tokens", headers={"retry-after": "20"})
    async with LanePeer(lambda n: [limited] if n == 1 else whole()) as peer:
        session = TierSession("fast", settings_for(peer, request_timeout=3), warm=wire("Edit the region."))
        await session.warm()
        async with asyncio.timeout(HANG_GUARD):
            with pytest.raises(RateLimited, match="retry in 20 s"):
                await session.complete(PROMPT, patient=True)  # a deep task's patience: it would wait 20 s
        await session.close()
    assert peer.requests == 1


POOL_FAULTS = [f for f in FAULTS if not f.name.startswith(LANE_ONLY)]


@pytest.mark.parametrize("fault", POOL_FAULTS, ids=[f.name for f in POOL_FAULTS])
async def test_the_pool_survives_the_same_faults(fault: LaneFault):
    """The same faults on a pool socket of one (lanes off): the request is sent again
    once where the fault cut it and answered whole, and the next one works: frames
    after a response's end never reach the next request on that socket (it is sent
    again on a new connection, none of them in its answer)."""
    async with asyncio.timeout(HANG_GUARD):
        outcome = await run_fault(fault, 1, lanes=False, pool_size=1)
    [reply] = outcome.replies
    assert outcome.texts == [ANSWER] and reply.mode == "pool", reply
    assert reply.attempts == fault.attempts(1)[0]
    assert outcome.next_reply.text == ANSWER, outcome.next_reply
    assert outcome.next_reply.attempts == (2 if fault.resends == NONE else 1)


async def test_keepalive_pings_replace_an_idle_lane_connection_gone_silent():
    """Nothing in flight, the peer silent: the lane connection's keepalive finds it and a
    new one is opened in the background, before any request needs it."""
    async with LanePeer(lambda n: whole()) as peer:
        session = TierSession("fast", settings_for(peer, keepalive_interval=0.2, keepalive_timeout=0.2), warm=wire("Edit."))
        await session.warm()
        peer.silence()
        async with asyncio.timeout(HANG_GUARD):
            while peer.connections < 2 or session._links.lanes().current is None:
                await asyncio.sleep(0.01)
            reply = await session.complete(PROMPT)
        await session.close()
    assert reply.text == ANSWER and reply.attempts == 1 and peer.requests == 1
