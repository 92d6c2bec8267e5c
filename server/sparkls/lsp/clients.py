"""What some editors do beside other servers that their capabilities do not say.

sparkls runs beside the user's usual servers (ruff, pyright…), and some editors treat
a request to "the buffer's servers" in ways a single server cannot see from the
capabilities they declare. They are known by `clientInfo.name` at `initialize`:

- **lsp-mode 8** (name `emacs`) sends `codeAction/resolve` to every server of the
  buffer that declares `resolveProvider`, whichever server made the action, and then
  fails on the merged list ("Wrong type argument: hash-table-p"): ruff's own fixes
  break as soon as sparkls declares it, and sparkls's actions reach ruff ("Ruff
  document URI payload is invalid"). So sparkls declares no `resolveProvider` to it and
  gives every action of its own as a command (`sparkls.edit`…), which
  docs/editors/lsp-mode.md's set-up runs on sparkls alone (`:action-handlers`).
- **Eglot** (name `Eglot`) takes its workspace configuration from a variable a
  repository can set (lsp/handlers/lifecycle.py checks it as a project file).

Pure: names in, answers out.
"""

from __future__ import annotations

LSP_MODE = "emacs"  # lsp-mode's clientInfo.name
EGLOT = "Eglot"  # eglot's clientInfo.name


def resolves_across_servers(client_name: str | None) -> bool:
    """Whether this client sends `codeAction/resolve` to every server of the buffer, so
    that a server beside others must not declare it."""
    return client_name == LSP_MODE
