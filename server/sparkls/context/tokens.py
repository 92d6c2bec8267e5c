"""Token estimates for packing context into a budget, without a tokenizer download.

OpenAI's tokenizers (o200k) fetch their vocabularies at run time, which sparkls must
not do. Source code tokenizes close to this rule: a run of letters costs one token per
six characters (rounded up), a run of digits one per three, a run of punctuation one
per three, and whitespace merges into its neighbours. Calibrated against o200k on
sparkls's and httpx's sources: 1.02x the true count in all, 0.88x-1.19x per file,
leaning high, which is the safe side for a budget. Pure and fast (one regex pass).
"""

from __future__ import annotations

import re
from functools import lru_cache

_PIECE = re.compile(r"[A-Za-z_]+|\d+|[^\w\s]+|[^\x00-\x7f]")


@lru_cache(maxsize=4096)  # the same definitions come back request after request
def estimate_tokens(text: str) -> int:
    count = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        first = piece[0]
        if first.isalpha() or first == "_":
            count += (len(piece) + 5) // 6
        elif first.isdigit() or first.isascii():
            count += (len(piece) + 2) // 3
        else:
            count += 1
    return count
