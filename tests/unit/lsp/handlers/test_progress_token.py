"""A progress token the editor grants late: the request's future is still alive when
its answer comes (Helix answers `window/workDoneProgress/create` while it blocks)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from sparkls.lsp.handlers import progress


class LateEditor:
    """`ls` enough for `with_progress`: progress supported, the token granted late."""

    def __init__(self) -> None:
        self.created: list[asyncio.Future[None]] = []
        window = SimpleNamespace(work_done_progress=True)
        self.client_capabilities = SimpleNamespace(window=window)
        self.work_done_progress = SimpleNamespace(
            create_async=self._create, begin=lambda *a: None, report=lambda *a: None, end=lambda *a: None, tokens={}
        )

    def _create(self, token: str) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.created.append(future)
        return future

    def spawn(self, coro, what):  # pragma: no cover - not reached: no stall here
        return asyncio.ensure_future(coro)


async def test_the_editors_late_answer_finds_the_request_alive(monkeypatch):
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 0.01)
    editor = LateEditor()

    async def work() -> str:
        while not editor.created:
            await asyncio.sleep(0.005)
        return "done"

    assert await progress.with_progress(editor, "Spark edit", work()) == "done"
    await asyncio.sleep(0)
    (request,) = editor.created
    assert not request.cancelled()
    request.set_result(None)  # what the RPC layer does with the editor's answer: no InvalidStateError
