"""The index worker process: walks, parses, extracts and writes, away from the server.

    python -m sparkls.context.index.worker ROOT DB

Tree-sitter holds the GIL while it parses a file, so a build in a thread of the
server stalls its event loop for a whole parse at a time; here it stalls nothing but
this process, which runs at a lower priority (`NICE`, and Linux's SCHED_IDLE). The server starts it on demand
(process.py) and speaks JSON, one object per line.

Commands, on standard input:

    {"build": {"exclude": [...]}}                  SymbolIndex.build with PathFilter.from_root(ROOT, exclude)
    {"refresh": {"paths": [...], "exclude": [...]}}  SymbolIndex.update_file for each path (workspace-relative)

Events, on standard output (nothing else is ever written there):

    {"progress": [done, total]}    during a build, at most one per PROGRESS_INTERVAL
                                   seconds (the first and the last always)
    {"done": {...}}                the command's result (a build's BuildStats fields)
    {"error": "...", "condition": c}  the command failed; the worker goes on. `c` is
                                   health.classify's: `busy`, `full`, `unusable` (the
                                   server tries again later), or null (a bug)

A write that finds the database locked tries again for up to BUSY_PATIENCE seconds
before it fails; a command finding the file replaced or deleted reopens it first.

Back-pressure: the server reads events as they come; if it falls behind, the pipe
fills and the worker waits on its next write. Lifetime: a thread reads standard input
and ends the process (`os._exit`) the moment it closes, mid-build or not, so a server
that exits, crashes or is killed never leaves a worker behind. A write cut short is
rolled back by SQLite (each batch is one transaction).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from sparkls.guard.exclusions import PathFilter
from sparkls.context.index.health import classify
from sparkls.context.index.symbol_index import SymbolIndex

log = logging.getLogger(__name__)

NICE = 10  # added to the worker's niceness: the editor's own work comes first
PROGRESS_INTERVAL = 0.25  # seconds between two progress events
BUSY_PATIENCE = 120.0  # seconds a write keeps trying while another process holds the lock

Event = dict[str, Any]


class Throttle:
    """Decides which progress counts are sent: at most one per `interval` seconds,
    the first (done == 0) and the last (done == total) always."""

    def __init__(self, interval: float = PROGRESS_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: float | None = None

    def __call__(self, done: int, total: int) -> bool:
        now = self._clock()
        if done in (0, total) or self._last is None or now - self._last >= self.interval:
            self._last = now
            return True
        return False


class Worker:
    """Runs commands on one `SymbolIndex`; what may be indexed is the filter of the
    last build, or of the last `exclude` seen."""

    def __init__(self, index: SymbolIndex, emit: Callable[[Event], None]) -> None:
        self.index = index
        self.emit = emit
        self._exclude: list[str] | None = None

    def handle(self, command: Event) -> None:
        """Run one command, ending with a `done` or an `error` event."""
        try:
            if self.index.replaced():  # deleted or replaced (a prune, a reset): the file the server reads
                self.index.reopen()
            if "build" in command:
                result = self.build(command["build"].get("exclude", []))
            elif "refresh" in command:
                result = self.refresh(command["refresh"]["paths"], command["refresh"].get("exclude", []))
            else:
                raise ValueError(f"unknown command {sorted(command)}")
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception as exc:
            condition = classify(exc)  # a fault of the file (locked, full, unusable): the server tries again
            log.warning("%s failed: %s", sorted(command), exc, exc_info=condition is None)
            self.emit({"error": f"{type(exc).__name__}: {exc}", "condition": condition})
        else:
            self.emit({"done": result})

    def build(self, exclude: list[str]) -> Event:
        throttle = Throttle()

        def progress(done: int, total: int) -> None:
            if throttle(done, total):
                self.emit({"progress": [done, total]})

        stats = self.index.build(PathFilter.from_root(self.index.root, exclude), progress=progress)
        self._exclude = list(exclude)
        return dataclasses.asdict(stats)

    def refresh(self, paths: Iterable[str], exclude: list[str]) -> Event:
        if self.index.path_filter is None or self._exclude != list(exclude):
            self.index.path_filter = PathFilter.from_root(self.index.root, exclude)
            self._exclude = list(exclude)
        count = 0
        for rel in paths:
            self.index.update_file(rel)
            count += 1
        return {"files": count}


def _read_commands(stream: BinaryIO, commands: queue.SimpleQueue[Event]) -> None:
    """Queue each command line; end the process when the stream closes."""
    try:
        for line in stream:
            try:
                commands.put(json.loads(line))
            except ValueError:
                log.warning("not a command: %r", line[:200])
    finally:
        os._exit(0)  # the server closed us or is gone: stop now, whatever is running


def _emitter(out: BinaryIO) -> Callable[[Event], None]:
    def emit(event: Event) -> None:
        out.write(json.dumps(event).encode() + b"\n")
        out.flush()

    return emit


def _lower_priority() -> None:
    """Niced; on Linux also SCHED_IDLE: run only on a core nothing else wants, so the
    editor, the server and the model's stream always come first. (On Windows the
    server starts the worker in a lower priority class instead.)"""
    try:
        if hasattr(os, "nice"):
            os.nice(NICE)
        if hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except OSError as exc:
        log.debug("cannot lower the worker's priority: %s", exc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sparkls.context.index.worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the workspace folder")
    parser.add_argument("db", type=Path, help="the index's SQLite file")
    args = parser.parse_args(argv)
    _lower_priority()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="sparkls index worker: %(levelname)s %(message)s")
    events = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not reach the event stream
    commands: queue.SimpleQueue[Event] = queue.SimpleQueue()
    threading.Thread(target=_read_commands, args=(sys.stdin.buffer, commands), name="commands", daemon=True).start()
    with SymbolIndex(args.root, args.db, busy_patience=BUSY_PATIENCE) as index:
        worker = Worker(index, _emitter(events))
        while True:
            worker.handle(commands.get())


if __name__ == "__main__":
    sys.exit(main())
