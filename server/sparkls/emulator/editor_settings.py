"""The settings that point both sparkls tiers at a running emulator, for each editor.

`sparkls emulate` prints them after its "listening on" line, so that trying sparkls
without a key is one paste: the `local_base_url` switch (config/model.py) keeps both tiers on
this machine and needs no key; the editors' snippets also ask for the notifications their
documented set-ups handle (`notifications`). Pure text; tests check each snippet in its
own syntax.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sparkls.endpoints import is_loopback_host

KEY_ENV = "SPARKLS_EMULATOR_API_KEY"  # the emulator's own (cli.API_KEY_ENV)


def snippets(url: str) -> dict[str, str]:
    """Where it goes -> what to paste there, for an emulator at *url*."""
    return {
        ".sparkls.toml at the project root (any editor)": f'local_base_url = "{url}"',
        "VS Code, settings.json": f'"sparkls.localBaseUrl": "{url}"',
        "Neovim, as the init_options of the set-up (docs/editors/neovim.md)": (
            f"init_options = {{ notifications = {{ 'status', 'nextEdit' }}, localBaseUrl = '{url}' }},"
        ),
        "Helix, languages.toml": (
            f'[language-server.sparkls]\ncommand = "sparkls"\nconfig = {{ localBaseUrl = "{url}" }}'
        ),
        "Emacs (eglot), init file": (
            "(with-eval-after-load 'eglot\n"
            "  (add-to-list 'eglot-server-programs\n"
            "               '((python-mode python-ts-mode)\n"
            f'                 . ("sparkls" :initializationOptions (:localBaseUrl "{url}"\n'
            '                                                      :notifications ["status" "nextEdit"])))))'
        ),
        "Emacs (lsp-mode), in the make-lsp-client of docs/editors/lsp-mode.md": (
            f":initialization-options '(:localBaseUrl \"{url}\" :notifications [\"status\" \"nextEdit\"])"
        ),
    }


def settings_help(url: str, *, key_required: bool = False, ca_file: str | None = None) -> str:
    """What to paste in each editor so that both tiers use the emulator at *url*."""
    if not is_loopback_host(urlsplit(url).hostname):  # the emulator refuses such a --host
        return f"Not on loopback: point fast.base_url and deep.base_url at {url} in the editor's settings."
    lines = ["Point both sparkls tiers here with the `local_base_url` setting (no API key needed):"]
    for where, text in snippets(url).items():
        lines += ["", f"  {where}:", *(f"    {line}" for line in text.splitlines())]
    if key_required:
        lines += [
            "",
            f"Started with --api-key: a local tier is sent only a key given to it. Put the key in {KEY_ENV}",
            f'in the editor\'s environment, and in its sparkls settings set fast.api_key_env and deep.api_key_env to "{KEY_ENV}".',
        ]
    if ca_file is not None:
        lines += ["", f"Serving TLS with its own certificate: also set fast.ca_file and deep.ca_file to {ca_file}."]
    lines += ["", f"Check it: sparkls doctor --settings '{{\"localBaseUrl\": \"{url}\"}}'"]
    return "\n".join(lines)
