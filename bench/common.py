"""Helpers shared by the benchmarks (run as scripts, so this folder is on sys.path).

- `pct`: a nearest-rank percentile;
- `emulator(...)`: `sparkls emulate` (`sparkls.tools.devclient.start_emulator`) for a
  `with` block, stopped after it; its `Emulator` knows the URLs, the emulator's
  counters and faults, and puts `latency_proxy.py` in front of it (`proxied`,
  `networks`);
- `make_certificate`: a self-signed certificate for a TLS emulator.

The LSP client the benchmarks share (raw JSON-RPC over a server's pipes) is `rawlsp.py`;
the ones that drive sparkls as an editor would use `sparkls.tools.devclient`.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl CLI): (cert, key)."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", "k.pem", "-out", "c.pem"],
        cwd=folder, check=True, capture_output=True,
    )
    return folder / "c.pem", folder / "k.pem"


@contextlib.contextmanager
def proxied(target: str, rtt_ms: float) -> Iterator[int]:
    """`latency_proxy.py` in its own process (so that the client's work never delays
    it) in front of `target` ("host:port") for the block's time; yields its port."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("latency_proxy.py")), "--target", target,
                             "--rtt-ms", str(rtt_ms)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "latency proxy on 127.0.0.1:PORT -> ..."
        yield int(line.split()[3].rsplit(":", 1)[1])
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@dataclass
class Emulator:
    """A running `sparkls emulate`: `url` is its API root (`http(s)://127.0.0.1:PORT/v1`)."""

    proc: subprocess.Popen[str]
    url: str

    @property
    def root(self) -> str:
        """The URL without `/v1`, where the emulator's own `/_emulator/...` routes are."""
        return self.url.removesuffix("/v1")

    @property
    def target(self) -> str:
        """"host:port", for a proxy."""
        return self.url.split("://", 1)[1].split("/", 1)[0]

    @property
    def ws_url(self) -> str:
        """The Responses WebSocket: `ws(s)://.../v1/responses`."""
        return "ws" + self.url.removeprefix("http") + "/responses"

    def stats(self) -> dict[str, Any]:
        """The emulator's counters (`/_emulator/stats`: `responses`, connections...)."""
        import httpx

        return httpx.get(self.root + "/_emulator/stats", timeout=10).json()

    def faults(self, faults: dict[str, Any]) -> None:
        """Set the emulator's faults (`/_emulator/faults`: pacing per model, errors...)."""
        import httpx

        httpx.post(self.root + "/_emulator/faults", json=faults, timeout=10).raise_for_status()

    @contextlib.contextmanager
    def proxied(self, rtt_ms: float) -> Iterator[str]:
        """The API root through `latency_proxy.py` at `rtt_ms`, for the block's time."""
        with proxied(self.target, rtt_ms) as port:
            yield f"{self.url.split('://', 1)[0]}://127.0.0.1:{port}/v1"

    def networks(self, rtts: Iterable[float]) -> Iterator[tuple[float | None, str]]:
        """(None, the API root on loopback), then (rtt, the API root behind a proxy at
        that RTT) for each of `rtts`, each proxy up while the loop's body runs."""
        yield None, self.url
        for rtt in rtts:
            with self.proxied(rtt) as url:
                yield rtt, url


@contextlib.contextmanager
def emulator(*extra: str, started: tuple[subprocess.Popen[str], str] | None = None) -> Iterator[Emulator]:
    """`sparkls emulate --port 0 *extra` for the block's time (or an emulator the caller
    `started` itself, as `(process, API root)`), stopped after it."""
    if started is None:
        from sparkls.tools.devclient import start_emulator  # here: most benchmarks import this file for `pct` alone

        started = start_emulator(*extra)
    proc, url = started
    try:
        yield Emulator(proc, url)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def each_build(run: Any, args: Any) -> dict[str, Any]:
    """`run(name, env, emulator_url, args)` for this build, then (`args.compare`: another
    checkout's path) for that build's `server/` on PYTHONPATH, against one emulator."""
    builds: dict[str, dict[str, str | None]] = {"this": {}}
    if args.compare:
        builds["compared"] = {"PYTHONPATH": str(Path(args.compare).resolve() / "server")}
    results: dict[str, Any] = {}
    with emulator() as emu:
        for name, env in builds.items():
            results[name] = await run(name, env, emu.url, args)
    return results


def rtts(text: str) -> list[float]:
    """`--rtts 20,80` as numbers."""
    return [float(r) for r in text.split(",") if r]
