"""Inline completions: what Spark suggests at the cursor while the user types.

- `extract`: the completion in a new region — what changed at the cursor (pure);
- `cache`: typing through a suggestion serves the rest of it without the model (pure);
- `request/latest.LatestOnly` (shared with next edit): debounce, one request at work per
  document, a newer one supersedes;
- `service`: the three together with the fast tier (`CompletionService`, `ask_model`).

Nothing here knows LSP: `lsp/handlers/inline.py` turns offsets into positions and items.
"""

from sparkls.completion.cache import TypingCache
from sparkls.completion.extract import Completion, completion_at_cursor
from sparkls.request.latest import LatestOnly, outcome
from sparkls.completion.service import COMPLETION_INSTRUCTION, CompletionService, ask_model

__all__ = [
    "COMPLETION_INSTRUCTION",
    "Completion",
    "CompletionService",
    "LatestOnly",
    "TypingCache",
    "ask_model",
    "completion_at_cursor",
    "outcome",
]
