"""The `sparkls` command: version, help, stdio server (the demo: test_demo.py)."""

from __future__ import annotations

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
