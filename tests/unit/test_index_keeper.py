"""The session's index keeper at shutdown: a buffer refresh never fails against a closed index."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from sparkls.lsp.indexing import IndexKeeper


class _Index:
    ready = True

    def __init__(self) -> None:
        self.closed = False
        self.stored: list[Path] = []

    async def store_buffer(self, path: Path, doc: object, rules: object) -> None:
        if self.closed:
            raise RuntimeError("the symbol index is closed")
        self.stored.append(path)

    def close(self) -> None:
        self.closed = True

    async def wait_closed(self) -> None:
        return None


class _Server:
    """What IndexKeeper uses of SparkServer; `ready` waits until the test lets it go."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.failures: list[str] = []
        self.documents = SimpleNamespace(has=lambda uri: True)
        self.tasks: list[asyncio.Task] = []

    async def ready(self, uri: str) -> object:
        await self.go.wait()
        return object()

    async def path_filter(self) -> object:
        return object()

    def spawn(self, coro, what: str) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        task.add_done_callback(lambda t: t.cancelled() or t.exception() is None or self.failures.append(what))
        self.tasks.append(task)
        return task


async def _keeper() -> tuple[IndexKeeper, _Server, _Index]:
    server = _Server()
    keeper = IndexKeeper(server)  # type: ignore[arg-type]
    index = _Index()
    keeper.index = index  # type: ignore[assignment]
    return keeper, server, index


async def test_a_refresh_running_at_shutdown_is_cancelled_not_failed():
    """Shutdown while a buffer's refresh waits for its document: the refresh is
    cancelled, nothing is stored into the closing index, and nothing fails (a failure
    would be a warning on stderr, which Helix logs at ERROR)."""
    keeper, server, index = await _keeper()
    keeper.schedule_refresh("file:///w/a.py", Path("/w/a.py"), delay=0)
    while not server.tasks:  # the timer fires on the next turns of the loop
        await asyncio.sleep(0)
    await keeper.close()
    server.go.set()
    await asyncio.gather(*server.tasks, return_exceptions=True)
    assert server.failures == [] and index.stored == [] and index.closed


async def test_a_pending_refresh_never_starts_after_shutdown():
    """A refresh still waiting for its quiet time is dropped by shutdown."""
    keeper, server, index = await _keeper()
    keeper.schedule_refresh("file:///w/a.py", Path("/w/a.py"), delay=0.05)
    await keeper.close()
    server.go.set()
    await asyncio.sleep(0.1)  # past the delay: a timer left behind would have fired
    assert server.tasks == [] and keeper.held() == 0


async def test_a_refresh_stores_the_buffer_while_open():
    """The control: without a shutdown the same refresh stores the buffer."""
    keeper, server, index = await _keeper()
    server.go.set()
    keeper.schedule_refresh("file:///w/a.py", Path("/w/a.py"), delay=0)
    while not server.tasks:
        await asyncio.sleep(0)
    await asyncio.gather(*server.tasks)
    assert index.stored == [Path("/w/a.py")] and server.failures == []


async def test_close_waits_for_the_build_it_cancelled_to_unwind():
    """A build cancelled while it starts the worker process unwinds (the process is
    killed and reaped) before `close` returns: nothing of the index outlives shutdown."""
    keeper, server, index = await _keeper()
    reaped = asyncio.Event()
    started = asyncio.Event()

    async def starting_the_worker() -> None:
        try:
            started.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # as asyncio kills and reaps a process cut short in its start
            reaped.set()
            raise

    keeper._building = server.spawn(starting_the_worker(), "indexing the workspace")
    await started.wait()
    await keeper.close()
    assert reaped.is_set() and keeper._building.done() and index.closed
