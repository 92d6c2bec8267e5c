"""Neovim 0.7 (Debian's package), headless, through the documented 0.7 set-up, against real sparkls."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.editors import nvim_checks
from bench.kit.editors.docs import code_blocks
from bench.kit.editors.driver import unavailable
from bench.kit.editors.nvim_driver import NVIM_07, debian_nvim, run_flow
from bench.kit.editors.workspace import (
    EDIT_NAME,
    NEXT_EDIT_KEYS,
    QUICK_FIX_TITLE,
    REFINE,
    REFINED,
    lines_range,
    utf16_range,
)


@pytest.fixture(scope="module")
def nvim() -> str:
    """Debian's 0.7 by its path: the venv's Neovim 0.12 comes first on the editors' PATH."""
    return debian_nvim() or unavailable("nvim")


@pytest.fixture(scope="module")
def run(nvim, keyless_emulator_process, tmp_path_factory):
    """One run of the user's flow (bench/kit/editors/nvim_driver.py): quick fix, edits, refine,
    write, multi-file task, next edit, an edit with a warning, the context view, follow-ups
    in other files."""
    keyless_emulator_process.reset()
    run, path = run_flow(nvim, tmp_path_factory.mktemp("nvim"), keyless_emulator_process.url, version=NVIM_07)
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return run, path


@pytest.fixture(scope="module")
def flow(run):
    return run[0].result, run[1]


def test_flow_writes_the_edited_file(flow):
    """The quick fix, both edits and the refine land in the buffer, and `:write` saves them."""
    _, path = flow
    assert path.read_text(encoding="utf-8") == REFINED


def test_quick_fix_is_offered_and_resolved(flow):
    """Neovim lists "Fix with Spark" for the linter's diagnostic and resolves its edit."""
    result, _ = flow
    assert result["quickfix"]["offered"] == [QUICK_FIX_TITLE]
    assert result["requests"][:2] == ["textDocument/codeAction", "codeAction/resolve"]


def test_charwise_selection_is_sent_in_utf16(flow):
    """A selection after an emoji and CJK text reaches the server in UTF-16 columns."""
    result, _ = flow
    assert result["offset_encoding"] == "utf-16"
    (argument,) = result["commands"][0]["arguments"]
    assert argument["range"] == utf16_range(9, "nme")
    assert argument["instruction"] == EDIT_NAME


def test_linewise_selection_sends_whole_lines(flow):
    """A linewise selection of lines 4-6 is sent as the range (3, 0)-(6, 0)."""
    result, _ = flow
    (argument,) = result["commands"][1]["arguments"]
    assert argument["range"] == lines_range(3, 5)


def test_edits_are_applied_by_neovim(flow):
    """Both sparkls.edit calls report an edit Neovim applied, and every step of the flow passed."""
    result, _ = flow
    assert [c["result"]["applied"] for c in result["commands"][:2]] == [True, True]
    assert result["steps"] == NVIM_07.expected_steps()


def test_each_keymap_says_it_is_at_work_then_applied(flow):
    """"Spark: editing…" as soon as the request goes, "Spark: applied in N ms" when it lands."""
    nvim_checks.busy_then_applied(flow[0])


def test_a_warning_is_shown_with_the_applied_message(flow):
    """The "possible invented API" warning is in the keymap's last message, not overwritten by it."""
    nvim_checks.warning_is_kept(flow[0])


def test_refine_revises_the_last_edit_over_the_warm_socket(flow, keyless_emulator_process):
    """<leader>sr sends sparkls.refine the buffer's URI and the instruction; the server
    continues the edit's response (previous_response_id) and Neovim applies the result."""
    result, path = flow
    (argument,) = result["refine"]["arguments"]
    assert argument == {"uri": path.as_uri(), "instruction": REFINE}
    assert result["refine"]["result"]["applied"] is True and result["refine"]["result"]["chained"] is True
    assert keyless_emulator_process.stats()["chained"] >= 1


def test_multi_file_task_is_applied(flow):
    """<leader>st with two files open: sent with both files and the selection, applied to
    both (as plain `changes`: Neovim declares no workspaceEdit.documentChanges)."""
    nvim_checks.task_is_applied(*flow)


def test_a_renamed_definition_updates_its_uses_in_other_files(flow):
    """Renaming `area` lists "Spark: update 4 places in 2 files"; picked, it renames the
    uses in the open report.py and in summary.py, loaded into a buffer, modified, not
    written (plain `changes`: 0.7 declares no documentChanges)."""
    nvim_checks.follow_ups_update_other_files(*flow)


def test_u_undoes_the_follow_up_in_each_buffer(flow):
    """`u` in summary.py's buffer undoes its follow-up edit; in report.py, the task's edit with it."""
    nvim_checks.undo_per_buffer(flow[0])


def test_context_view_opens_the_prompt_in_a_scratch_buffer(flow):
    """<leader>sc on 0.7 (no window/showDocument): the prompt in a scratch buffer."""
    result, _ = flow
    nvim_checks.context_shows_the_prompt(result)
    assert result["context"]["buftype"] == "nofile"
    (argument,) = [c for c in result["commands"] if "instruction" not in c["arguments"][0]][0]["arguments"]
    assert argument["range"]["start"]["line"] == 9


def test_no_error_in_the_lsp_log(run):
    """Nothing from sparkls on stderr, nothing at ERROR in Neovim's LSP log."""
    nvim_checks.quiet_log(run[0])


def test_status_reaches_the_statusline(flow):
    """`sparkls/status` feeds the documented statusline variable, and the timings are recorded."""
    result, _ = flow
    assert re.fullmatch(r"Spark \(local\): ready( \d+ ms)?", result["status_line"]), result["status_line"]
    assert "ready" in result["statuses"]
    assert 0 < result["timings_ms"]["initialize"] <= result["timings_ms"]["warm"]


def test_documented_lua_compiles(nvim, tmp_path):
    """Every Lua block of neovim.md compiles in Neovim's LuaJIT, the 0.8-0.12 ones included."""
    blocks = [b for found in code_blocks("neovim.md", "lua").values() for b in found]
    assert len(blocks) >= 5
    files = []
    for n, text in enumerate(blocks):
        files.append(tmp_path / f"block{n}.lua")
        files[-1].write_text(text, encoding="utf-8")
    check = (
        "local bad = {} "
        f"for _, f in ipairs(vim.split('{','.join(map(str, files))}', ',')) do "
        "local ok, err = loadfile(f) if not ok then table.insert(bad, err) end end "
        "if #bad > 0 then io.stderr:write(table.concat(bad, '\\n')) vim.cmd('cquit 1') end"
    )
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-c", f"lua {check}", "-c", "qall!"],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_emulators_init_options_line_compiles(nvim, tmp_path):
    """What `sparkls emulate` prints for Neovim is a field of the set-up's table."""
    from sparkls.emulator.editor_settings import snippets

    snippet = next(text for where, text in snippets("http://127.0.0.1:8765/v1").items() if where.startswith("Neovim"))
    (tmp_path / "snippet.lua").write_text(f"return {{ name = 'sparkls', {snippet} }}\n", encoding="utf-8")
    check = (
        f"local ok, t = pcall(function() return assert(loadfile('{tmp_path / 'snippet.lua'}'))() end) "
        "if not ok or t.init_options.localBaseUrl ~= 'http://127.0.0.1:8765/v1' then "
        "io.stderr:write(tostring(t)) vim.cmd('cquit 1') end"
    )
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-c", f"lua {check}", "-c", "qall!"],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_a_typed_rename_offers_the_next_edit(flow):
    """Renaming `name` by typing: the documented handler announces the next edit; its code action renames the use."""
    assert NEXT_EDIT_KEYS.endswith("who")
    nvim_checks.next_edit_renames_the_use(flow[0])


@pytest.mark.parametrize("heading", ["Neovim 0.11+", "Neovim 0.8 – 0.10", "Neovim 0.7"])
def test_every_set_up_asks_for_the_notifications_the_commands_handle(heading):
    """The commands block handles sparkls/status and sparkls/nextEdit, which sparkls sends
    only when asked: each set-up asks, and keeps the emulator's line."""
    from bench.kit.editors.docs import block

    text = block("neovim.md", "lua", heading)
    assert "notifications = { 'status', 'nextEdit' }" in text
    assert "-- localBaseUrl = 'http://127.0.0.1:8765/v1'," in text
