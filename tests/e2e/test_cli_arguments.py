"""Every `sparkls` argument is checked: a mistake is one line on stderr and a non-zero
exit, never a traceback; and `sparkls` on a terminal says what it is."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import tty

import pytest

SPARKLS = [sys.executable, "-m", "sparkls"]
NINE_LINES = "import os\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\nprint(f(2))\n"


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "f.py").write_text(NINE_LINES)
    (tmp_path / "pkg").mkdir()
    return tmp_path


def refused(*args: str, cwd=None) -> tuple[int, str]:
    """Run `sparkls ARGS`; its exit code and its stderr, which must be one line (and stdout empty)."""
    proc = subprocess.run([*SPARKLS, *args], capture_output=True, text=True, cwd=cwd, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.stdout == "" and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.endswith("\n"), proc.stderr
    return proc.returncode, proc.stderr


@pytest.mark.parametrize(
    "args, expected",
    [
        (["f.py", "--line", "999"], "sparkls context: --line 999 is past the end of f.py (9 lines)"),
        (["f.py", "--line", "10"], "--line 10 is past the end of f.py (9 lines)"),
        (["f.py", "--line", "0"], "argument --line: 0 is out of range (lines and columns count from 1)"),
        (["f.py", "--line", "-3"], "argument --line: -3 is out of range"),
        (["f.py", "--line", "x"], "argument --line: 'x' is not a whole number"),
        (["f.py", "--line", "5", "--column", "500"], "--column 500 is past the end of line 5 (13 characters: columns 1 to 14)"),
        (["f.py", "--line", "5", "--end-line", "2"], "--end-line 2 is before --line 5"),
        (["f.py", "--line", "5", "--end-line", "12"], "--end-line 12 is past the end of f.py (9 lines)"),
        (["f.py", "--line", "5", "--root", "/nonexistent"], "--root /nonexistent: no such directory"),
        (["f.py", "--line", "5", "--root", "f.py"], "--root f.py: not a directory"),
        (["missing.py", "--line", "1"], "missing.py: no such file"),
        (["pkg", "--line", "1"], "pkg is a directory; give a source file"),
        (["--line", "1"], "the following arguments are required: file"),
    ],
)
def test_context_refuses_a_bad_argument(workspace, args, expected):
    """`sparkls context` with a bad argument: exit 2 and one line saying what is wrong."""
    code, stderr = refused("context", *args, cwd=workspace)
    assert code == 2 and expected in stderr


def test_context_accepts_the_last_line_and_the_end_of_a_line(workspace):
    """--line 9 --column 12 (just past the last character) is a place, not an error."""
    proc = subprocess.run([*SPARKLS, "context", "f.py", "--line", "9", "--column", "12", "--json"], capture_output=True, text=True, cwd=workspace, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["region"]["path"] == "f.py"


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--port", "99999"], "argument --port: 99999 is out of range (0 to 65535; 0 picks a free port)"),
        (["--port", "-1"], "argument --port: -1 is out of range"),
        (["--port", "http"], "argument --port: 'http' is not a port"),
        (["--delay-ms", "-5"], "argument --delay-ms: -5 is out of range (0 or more)"),
        (["--drop-after", "-1"], "argument --drop-after: -1 is out of range (0 or more)"),
        (["--tokens-per-second", "0"], "argument --tokens-per-second: 0 is out of range (more than 0)"),
        (["--error-status", "200"], "argument --error-status: 200 is out of range (400 to 599)"),
        (["--retry-after", "-1"], "argument --retry-after: -1 is out of range (0 or more)"),
        (["--max-connection-seconds", "0"], "argument --max-connection-seconds: 0 is out of range (more than 0)"),
        (["--behaviour", "sulk"], "argument --behaviour: invalid choice: 'sulk'"),
        (["--host", "10.1.2.3"], "the emulator listens on loopback only"),
        (["--tls-cert", "/nonexistent.pem"], "--tls-cert and --tls-key go together"),
    ],
)
def test_emulate_refuses_a_bad_argument(args, expected):
    """`sparkls emulate` with a bad argument: exit 2 and one line naming the flag."""
    code, stderr = refused("emulate", *args)
    assert code == 2 and expected in stderr


def test_emulate_on_a_port_in_use_says_so():
    """A port another program listens on: exit 1 and one line saying the port is in use."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, stderr = refused("emulate", "--port", str(port))
    assert code == 1 and stderr == f"sparkls emulate: cannot listen on 127.0.0.1:{port}: the port is in use (--port 0 picks a free one)\n"


def test_emulate_help_describes_the_emulator():
    """`sparkls emulate --help` says what the emulator is."""
    out = subprocess.run([*SPARKLS, "emulate", "--help"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert "local stand-in for the OpenAI Responses API" in out


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--timeout", "-1"], "argument --timeout: -1 is out of range (more than 0)"),
        (["--timeout", "soon"], "argument --timeout: 'soon' is not a number of seconds"),
        (["--root", "/nonexistent"], "argument --root: /nonexistent: no such directory"),
        (["--tier", "middle"], "argument --tier: invalid choice: 'middle'"),
    ],
)
def test_doctor_refuses_a_bad_argument(args, expected):
    """`sparkls doctor` with a bad argument: exit 2 and one line naming the flag."""
    code, stderr = refused("doctor", *args)
    assert code == 2 and expected in stderr


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--log-level", "LOUD"], "sparkls: argument --log-level: invalid level 'LOUD'"),
        (["--log-file", "/nonexistent/dir/sparkls.log"], "sparkls: cannot write the log file /nonexistent/dir/sparkls.log: No such file or directory"),
        (["frobnicate"], "sparkls: argument COMMAND: invalid choice: 'frobnicate'"),
        (["--stdoi"], "sparkls: unrecognized arguments: --stdoi"),
    ],
)
def test_the_server_refuses_a_bad_argument(args, expected):
    """`sparkls` with a bad flag: exit 2 and one line, before any server starts."""
    code, stderr = refused(*args)
    assert code == 2 and expected in stderr


def test_log_level_is_case_insensitive(tmp_path):
    """--log-level debug is DEBUG."""
    log = tmp_path / "sparkls.log"
    proc = subprocess.run([*SPARKLS, "--log-level", "debug", "--log-file", str(log)], input=b"", capture_output=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == b"" and " DEBUG " in log.read_text()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}}
SHUTDOWN = {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def frame(*messages: dict) -> bytes:
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def test_on_a_terminal_it_says_it_waits_for_a_client_and_still_serves():
    """stdin a TTY: one line on stderr about waiting for an LSP client; LSP on it still works."""
    controller, terminal = pty.openpty()
    tty.setraw(terminal)  # the bytes arrive as sent: no echo, no line editing
    try:
        proc = subprocess.Popen([*SPARKLS], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(terminal)
        os.write(controller, frame(INITIALIZE, SHUTDOWN, EXIT))
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        os.close(controller)
    assert stderr.decode().splitlines() == [
        "sparkls: a language server, waiting for an LSP client on stdin (your editor starts it; "
        "see sparkls --help, or try sparkls demo). Ctrl-D quits."
    ]
    assert proc.returncode == 0 and b'"name": "sparkls"' in stdout
