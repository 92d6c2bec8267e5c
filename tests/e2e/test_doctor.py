"""`sparkls doctor`: the real command against the real emulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

UNSET_VARIABLE = "SPARKLS_DOCTOR_TEST_UNSET_KEY"


def doctor(
    root: Path, settings: dict[str, Any], *extra: str, log_level: str = "INFO"
) -> subprocess.CompletedProcess[str]:
    """Run `sparkls doctor` with `settings` in an empty workspace, without OPENAI_API_KEY."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", UNSET_VARIABLE)}
    command = [sys.executable, "-m", "sparkls", "--log-level", log_level, "doctor"]
    command += ["--root", str(root), "--settings", json.dumps(settings), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def api_traffic(emulator: Any) -> dict[str, int]:
    """The emulator's counters, minus the TCP connections its control endpoint itself uses."""
    return {k: v for k, v in emulator.stats().items() if k != "tcp_connections"}


def both_tiers(emulator: Any, key: str | None = None, **top: Any) -> dict[str, Any]:
    """Both tiers on the emulator; `key` given to each (a local tier gets no global key)."""
    tier = {"baseUrl": emulator.url, **({"apiKey": key} if key is not None else {})}
    return {"fast": tier, "deep": dict(tier), **top}


def test_all_checks_pass_against_the_emulator(emulator, tmp_path):
    """Both tiers pass every check, and the fast tier's socket was opened and warmed."""
    proc = doctor(tmp_path, both_tiers(emulator, emulator.api_key))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "websocket handshake" in proc.stdout and "All checks passed." in proc.stdout
    assert proc.stdout.count("http request") == 2
    stats = emulator.stats()
    assert stats["ws_connections"] >= 1 and stats["warmups"] >= 1


def test_missing_key_names_the_variable_and_sends_nothing(emulator, tmp_path):
    """A tier's key variable unset: exit 1, the variable to set is named, and no request reaches the API."""
    before = api_traffic(emulator)
    tier = {"baseUrl": emulator.url, "apiKeyEnv": UNSET_VARIABLE}
    settings = {"fast": tier, "deep": tier}
    proc = doctor(tmp_path, settings)
    assert proc.returncode == 1
    assert UNSET_VARIABLE in proc.stdout
    assert api_traffic(emulator) == before


def test_wrong_key_is_reported_as_rejected(emulator, tmp_path):
    """A key the API refuses: exit 1 with "API key rejected"."""
    proc = doctor(tmp_path, both_tiers(emulator, "sk-not-the-emulator-key"))
    assert proc.returncode == 1
    assert "API key rejected" in proc.stdout


def test_key_never_appears_in_the_output(emulator, tmp_path):
    """Neither a good nor a rejected key is printed, in the report or the logs."""
    wrong = "sk-doctor-distinctive-7f3a9c2e"
    for key in (emulator.api_key, wrong):
        proc = doctor(tmp_path, both_tiers(emulator, key), log_level="DEBUG")
        assert key not in proc.stdout and key not in proc.stderr
        assert "set (in settings)" in proc.stdout


def test_json_lists_every_check(emulator, tmp_path):
    """`--json` prints one object naming each check with its outcome and timing."""
    proc = doctor(tmp_path, both_tiers(emulator, emulator.api_key), "--json")
    report = json.loads(proc.stdout)
    assert report["ok"] is True and proc.returncode == 0
    names = [(c["tier"], c["name"]) for c in report["checks"]]
    assert names == [
        (None, "configuration"),
        ("fast", "api key"),
        ("fast", "websocket handshake"),
        ("fast", "websocket warm-up"),
        ("fast", "websocket mode"),
        ("fast", "http request (responses)"),
        ("deep", "api key"),
        ("deep", "http request (responses)"),
    ]
    assert all({"ok", "ms", "message"} <= set(c) for c in report["checks"])


def test_websocket_mode_says_lanes_or_a_pool(emulator, tmp_path):
    """The fast tier's mode: lanes where the server runs them; a pool, and why, where
    it refuses `stream_id`; a pool by the `lanes` setting. Each passes."""
    settings = {"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}}
    runs = {}
    for name, lanes_setting, server_lanes in (("lanes", True, True), ("refused", True, False), ("off", False, True)):
        emulator.set_lanes(server_lanes)
        tier = {**settings["fast"], "lanes": lanes_setting}
        proc = doctor(tmp_path, {"fast": tier}, "--tier", "fast", "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        runs[name] = next(c for c in json.loads(proc.stdout)["checks"] if c["name"] == "websocket mode")["message"]
    assert runs["lanes"].startswith("lanes: concurrent requests share one connection")
    assert runs["refused"].startswith("a pool of 2 sockets") and "does not run lanes" in runs["refused"]
    assert "stream_id" in runs["refused"]
    assert runs["off"] == "a pool of 2 sockets, one response at a time on each (setting `lanes` is off)"


def test_chat_api_skips_the_websocket_and_passes_over_http(emulator, tmp_path):
    """A tier with `api = "chat"` gets no WebSocket check; its Chat Completions request passes."""
    settings = {"fast": {"baseUrl": emulator.url, "api": "chat", "apiKey": emulator.api_key}}
    proc = doctor(tmp_path, settings, "--tier", "fast")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "websocket" not in proc.stdout and "http request (chat)" in proc.stdout
    assert emulator.stats()["ws_connections"] == 0


def test_a_local_endpoint_passes_with_no_key(keyless_emulator, tmp_path):
    """`localBaseUrl` and no key anywhere: every check passes, each tier is said to be local."""
    proc = doctor(tmp_path, {"localBaseUrl": keyless_emulator.url})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(f"local (this machine): {keyless_emulator.host}") == 2
    assert proc.stdout.count("none sent") == 2 and "warning" not in proc.stdout


def test_a_local_tier_beside_a_remote_one_is_warned(keyless_emulator, tmp_path):
    """Fast on loopback, deep at OpenAI: the report says where each goes and warns."""
    proc = doctor(tmp_path, {"fast": {"baseUrl": keyless_emulator.url}}, "--tier", "fast")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"local (this machine): {keyless_emulator.host}" in proc.stdout
    assert "warning: The fast tier is local" in proc.stdout
    assert "the deep tier still goes to api.openai.com" in proc.stdout


def test_json_says_where_each_tier_goes_and_warns(keyless_emulator, tmp_path):
    """`--json`: each tier's `where`, and the split in `warnings`."""
    proc = doctor(tmp_path, {"deep": {"baseUrl": keyless_emulator.url}}, "--json", "--tier", "deep")
    report = json.loads(proc.stdout)
    assert report["tiers"]["deep"]["where"] == f"local (this machine): {keyless_emulator.host}"
    assert len(report["warnings"]) == 1 and "fast tier still goes to api.openai.com" in report["warnings"][0]


def test_no_key_points_to_the_emulator(tmp_path):
    """No OPENAI_API_KEY and remote tiers: set it, or try without a key through
    `sparkls emulate` and `localBaseUrl` (the doctor line to run is given)."""
    proc = doctor(tmp_path, {}, "--tier", "fast")
    assert proc.returncode == 1
    assert "set the environment variable OPENAI_API_KEY" in proc.stdout
    assert "run `sparkls emulate` and set `local_base_url` (`localBaseUrl` in an editor's settings)" in proc.stdout
    assert """sparkls doctor --settings '{"localBaseUrl": "http://127.0.0.1:8765/v1"}'""" in proc.stdout


def test_a_stopped_emulator_is_named(tmp_path):
    """localBaseUrl at a port where nothing listens: the failure asks whether the server
    runs and names `local_base_url`, the setting the user set."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = doctor(tmp_path, {"localBaseUrl": f"http://127.0.0.1:{port}/v1"}, "--tier", "fast", "--timeout", "5")
    assert proc.returncode == 1
    assert f"cannot connect to http://127.0.0.1:{port}/v1 (connection refused)" in proc.stdout
    assert "correct `local_base_url`" in proc.stdout and "All connection attempts failed" not in proc.stdout


def test_a_ca_file_that_does_not_load_is_named_and_nothing_is_sent(emulator, tmp_path):
    """`ca_file` naming a file that is not a CA bundle: exit 1, the file and the setting
    are named, the network checks are skipped, and no request reaches the API."""
    before = api_traffic(emulator)
    ca_file = tmp_path / "proxy-ca.pem"
    ca_file.write_text("not a certificate\n")
    settings = both_tiers(emulator, emulator.api_key)
    settings["fast"]["caFile"] = settings["deep"]["caFile"] = str(ca_file)
    proc = doctor(tmp_path, settings)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for tier in ("fast", "deep"):
        assert f"cannot load the CA bundle {ca_file} (`{tier}.ca_file`)" in proc.stdout
    assert proc.stdout.count("skipped: no usable ca_file") == 2
    assert api_traffic(emulator) == before
