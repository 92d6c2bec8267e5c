"""The tier session against streams built from the official SDK's types (bench/kit/peer/).

Each realistic variant (several message items with `phase`, refusals, cut-off replies,
failed responses, in-band 429s, the connection limit, local servers' chat chunks)
must end in the right answer or the right error, in the right number of requests.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from sparkls.models.session import TierSession
from bench.kit.peer.server import Peer
from bench.kit.peer.streams import ResponseStream
from bench.kit.sealing import wire
from bench.kit.peer.variants import ANSWER, PROMPT, REFUSAL, VARIANTS, Variant, answer, run_variant, settings_for


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
async def test_variant(variant: Variant):
    """The answer (or the error) the user gets, in as many requests as it should take."""
    outcome = await run_variant(variant)
    assert outcome.result == variant.expect, outcome.error
    assert outcome.requests == variant.requests


async def test_commentary_never_reaches_the_answer():
    """Only the final_answer message is the reply; the commentary before it is dropped."""
    variant = next(v for v in VARIANTS if v.name.startswith("commentary"))
    outcome = await run_variant(variant)
    assert outcome.text == ANSWER and "misspelt" not in outcome.text


async def test_refusal_is_shown_in_its_own_words():
    """A refusal is reported with the model's text, not as an empty reply."""
    outcome = await run_variant(next(v for v in VARIANTS if v.name == "refusal"))
    assert REFUSAL in str(outcome.error) and "empty" not in str(outcome.error)


async def test_cut_off_reply_is_not_a_transport_failure():
    """response.incomplete: reported as cut off, not retried, the WebSocket kept."""
    outcome = await run_variant(next(v for v in VARIANTS if v.name == "incomplete: max_output_tokens"))
    assert "cut off (max_output_tokens" in str(outcome.error)
    assert all(s.transport == "websocket" and s.state != "degraded" for s in outcome.statuses)
    assert all(s.state != "failing" for s in outcome.statuses)


async def test_late_first_token_is_offered_once():
    """No text within first_token_timeout: one message naming the tier and the wait."""
    outcome = await run_variant(next(v for v in VARIANTS if v.name.startswith("no first token")))
    assert outcome.text == ANSWER
    assert len(outcome.stalls) == 1 and "fast tier" in outcome.stalls[0] and "0.1 s" in outcome.stalls[0]


async def test_connection_limit_with_every_socket_expired():
    """A pool of three retired sockets: the request goes through on a fresh connection."""
    base = next(v for v in VARIANTS if v.name.startswith("connection limit"))
    outcome = await run_variant(dataclasses.replace(base, tier={"pool_size": 3}))
    assert outcome.text == ANSWER and outcome.requests == 1


async def test_idle_sockets_are_rotated_before_the_limit():
    """Sockets that come of age while idle are replaced in the background: no refusal."""
    variant = Variant("idle rotation", "websocket", [answer()], ANSWER, 1,
                      tier={"max_connection_age": 0.2, "pool_size": 2}, retire_after=1.2, idle_before=1.4)
    async with Peer(variant.scripts, retire_after=variant.retire_after) as peer:
        session = TierSession("fast", settings_for(peer, variant), warm=wire("Edit."))
        await session.warm()
        await asyncio.sleep(variant.idle_before)
        reply = await session.complete(PROMPT)
        await session.close()
    assert reply.text == ANSWER
    assert peer.retired == 0 and peer.connections >= 4  # two sockets, each replaced at least once


async def test_cut_off_deep_style_reply_applies_nothing():
    """A cut-off reply's text never reaches the caller, even when what came parses."""
    blocks = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    stream = ResponseStream().start().message(blocks, phase="final_answer", stop_after=len(blocks) // 4)
    outcome = await run_variant(Variant("deep cut", "websocket", [stream.incomplete("max_output_tokens")],
                                        "reply_cut_off", 1))
    assert outcome.text is None and outcome.error is not None and outcome.error.code == "reply_cut_off"
