"""The Emacs flow: Emacs in batch mode, eglot, the documented set-up, real sparkls.

`run_flow` writes the workspace (tests/editors/workspace.py), extracts the
standalone set-up and the commands from docs/editors/emacs.md, and runs
`eglot_flow.el` in `emacs --batch`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.editors.docs import block
from tests.editors.driver import EditorRun, editor_env, run_editor
from tests.editors.workspace import (
    DIAGNOSTIC,
    EDIT_NAME,
    EDIT_PARAMETER,
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
    "task": {"line": 4, "to_line": 6, "instruction": TASK},
}


def eglot_available(emacs: str) -> bool:
    """Whether `emacs` can load eglot the way the flow does."""
    done = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(require 'eglot)"],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
    )
    return done.returncode == 0


def run_flow(emacs: str, tmp: Path, emulator_url: str, *, timeout: float = 120) -> tuple[EditorRun, Path]:
    """Run the whole flow once; returns the run and the edited file."""
    path = write_workspace(tmp / "project", emulator_url)
    docs = tmp / "sparkls-docs.el"
    blocks = [block("emacs.md", "elisp", heading, nth) for heading, nth in DOC_BLOCKS]
    docs.write_text("\n".join(blocks), encoding="utf-8")
    result = tmp / "result.json"
    env = editor_env(
        tmp / "home",
        SPARKLS_EMACS_DOCS=str(docs),
        SPARKLS_EMACS_FILE=str(path),
        SPARKLS_EMACS_FLOW=json.dumps(FLOW),
        SPARKLS_EMACS_RESULT=str(result),
        SPARKLS_EMACS_TIMEOUT=str(timeout / 3),
    )
    argv = [emacs, "--batch", "-q", "-l", str(HERE / "eglot_flow.el")]
    return run_editor(argv, env, result, cwd=path.parent, timeout=timeout), path
