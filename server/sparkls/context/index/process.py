"""`IndexWorker`: the server's asyncio handle on the index worker process (worker.py).

One command at a time, in order; the worker is started on the first command, with a
lower priority, and closed after `idle_seconds` without one (a start costs ~0.1 s of
its own CPU, none of the server's), so an idle server holds no second process.
Progress events are handed to the caller as they are read, no faster than the worker
writes them (it thins them out itself).

A command cut short on our side (its task cancelled) retires the worker, so nothing
it says afterwards is read as the answer to the next command. `close()` (idempotent,
synchronous) closes the worker's standard input, which ends it at once, mid-build or
not; `wait_closed()` waits for it to be gone (killing it after `CLOSE_GRACE` seconds).
If the server itself dies, the pipe closes all the same: no worker outlives it.

The worker is started in a thread (`_Worker.start`): starting a process waits until the
child has run its exec, which on a loaded machine is a scheduling delay of tens to a
hundred milliseconds or more, and the event loop must not wait for it. Its pipes are
then attached to the loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import site
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sparkls

log = logging.getLogger(__name__)

IDLE_SECONDS = 60.0
CLOSE_GRACE = 5.0  # seconds a closed worker gets to exit before it is killed
WORKER_MODULE = "sparkls.context.index.worker"


class IndexClosed(Exception):
    """The index was closed (shutdown) before the command finished."""


class IndexWorkerFailed(Exception):
    """The worker reported an error, or exited before answering. `condition`: the
    fault of the index file it reported (health.classify), None for any other."""

    def __init__(self, message: str, condition: str | None = None) -> None:
        super().__init__(message)
        self.condition = condition


class _Exited(Exception):
    """The worker's output ended before it answered."""


class _Worker:
    """A started worker process: its pipes on the event loop, its end awaited in a thread."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin = stdin
        self.stdout = stdout

    @classmethod
    async def start(cls, argv: list[str], env: dict[str, str], **extra: Any) -> _Worker:
        starting = asyncio.ensure_future(asyncio.to_thread(
            subprocess.Popen, argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, **extra
        ))
        try:
            popen = await asyncio.shield(starting)
        except asyncio.CancelledError:  # the process still starts: end it once it has
            starting.add_done_callback(_end_unwanted)
            raise
        assert popen.stdin is not None and popen.stdout is not None
        loop = asyncio.get_running_loop()
        try:
            reader = asyncio.StreamReader(limit=2**16)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stdout)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, popen.stdin)
        except BaseException:
            popen.kill()
            await asyncio.to_thread(popen.wait)
            raise
        return cls(popen, asyncio.StreamWriter(transport, protocol, None, loop), reader)

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        if (code := self.popen.poll()) is not None:
            return code
        return await asyncio.to_thread(self.popen.wait)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()


def _end_unwanted(started: asyncio.Future[subprocess.Popen[bytes]]) -> None:
    """A worker whose start was given up on: its input closed (it exits at once) and its
    end awaited in a thread, so nothing is left running or unreaped."""
    if started.cancelled() or started.exception() is not None:
        return
    popen = started.result()
    for pipe in (popen.stdin, popen.stdout):
        if pipe is not None:
            pipe.close()
    threading.Thread(target=popen.wait, name="sparkls-index-reap", daemon=True).start()


class IndexWorker:
    """The worker process for the index of `root` kept in `db_path`."""

    def __init__(self, root: Path, db_path: Path, *, idle_seconds: float = IDLE_SECONDS) -> None:
        self.root = root
        self.db_path = db_path
        self.idle_seconds = idle_seconds
        self._proc: _Worker | None = None
        self._retired: list[_Worker] = []  # closed, perhaps not yet exited
        self._lock = asyncio.Lock()
        self._idle_timer: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def pid(self) -> int | None:
        """The running worker's process id, if one is running."""
        return self._proc.pid if self._proc is not None else None

    async def run(self, command: str, args: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Any:
        """Send one command and return its result; `progress(done, total)` is called
        for each progress event. A worker found dead is replaced and the command sent
        again, once (commands are idempotent). Raises IndexClosed, IndexWorkerFailed."""
        async with self._lock:
            if self._idle_timer is not None:
                self._idle_timer.cancel()
            try:
                kind, value = await self._send(command, args, progress)
            finally:
                if not self._closed:
                    self._idle_timer = asyncio.get_running_loop().call_later(self.idle_seconds, self._retire_if_idle)
        if kind == "error":
            raise IndexWorkerFailed(value["error"], value.get("condition"))
        return value

    async def _send(
        self, command: str, args: dict[str, Any], progress: Callable[[int, int], None] | None
    ) -> tuple[str, Any]:
        try:
            return await self._send_once({command: args}, progress)
        except _Exited as exc:
            if self._closed:
                raise IndexClosed("the workspace index was closed") from None
            log.info("%s; starting another", exc)
        try:
            return await self._send_once({command: args}, progress)
        except _Exited as exc:
            raise IndexWorkerFailed(str(exc)) from None

    async def _send_once(self, command: dict[str, Any], progress: Callable[[int, int], None] | None) -> tuple[str, Any]:
        answer: tuple[str, Any] | None = None
        try:
            answer = await self._exchange(await self._process(), command, progress)
        finally:
            if answer is None:  # cut short: what it says next would be misread
                self._retire()
        return answer

    async def _process(self) -> _Worker:
        if self._closed:
            raise IndexClosed("the workspace index is closed")
        if self._proc is not None and self._proc.returncode is None:
            return self._proc
        self._proc = None
        extra: dict[str, Any] = {}
        if sys.platform == "win32":  # os.nice has no Windows counterpart inside the worker
            extra["creationflags"] = subprocess.BELOW_NORMAL_PRIORITY_CLASS
        argv = [sys.executable, "-m", WORKER_MODULE, str(self.root), str(self.db_path)]
        proc = await _Worker.start(argv, _worker_env(), **extra)
        self._proc = proc
        if self._closed:  # closed while it started
            self._retire()
            raise IndexClosed("the workspace index is closed")
        log.debug("index worker started (pid %d)", proc.pid)
        return proc

    async def _exchange(
        self, proc: _Worker, command: dict[str, Any], progress: Callable[[int, int], None] | None
    ) -> tuple[str, Any]:
        try:
            proc.stdin.write(json.dumps(command).encode() + b"\n")
            await proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it is gone: the read below says so
        while True:
            line = await proc.stdout.readline()
            if not line:
                if self._closed:
                    raise IndexClosed("the workspace index was closed")
                raise _Exited(f"the index worker exited (status {await proc.wait()})")
            event = json.loads(line)
            if "progress" in event:
                if progress is not None:
                    progress(*event["progress"])
            elif "done" in event:
                return "done", event["done"]
            elif "error" in event:
                return "error", event

    def _retire(self) -> None:
        """Close the worker's input: it exits as soon as it reads the end."""
        proc, self._proc = self._proc, None
        self._retired = [p for p in self._retired if p.returncode is None]
        if proc is not None:
            proc.stdin.close()
            self._retired.append(proc)

    def _retire_if_idle(self) -> None:
        self._idle_timer = None
        if not self._lock.locked():
            self._retire()

    def close(self) -> None:
        """End the worker (a command under way raises IndexClosed); idempotent."""
        self._closed = True
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        self._retire()

    async def wait_closed(self) -> None:
        """Wait until every worker closed so far has exited."""
        for proc in self._retired:
            try:
                await asyncio.wait_for(proc.wait(), CLOSE_GRACE)
            except TimeoutError:
                log.warning("the index worker (pid %d) did not exit; killing it", proc.pid)
                proc.kill()
                await proc.wait()
        self._retired = [p for p in self._retired if p.returncode is None]


def _worker_env() -> dict[str, str]:
    """This environment, with this sparkls's source folder first on the worker's path
    (unless it is a site-packages folder, which is there anyway), so the worker runs
    the same code as the server."""
    source = Path(sparkls.__file__).resolve().parents[1]
    env = dict(os.environ)
    site_folders = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if source not in site_folders:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env
