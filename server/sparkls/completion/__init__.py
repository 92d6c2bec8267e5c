"""Inline completions: what Spark suggests at the cursor while the user types.

- `extract`: the completion in a new region — what changed at the cursor (pure);
- `cache`: typing through a suggestion serves the rest of it without the model (pure);
- `request/latest.LatestOnly` (shared with next edit): debounce, one request at work per
  document, a newer one supersedes;
- `service`: the three together with the fast tier (`CompletionService`, `ask_model`);
- `handlers`: the LSP face (the feature's `FEATURE`): offsets into positions and items.

This file imports nothing: the server loads the LSP face at start-up, and the rest when
a request first needs it.
"""
