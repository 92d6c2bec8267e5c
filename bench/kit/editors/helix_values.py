"""What Helix sends that does not depend on the session: its capabilities, its name and
version, its position encodings, and how it orders code actions (helix_client.py names
the upstream files each is read from).
"""

from __future__ import annotations

from typing import Any

VERSION = "25.07.1 (079a789e)"
ENCODINGS = ["utf-8", "utf-32", "utf-16"]
WIDTH = {"utf-8": lambda ch: len(ch.encode("utf-8")), "utf-16": lambda ch: len(ch.encode("utf-16-le")) // 2,
         "utf-32": lambda ch: 1}
# languages.toml's `file-types` for the languages helix.md gives sparkls (its `language-id`s).
LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".js": "javascript", ".go": "go", ".rs": "rust"}
_KINDS = ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source",
          "source.organizeImports", "source.fixAll"]


def capabilities(enable_snippets: bool = True) -> dict[str, Any]:
    """Helix's ClientCapabilities (client.rs `initialize`), as it serializes them."""
    no_dynamic = {"dynamicRegistration": False}
    symbol_kinds = {"valueSet": list(range(1, 27))}
    return {
        "workspace": {
            "configuration": True, "didChangeConfiguration": no_dynamic, "workspaceFolders": True,
            "applyEdit": True, "symbol": {"dynamicRegistration": False, "symbolKind": symbol_kinds},
            "executeCommand": no_dynamic, "inlayHint": {"refreshSupport": False},
            "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename", "delete"],
                              "failureHandling": "abort", "normalizesLineEndings": False},
            "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
            "fileOperations": {k: True for k in ("willCreate", "didCreate", "willRename", "didRename",
                                                  "willDelete", "didDelete")},
            "diagnostic": {"refreshSupport": True},
        },
        "textDocument": {
            "completion": {
                "completionItem": {
                    "snippetSupport": enable_snippets,
                    "resolveSupport": {"properties": ["documentation", "detail", "additionalTextEdits"]},
                    "insertReplaceSupport": True, "deprecatedSupport": True, "tagSupport": {"valueSet": [1]},
                },
                "completionItemKind": {},
            },
            "hover": {"contentFormat": ["markdown"]},
            "signatureHelp": {"signatureInformation": {"documentationFormat": ["markdown"],
                              "parameterInformation": {"labelOffsetSupport": True}, "activeParameterSupport": True}},
            "rename": {"dynamicRegistration": False, "prepareSupport": True, "honorsChangeAnnotations": False},
            "formatting": no_dynamic,
            "codeAction": {
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": _KINDS}},
                "isPreferredSupport": True, "disabledSupport": True, "dataSupport": True,
                "resolveSupport": {"properties": ["edit", "command"]},
            },
            "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": True},
            "publishDiagnostics": {"versionSupport": True, "tagSupport": {"valueSet": [1, 2]}},
            "inlayHint": no_dynamic,
            "documentLink": {"dynamicRegistration": False, "tooltipSupport": False},
            "callHierarchy": no_dynamic,
            "documentSymbol": {"dynamicRegistration": False, "symbolKind": symbol_kinds,
                               "hierarchicalDocumentSymbolSupport": False},
        },
        "window": {
            "showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}},
            "workDoneProgress": True, "showDocument": {"support": True},
        },
        "general": {"positionEncodings": ENCODINGS},
    }


def priority(action: dict[str, Any]) -> int:
    """action.rs `lsp_code_action_priority`: kind category, then fixes a diagnostic, then preferred."""
    if isinstance(action.get("command"), str):  # a bare Command
        return 0
    parts = (action.get("kind") or "").split(".") + [""]
    sub = {"extract": 6, "inline": 5, "rewrite": 4, "move": 3, "surround": 2}.get(parts[1], 1)
    category = {"quickfix": 7, "refactor": sub, "source": 1}.get(parts[0], 0) if action.get("kind") else 0
    return category * 4 + (2 if action.get("diagnostics") else 0) + (1 if action.get("isPreferred") else 0)


def traverse(pos: dict[str, int], text: str, encoding: str) -> dict[str, int]:
    """The position after `text` from `pos` (client.rs `traverse`; the texts here use \\n)."""
    line, character = pos["line"], pos["character"]
    for ch in text:
        if ch == "\n":
            line, character = line + 1, 0
        else:
            character += WIDTH[encoding](ch)
    return {"line": line, "character": character}
