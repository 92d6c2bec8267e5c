"""Helpers shared by the benchmarks (run as scripts, so this folder is on sys.path)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


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
    it) for the block's time; yields its port."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("latency_proxy.py")), "--target", target,
                             "--rtt-ms", str(rtt_ms)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "latency proxy on 127.0.0.1:PORT -> ..."
        yield int(line.split()[3].rsplit(":", 1)[1])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
