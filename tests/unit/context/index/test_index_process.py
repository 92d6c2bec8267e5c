"""The index worker process and the server's handle on it: builds, refreshes, buffers, lifetime."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sparkls.guard.exclusions import PathFilter
from sparkls.context.index.process import WORKER_MODULE, IndexClosed, IndexWorker
from sparkls.context.index.worker import Throttle
from sparkls.documents.store import DocumentStore
from sparkls.context.index.workspace import WorkspaceIndex

SHAPES = "class Circle:\n    def area(self):\n        return 3.14\n"
TIMEOUT = 60  # seconds: a bound on a hang, not a measurement


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "pkg").mkdir(parents=True)
    (workspace / "pkg/shapes.py").write_text(SHAPES, encoding="utf-8")
    (workspace / "main.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    return workspace


@pytest.fixture
async def workspace(root: Path, tmp_path: Path):
    index = WorkspaceIndex(root, tmp_path / "cache" / "index.sqlite3")
    yield index
    index.close()
    await index.wait_closed()


def _many_files(root: Path, count: int) -> None:
    for number in range(count):
        (root / f"many/m{number:04d}.py").parent.mkdir(exist_ok=True)
        (root / f"many/m{number:04d}.py").write_text(f"def f{number}(x):\n    return x + {number}\n", encoding="utf-8")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _paths(index: WorkspaceIndex, name: str) -> list[str]:
    return [path for path, _ in index.definitions(name)]


async def test_build_runs_in_another_process(workspace):
    """A build is done by the worker process, not the server's: its symbols are then read here."""
    stats = await workspace.build([])
    assert workspace.worker.pid not in (None, os.getpid())
    assert (stats.scanned, stats.parsed) == (2, 2) and workspace.ready
    assert _paths(workspace, "Circle") == ["pkg/shapes.py"]


async def test_build_progress_reaches_the_caller_and_ends_at_total(workspace):
    """Progress from the worker arrives on the loop, first (0, total), last (total, total)."""
    calls: list[tuple[int, int]] = []
    await workspace.build([], lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 2) and calls[-1] == (2, 2)


async def test_build_respects_context_exclude(workspace):
    """Patterns given to the build keep matching files out of the index."""
    await workspace.build(["pkg/"])
    assert _paths(workspace, "Circle") == [] and _paths(workspace, "main") == ["main.py"]


async def test_refresh_rereads_files_from_disk(workspace, root):
    """refresh_file reads a new file and forgets a deleted one, in the worker."""
    await workspace.build([])
    (root / "extra.py").write_text("def extra():\n    pass\n", encoding="utf-8")
    (root / "main.py").unlink()
    await asyncio.gather(workspace.refresh_file(root / "extra.py"), workspace.refresh_file(root / "main.py"))
    assert _paths(workspace, "extra") == ["extra.py"] and _paths(workspace, "main") == []


async def test_store_buffer_indexes_the_documents_own_symbols(workspace, root):
    """An open buffer is indexed from its document's symbols: its text, not the disk's."""
    await workspace.build([])
    doc = DocumentStore().open((root / "pkg/shapes.py").as_uri(), "class Hexagon:\n    pass\n", 2)
    await workspace.store_buffer(root / "pkg/shapes.py", doc, PathFilter())
    assert _paths(workspace, "Hexagon") == ["pkg/shapes.py"] and _paths(workspace, "Circle") == []


async def test_store_buffer_of_an_excluded_file_stores_nothing(workspace, root):
    """A buffer of a file that may not be sent never reaches the index."""
    await workspace.build([])
    doc = DocumentStore().open((root / "secret.py").as_uri(), "def hidden():\n    pass\n", 1)
    await workspace.store_buffer(root / "secret.py", doc, PathFilter(["secret.py"]))
    assert _paths(workspace, "hidden") == []


async def test_removing_a_file_forgets_it(workspace, root):
    """remove_file drops a deleted file's symbols."""
    await workspace.build([])
    await workspace.remove_file(root / "pkg")
    assert _paths(workspace, "Circle") == []


async def test_close_mid_build_ends_the_worker(workspace, root):
    """Closing the index during a build ends the worker process; the build raises IndexClosed."""
    _many_files(root, 400)
    started = asyncio.Event()
    build = asyncio.create_task(workspace.build([], lambda done, total: started.set()))
    async with asyncio.timeout(TIMEOUT):
        await started.wait()
    pid = workspace.worker.pid
    workspace.close()
    await workspace.wait_closed()
    with pytest.raises(IndexClosed):
        await build
    assert _gone(pid)


async def test_a_cancelled_command_does_not_leak_into_the_next(root, tmp_path):
    """A build cancelled on the server's side retires its worker: the next command gets its own answer."""
    _many_files(root, 400)
    worker = IndexWorker(root, tmp_path / "index.sqlite3")
    started = asyncio.Event()
    build = asyncio.create_task(worker.run("build", {"exclude": []}, lambda done, total: started.set()))
    async with asyncio.timeout(TIMEOUT):
        await started.wait()
    build.cancel()
    with pytest.raises(asyncio.CancelledError):
        await build
    try:
        assert await worker.run("refresh", {"paths": ["main.py"], "exclude": []}) == {"files": 1}
    finally:
        worker.close()
        await worker.wait_closed()


async def test_the_worker_is_started_off_the_event_loop(root, tmp_path, monkeypatch):
    """Starting a process waits for the child's exec (a scheduling delay on a loaded
    machine): that wait happens in a thread, never on the event loop's."""
    loop_thread = threading.current_thread()
    started_in: list[threading.Thread] = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        started_in.append(threading.current_thread())
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    worker = IndexWorker(root, tmp_path / "index.sqlite3")
    try:
        assert await worker.run("refresh", {"paths": ["main.py"], "exclude": []}) == {"files": 1}
    finally:
        worker.close()
        await worker.wait_closed()
    assert len(started_in) == 1 and started_in[0] is not loop_thread


async def test_a_start_given_up_on_leaves_no_worker(root, tmp_path, monkeypatch):
    """A command cancelled while its worker is still starting: the worker, once started,
    is ended and reaped; nothing of it is left running."""
    real_popen = subprocess.Popen
    release = threading.Event()
    made: list[subprocess.Popen] = []

    def slow_popen(*args, **kwargs):
        release.wait(TIMEOUT)  # the start is under way in its thread when the command is cancelled
        made.append(real_popen(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(subprocess, "Popen", slow_popen)
    worker = IndexWorker(root, tmp_path / "index.sqlite3")
    command = asyncio.create_task(worker.run("refresh", {"paths": ["main.py"], "exclude": []}))
    await asyncio.sleep(0)  # the command is waiting on the start
    command.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await command
    worker.close()
    await worker.wait_closed()
    async with asyncio.timeout(TIMEOUT):
        while not made:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(made[0].wait)
    assert made[0].returncode is not None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
async def test_a_dead_worker_is_replaced_on_the_next_command(workspace, root):
    """A worker killed between commands is started again for the next one."""
    await workspace.build([])
    first = workspace.worker.pid
    os.kill(first, signal.SIGKILL)
    (root / "extra.py").write_text("def extra():\n    pass\n", encoding="utf-8")
    await workspace.refresh_file(root / "extra.py")
    assert workspace.worker.pid != first and _paths(workspace, "extra") == ["extra.py"]


def test_worker_exits_when_its_input_closes_mid_build(root, tmp_path):
    """The worker ends as soon as its standard input closes (the server is gone), mid-build."""
    _many_files(root, 400)
    proc = subprocess.Popen(
        [sys.executable, "-m", WORKER_MODULE, str(root), str(tmp_path / "index.sqlite3")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        proc.stdin.write(json.dumps({"build": {"exclude": []}}).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"progress": [0, 402]}  # building
        proc.stdin.close()
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        proc.kill()
        proc.wait()


def test_worker_writes_nothing_but_events(root, tmp_path):
    """Every line on the worker's standard output is one JSON event; a bad command gets an error and the worker goes on."""
    proc = subprocess.Popen(
        [sys.executable, "-m", WORKER_MODULE, str(root), str(tmp_path / "index.sqlite3")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        proc.stdin.write(b'{"nonsense": 1}\n{"build": {"exclude": []}}\n')
        proc.stdin.flush()
        events = [json.loads(proc.stdout.readline()) for _ in range(4)]
    finally:
        proc.kill()
        proc.wait()
    assert [next(iter(event)) for event in events] == ["error", "progress", "progress", "done"]


def test_progress_is_thinned_to_one_per_interval():
    """Progress passes at most once per interval; the first and the last always pass."""
    now = [0.0]
    throttle = Throttle(1.0, clock=lambda: now[0])
    passed = []
    for done in range(11):
        now[0] = done * 0.3
        passed.append(throttle(done, 10))
    assert [done for done, ok in enumerate(passed) if ok] == [0, 4, 8, 10]
