"""Where the prompt of "Show Spark context" is, told to users of editors that cannot open it."""

from pathlib import Path

from sparkls.lsp.handlers.context import where_logged


def test_neovim_users_are_sent_to_the_lsp_log():
    """Neovim (0.7: no showDocument) keeps logMessage in its LSP log, at INFO."""
    assert "vim.lsp.get_log_path()" in where_logged("Neovim", Path("/w/proj"))


def test_helix_users_are_sent_to_its_log():
    """Helix keeps logMessage in :log-open."""
    assert ":log-open" in where_logged("helix", Path("/w/proj"))


def test_a_client_without_a_name_is_taken_for_eglot():
    """Eglot 1.9 sends no clientInfo: its events buffer is named after the project folder."""
    assert "*EGLOT (proj/(MODES)) events*" in where_logged(None, Path("/w/proj"))
