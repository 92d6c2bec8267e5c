"""helix.md: its languages.toml adds sparkls beside the usual server of each language.

There is no Helix package on Debian to run here; this checks the configuration the
page gives against what Helix reads (TOML, `[language-server.NAME]`, `[[language]]`).
"""

from __future__ import annotations

import tomllib

from tests.editors.docs import block

# Helix's language names, and the server it runs for each by default.
USUAL = {
    "python": "ruff",
    "typescript": "typescript-language-server",
    "tsx": "typescript-language-server",
    "go": "gopls",
    "rust": "rust-analyzer",
}


def _config() -> dict:
    return tomllib.loads(block("helix.md", "toml", "`languages.toml`"))


def test_sparkls_server_is_defined():
    """`[language-server.sparkls]` runs the `sparkls` command with no arguments (stdio)."""
    server = _config()["language-server"]["sparkls"]
    assert server == {"command": "sparkls"}


def test_ruff_is_helixs_own_server_kept_quiet():
    """`[language-server.ruff]` is Helix's `ruff server`, its log at warn (Helix logs stderr as ERROR)."""
    server = _config()["language-server"]["ruff"]
    assert server == {"command": "ruff", "args": ["server"], "config": {"settings": {"logLevel": "warn"}}}


def test_sparkls_runs_beside_the_usual_server():
    """Python, TypeScript, TSX, Go and Rust keep their usual server first and add sparkls."""
    languages = {entry["name"]: entry["language-servers"] for entry in _config()["language"]}
    assert {name: servers for name, servers in languages.items() if name in USUAL} == {
        name: [usual, "sparkls"] for name, usual in USUAL.items()
    }
