"""Serve LSP on stdin/stdout: bytes in, through the frame parser, to the protocol.

On a pipe (what editors give a language server) asyncio reads stdin directly and each
chunk goes through `rpc.FrameParser` as it arrives: no thread hop, no await per
header line. Anything else (a file, a TTY, Windows) is read in a worker thread, chunk
by chunk, through the same parser. The protocol (protocol.py) decides what each
message means; this module only moves bytes and logs what the parser skipped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from sparkls.lsp import looplag
from sparkls.lsp.rpc import FrameParser, Noise

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer

logger = logging.getLogger(__name__)

READ_CHUNK = 256 * 1024  # bytes per read in the worker-thread reader
# At the end, tasks still running (a model request, a warm-up, a background pass) are
# cancelled and given this long to finish; then the process exits without them. An
# editor waits for its server to exit, so one task that does not end must not hold it.
EXIT_GRACE_SECONDS = 2.0


class _StdoutWriter:
    """pygls's writer interface over stdout that drops what comes after the end.

    After `exit` (the protocol closes the writer) or once the editor has gone (a broken
    pipe), a late notification — a status flush, a progress end, a log line from a
    task being cancelled — has nowhere to go. pygls answers a failed write by
    reporting it to the editor, which writes again: dropping it here ends that loop.
    """

    def __init__(self, stdout: BinaryIO) -> None:
        self._stdout = stdout
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self._stdout.close()

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            self._stdout.write(data)
            self._stdout.flush()
        except (OSError, ValueError):  # BrokenPipeError, or a closed file
            self.closed = True
            logger.info("the editor's end of stdout is closed; later messages are dropped")


class _Session:
    """One input stream feeding one server: the end comes with `exit` or end of input."""

    def __init__(self, server: SparkServer) -> None:
        self.server = server
        self.parser = FrameParser()
        self.ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def feed(self, data: bytes) -> None:
        if self.ended.done():
            return
        for item in self.parser.feed(data):
            if isinstance(item, Noise):
                logger.warning("input skipped: %s", item.problem)
                continue
            code = self.server.protocol.receive(item)
            if code is not None:
                self.ended.set_result(code)
                return

    def end_of_input(self) -> None:
        if self.ended.done():
            return
        if self.parser.buffered:
            logger.warning("the input ended inside a message (%d bytes unread)", self.parser.buffered)
        code = self.server.protocol.gate.exit_code()
        logger.info("the editor closed stdin; exiting with %d", code)
        self.ended.set_result(code)


class _PipeProtocol(asyncio.Protocol):
    def __init__(self, session: _Session) -> None:
        self.session = session

    def data_received(self, data: bytes) -> None:
        self.session.feed(data)

    def eof_received(self) -> bool:
        self.session.end_of_input()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.session.end_of_input()


def can_read_natively(stdin: BinaryIO) -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _read_in_thread(stdin: BinaryIO, session: _Session, loop: asyncio.AbstractEventLoop) -> None:
    """Read `stdin` in a daemon thread (a blocked read must not hold up the exit), one
    chunk at a time: the next read waits until the loop has taken the last chunk."""
    read = getattr(stdin, "read1", stdin.read)
    taken = threading.Event()

    def hand_over(data: bytes) -> None:
        try:
            if data:
                session.feed(data)
            else:
                session.end_of_input()
        finally:
            taken.set()

    def run() -> None:
        while not session.ended.done():
            try:
                data = read(READ_CHUNK)
            except (OSError, ValueError):
                data = b""
            taken.clear()
            try:
                loop.call_soon_threadsafe(hand_over, data)
            except RuntimeError:  # the loop is closed: the session is over
                return
            taken.wait()
            if not data:
                return

    threading.Thread(target=run, name="sparkls-stdin", daemon=True).start()


async def _serve(server: SparkServer, stdin: BinaryIO, stdout: BinaryIO) -> int:
    session = _Session(server)
    server.protocol.set_writer(_StdoutWriter(stdout))
    if can_read_natively(stdin):
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(lambda: _PipeProtocol(session), stdin)
        try:
            return await session.ended
        finally:
            transport.close()
    _read_in_thread(stdin, session, asyncio.get_running_loop())
    return await session.ended


def serve(server: SparkServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Run `server` on stdio until the client says exit or the input ends; the exit code:
    0 after `shutdown`, 1 without it (as LSP says)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    loop = asyncio.new_event_loop()
    lag = looplag.watch(loop)  # the test suite's loop-lag monitor; off for users
    try:
        return loop.run_until_complete(_serve(server, stdin, stdout))
    except KeyboardInterrupt:
        return 1
    finally:
        try:
            _end_tasks(loop)
        finally:
            if lag is not None:
                lag.stop()
            loop.close()
            server.shutdown()


def _end_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """What `asyncio.run` does at the end, but bounded: cancel every task, wait up to
    EXIT_GRACE_SECONDS, name (on stderr's log) any that did not end, and go on."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if pending:  # after a `shutdown`, nothing should be left: each one is a lead
        logger.info("cancelling %d task(s) still running at exit: %s", len(pending), sorted(map(repr, pending)))
    for task in pending:
        task.cancel()
    if pending:
        _, left = loop.run_until_complete(asyncio.wait(pending, timeout=EXIT_GRACE_SECONDS))
        if left:
            logger.warning("exiting with %d task(s) that did not end when cancelled: %s", len(left), sorted(map(repr, left)))
    loop.run_until_complete(loop.shutdown_asyncgens())
