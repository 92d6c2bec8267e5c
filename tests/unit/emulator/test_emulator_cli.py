"""``sparkls emulate`` flags and process life (``python -m sparkls.emulator``)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sparkls.emulator import cli

SERVER_DIR = Path(cli.__file__).resolve().parents[2]


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_flags_become_default_faults():
    """Pacing and fault flags become the emulator's default faults."""
    args = parse("--port", "0", "--tokens-per-second", "1000", "--delay-ms", "20",
                 "--drop-after", "5", "--error-status", "429", "--error-code", "slow_down")
    emulator = cli.build_emulator(args)
    faults = emulator.faults
    assert faults.tokens_per_second == 1000.0 and faults.delay_ms == 20
    assert faults.drop_after_deltas == 5
    assert (faults.error_status, faults.error_code) == (429, "slow_down")


def test_behaviour_flags_become_default_faults():
    """--behaviour, --reply, --chat-flavour and --retry-after become default faults."""
    args = parse("--behaviour", "commentary", "--reply", "diff", "--chat-flavour", "llama.cpp",
                 "--retry-after", "2.5", "--close-on-connection-limit")
    emulator = cli.build_emulator(args)
    faults = emulator.faults
    assert (faults.behaviour, faults.reply, faults.chat_flavour) == ("commentary", "diff", "llama.cpp")
    assert faults.retry_after == 2.5 and emulator.close_on_connection_limit


def test_unknown_behaviour_flag_is_a_usage_error():
    """--behaviour with an unknown name is refused by the parser."""
    with pytest.raises(SystemExit):
        parse("--behaviour", "sulk")


def test_models_and_key_flags(monkeypatch):
    """--models splits on commas; the key falls back to SPARKLS_EMULATOR_API_KEY."""
    monkeypatch.setenv(cli.API_KEY_ENV, "sk-env")
    emulator = cli.build_emulator(parse("--models", "a, b", "--max-connection-seconds", "9"))
    assert emulator.models == frozenset({"a", "b"})
    assert emulator.api_key == "sk-env"
    assert emulator.max_connection_seconds == 9
    assert cli.build_emulator(parse("--api-key", "sk-flag")).api_key == "sk-flag"


def test_non_loopback_host_is_refused():
    """The emulator refuses to listen beyond loopback."""
    with pytest.raises(ValueError):
        cli.build_emulator(parse("--host", "0.0.0.0"))


def test_process_prints_ready_line_and_stops_on_sigterm():
    """The process prints the ready line first, then the editors' settings, and exits 0 on SIGTERM."""
    env = dict(os.environ, PYTHONPATH=str(SERVER_DIR))
    env.pop(cli.API_KEY_ENV, None)
    command = [sys.executable, "-m", "sparkls.emulator", "--port", "0"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    ) as process:
        try:
            line = process.stdout.readline().strip()
            prefix = "sparkls emulator listening on http://127.0.0.1:"
            assert line.startswith(prefix) and line.endswith("/v1")
            url = line.removeprefix("sparkls emulator listening on ")
            help_lines = [process.stdout.readline() for _ in range(5)]
            assert f'local_base_url = "{url}"' in "".join(help_lines)
            reply = httpx.post(url + "/responses", json={"model": "m", "input": "COMPLETE ok"})
            assert reply.json()["output"][-1]["content"][0]["text"] == "```\nok\n```"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0
            assert "Check it: sparkls doctor" in process.stdout.read()
        finally:
            if process.poll() is None:
                process.kill()
