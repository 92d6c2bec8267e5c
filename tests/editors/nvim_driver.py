"""The Neovim flow: headless Neovim, the documented 0.7 set-up, real sparkls, the emulator.

`run_flow` writes the workspace (tests/editors/workspace.py), extracts the set-up and
the commands blocks from docs/editors/neovim.md, and runs `nvim_flow.lua` in headless
Neovim. Shared by tests/editors/test_neovim.py and bench/editors.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.editors.docs import block
from tests.editors.driver import SPARKLS_BIN, EditorRun, editor_env, run_editor
from tests.editors.workspace import (
    DIAGNOSTIC,
    EDIT_NAME,
    EDIT_PARAMETER,
    NEXT_EDIT_KEYS,
    REFINE,
    TASK,
    write_workspace,
)

HERE = Path(__file__).resolve().parent
SETUP_HEADING = "Neovim 0.7"  # Debian's neovim package is 0.7.2
COMMANDS_HEADING = "Commands (all versions)"

# What the user does: a quick fix for a linter's diagnostic, a charwise selection on
# the line with an emoji and CJK text, then a linewise selection of a whole function,
# then a refine of that last edit; once the file is written, a multi-file task on the same selection.
FLOW = {
    "quickfix": {"diagnostic": DIAGNOSTIC, "pick": "Fix with Spark: "},
    "edits": [
        {"keys": "10G$v2h", "instruction": EDIT_NAME},
        {"keys": "4GV6G", "instruction": EDIT_PARAMETER},
    ],
    "refine": {"keys": "", "instruction": REFINE},
    "task": {"keys": "4GV6G", "instruction": TASK},
    # Last (after the write): rename `name` in `def label(name):` by typing; the next
    # edit renames its use, offered by the documented handler and as a code action.
    "next_edit": {"keys": NEXT_EDIT_KEYS, "pick": "Spark: next edit at line"},
}


def run_flow(
    nvim: str, tmp: Path, emulator_url: str, *, timeout: float = 120, sparkls_bin: Path = SPARKLS_BIN
) -> tuple[EditorRun, Path]:
    """Run the whole flow once, with the `sparkls` of `sparkls_bin` on PATH; returns the
    run and the edited file."""
    path = write_workspace(tmp / "project", emulator_url)
    setup, commands = tmp / "setup.lua", tmp / "commands.lua"
    setup.write_text(block("neovim.md", "lua", SETUP_HEADING), encoding="utf-8")
    commands.write_text(block("neovim.md", "lua", COMMANDS_HEADING), encoding="utf-8")
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        sparkls_bin=sparkls_bin,
        SPARKLS_NVIM_SETUP=str(setup),
        SPARKLS_NVIM_COMMANDS=str(commands),
        SPARKLS_NVIM_FILE=str(path),
        SPARKLS_NVIM_FLOW=json.dumps(FLOW),
        SPARKLS_NVIM_RESULT=str(result),
        SPARKLS_NVIM_TIMEOUT_MS=str(int(timeout * 1000 / 3)),
    )
    argv = [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-S", str(HERE / "nvim_flow.lua")]
    return run_editor(argv, env, result, cwd=path.parent, timeout=timeout), path
