"""The settings model: sources, camelCase, bad values, API keys."""

import pytest

from sparkls.config import load_settings, read_project_file
from sparkls.errors import MissingApiKey


def test_defaults_match_design():
    """With no sources, the tiers are DESIGN.md's defaults."""
    settings, problems = load_settings()
    assert problems == []
    assert settings.fast.model == "gpt-5.3-codex-spark"
    assert settings.fast.transport == "websocket"
    assert settings.deep.transport == "http"
    assert settings.fast.websocket_url == "wss://api.openai.com/v1/responses"


def test_camel_case_and_precedence():
    """Later sources win key by key; camelCase keys are accepted."""
    settings, problems = load_settings(
        {"fast": {"model": "toml-model", "base_url": "http://127.0.0.1:1/v1"}},
        {"fast": {"baseUrl": "http://127.0.0.1:2/v1"}, "apiKeyEnv": "MY_KEY"},
    )
    assert problems == []
    assert settings.fast.model == "toml-model"
    assert settings.fast.base_url == "http://127.0.0.1:2/v1"
    assert settings.fast.websocket_url == "ws://127.0.0.1:2/v1/responses"
    assert settings.api_key_env == "MY_KEY"


def test_invalid_value_keeps_default_and_other_keys():
    """A bad key is reported and dropped; its siblings still apply."""
    settings, problems = load_settings({"fast": {"transport": "carrier-pigeon", "model": "m"}})
    assert settings.fast.transport == "websocket"
    assert settings.fast.model == "m"
    assert len(problems) == 1 and "fast.transport" in problems[0]


def test_unknown_key_is_reported():
    """A misspelt key is named in the problems."""
    _, problems = load_settings({"fats": {}})
    assert problems and "fats" in problems[0] and "unknown" in problems[0]


def test_websocket_needs_responses_api():
    """transport websocket with api chat is refused; chat alone defaults to http."""
    settings, problems = load_settings({"fast": {"api": "chat", "transport": "websocket"}})
    assert settings.fast.api == "chat" and settings.fast.transport == "http"
    assert problems and "fast.transport" in problems[0]
    settings, problems = load_settings({"fast": {"api": "chat"}})
    assert settings.fast.transport == "http" and problems == []


def test_api_key_from_env_named_by_setting():
    """The key is read from the variable `api_key_env` names; a tier may name its own."""
    settings, _ = load_settings({"apiKeyEnv": "K1", "deep": {"api_key_env": "K2"}})
    env = {"K1": "one", "K2": "two"}
    assert settings.api_key_for("fast", env) == "one"
    assert settings.api_key_for("deep", env) == "two"


def test_missing_api_key_names_the_variable():
    """With no key, the error tells the user which variable to set."""
    settings, _ = load_settings()
    with pytest.raises(MissingApiKey, match="OPENAI_API_KEY"):
        settings.api_key_for("fast", {})


def test_direct_api_key_is_never_shown():
    """A key given in settings is used but not printed in reprs or dumps."""
    settings, _ = load_settings({"fast": {"apiKey": "sk-secret-123"}})
    assert settings.api_key_for("fast", {}) == "sk-secret-123"
    assert "sk-secret-123" not in repr(settings)
    assert "sk-secret-123" not in settings.model_dump_json()


def test_project_file(tmp_path):
    """`.sparkls.toml` is read from the root; a broken one is reported, not fatal."""
    (tmp_path / ".sparkls.toml").write_text('[fast]\nmodel = "local"\n')
    data, problems = read_project_file(tmp_path)
    assert data == {"fast": {"model": "local"}} and problems == []
    (tmp_path / ".sparkls.toml").write_text("[fast\n")
    data, problems = read_project_file(tmp_path)
    assert data is None and problems


def test_log_redaction():
    """Keys never reach a log line, in any of the shapes they travel in."""
    from sparkls.logs import redact

    line = redact(
        "params {'apiKey': 'abc123', \"api_key\": \"def456\"} Authorization: Bearer tok789 sk-proj-secret99"
    )
    for secret in ("abc123", "def456", "tok789", "sk-proj-secret99"):
        assert secret not in line


def test_a_project_file_cannot_point_a_tier_at_a_foreign_host(tmp_path):
    """`.sparkls.toml` naming another host loses that base_url (with a message); loopback and OpenAI stay."""
    from sparkls.config import load_settings, read_project_file

    (tmp_path / ".sparkls.toml").write_text(
        '[fast]\nbase_url = "https://collector.example/v1"\n[deep]\nbase_url = "http://127.0.0.1:8080/v1"\n'
    )
    project, problems = read_project_file(tmp_path)
    settings, _ = load_settings(project)
    assert settings.fast.base_url == "https://api.openai.com/v1"
    assert settings.deep.base_url == "http://127.0.0.1:8080/v1"
    assert len(problems) == 1 and "collector.example" in problems[0] and "editor's" in problems[0]


def test_the_editor_settings_may_name_any_host():
    """The user's own settings (initializationOptions) are trusted with any endpoint."""
    from sparkls.config import load_settings

    settings, problems = load_settings(None, {"fast": {"baseUrl": "https://proxy.corp.example/v1"}})
    assert settings.fast.base_url == "https://proxy.corp.example/v1" and problems == []
