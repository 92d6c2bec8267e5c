"""Serve LSP on stdin/stdout with a native asyncio reader.

pygls's default stdio reader reads every header line and body through a thread pool,
a thread hop per read; on a pipe, asyncio can read directly. Anything that is not a
pipe (a file, a TTY on some systems) and Windows keep pygls's own reader.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from pygls.io_ import run_async

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)


class _PipeReader:
    """The reader interface pygls's `run_async` wants, over an asyncio StreamReader."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""  # the editor went away mid-message: end of input


class _StdoutWriter:
    """pygls's writer interface over stdout that drops what comes after the end.

    After `exit` (pygls closes the writer) or once the editor has gone (a broken
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


def can_read_natively(stdin: BinaryIO) -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def serve(server: LanguageServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Run `server` on stdio until the input ends or the client says exit."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    if not can_read_natively(stdin):
        server.start_io(stdin, stdout)
        return

    stop_event = threading.Event()
    server._stop_event = stop_event

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=2**31)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
        server.protocol.set_writer(_StdoutWriter(stdout))
        await run_async(
            stop_event=stop_event,
            reader=_PipeReader(stream),
            protocol=server.protocol,
            logger=logger,
            error_handler=server.report_server_error,
        )

    try:
        asyncio.run(main())
    except BrokenPipeError:
        logger.error("The connection to the editor is lost; shutting down.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
