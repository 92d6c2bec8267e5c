"""`Snippet`: a piece of context beside the region, with where it comes from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Snippet:
    path: str  # workspace-relative
    start_line: int  # 0-based, inclusive
    end_line: int
    kind: str  # "import", "container", "definition" (whole), "signature" (head only), "attribute"
    text: str  # as in the file: the guard redacts it on the way out


# Kinds that show a definition the region uses (the rest: imports, container headers).
DEFINITION_KINDS = frozenset({"definition", "signature", "attribute"})
