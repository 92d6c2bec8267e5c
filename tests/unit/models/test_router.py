"""Which tier serves a request, and the reason the user reads."""

from sparkls.models.router import Route, RouteRequest, choose_tier


def test_single_file_edit_that_fits_goes_fast():
    """A one-file request within budget is served by the fast tier."""
    route = choose_tier(RouteRequest(files=1, context_tokens=800, fast_budget_tokens=4000))
    assert route.tier == "fast"
    assert route.summary == "served by the fast tier: a single-file edit that fits the fast tier"


def test_user_request_for_deep_wins():
    """Asking for the deep tier sends even a small edit there."""
    route = choose_tier(RouteRequest(deep_requested=True))
    assert route == Route("deep", "you asked for the deep tier")


def test_request_spanning_files_goes_deep():
    """A task over three files is deep, and the reason says how many."""
    route = choose_tier(RouteRequest(files=3))
    assert route.summary == "served by the deep tier: the task spans 3 files"


def test_context_over_budget_goes_deep():
    """A context larger than the fast tier's budget is deep, with both figures."""
    route = choose_tier(RouteRequest(context_tokens=12_500, fast_budget_tokens=8_000))
    assert route.tier == "deep"
    assert "12,500 tokens" in route.reason and "8,000 tokens" in route.reason


def test_context_exactly_at_budget_stays_fast():
    """A context equal to the budget still fits."""
    assert choose_tier(RouteRequest(context_tokens=8_000, fast_budget_tokens=8_000)).tier == "fast"


def test_no_budget_means_no_size_limit():
    """Without a budget, size alone never escalates."""
    assert choose_tier(RouteRequest(context_tokens=10**6)).tier == "fast"


def test_failed_fast_edit_escalates_with_its_reason():
    """A fast-tier edit that failed validation goes deep, quoting why it failed."""
    route = choose_tier(RouteRequest(fast_failure="new syntax error on line 4"))
    assert route.summary == (
        "served by the deep tier: the fast tier's edit failed validation (new syntax error on line 4)"
    )


def test_first_reason_in_order_is_reported():
    """With several reasons, the user's own request is named first, then failure, then files."""
    assert choose_tier(RouteRequest(deep_requested=True, files=4)).reason == "you asked for the deep tier"
    assert "failed validation" in choose_tier(RouteRequest(fast_failure="x", files=4)).reason
    assert "spans 4 files" in choose_tier(RouteRequest(files=4, context_tokens=9, fast_budget_tokens=1)).reason
