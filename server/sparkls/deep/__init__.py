"""The deep tier's pure core: prompt, reply blocks, paths, apply, plan, WorkspaceEdit.

Nothing here speaks LSP or does I/O beyond the path checks' filesystem seam; the
handler reads documents, calls these functions and converts the result (lsp/workspace_edit.py).
"""
