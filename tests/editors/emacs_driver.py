"""The Emacs flow: Emacs in batch mode, eglot, the documented set-up, real sparkls.

`run_flow` writes the workspace (tests/editors/workspace.py), extracts the
standalone set-up and the commands from docs/editors/emacs.md, and runs
`eglot_flow.el` in `emacs --batch`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.editors import neighbours
from tests.editors.docs import block
from tests.editors.driver import EditorRun, editor_env, run_editor
from tests.editors.workspace import (
    DIAGNOSTIC,
    EDIT_NAME,
    EDIT_PARAMETER,
    REFINE,
    SAMPLE,
    TASK,
    write_workspace,
)

HERE = Path(__file__).resolve().parent
DOC_BLOCKS = [("Standalone", 0), ("Edit with an instruction, and multi-file tasks", 0)]

FLOW = {
    "quickfix": {"diagnostic": DIAGNOSTIC},
    "edits": [
        {"line": 10, "select": "nme", "instruction": EDIT_NAME},
        {"line": 4, "to_line": 6, "instruction": EDIT_PARAMETER},
    ],
    "refine": REFINE,
    "context": 6,
    "task": {"line": 4, "to_line": 6, "instruction": TASK},
    "follow_ups": {"line": 4, "name": "area", "type": "circle_area", "pick": "Spark: update"},
}

# Two more files of the project use `area`: report.py, visited in Emacs just before the
# follow-ups step, and summary.py, never visited. Last, `area` is renamed by typing over
# it in `def area(r):` (line 4), and "Spark: update ..." updates both: the import and the
# call in each, not the string nor the comment. The edits step's rename of the parameter
# `radius`, still among the recent edits, finds no call passing it by name.
OTHER_FILE = "report.py"
OTHER_TEXT = 'from shapes import area\n\nprint("Area of a circle:", area(2))\n'
CLOSED_FILE = "summary.py"
CLOSED_TEXT = "from shapes import area\n\n\ndef total(radii):\n    # the area of each\n    return sum(area(r) for r in radii)\n"
FOLLOW_UPS_TITLE = "Spark: update 4 uses of area in 2 files"
OTHER_FOLLOWED = OTHER_TEXT.replace("import area", "import circle_area").replace("area(2)", "circle_area(2)")
CLOSED_FOLLOWED = CLOSED_TEXT.replace("import area", "import circle_area").replace("(area(r)", "(circle_area(r)")

# An edit against a slow model, with a line typed at the top of the file meanwhile.
# With "idle", the user stops typing before the model answers (eglot then sends the
# change); without, the answer comes while the change is still held back by eglot.
TYPED = "# typed while Spark worked"


def slow_flow(*, idle: bool) -> dict:
    step = {"line": 10, "select": "nme", "instruction": EDIT_NAME, "type_line": 1, "type": TYPED + "\r"}
    return {"slow": {**step, "idle": idle}}

SLOW_EXPECTED = TYPED + "\n" + SAMPLE.replace("+ nme", "+ name")


def eglot_available(emacs: str) -> bool:
    """Whether `emacs` can load eglot the way the flow does."""
    done = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(require 'eglot)"],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
    )
    return done.returncode == 0


def run_flow(
    emacs: str, tmp: Path, emulator_url: str, *, flow: dict | None = None, timeout: float = 120
) -> tuple[EditorRun, Path]:
    """Run the flow (the whole of FLOW unless told) once; returns the run and the edited file."""
    path = write_workspace(tmp / "project", emulator_url)
    flow = flow or FLOW
    if "follow_ups" in flow:
        other, closed = path.parent / OTHER_FILE, path.parent / CLOSED_FILE
        other.write_text(OTHER_TEXT, encoding="utf-8")
        closed.write_text(CLOSED_TEXT, encoding="utf-8")
        flow = {**flow, "follow_ups": {**flow["follow_ups"], "other": str(other), "closed": str(closed)}}
    docs = tmp / "sparkls-docs.el"
    blocks = [block("emacs.md", "elisp", heading, nth) for heading, nth in DOC_BLOCKS]
    docs.write_text("\n".join(blocks), encoding="utf-8")
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        SPARKLS_EMACS_DOCS=str(docs),
        SPARKLS_EMACS_FILE=str(path),
        SPARKLS_EMACS_FLOW=json.dumps(flow),
        SPARKLS_EMACS_RESULT=str(result),
        SPARKLS_EMACS_TIMEOUT=str(timeout / 3),
    )
    argv = [emacs, "--batch", "-q", "-l", str(HERE / "eglot_flow.el")]
    return run_editor(argv, env, result, cwd=path.parent, timeout=timeout), path


RASS_HEADING = "Beside another server"
DOCUMENTED_URL = "http://127.0.0.1:8765/v1"
# Typed last, at the end of circle.py (RET indents the body): completion at point lists
# sparkls's item through rass, completing `rad` from the function's own `radius`.
COMPLETE = {"type": "\ndef area(radius):\rreturn 3.14 * rad"}


def run_rass_flow(emacs: str, tmp: Path, emulator_url: str, *, timeout: float = 120) -> tuple[EditorRun, Path]:
    """eglot through the page's `rass` set-up (ruff and sparkls behind it, the emulator's
    URL in place of the documented one), in tests/editors/neighbours.py's file: its steps,
    then a completion. Returns the run and the file."""
    root = tmp / "project"
    root.mkdir(parents=True)
    path = root / neighbours.FILE
    path.write_text(neighbours.TEXT, encoding="utf-8")
    docs = tmp / "sparkls-docs.el"
    blocks = [block("emacs.md", "elisp", RASS_HEADING).replace(DOCUMENTED_URL, emulator_url),
              block("emacs.md", "elisp", "Edit with an instruction, and multi-file tasks")]
    docs.write_text("\n".join(blocks), encoding="utf-8")
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        SPARKLS_EMACS_DOCS=str(docs),
        SPARKLS_EMACS_FILE=str(path),
        SPARKLS_EMACS_FLOW=json.dumps({"neighbours": neighbours.STEPS, "complete": COMPLETE}),
        SPARKLS_EMACS_RESULT=str(result),
        SPARKLS_EMACS_TIMEOUT=str(timeout / 3),
    )
    argv = [emacs, "--batch", "-q", "-l", str(HERE / "eglot_flow.el")]
    return run_editor(argv, env, result, cwd=root, timeout=timeout), path
