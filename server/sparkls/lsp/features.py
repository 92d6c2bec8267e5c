"""Every feature of the server, in one tuple: adding a capability is one line here.

Each is the `FEATURE` its LSP face exports (lsp/feature.py says what one declares);
the server and the core handlers loop over this tuple and name none of them. The
order is the order of the code-action kinds advertised at `initialize`; the menu
itself goes by each contribution's rank.
"""

from __future__ import annotations

from sparkls.completion.handlers import FEATURE as INLINE_COMPLETION
from sparkls.deep.handlers import FEATURE as DEEP_TASK
from sparkls.explain.handlers import FEATURE as EXPLAIN
from sparkls.fastedit.handlers import FEATURE as FAST_EDIT
from sparkls.lsp.handlers.context import FEATURE as SHOW_CONTEXT
from sparkls.nextedit.handlers import FEATURE as NEXT_EDIT
from sparkls.refine.handlers import FEATURE as REFINE

FEATURES = (FAST_EDIT, SHOW_CONTEXT, INLINE_COMPLETION, DEEP_TASK, NEXT_EDIT, REFINE, EXPLAIN)
