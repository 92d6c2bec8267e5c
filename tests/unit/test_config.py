"""The settings model: sources, camelCase, bad values, API keys."""

import pytest

from sparkls.config import load_settings, read_project_file
from sparkls.errors import MissingApiKey


def test_defaults_match_design():
    """With no sources, the tiers are the documented defaults (docs/configuration.md)."""
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


@pytest.mark.parametrize(
    "written, hint",
    [
        ({"fast": {"modle": "m"}}, "unknown setting `fast.modle` (did you mean `fast.model`?)"),
        ({"fast": {"baseUrll": "http://h/v1"}}, "unknown setting `fast.baseUrll` (did you mean `fast.baseUrl`?)"),
        ({"nextEdit": {"enable": True}}, "unknown setting `nextEdit.enable` (did you mean `nextEdit.enabled`?)"),
        ({"model": "m"}, "unknown setting `model` (did you mean `fast.model` or `deep.model`?)"),
        ({"fast": {"delegate": True}}, "unknown setting `fast.delegate` (did you mean `deep.delegate`?)"),
        ({"fats": {}}, "unknown setting `fats` (did you mean `fast`?)"),
    ],
    ids=["snake", "camel", "camel-section", "wrong-level", "wrong-tier", "section"],
)
def test_an_unknown_setting_gets_did_you_mean(written, hint):
    """A misspelt key: the closest real one, spelt as the user spells keys (camelCase from an editor)."""
    _, problems = load_settings(written)
    assert problems == [hint + "; ignored"]


def test_every_source_goes_through_the_same_key_spelling():
    """An editor's `FAST.Base-Url` is `fast.base_url` too (trusted there: it applies)."""
    settings, problems = load_settings(None, {"FAST": {"Base-Url": "https://proxy.corp.example/v1"}, "API_KEY_ENV": "K"})
    assert problems == [] and settings.fast.base_url == "https://proxy.corp.example/v1" and settings.api_key_env == "K"


def test_two_spellings_of_one_key_from_an_editor_are_both_ignored():
    """`baseUrl` and `base_url` set differently in one table: neither wins, the message names both."""
    settings, problems = load_settings({"fast": {"baseUrl": "http://127.0.0.1:1/v1", "base_url": "http://127.0.0.1:2/v1"}})
    assert settings.fast.base_url == "https://api.openai.com/v1"
    assert problems == ["`fast.baseUrl` and `fast.base_url` are one setting (`fast.base_url`) given different values; both ignored"]


def test_an_unknown_setting_far_from_any_gets_no_guess():
    _, problems = load_settings({"zzzz": 1})
    assert problems == ["unknown setting `zzzz`; ignored"]


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


# -- local endpoints and keys (docs/configuration.md, "Local endpoints and keys") ---------

LOCAL = "http://127.0.0.1:8765/v1"
REAL_KEY = {"OPENAI_API_KEY": "sk-real-key-from-the-environment"}


def test_a_local_tier_needs_no_key():
    """A loopback tier with no key configured sends none instead of failing."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL}})
    assert settings.api_key_for("fast", {}) is None


def test_the_environment_key_is_never_sent_to_a_local_tier():
    """OPENAI_API_KEY set, tier on loopback: no key is sent there."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL}})
    assert settings.api_key_for("fast", REAL_KEY) is None


def test_the_global_api_key_is_never_sent_to_a_local_tier():
    """The global `api_key` (VS Code's stored key) goes to a remote tier only."""
    settings, _ = load_settings({"apiKey": "sk-stored", "fast": {"baseUrl": LOCAL}})
    assert settings.api_key_for("fast", {}) is None
    assert settings.api_key_for("deep", {}) == "sk-stored"


def test_a_key_given_to_a_local_tier_is_sent():
    """A local tier's own `api_key`, or the variable its own `api_key_env` names, is sent."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL, "apiKey": "sk-llama"}})
    assert settings.api_key_for("fast", REAL_KEY) == "sk-llama"
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL, "apiKeyEnv": "LLAMA_KEY"}})
    assert settings.api_key_for("fast", {"LLAMA_KEY": "sk-llama", **REAL_KEY}) == "sk-llama"


def test_a_local_tiers_own_variable_unset_is_an_error():
    """A local tier that names its key variable, unset: the message names it."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL, "apiKeyEnv": "LLAMA_KEY"}})
    with pytest.raises(MissingApiKey, match="LLAMA_KEY"):
        settings.api_key_for("fast", REAL_KEY)


def test_a_remote_tier_beside_a_local_one_still_needs_its_key():
    """Fast local, deep remote without a key: the deep tier fails and suggests `local_base_url`."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL}})
    with pytest.raises(MissingApiKey, match="OPENAI_API_KEY.*local_base_url"):
        settings.api_key_for("deep", {})
    assert settings.api_key_for("deep", REAL_KEY) == REAL_KEY["OPENAI_API_KEY"]


def test_local_base_url_points_both_tiers_at_it():
    """`localBaseUrl` sets both tiers' base_url; nothing else of theirs changes."""
    settings, problems = load_settings({"localBaseUrl": LOCAL})
    assert problems == []
    assert (settings.fast.base_url, settings.deep.base_url) == (LOCAL, LOCAL)
    assert (settings.fast.transport, settings.deep.transport) == ("websocket", "http")
    assert settings.fast.is_local and settings.deep.is_local


def test_a_tiers_own_local_url_wins_over_local_base_url():
    """A tier pointed at another loopback server keeps it."""
    other = "http://localhost:8080/v1"
    settings, problems = load_settings({"local_base_url": LOCAL, "deep": {"base_url": other}})
    assert (settings.fast.base_url, settings.deep.base_url) == (LOCAL, other) and problems == []


def test_local_base_url_overrides_a_remote_tier_url_and_says_so():
    """A remote base_url set beside `local_base_url` is not used, with a message, from any source."""
    settings, problems = load_settings({"localBaseUrl": LOCAL}, {"deep": {"baseUrl": "https://api.openai.com/v1"}})
    assert settings.deep.base_url == LOCAL
    assert len(problems) == 1 and "deep.base_url" in problems[0] and "not used" in problems[0]


def test_a_non_loopback_local_base_url_keeps_both_tiers_local():
    """`local_base_url` naming another machine is reported, and both tiers stay on loopback."""
    settings, problems = load_settings({"localBaseUrl": "http://192.168.1.20:8080/v1"})
    assert settings.fast.is_local and settings.deep.is_local
    assert len(problems) == 1 and "192.168.1.20" in problems[0] and "local_base_url" in problems[0]


def test_an_empty_local_base_url_is_off():
    """"" (an editor's cleared setting) leaves the tiers where they are."""
    settings, problems = load_settings({"localBaseUrl": ""})
    assert settings.local_base_url is None and settings.fast.base_url == "https://api.openai.com/v1"
    assert problems == []


def test_default_local_base_url_is_where_the_emulator_listens():
    """The fallback address is the emulator's default port."""
    from urllib.parse import urlsplit

    from sparkls.config import DEFAULT_LOCAL_BASE_URL
    from sparkls.emulator.cli import DEFAULT_PORT

    assert urlsplit(DEFAULT_LOCAL_BASE_URL).port == DEFAULT_PORT


def test_a_project_file_cannot_choose_the_key_or_its_variable(tmp_path):
    """A tier's `api_key_env` or `api_key` in `.sparkls.toml` is dropped, each with a
    message; the local tiers then get no key, as with none configured."""
    (tmp_path / ".sparkls.toml").write_text(
        '[fast]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "OPENAI_API_KEY"\n'
        '[deep]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "local"\n'
    )
    project, problems = read_project_file(tmp_path)
    settings, _ = load_settings(project)
    assert settings.api_key_for("fast", REAL_KEY) is None
    assert settings.api_key_for("deep", REAL_KEY) is None
    assert len(problems) == 2
    assert "`fast.api_key_env` = 'OPENAI_API_KEY' ignored" in problems[0]
    assert "`deep.api_key` ignored" in problems[1] and "local" not in problems[1]


def test_a_project_file_may_set_local_base_url(tmp_path):
    """`local_base_url` in `.sparkls.toml` applies: it can only name this machine."""
    (tmp_path / ".sparkls.toml").write_text(f'local_base_url = "{LOCAL}"\n')
    project, problems = read_project_file(tmp_path)
    settings, invalid = load_settings(project)
    assert problems == [] and invalid == [] and settings.deep.base_url == LOCAL
