"""The e2e suite's request watchdog (tests/e2e/watchdog.py) fails what outlives its bound,
naming the method, in both directions; a request answered in time passes unseen."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from types import SimpleNamespace

import pytest

from tests.e2e import watchdog as watchdog_module
from tests.e2e.watchdog import Watchdog


class Protocol:
    """Enough of pygls's client protocol: requests that the test answers (or not)."""

    def __init__(self) -> None:
        self._request_futures: dict = {}
        self.responses: list = []

    def send_request(self, method, params=None, callback=None, msg_id=None) -> Future:
        future: Future = Future()
        self._request_futures[msg_id] = future
        return future

    def _handle_request(self, msg_id, method_name, params) -> None:
        pass  # a client handler still at work

    def _send_response(self, msg_id, result=None, error=None) -> None:
        self.responses.append(msg_id)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(watchdog_module, "CHECK_EVERY", 0.01)
    monkeypatch.setattr(watchdog_module, "LSP_BOUND", 0.05)


async def test_a_request_past_its_bound_fails_its_awaiter_naming_the_method(quick):
    dog = Watchdog(SimpleNamespace(protocol=Protocol()))
    hung = asyncio.wrap_future(dog.client.protocol.send_request("textDocument/codeAction"))
    with pytest.raises(AssertionError, match="textDocument/codeAction .sent by the test. stayed pending"):
        await asyncio.wait_for(hung, 5)
    assert dog.overdue() == ["textDocument/codeAction (sent by the test) stayed pending past its bound of 0.05 s"]


async def test_a_server_request_the_client_never_answers_is_overdue(quick):
    dog = Watchdog(SimpleNamespace(protocol=Protocol()))
    dog.client.protocol._handle_request("s1", "workspace/applyEdit", None)
    dog.client.protocol._handle_request("s2", "workspace/configuration", None)
    dog.client.protocol._send_response("s2", result=[None])  # this one answered
    while not dog._overdue:
        await asyncio.sleep(0.01)
    assert dog.overdue() == ["workspace/applyEdit (sent by the server) stayed pending past its bound of 0.05 s"]


async def test_requests_answered_in_time_pass(quick):
    dog = Watchdog(SimpleNamespace(protocol=Protocol()))
    future = dog.client.protocol.send_request("workspace/executeCommand")
    future.set_result({"applied": True})
    await asyncio.sleep(0.1)
    assert dog.overdue() == [] and dog.bound("workspace/executeCommand") == 120 + watchdog_module.MARGIN


async def test_an_answer_the_client_could_not_send_is_a_failure_naming_the_request(quick):
    """pygls reports a response it could not serialize and goes on; the watchdog names it."""
    client = SimpleNamespace(protocol=Protocol(), error=None)

    def unsendable(msg_id, result=None, error=None):
        client.error = AttributeError("'object' object has no attribute '__dict__'")

    client.protocol._send_response = unsendable
    dog = Watchdog(client)
    dog.client.protocol._handle_request("s1", "client/registerCapability", None)
    dog.client.protocol._send_response("s1", result=object())
    assert dog.failures() == [
        "the client's answer to client/registerCapability could not be sent"
        " (AttributeError: 'object' object has no attribute '__dict__')"
    ]
    assert dog.overdue() == [] and dog.pending() == []
