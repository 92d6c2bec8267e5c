"""LatestOnly and CompletionService: supersession, joining, one request per document."""

from __future__ import annotations

import asyncio

from sparkls.completion.extract import Completion
from sparkls.completion.service import CompletionService
from sparkls.request.latest import LatestOnly, outcome
from sparkls.documents.store import DocumentStore, TextChange
from sparkls.documents.positions import Position


class Gate:
    """Work that starts, then waits until released; records what ran and what was cancelled."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.release = asyncio.Event()
        self.running = 0
        self.max_running = 0

    def work(self, name: str, result: object = None):
        async def run():
            self.started.append(name)
            self.running += 1
            self.max_running = max(self.max_running, self.running)
            try:
                await self.release.wait()
                return result if result is not None else name
            except asyncio.CancelledError:
                self.cancelled.append(name)
                raise
            finally:
                self.running -= 1

        return run


async def test_newer_request_cancels_the_older_at_once():
    """A second submit for the same key cancels the first, which yields None."""
    scheduler, gate = LatestOnly(), Gate()
    first = scheduler.submit("doc", 1, gate.work("first"))
    await asyncio.sleep(0)  # let it start
    second = scheduler.submit("doc", 2, gate.work("second"))
    assert await outcome(first) is None
    gate.release.set()
    assert await outcome(second) == "second"
    assert gate.cancelled == ["first"] and scheduler.superseded == 1


async def test_never_two_at_work_for_one_document():
    """The newer work starts only once the cancelled one is gone."""
    scheduler, gate = LatestOnly(), Gate()
    tasks = [scheduler.submit("doc", i, gate.work(str(i))) for i in range(5)]
    gate.release.set()
    results = [await outcome(t) for t in tasks]
    assert results == [None, None, None, None, "4"]
    assert gate.max_running == 1


async def test_same_ident_joins_the_running_work():
    """Asking again for the same place joins the work instead of restarting it."""
    scheduler, gate = LatestOnly(), Gate()
    first = scheduler.submit("doc", (1, 5), gate.work("a"))
    again = scheduler.submit("doc", (1, 5), gate.work("b"))
    assert again is first
    gate.release.set()
    assert await first == "a" and gate.started == ["a"]


async def test_other_documents_are_independent():
    """Work for one document never cancels another's."""
    scheduler, gate = LatestOnly(), Gate()
    a = scheduler.submit("a", 1, gate.work("a"))
    b = scheduler.submit("b", 1, gate.work("b"))
    gate.release.set()
    assert (await a, await b) == ("a", "b")


async def test_superseded_during_debounce_never_runs():
    """A request superseded while it waits out the debounce never reaches its work."""
    scheduler, gate = LatestOnly(), Gate()
    first = scheduler.submit("doc", 1, gate.work("first"), delay=30)
    second = scheduler.submit("doc", 2, gate.work("second"))
    gate.release.set()
    assert await outcome(second) == "second"
    assert await outcome(first) is None and gate.started == ["second"]


async def test_cancelling_the_caller_cancels_the_work():
    """$/cancelRequest on the handler that awaits the work cancels the work too."""
    scheduler, gate = LatestOnly(), Gate()
    task = scheduler.submit("doc", 1, gate.work("w"))
    caller = asyncio.ensure_future(outcome(task))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    caller.cancel()
    await asyncio.gather(caller, return_exceptions=True)
    assert caller.cancelled() and task.cancelled()


async def test_service_remembers_answers_for_typing_through():
    """A model answer is served again, shortened, once the user types its first character."""
    store = DocumentStore()
    doc = store.open("file:///a.py", "x = \n", 1)
    service = CompletionService()
    calls = []

    async def ask(d, offset):
        calls.append(offset)
        return Completion(offset, "42", 0)

    assert await service.start(doc, 4, ask, delay=0) == Completion(4, "42", 0)
    store.change(doc.uri, [TextChange("4", (Position(0, 4), Position(0, 4)))], 2)
    assert service.cached(doc, 5) == Completion(5, "2", 0)
    assert calls == [4] and service.counts.from_cache == 1 and service.counts.model_requests == 1


async def test_service_skips_the_model_when_typing_went_on_during_the_debounce():
    """Work whose document changed during its debounce does not ask the model."""
    store = DocumentStore()
    doc = store.open("file:///a.py", "x = \n", 1)
    service = CompletionService()
    calls = []

    async def ask(d, offset):
        calls.append(offset)
        return None

    task = service.start(doc, 4, ask, delay=0.01)
    store.change(doc.uri, [TextChange("4", (Position(0, 4), Position(0, 4)))], 2)
    assert await task is None and calls == []


async def test_a_spared_task_runs_on_and_the_new_work_does_not_wait_for_it():
    """`spare` True: the task at work is neither cancelled nor waited for; the new work
    starts at once (a next-edit question steers newer typing into the spared one)."""
    latest = LatestOnly()
    release = asyncio.Event()

    async def slow() -> str:
        await release.wait()
        return "old"

    first = latest.submit("doc", 1, slow)
    await asyncio.sleep(0)
    second = latest.submit("doc", 2, lambda: asyncio.sleep(0, "new"), spare=lambda task: task is first)
    assert await second == "new" and not first.done() and latest.superseded == 0
    release.set()
    assert await first == "old"
    third = latest.submit("doc", 3, lambda: asyncio.sleep(0, "newer"), spare=lambda task: False)
    assert await third == "newer"
