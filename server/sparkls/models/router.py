"""Which tier serves a request, and why, in words a user can read. Pure.

The deep tier serves a request when the user asks for it, when the request spans
several files, when its context does not fit the fast tier's budget, or when a
fast-tier edit of it already failed validation; otherwise the fast tier does. The
first of these reasons, in that order, is the one reported.

The caller measures (files, tokens) and knows the budget; the router only decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Tier = Literal["fast", "deep"]


@dataclass(frozen=True, slots=True)
class RouteRequest:
    files: int = 1  # how many files the request touches
    context_tokens: int = 0  # the estimated size of the fast tier's prompt for it
    fast_budget_tokens: int | None = None  # what fits the fast tier; None: no limit
    deep_requested: bool = False  # the user asked for the deep tier (`sparkls.task`, say)
    fast_failure: str | None = None  # why a fast-tier edit of this request failed validation


@dataclass(frozen=True, slots=True)
class Route:
    tier: Tier
    reason: str  # completes "served by the <tier> tier: ..."

    @property
    def summary(self) -> str:
        return f"served by the {self.tier} tier: {self.reason}"


def choose_tier(request: RouteRequest) -> Route:
    if request.deep_requested:
        return Route("deep", "you asked for the deep tier")
    if request.fast_failure:
        return Route("deep", f"the fast tier's edit failed validation ({request.fast_failure})")
    if request.files > 1:
        return Route("deep", f"the task spans {request.files} files")
    budget = request.fast_budget_tokens
    if budget is not None and request.context_tokens > budget:
        return Route(
            "deep",
            f"its context (about {request.context_tokens:,} tokens) does not fit the fast tier's "
            f"budget ({budget:,} tokens)",
        )
    return Route("fast", "a single-file edit that fits the fast tier")
