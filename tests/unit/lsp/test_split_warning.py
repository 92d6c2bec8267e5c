"""The warning shown once when one tier is local and the other remote (lsp/status.py, warn_if_split)."""

from __future__ import annotations

from typing import Any

from sparkls.config import load_settings
from sparkls.lsp.server import SparkServer

LOCAL = "http://127.0.0.1:8765/v1"


def _server(options: dict[str, Any]) -> tuple[SparkServer, list[str]]:
    server, shown = SparkServer(), []
    server.settings = load_settings(options)[0]
    server.notify_user = lambda message, kind=None: shown.append(message)  # type: ignore[method-assign]
    return server, shown


def test_a_split_whose_remote_tier_has_a_key_warns_once():
    """Fast local, deep remote with a key: one warning, however often the settings are read."""
    server, shown = _server({"fast": {"baseUrl": LOCAL}, "deep": {"apiKey": "sk-deep"}})
    server.status_board.warn_if_split()
    server.status_board.warn_if_split()
    assert len(shown) == 1 and "deep tier still goes to api.openai.com" in shown[0]


def test_a_split_whose_remote_tier_has_no_key_does_not_warn():
    """Nothing can be sent to a remote tier without a key: no warning (a request names the key)."""
    server, shown = _server({"fast": {"baseUrl": LOCAL}})
    server.status_board.warn_if_split()
    assert shown == []


def test_both_tiers_local_does_not_warn():
    """`localBaseUrl`: nothing is remote, nothing to say."""
    server, shown = _server({"localBaseUrl": LOCAL, "apiKey": "sk-global"})
    server.status_board.warn_if_split()
    assert shown == []
