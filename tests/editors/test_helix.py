"""Helix, replayed, through helix.md's set-up, against real sparkls: what one session of
the page's flow (bench/kit/editors/helix_flow.py) shows. The emulator follows the REPLACE /
COMPLETE directives written into the texts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bench.kit.editors.helix_flow import INVOICE, PYFLAKES, SHOP, _flow
from bench.kit.editors.helix_values import ENCODINGS


@pytest.fixture(scope="module")
def flow(keyless_emulator_process, tmp_path_factory) -> dict[str, Any]:
    """One Helix session through the whole page."""
    keyless_emulator_process.reset()
    root = tmp_path_factory.mktemp("helix") / "project"
    root.mkdir()
    return asyncio.run(asyncio.wait_for(_flow(root, keyless_emulator_process), 120))


def test_every_step_of_the_page_passes(flow):
    """Each documented step gives the text the page says."""
    assert flow["steps"] == {step: True for step in flow["steps"]}, flow["client"].messages
    assert len(flow["steps"]) == 10


def test_initialize_is_helixs(flow):
    """Helix's initialize (utf-8 first, its name, the page's config) gets utf-8 positions."""
    assert ENCODINGS[0] == "utf-8"
    caps = flow["initialize"]["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert caps["codeActionProvider"]["resolveProvider"] is True
    assert "completionProvider" in caps  # registered for a client without inline completion
    assert "sparkls.edit" in caps["executeCommandProvider"]["commands"]


def test_quick_fix_is_offered_for_the_other_servers_diagnostic(flow):
    """`space a` on pylsp's diagnostic lists "Fix with Spark" first (a quick fix fixing it)."""
    assert flow["quick_fix_menu"][0] == "Fix with Spark: " + PYFLAKES["message"]


def test_next_edit_is_offered_after_typed_keys(flow):
    """After `ciw` + `who`, `space a` anywhere (here on line 1) offers the next edit at the use of the old name."""
    assert "Spark: next edit at line 10" in flow["next_edit_menu"]


def test_a_slow_resolve_gets_its_progress_token_late_and_quietly(flow):
    """A resolve over 300 ms asks for a progress token while Helix blocks; Helix grants it
    after the resolve's answer, and the server says nothing on stderr about it."""
    created = [c for c in flow["calls_during_rewrite"] if c["method"] == "window/workDoneProgress/create"]
    assert created and all(c["while_blocked"] and c["answered"] and c["answers_before_answer"] >= 1 for c in created)
    assert flow["rewrite_resolve_ms"] > 300
    assert flow["client"].stderr == []


def test_the_spinner_stops_after_a_slow_resolve(flow):
    """Helix starts the server's spinner when it grants a token; the server ends every
    token it was granted, even late, so nothing spins once the work is done."""
    assert flow["spinning_at_quit"] == []


def test_rewrites_are_offered_on_a_selection(flow):
    """A selection gets the three rewrite presets."""
    assert {"Spark: Add a docstring", "Spark: Add type hints", "Spark: Simplify"} <= set(flow["rewrite_menu"])


def test_completion_is_a_menu_item_marked_spark(flow):
    """The suggestion comes as a `textDocument/completion` item, detail "Spark"."""
    (item,) = flow["completion"]["items"]
    assert item["detail"] == "Spark" and item["textEdit"]["newText"] == "a + b"


def test_context_is_a_private_file_opened_in_helix(flow):
    """"Show Spark context" opens a context.md in a 0700 folder of the server's own
    (not a fixed shared path), removed when the server exits."""
    (shown,) = flow["shown"]
    assert shown["folder_mode"] == 0o700
    assert shown["path"].parent.name.startswith("sparkls-") and shown["path"].parent.name != "sparkls-"
    assert shown["path"] != Path("/tmp/sparkls-context.md")
    assert "def label(who)" in shown["text"]
    assert flow["context_left"] == [False]


def test_workspace_command_without_arguments_says_what_is_missing(flow):
    """`:lsp-workspace-command sparkls.edit` sends `arguments: []`: a message, no edit, no crash."""
    result = flow["bare_edit"]
    assert result["applied"] is False and result["error"]["message"]
    assert [message for _, message in flow["bare_edit_messages"]] != []
    assert flow["exit_code"] == 0


def test_a_healthy_session_logs_no_error_in_helix(flow):
    """Nothing on the server's stderr, no ERROR line in Helix's log, and no custom
    notification (Helix has no handler for them and the page asks for none)."""
    helix = flow["client"]
    assert helix.stderr == [] and helix.errors() == []
    assert [method for method, _ in helix.notifications if method.startswith("sparkls/")] == []


def test_timings(flow):
    """Spawn to initialize result, and to the first code-action answer, are recorded."""
    timings = flow["client"].timings
    assert 0 < timings["initialize_ms"] < timings["first_code_action_ms"]


def test_follow_ups_update_the_open_follower_and_load_the_other(flow):
    """After `price` is renamed in lib.py, shop.py (open) is offered its own next edit; then
    `space a` in lib.py offers "Spark: update 2 uses of price in 2 files" (refactor.rewrite),
    and picking it updates shop.py's buffer and loads invoice.py into a buffer of its own,
    with no view, edited and modified: the file on disk is unchanged until `:write-all`."""
    assert flow["follower_next_edit"] == "Spark: next edit at line 3"
    assert flow["follow_ups_title"] == "Spark: update 2 uses of price in 2 files"
    assert flow["follow_ups_kind"] == "refactor.rewrite"
    assert flow["follow_ups_result"]["applied"] is True, flow["follow_ups_result"]
    # One workspace/applyEdit: shop.py at the version Helix has, invoice.py (not open) at null.
    assert flow["follow_ups_edits"] == [{"shop.py": flow["follow_ups_shop_version"], "invoice.py": None}]
    assert flow["follow_ups"] == {
        "shop.py": SHOP.replace("lib.price", "lib.gross_price"),
        "invoice.py": INVOICE.replace("lib.price", "lib.gross_price"),
        "invoice.py on disk": INVOICE, "invoice.py in a view": False, "invoice.py modified": True,
    }
