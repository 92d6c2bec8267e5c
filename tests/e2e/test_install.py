"""The install routes of docs/install.md: the wheel carries everything sparkls reads
at run time, and `pipx install .` / `uv tool install .` put a working `sparkls` on PATH.

Each works on a copy of the sources (a build writes build/ and *.egg-info beside
them). The pipx and uv tests need those tools: skipped without them, except under CI,
where .ci/run installs both and a missing one is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from sparkls import __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "server" / "sparkls"
IN_CI = bool(os.environ.get("CI"))


def tool(name: str) -> str:
    """The path of `name` on PATH; the test is skipped without it, except under CI."""
    found = shutil.which(name)
    if found is None:
        if IN_CI:
            pytest.fail(f"{name} is not on PATH; .ci/run installs it")
        pytest.skip(f"{name} is not installed")
    return found


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """What a source distribution holds: pyproject.toml, README.md, LICENSE and server/."""
    copy = tmp_path_factory.mktemp("sources")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "server", copy / "server", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    return copy


@pytest.fixture(scope="module")
def wheel(sources, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check", "-w", str(out), str(sources)],
        check=True,
        timeout=600,
    )
    (built,) = out.glob("sparkls-*.whl")
    return built


def package_files() -> set[str]:
    """Every file of server/sparkls/ as a wheel names it: code, queries, py.typed."""
    return {
        "sparkls/" + path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_wheel_carries_every_file_of_the_package(wheel):
    """The wheel holds all of server/sparkls/: the .py files, the .scm queries and py.typed."""
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = package_files() - names
    assert not missing and "sparkls/py.typed" in names and any(n.endswith("/python/scopes.scm") for n in names), missing


def test_the_wheel_declares_the_sparkls_command(wheel):
    """Its entry points make `sparkls` run sparkls.cli:main."""
    with zipfile.ZipFile(wheel) as archive:
        (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(entry_points).decode()
    assert "[console_scripts]" in text and "sparkls = sparkls.cli:main" in text


def _send(stdin, message: dict) -> None:
    body = json.dumps(message).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdin.flush()


def _answer(stdout, request_id: int) -> dict:
    """Read messages until the response to `request_id` (the server's own requests and
    notifications are passed over)."""
    while True:
        length = None
        while (line := stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length is not None, "the server closed stdout"
        message = json.loads(stdout.read(length))
        if message.get("id") == request_id and "method" not in message:
            return message


def one_session(command: list[str]) -> tuple[dict, dict]:
    """initialize, shutdown and exit through `command`'s stdio, as an editor does: the
    two responses. The process must exit 0 with nothing on stderr."""
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test, not the run
        watchdog.start()
        try:
            _send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
            initialize = _answer(proc.stdout, 1)
            _send(proc.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
            _send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
            shutdown = _answer(proc.stdout, 2)
            _send(proc.stdin, {"jsonrpc": "2.0", "method": "exit"})
            proc.stdin.close()
            stderr = proc.stderr.read()
            assert proc.wait(timeout=60) == 0 and stderr == b"", stderr.decode()
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
    return initialize, shutdown


def check_installed(bin_dir: Path) -> None:
    sparkls = bin_dir / "sparkls"
    version = subprocess.run([str(sparkls), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert version.stdout.strip() == f"sparkls {__version__}"
    initialize, shutdown = one_session([str(sparkls)])
    assert initialize["result"]["serverInfo"]["name"] == "sparkls" and shutdown["result"] is None


def test_pipx_install_puts_a_working_sparkls_on_path(sources, tmp_path):
    """`pipx install .` into a fresh PIPX_HOME: `sparkls --version` and an LSP session work."""
    pipx = tool("pipx")
    home, bin_dir = tmp_path / "pipx-home", tmp_path / "bin"
    env = dict(os.environ, PIPX_HOME=str(home), PIPX_BIN_DIR=str(bin_dir), PIPX_MAN_DIR=str(tmp_path / "man"))
    subprocess.run([pipx, "install", "--python", sys.executable, str(sources)], env=env, check=True, capture_output=True, timeout=900)
    check_installed(bin_dir)


def test_uv_tool_install_puts_a_working_sparkls_on_path(sources, tmp_path):
    """`uv tool install .` into a fresh tool folder: `sparkls --version` and an LSP session work."""
    uv = tool("uv")
    bin_dir = tmp_path / "bin"
    env = dict(os.environ, UV_TOOL_DIR=str(tmp_path / "tools"), UV_TOOL_BIN_DIR=str(bin_dir), UV_PYTHON_DOWNLOADS="never")
    subprocess.run([uv, "tool", "install", "--python", sys.executable, str(sources)], env=env, check=True, capture_output=True, timeout=900)
    check_installed(bin_dir)


def test_python_m_sparkls_is_the_command():
    """`python -m sparkls` (the editors' fallback) answers as `sparkls` does."""
    initialize, _ = one_session([sys.executable, "-m", "sparkls"])
    assert initialize["result"]["serverInfo"] == {"name": "sparkls", "version": __version__}
