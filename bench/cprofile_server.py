"""A language server under cProfile, profiling only while a benchmark says so.

    python bench/cprofile_server.py OUT.prof -m sparkls --stdio [options]
    python bench/cprofile_server.py OUT.prof bench/floor_server.py

`SIGUSR1` starts (or resumes) the profile, `SIGUSR2` pauses it and writes everything
gathered so far to OUT.prof (`pstats`), so a bench profiles its timed spans alone, not
the start-up or the background work between them (`vs_floor.py --cprofile DIR`). The
event loop's thread only (cProfile is per thread): the request path, not the worker
threads. Read with `python -m pstats OUT.prof` or `pstats.Stats(OUT.prof)`.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys

out, rest = sys.argv[1], sys.argv[2:]
profiler = cProfile.Profile()


def resume(*_: object) -> None:
    profiler.enable()


def pause(*_: object) -> None:
    profiler.disable()
    profiler.dump_stats(out)


signal.signal(signal.SIGUSR1, resume)
signal.signal(signal.SIGUSR2, pause)
if rest[0] == "-m":
    sys.argv = [rest[1], *rest[2:]]
    runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = rest
    sys.path.insert(0, str(__import__("pathlib").Path(rest[0]).resolve().parent))
    runpy.run_path(rest[0], run_name="__main__")
