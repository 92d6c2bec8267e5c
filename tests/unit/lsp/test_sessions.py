"""lsp/sessions.py: the bounded wait for the first settings, and sessions held by requests."""

from __future__ import annotations

import asyncio

from sparkls.lsp import sessions
from sparkls.lsp.sessions import FirstSettings, SessionLeases


class FakeSession:
    name = "fast"

    def __init__(self) -> None:
        self.closed = asyncio.Event()

    async def close(self) -> None:
        self.closed.set()


def test_nothing_waits_when_no_pull_was_sent():
    """A client without workspace/configuration: requests never wait."""
    first = FirstSettings(lambda waited: None)
    assert asyncio.run(asyncio.wait_for(first.wait(), 1)) is None and not first.waiting


def test_a_request_waits_for_the_pull():
    """The request resumes when the pull is done, not before."""

    async def run() -> list[str]:
        order: list[str] = []
        first = FirstSettings(lambda waited: order.append("late"))
        first.pulling()

        async def request() -> None:
            await first.wait()
            order.append("request")

        task = asyncio.ensure_future(request())
        await asyncio.sleep(0)
        order.append("pulled")
        first.pulled()
        await task
        return order

    assert asyncio.run(run()) == ["pulled", "request"]


def test_a_late_pull_is_said_once_and_then_nothing_waits(monkeypatch):
    """Past the bound the request goes on; the user is told once; later requests do not wait."""
    monkeypatch.setattr(sessions, "SETTINGS_WAIT", 0.01)
    told: list[float] = []

    async def run() -> None:
        first = FirstSettings(told.append)
        first.pulling()
        await first.wait()
        await first.wait()
        assert not first.waiting

    asyncio.run(run())
    assert told == [0.01]


def test_a_replaced_session_closes_after_the_request_holding_it():
    """close_when_free waits for the holder's task; a session nobody holds closes at once."""

    async def run() -> None:
        leases = SessionLeases()
        held, free = FakeSession(), FakeSession()
        finish = asyncio.Event()

        async def request() -> None:
            leases.hold(held, None)
            await finish.wait()

        task = asyncio.ensure_future(request())
        await asyncio.sleep(0)
        assert leases.holders(held) == 1
        closing = asyncio.ensure_future(leases.close_when_free(held))
        await leases.close_when_free(free)
        assert free.closed.is_set() and not held.closed.is_set() and not closing.done()
        finish.set()
        await task
        await closing
        assert held.closed.is_set() and leases.holders(held) == 0

    asyncio.run(run())


def test_follow_ups_asked_ahead_hold_their_requests_sessions(monkeypatch):
    """Follow-ups asked ahead run after the request that found them has ended: they hold
    its sessions themselves, so a settings change closes the old session only after them."""
    from types import SimpleNamespace

    from sparkls.lsp.edge import Edge
    from sparkls.nextedit import followup_handlers as handler
    from sparkls.nextedit import followups as engine

    async def run() -> list[str]:
        order: list[str] = []
        release = asyncio.Event()

        async def ask(env, found):
            await release.wait()
            order.append("answered")
            return "answer"

        monkeypatch.setattr(engine, "ask", ask)
        session = FakeSession()
        ls = SimpleNamespace(leases=SessionLeases())
        env = SimpleNamespace(fast=session, deep=None)
        task = handler._ask_ahead(Edge(ls), env, found=None)
        await asyncio.sleep(0)
        assert ls.leases.holders(session) == 1
        closing = asyncio.ensure_future(ls.leases.close_when_free(session))
        await asyncio.sleep(0)
        assert not session.closed.is_set()
        release.set()
        assert await task == "answer"
        await closing
        order.append("closed" if session.closed.is_set() else "open")
        return order

    assert asyncio.run(run()) == ["answered", "closed"]
