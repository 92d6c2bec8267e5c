"""The lsp-mode flow: Emacs in batch mode, Debian's lsp-mode, the documented set-up, real
sparkls as an add-on beside the real `ruff server` (the page's "Beside ruff" block).

`run_flow` writes the workspace (tests/editors/workspace.py) without its
`.sparkls.toml`, so the emulator is reached through the documented keyless variant
(its `localBaseUrl` replaced by the test emulator's), extracts the ruff client and the
commands from docs/editors/lsp-mode.md, and runs `lsp_mode_flow.el` in `emacs --batch`;
last, in a file of its own, the steps beside ruff of tests/editors/neighbours.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.editors import neighbours
from tests.editors.docs import block
from tests.editors.driver import EditorRun, editor_env, run_editor
from tests.editors.workspace import EDIT_NAME, write_workspace

HERE = Path(__file__).resolve().parent
PAGE = "lsp-mode.md"
DOCUMENTED_URL = "http://127.0.0.1:8765/v1"
REWRITE_TITLE = "Spark: Simplify"
TASK = "REPLACE area WITH circle_area"
# ruff's diagnostic on `raduis` (line 5, 0-based), fixed by "Fix with Spark".
RUFF_DIAGNOSTIC = {"source": "Ruff", "message": neighbours.F821_RADUIS}
QUICK_FIX_TITLE = neighbours.FIX_TITLE

FLOW = {
    "fix_title": QUICK_FIX_TITLE,
    "rewrite": {"line": 9, "to_line": 10, "title": REWRITE_TITLE},
    "edit": {"line": 10, "select": "nme", "instruction": EDIT_NAME},
    "refine": 'REPLACE "+ name" WITH "+ name.strip()"',
    "context": 6,
    "task": {"line": 4, "to_line": 6, "instruction": TASK},
    "follow_ups": {"line": 9, "name": "label", "type": "tag", "pick": "Spark: update"},
}

# Two more files of the project use `label` (the task renamed `area` already): report.py,
# visited with lsp-mode on just before the follow-ups step, and summary.py, never
# visited. Last, `label` is renamed by typing over it in `def label(name):` (line 9), and
# "Spark: update ..." updates the import and the call in both, not the comment.
OTHER_FILE = "report.py"
OTHER_TEXT = 'from shapes import label\n\nprint(label("Ada"))\n'
CLOSED_FILE = "summary.py"
CLOSED_TEXT = "from shapes import label\n\n\ndef greet(names):\n    # a label for each\n    return [label(n) for n in names]\n"
FOLLOW_UPS_TITLE = "Spark: update 4 uses of label in 2 files"
OTHER_FOLLOWED = OTHER_TEXT.replace("label", "tag")
CLOSED_FOLLOWED = CLOSED_TEXT.replace("import label", "import tag").replace("[label(", "[tag(")


def lsp_mode_available(emacs: str) -> bool:
    """Whether `emacs` can load lsp-mode the way the flow does."""
    done = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(progn (package-initialize) (require 'lsp-mode))"],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
    )
    return done.returncode == 0


def run_flow(emacs: str, tmp: Path, emulator_url: str, *, timeout: float = 150) -> tuple[EditorRun, Path]:
    """Run the whole flow once; returns the run and the edited file."""
    path = write_workspace(tmp / "project", emulator_url)
    (path.parent / ".sparkls.toml").unlink()  # the emulator only through the documented option
    other, closed = path.parent / OTHER_FILE, path.parent / CLOSED_FILE
    other.write_text(OTHER_TEXT, encoding="utf-8")
    closed.write_text(CLOSED_TEXT, encoding="utf-8")
    beside = path.parent / neighbours.FILE
    beside.write_text(neighbours.TEXT, encoding="utf-8")
    flow = {
        **FLOW,
        "follow_ups": {**FLOW["follow_ups"], "other": str(other), "closed": str(closed)},
        "neighbours": {**neighbours.STEPS, "file": str(beside)},
    }
    setup = block(PAGE, "elisp", "Without a key").replace(DOCUMENTED_URL, emulator_url)
    docs = tmp / "sparkls-docs.el"
    blocks = [setup, block(PAGE, "elisp", "Beside ruff"), block(PAGE, "elisp", "Commands")]
    docs.write_text("\n".join(blocks), encoding="utf-8")
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        SPARKLS_EMACS_DOCS=str(docs),
        SPARKLS_EMACS_FILE=str(path),
        SPARKLS_EMACS_FLOW=json.dumps(flow),
        SPARKLS_EMACS_RESULT=str(result),
        SPARKLS_EMACS_TIMEOUT=str(timeout / 4),
    )
    argv = [emacs, "--batch", "-q", "-l", str(HERE / "lsp_mode_flow.el")]
    return run_editor(argv, env, result, cwd=path.parent, timeout=timeout), path
