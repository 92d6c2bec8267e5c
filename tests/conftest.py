"""Shared fixtures: a real emulator process on loopback, reset for every test.

The canary net: both emulators are given the session's canaries (tests/canaries.py,
planted in every e2e workspace by `start()`: where sparkls never sends from, and the
secrets corpus's shapes in files it sends redacted), and a test whose run made the emulator
receive a request holding one fails, naming the canary's kind and quoting the request
around it. The terminal summary says how many requests were checked.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from sparkls.tools.devclient import start_emulator
from tests.canaries import CANARIES as PLANTED
from tests.looplag import LoopLagMonitor

EMULATOR_KEY = "sk-test-emulator-key"
CLOSE_BOUND = 10.0  # seconds for the emulator to see an earlier test's connections end

# Servers started by the tests keep their workspace index here, not in ~/.cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="sparkls-test-cache-")
# Nothing started by the tests sees a developer's real key: a test that wants a key in
# the environment sets its own.
os.environ.pop("OPENAI_API_KEY", None)


@dataclass
class EmulatorHandle:
    """Talks to a running `sparkls emulate` through its control endpoint."""

    url: str  # the API root, e.g. http://127.0.0.1:PORT/v1
    api_key: str
    canaries: dict[str, str] = field(default_factory=dict)  # the canaries set: canary -> kind
    # What the canary net has already taken from the stats since the last reset.
    _checked_seen: int = field(default=0, repr=False)
    _hits_seen: int = field(default=0, repr=False)
    _kept: tuple[int, list[dict[str, Any]]] = field(default=(0, []), repr=False)  # from before a reset
    last_test: str = field(default="", repr=False)  # the test that last used it

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[1].split("/", 1)[0]

    def _control(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        root = self.url.removesuffix("/v1")
        response = httpx.request(method, f"{root}/_emulator/{path}", json=payload, timeout=10)
        response.raise_for_status()
        return response.json()

    def stats(self) -> dict[str, Any]:
        return self._control("GET", "stats")

    def set_faults(self, **faults: Any) -> None:
        self._control("POST", "faults", faults)

    def reset(self) -> None:
        checked, hits = self.take_canary_news()  # the reset clears them: keep them for the net
        self._kept = (checked, hits)
        self._control("POST", "reset")
        self._checked_seen = self._hits_seen = 0

    def wait_closed(self, bound: float = CLOSE_BOUND) -> None:
        """Return once no WebSocket of an earlier test is open at the emulator. A server
        that exited has closed its sockets, but the emulator (another process) may not
        have read their end yet on a loaded machine: its `ws_open`, and what
        `disconnect()` cuts, would count them in the next test's."""
        deadline = time.monotonic() + bound
        while (open_now := self.stats()["ws_open"]) != 0:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{open_now} WebSocket(s) still open at the emulator {bound:g} s after the test that"
                    f" last used it ended ({self.last_test or 'none'}): a connection it left behind")
            time.sleep(0.01)

    def set_canaries(self, canaries: Mapping[str, str]) -> None:
        """Fail every request that holds one of these (canary -> its kind, for messages)."""
        self._control("POST", "canaries", {"canaries": list(canaries)})
        self.canaries = dict(canaries)

    def canary_hits(self) -> list[dict[str, Any]]:
        """The canaries found since the last reset: {canary, request, number, excerpt}."""
        return self.stats()["canary_hits"]

    def take_canary_news(self) -> tuple[int, list[dict[str, Any]]]:
        """Requests checked and canaries found since this was last asked (or the reset)."""
        stats = self.stats()
        checked, hits = stats["canary_checked"], stats["canary_hits"]
        kept_checked, kept_hits = self._kept
        news = (kept_checked + max(0, checked - self._checked_seen), kept_hits + hits[self._hits_seen :])
        self._checked_seen, self._hits_seen, self._kept = checked, len(hits), (0, [])
        return news

    def disconnect(self) -> int:
        return self._control("POST", "disconnect")["disconnected"]

    def refuse_websocket(self, refuse: bool = True) -> None:
        self._control("POST", "refuse_websocket", {"refuse": refuse})

    def set_lanes(self, enabled: bool) -> None:
        """Run WebSocket lanes (`stream_id`) and steering, or refuse them as an older server would."""
        self._control("POST", "lanes", {"lanes": enabled})

    def set_ideal(self, edits: list[dict[str, Any]]) -> None:
        """The edits the ideal model knows until the reset ({old, new, path?, patch?, whole?})."""
        self._control("POST", "ideal", {"edits": edits})

    def prompts(self) -> list[str]:
        """The request texts the emulator received since the last reset (the last 64)."""
        return self._control("GET", "prompts")["prompts"]

    def connection_limit(self, seconds: float | None, *, close: bool = False) -> None:
        """WebSocket connections older than `seconds` are refused (None: no limit)."""
        self._control("POST", "connection_limit", {"seconds": seconds, "close": close})


def pytest_configure(config: pytest.Config) -> None:
    """The loop-lag monitor (tests/looplag.py), before any server starts."""
    config.pluginmanager.register(LoopLagMonitor(), "sparkls-loop-lag")


# -- the canary net ----------------------------------------------------------------

SESSION_CANARIES = {canary: kind for kind, canary in PLANTED.items()}
_NET_KEY = pytest.StashKey[list[EmulatorHandle]]()
# Over the session: requests checked; (test, kind, hit) of each canary found; how many
# of those were found too late to fail their test (they fail the session instead).
_net: dict[str, Any] = {"checked": 0, "found": [], "late": 0}


def _canary_message(handle: EmulatorHandle, hits: list[dict[str, Any]]) -> str:
    lines = [f"the canary net caught {len(hits)} request(s) holding a canary:"]
    for hit in hits:
        kind = handle.canaries.get(hit["canary"]) or SESSION_CANARIES.get(hit["canary"], "unknown kind")
        lines.append(f"  {kind} canary in request #{hit['number']} ({hit['request']}): ...{hit['excerpt']!r}...")
    return "\n".join(lines)


def _take(handle: EmulatorHandle, test: str, *, late: bool = False) -> list[dict[str, Any]]:
    """Count what the emulator checked since last asked; record and return the hits."""
    checked, hits = handle.take_canary_news()
    _net["checked"] += checked
    for hit in hits:
        kind = handle.canaries.get(hit["canary"]) or SESSION_CANARIES.get(hit["canary"], "unknown kind")
        _net["found"].append((f"{test} (after it ended)" if late else test, kind, hit))
    _net["late"] += len(hits) if late else 0
    return hits


def _netted(request: pytest.FixtureRequest, handle: EmulatorHandle) -> EmulatorHandle:
    """Reset `handle` for this test, with the session's canaries, and watch it."""
    # Requests that came after the previous test was checked (its teardown's) count too.
    _take(handle, handle.last_test or "(before any test)", late=True)
    handle.wait_closed()  # before the reset: its own stats request is not this test's
    handle.reset()
    handle.last_test = request.node.nodeid
    if handle.canaries != SESSION_CANARIES:
        handle.set_canaries(SESSION_CANARIES)
    request.node.stash.setdefault(_NET_KEY, []).append(handle)
    return handle


def _check(handle: EmulatorHandle, test: str) -> str | None:
    hits = _take(handle, test)
    return _canary_message(handle, hits) if hits else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After the test's body: fail it if its emulator received a canary."""
    try:
        result = yield
    except BaseException:
        for handle in item.stash.get(_NET_KEY, []):
            _take(handle, item.nodeid)  # recorded; the test's own failure stands
        raise
    messages = [m for handle in item.stash.get(_NET_KEY, []) if (m := _check(handle, item.nodeid))]
    if messages:
        pytest.fail("\n".join(messages), pytrace=False)
    return result


def _teardown_check(handle: EmulatorHandle, test: str) -> None:
    """Requests that arrived after the test's body ended (still the test's own)."""
    message = _check(handle, test)
    if message:
        pytest.fail(message, pytrace=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A canary found too late to fail its test fails the session."""
    if _net["late"] and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    found = _net["found"]
    terminalreporter.write_line(f"canary net: {_net['checked']} requests checked, {len(found)} canaries found")
    for test, kind, hit in found:
        terminalreporter.write_line(f"  {test}: {kind} canary in {hit['request']}: ...{hit['excerpt']!r}...")


# -- emulators ------------------------------------------------------------------------


def _session_emulator(*args: str, api_key: str) -> Iterator[EmulatorHandle]:
    proc, url = start_emulator(*args)
    handle = EmulatorHandle(url, api_key)
    try:
        handle.set_canaries(SESSION_CANARIES)
        yield handle
        _take(handle, handle.last_test or "(no test)", late=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def emulator_process() -> Iterator[EmulatorHandle]:
    yield from _session_emulator("--api-key", EMULATOR_KEY, api_key=EMULATOR_KEY)


@pytest.fixture
def emulator(emulator_process: EmulatorHandle, request: pytest.FixtureRequest) -> Iterator[EmulatorHandle]:
    """The shared emulator with counters and faults reset for this test; the test fails
    if a request it made the emulator receive holds a canary."""
    yield _netted(request, emulator_process)
    _teardown_check(emulator_process, request.node.nodeid)


@pytest.fixture(scope="session")
def keyless_emulator_process() -> Iterator[EmulatorHandle]:
    """An emulator that asks for no key, as `sparkls emulate` runs by default."""
    yield from _session_emulator(api_key="")


@pytest.fixture
def keyless_emulator(keyless_emulator_process: EmulatorHandle, request: pytest.FixtureRequest) -> Iterator[EmulatorHandle]:
    """The keyless emulator with counters and faults reset for this test (and the canary net)."""
    yield _netted(request, keyless_emulator_process)
    _teardown_check(keyless_emulator_process, request.node.nodeid)
