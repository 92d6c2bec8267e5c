"""The loop-lag monitor of the test suite: the longest event-loop callback of every
sparkls server a test started, per test and per suite.

Registered by tests/conftest.py. It sets `SPARKLS_LOOP_LAG_DIR` for everything the
tests start, so every `sparkls --stdio` (a pytest-lsp fixture's, an editor's, one
served in this process) writes its longest callbacks there (sparkls/lsp/looplag.py).
The files that appear while a test runs are that test's; the longest callback is added
to the test's report, and the terminal summary names the worst per suite (unit, e2e,
editors), the tests whose servers ran a callback over `LIMIT_MS`, and the slowest
tests. A server's start-up (until `initialized` has read the settings) is counted
apart and shown beside. Each callback is timed by the clock and by the loop thread's
CPU time: on a loaded machine the clock also counts the other processes (and a
worker thread holding the GIL), the CPU time only the loop's own work. A figure, not
an assertion: on a loaded machine a callback takes longer than the work in it.
The VS Code e2e tests run under Node, not pytest: `make test-vscode-e2e` gives their
servers a folder of their own and prints its summary (`folder_summary`) at the end.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

LIMIT_MS = 100.0
ENV = "SPARKLS_LOOP_LAG_DIR"


class LoopLagMonitor:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="sparkls-looplag-"))
        os.environ[ENV] = str(self.folder)
        self.by_test: dict[str, dict[str, Any]] = {}  # test -> its longest callback, servers, callbacks

    def _reports(self, names: set[str]) -> list[dict[str, Any]]:
        reports = []
        for name in sorted(names):
            try:
                reports.append(json.loads((self.folder / name).read_text()))
            except (OSError, ValueError):
                continue  # a server killed mid-write: its last whole report is lost
        return reports

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        before = set(os.listdir(self.folder))
        try:
            return (yield)
        finally:
            reports = self._reports(set(os.listdir(self.folder)) - before)
            if reports:
                entries = [e for r in reports for e in r["longest"]]
                worst = max(entries, key=lambda e: e["ms"], default={"ms": 0.0, "cpu_ms": 0.0, "callback": "-"})
                busiest = max(entries, key=lambda e: e["cpu_ms"], default={"cpu_ms": 0.0, "callback": "-"})
                startup = max((e for r in reports for e in r["startup"]), key=lambda e: e["ms"], default={"ms": 0.0})
                self.by_test[item.nodeid] = {
                    "ms": worst["ms"], "cpu_ms": worst["cpu_ms"], "callback": worst["callback"], "servers": len(reports),
                    "callbacks": sum(r["callbacks"] for r in reports),
                    "over": sum(r["over_100ms"] for r in reports), "startup_ms": startup["ms"],
                    "max_cpu_ms": busiest["cpu_ms"], "max_cpu_callback": busiest["callback"],
                }

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown" and (lag := self.by_test.get(report.nodeid)):
            report.sections.append(("loop lag", f"longest callback {lag['ms']} ms ({lag['cpu_ms']} ms CPU): {lag['callback']}"))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.by_test:
            return
        write = terminalreporter.write_line
        suites: dict[str, tuple[str, dict[str, Any]]] = {}
        for test, lag in self.by_test.items():
            suite = "/".join(test.split("::")[0].split("/")[:2])
            if suite not in suites or lag["ms"] > suites[suite][1]["ms"]:
                suites[suite] = (test, lag)
        servers = sum(lag["servers"] for lag in self.by_test.values())
        write(f"loop lag: the longest callback of {servers} sparkls server(s) in {len(self.by_test)} test(s)")
        for suite, (test, lag) in sorted(suites.items()):
            startup = max(v["startup_ms"] for t, v in self.by_test.items() if t.startswith(suite))
            write(f"  worst in {suite}: {lag['ms']} ms, {lag['cpu_ms']} ms CPU ({lag['callback']}) in {test}; "
                  f"start-up apart: {startup} ms at most")
        busiest = max(self.by_test.items(), key=lambda x: x[1]["max_cpu_ms"])
        write(f"  the most CPU in one callback: {busiest[1]['max_cpu_ms']} ms ({busiest[1]['max_cpu_callback']}) in {busiest[0]}")
        over_cpu = sum(lag["max_cpu_ms"] > LIMIT_MS for lag in self.by_test.values())
        over = sorted(((t, lag) for t, lag in self.by_test.items() if lag["ms"] > LIMIT_MS), key=lambda x: -x[1]["ms"])
        write(f"  tests with a callback over {LIMIT_MS:g} ms: {len(over)} by the clock, {over_cpu} by the loop's own CPU time")
        for test, lag in over[:20]:
            write(f"    {lag['ms']:8.1f} ms ({lag['cpu_ms']:6.1f} CPU)  {test}  ({lag['callback']}; {lag['over']} over)")
        if path := os.environ.get("SPARKLS_LOOP_LAG_REPORT"):
            Path(path).write_text(json.dumps(self.by_test, indent=1))


def folder_summary(folder: Path, suite: str) -> list[str]:
    """The summary lines for a suite run outside pytest (the VS Code e2e tests, `make
    test-vscode-e2e`): the worst callback of every server that wrote to `folder`."""
    reports = []
    for path in sorted(folder.glob("*.json")):
        try:
            reports.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue  # a server killed mid-write: its last whole report is lost
    if not reports:
        return [f"loop lag: no sparkls server wrote to {folder} in {suite}"]
    none = {"ms": 0.0, "cpu_ms": 0.0, "callback": "-"}
    worst = max((e for r in reports for e in r["longest"]), key=lambda e: e["ms"], default=none)
    busiest = max((e for r in reports for e in r["longest"]), key=lambda e: e["cpu_ms"], default=none)
    startup = max((e["ms"] for r in reports for e in r["startup"]), default=0.0)
    over = sum(r["over_100ms"] for r in reports)
    return [
        f"loop lag: the longest callback of {len(reports)} sparkls server(s) in {suite}",
        f"  worst in {suite}: {worst['ms']} ms, {worst['cpu_ms']} ms CPU ({worst['callback']}); start-up apart: {startup} ms at most",
        f"  the most CPU in one callback: {busiest['cpu_ms']} ms ({busiest['callback']})",
        f"  callbacks over {LIMIT_MS:g} ms: {over} by the clock",
    ]


if __name__ == "__main__":  # python tests/looplag.py FOLDER SUITE (the Makefile's VS Code run)
    import sys

    print("\n".join(folder_summary(Path(sys.argv[1]), sys.argv[2])))
