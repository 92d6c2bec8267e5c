"""What `sparkls emulate` prints for each editor: valid in its syntax, both tiers local."""

import json
import tomllib

from sparkls.config import load_settings, snake_keys
from sparkls.emulator import cli
from sparkls.emulator.editor_settings import KEY_ENV, settings_help, snippets

URL = "http://127.0.0.1:4321/v1"
SNIPPETS = snippets(URL)


def _snippet(prefix: str) -> str:
    return next(text for where, text in SNIPPETS.items() if where.startswith(prefix))


def _both_local(options: dict) -> None:
    settings, problems = load_settings(options)
    assert problems == []
    assert (settings.fast.base_url, settings.deep.base_url) == (URL, URL)


def test_project_file_line_puts_both_tiers_on_the_emulator():
    """The `.sparkls.toml` line is TOML that loads with both tiers at the URL."""
    _both_local(tomllib.loads(_snippet(".sparkls.toml")))


def test_vscode_line_is_a_settings_json_entry():
    """The VS Code line is a `sparkls.*` settings.json entry the extension sends as `localBaseUrl`."""
    entry = json.loads("{" + _snippet("VS Code") + "}")
    ((key, value),) = entry.items()
    assert key == "sparkls.localBaseUrl"
    _both_local({key.removeprefix("sparkls."): value})


def test_helix_block_is_languages_toml():
    """The Helix block is a `[language-server.sparkls]` table whose config loads."""
    server = tomllib.loads(_snippet("Helix"))["language-server"]["sparkls"]
    assert server["command"] == "sparkls"
    _both_local(server["config"])


def test_neovim_and_emacs_use_the_camel_case_key():
    """Neovim's init_options and eglot's plist name `localBaseUrl` and the URL."""
    assert "localBaseUrl = '" + URL + "'" in _snippet("Neovim")
    assert ':localBaseUrl "' + URL + '"' in _snippet("Emacs")
    assert snake_keys({"localBaseUrl": URL}) == {"local_base_url": URL}


def test_a_required_key_is_explained():
    """Started with --api-key: the help says how to give each tier the key, by variable."""
    text = settings_help(URL, key_required=True)
    assert KEY_ENV == cli.API_KEY_ENV
    assert f'deep.api_key_env to "{KEY_ENV}"' in text


def test_every_snippet_is_in_the_help():
    """The printed help carries each snippet, indented, after its heading."""
    text = settings_help(URL)
    for where, snippet in SNIPPETS.items():
        assert where in text
        assert all(f"    {line}" in text for line in snippet.splitlines())


def test_emulator_md_shows_what_is_printed():
    """docs/emulator.md quotes the emulator's output for the default address word for word."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "emulator.md").read_text(encoding="utf-8")
    section = page.split("## Trying sparkls on it, with no key", 1)[1]
    quoted = section.split("```\n", 2)[1]
    assert quoted.rstrip("\n") == settings_help("http://127.0.0.1:8765/v1")


def test_editor_snippets_ask_for_the_notifications_their_set_ups_handle():
    """Neovim's, eglot's and lsp-mode's documented set-ups handle `sparkls/status` and
    `sparkls/nextEdit`: what the emulator prints for them asks for both, as the set-ups
    do, so pasting it does not drop them; Helix has no handler and asks for none."""
    assert "notifications = { 'status', 'nextEdit' }" in _snippet("Neovim")
    assert ':notifications ["status" "nextEdit"]' in _snippet("Emacs (eglot)")
    assert ':notifications ["status" "nextEdit"]' in _snippet("Emacs (lsp-mode)")
    assert ':localBaseUrl "' + URL + '"' in _snippet("Emacs (lsp-mode)")
    assert "notifications" not in _snippet("Helix")
