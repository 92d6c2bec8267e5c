"""A pool socket's frames in order (sparkls/models/frameorder.py): what may come after a
`response.create`, and what cannot belong to the response awaited."""

from __future__ import annotations

import pytest

from sparkls.models.frameorder import OutOfOrder, ResponseOrder
from tests.peer.streams import ResponseStream, ws_error
from tests.peer.variants import ANSWER


def _order_after(*responses: list[dict]) -> ResponseOrder:
    order = ResponseOrder()
    for events in responses:
        order.sent()
        for event in events:
            order.check(event)
    return order


def _whole() -> list[dict]:
    return ResponseStream().start(queued=True).reasoning("Looking.").message(ANSWER, phase="final_answer").completed()


def test_whole_responses_one_after_another_pass():
    """Responses, a refusal before one begins and a failed one, each after its own create."""
    failed = ResponseStream().start().message(ANSWER, stop_after=2).failed()
    _order_after(_whole(), [ws_error(429, "rate_limit_exceeded", "Slow down.")], failed, _whole())


def test_the_tail_of_an_earlier_response_is_not_the_next_ones_beginning():
    """Frames an earlier response sent after its end are read before the next response begins."""
    first = _whole()
    order = _order_after(first)
    order.sent()
    delta = next(e for e in first if e["type"] == "response.output_text.delta")
    with pytest.raises(OutOfOrder, match="`response.output_text.delta` event before the response it belongs to began"):
        order.check(delta)


def test_a_second_response_before_the_first_ended_is_refused():
    events = _whole()
    order = _order_after(events[:3])
    with pytest.raises(OutOfOrder, match="second response"):
        order.check(ResponseStream().start().events[0])


def test_a_new_response_with_an_earlier_ones_id_is_refused():
    """`response.created` after a create, naming a response this connection already had."""
    first = _whole()
    order = _order_after(first, _whole())
    order.sent()
    with pytest.raises(OutOfOrder, match="id of an earlier one"):
        order.check(first[0])


def test_an_ending_naming_another_response_is_refused():
    first, second = _whole(), _whole()
    order = _order_after(second[:5])
    with pytest.raises(OutOfOrder, match="`response.completed` event of another response"):
        order.check(first[-1])
