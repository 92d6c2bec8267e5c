"""Next-edit suggestions: after an edit, the edit that follows from it elsewhere.

- `history`: the document's last few edits, coalesced from keystrokes, as diffs (pure);
- `candidates`: where the next edit may be — uses of a renamed name, calls of a
  changed function, branches over an enum with a new member (tree-sitter; pure);
- `prompt`: the `Region N` / `NO_EDIT` protocol (docs/model-protocol.md; pure);
- `ask`: one question to the fast tier, answered as a region rewrite (`Suggestion`);
- `service`: per document, one debounced question at a time and the offer's life
  (accepted, dropped, expired).

Nothing here knows LSP but the LSP face, `handlers.py` (and `followup_handlers.py`):
it turns suggestions into code actions, inline items and `sparkls/nextEdit`
notifications.
"""
