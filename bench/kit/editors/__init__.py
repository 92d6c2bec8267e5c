"""Drivers of real editors (Neovim, Emacs with eglot and lsp-mode, a Helix replay) through
the documented set-ups: tests/editors/ asserts on their runs, bench/ times them."""
