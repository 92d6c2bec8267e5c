"""The `sparkls` command: version, help, stdio server, and the demo (the quick start)."""

from __future__ import annotations

import os
import subprocess
import sys

from sparkls import __version__

SPARKLS = [sys.executable, "-m", "sparkls"]


def test_version():
    """`sparkls --version` prints the package version."""
    out = subprocess.run([*SPARKLS, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"sparkls {__version__}"


def test_help_lists_subcommands():
    """`sparkls --help` names the subcommands and the stdio default."""
    out = subprocess.run([*SPARKLS, "--help"], capture_output=True, text=True, check=True).stdout
    assert "emulate" in out and "demo" in out and "--stdio" in out


def test_server_exits_when_the_editor_goes_away():
    """Closing stdin (the editor died) ends the server with nothing on stdout."""
    proc = subprocess.run([*SPARKLS, "--stdio"], input=b"", capture_output=True, timeout=30)
    assert proc.stdout == b""


def test_demo_runs_against_the_emulator():
    """The quick start's main job: three edits applied, each with a diff and timings."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    proc = subprocess.run([*SPARKLS, "demo"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Using the local emulator" in out
    assert out.count("time (ms): context") == 2  # the two sparkls.edit commands
    assert "-    return math.pi * raduis ** 2" in out and "+    return math.pi * radius ** 2" in out
    assert '+    return f"Hello, {name}!"' in out
    assert "+        self.count += step" in out
