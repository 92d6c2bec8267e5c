"""Continuing a response on a pool (`lanes` off): the pool keeps the socket, the session
sends the short turn where the chain holds and the whole conversation where it is gone
(in-process emulator). Forks on lanes: tests/unit/models/test_lanes.py."""

from __future__ import annotations

import pytest

from sparkls.config import Settings
from bench.kit.sealing import wire
from sparkls.emulator import Emulator
from sparkls.models.chain import Chain, FollowUp
from sparkls.models.session import TierSession

KEY = "sk-unit"
FIRST = wire("Edit.", "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE 1 WITH 2")
TURN = "Revise: REPLACE 2 WITH 3"


@pytest.fixture
async def emulator():
    async with Emulator(api_key=KEY) as em:
        yield em


def _session(emulator: Emulator, **tier) -> TierSession:
    fast = {"model": "m", "base_url": emulator.url, "api_key": KEY, "pool_size": 2, "lanes": False, **tier}
    return TierSession("fast", Settings.model_validate({"fast": fast}), warm=wire("Edit."))


def _follow_up(first) -> FollowUp:
    full = wire("Edit.", TURN, (("user", FIRST.input), ("assistant", first.text)))
    return FollowUp(first.chain, wire("Edit.", TURN), full)


async def test_follow_up_continues_on_the_socket_that_served_it(emulator):
    """The held socket serves the follow-up with previous_response_id and the new turn only."""
    session = _session(emulator)
    await session.warm()
    first = await session.complete(FIRST)
    session.hold(first.chain)
    other = await session.complete(FIRST)  # another request meanwhile takes the other socket
    assert other.chain.socket is not first.chain.socket
    reply = await session.follow(_follow_up(first))
    assert reply.chained and "x = 3" in reply.text
    assert emulator.stats["chained"] == 1
    assert emulator.prompt_cache.recent()[-1] == f"Edit.\n{TURN}"  # the instructions and the new turn only
    await session.close()


async def test_follow_up_after_another_request_on_that_socket_resends_in_full(emulator):
    """A socket that served another response since cannot continue the chain: full resend."""
    session = _session(emulator, pool_size=1)
    await session.warm()
    first = await session.complete(FIRST)
    await session.complete(FIRST)  # the only socket: the chain is gone
    reply = await session.follow(_follow_up(first))
    assert not reply.chained and "x = 3" in reply.text
    assert emulator.stats["chained"] == 0 and emulator.stats["errors"] == 0
    await session.close()


async def test_follow_up_after_a_reconnect_resends_in_full(emulator):
    """A replaced connection has no memory of the response: full resend, the right answer."""
    session = _session(emulator, pool_size=1)
    await session.warm()
    first = await session.complete(FIRST)
    await first.chain.socket.close()
    reply = await session.follow(_follow_up(first))
    assert not reply.chained and "x = 3" in reply.text
    await session.close()


async def test_previous_response_not_found_falls_back_to_a_full_resend(emulator):
    """A chain the service no longer knows (previous_response_not_found) is resent in full."""
    session = _session(emulator)
    await session.warm()
    first = await session.complete(FIRST)
    stale = Chain("resp_gone", "websocket", False, first.chain.socket)
    first.chain.socket.last_response_id = "resp_gone"  # as if the client believed it still there
    reply = await session.follow(FollowUp(stale, wire("Edit.", TURN), _follow_up(first).full))
    assert not reply.chained and "x = 3" in reply.text
    assert emulator.stats["errors"] == 1  # the refused continuation
    await session.close()


async def test_http_without_store_resends_in_full(emulator):
    """Over HTTP with store false, nothing is kept: the whole conversation goes."""
    session = _session(emulator, transport="http")
    first = await session.complete(FIRST)
    reply = await session.follow(_follow_up(first))
    assert not reply.chained and "x = 3" in reply.text
    assert emulator.stats["chained"] == 0
    await session.close()


async def test_http_with_store_continues_by_id(emulator):
    """Over HTTP with store true, the follow-up names the stored response and sends the turn only."""
    session = _session(emulator, transport="http", store=True)
    first = await session.complete(FIRST)
    assert first.chain.stored
    reply = await session.follow(_follow_up(first))
    assert reply.chained and "x = 3" in reply.text
    assert emulator.stats["chained"] == 1
    await session.close()


async def test_chat_api_has_no_chain(emulator):
    """Chat Completions cannot continue a response: a follow-up always sends the conversation."""
    session = _session(emulator, api="chat", transport="http")
    first = await session.complete(FIRST)
    assert first.chain is None
    reply = await session.follow(_follow_up(first))
    assert not reply.chained and "x = 3" in reply.text
    await session.close()


async def test_held_socket_is_handed_out_last(emulator):
    """Other requests take another idle socket first; the held one only when no other is idle."""
    session = _session(emulator)
    await session.warm()
    first = await session.complete(FIRST)
    session.hold(first.chain)
    for _ in range(3):
        assert (await session.complete(FIRST)).chain.socket is not first.chain.socket
    assert first.chain.socket.last_response_id == first.response_id  # the chain still holds
    await session.close()
