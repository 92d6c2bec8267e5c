"""Which of sparkls's own notifications a client asked for (lsp/notifications.py)."""

from __future__ import annotations

from sparkls.lsp.notifications import asked_for


def test_nothing_asked_means_none_sent():
    """No option and no capability: no notification, the options as given, no problem."""
    options = {"fast": {"model": "m"}}
    assert asked_for(options, None) == (frozenset(), options, [])


def test_the_option_is_taken_out_of_the_settings():
    """`notifications` is the client's: the settings read from the options no longer hold it,
    and the caller's dict is left as it was."""
    options = {"notifications": ["status", "sparkls/nextEdit"], "fast": {"model": "m"}}
    names, settings, problems = asked_for(options, None)
    assert names == {"status", "nextEdit"} and settings == {"fast": {"model": "m"}} and problems == []
    assert "notifications" in options


def test_the_experimental_capability_asks_too():
    """`experimental.sparkls.notifications` adds to what the option asked for."""
    names, _, _ = asked_for({"notifications": ["status"]}, {"sparkls": {"notifications": ["nextEdit"]}, "other": 1})
    assert names == {"status", "nextEdit"}


def test_unknown_and_malformed_names_are_problems():
    """An unknown name is reported and dropped; a value that is not a list of names is ignored whole."""
    names, _, problems = asked_for({"notifications": ["status", "hover"]}, {"sparkls": {"notifications": "status"}})
    assert names == {"status"}
    assert problems == [
        "`initializationOptions.notifications`: unknown notification hover (known: nextEdit, status)",
        "`capabilities.experimental.sparkls.notifications` must be a list of names (nextEdit, status); ignored",
    ]


def test_options_that_are_not_an_object_pass_through():
    """Non-object options are left for the settings reader to report."""
    assert asked_for(["x"], None) == (frozenset(), ["x"], [])
