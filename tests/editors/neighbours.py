"""sparkls beside the real `ruff server`: the file each editor flow opens last, the
steps it takes there, and what must hold after each.

In every editor (Neovim 0.12, lsp-mode, eglot through rass, the Helix replay) the
flow opens FILE in the same project (its names are none the flows before it rename), with ruff (the pinned PyPI `ruff`) and sparkls
attached as the editor's page sets them up, and then:

1. "fix": on ruff's F821 for `raduis` (line 4), picks "Fix with Spark: Undefined name
   `raduis`": the fix lands, and ruff, told of it, drops its diagnostic;
2. "shift": selects `circumference` (lines 3-4) and picks "Spark: Add a docstring": a line is
   added, and ruff's F821 for `nme` moves from line 8 to line 9 with the text;
3. "ruff": on line 0, picks ruff's own "Ruff (F401): Remove unused import: `os`",
   resolved by ruff: the import goes, and ruff's F821 moves back to line 8.

After each step the flow waits for ruff's diagnostics of the text as it is (ruff
publishes them with the document's version: a server that missed an edit never
catches up) and records them as [line, message] pairs, 0-based. Each editor's test
also checks that neither server said anything wrong (its own logs and messages).
"""

from __future__ import annotations

from typing import Any

FILE = "circle.py"
TEXT = '''import os


def circumference(radius):
    return 2 * 3.14 * raduis


def label(name):
    return "Label: " + nme
'''
F401 = "`os` imported but unused"
F821_RADUIS = "Undefined name `raduis`"
F821_NME = "Undefined name `nme`"
FIX_TITLE = f"Fix with Spark: {F821_RADUIS}"
SHIFT_TITLE = "Spark: Add a docstring"
RUFF_TITLE = "Ruff (F401): Remove unused import: `os`"

STEPS: dict[str, Any] = {
    "file": FILE,
    "fix": {"line": 4, "title": FIX_TITLE},
    "shift": {"line": 3, "to_line": 4, "title": SHIFT_TITLE},
    "ruff": {"line": 0, "title": RUFF_TITLE},
}

FIXED = TEXT.replace("raduis", "radius")
SHIFTED = FIXED.replace("def circumference(radius):\n", 'def circumference(radius):\n    """Circumference."""\n')
RUFF_FIXED = SHIFTED.replace("import os\n", "", 1)

# Ruff's diagnostics ([line, first line of the message]) of each text, sorted.
EXPECTED = {
    "start": [[0, F401], [4, F821_RADUIS], [8, F821_NME]],
    "fix": [[0, F401], [8, F821_NME]],
    "shift": [[0, F401], [9, F821_NME]],
    "ruff": [[8, F821_NME]],
}
TEXTS = {"fix": FIXED, "shift": SHIFTED, "ruff": RUFF_FIXED}


def check(record: dict[str, Any]) -> None:
    """What an editor flow recorded in FILE: {"texts": {step: text}, "diagnostics":
    {step: [[line, message], ...]}, "offered": {step: [titles]}}."""
    for step, title in (("fix", FIX_TITLE), ("shift", SHIFT_TITLE), ("ruff", RUFF_TITLE)):
        assert any(t == title or t.startswith(title + " [") for t in record["offered"][step]), (step, record["offered"])
    assert record["texts"] == TEXTS, record["texts"]
    assert record["diagnostics"] == EXPECTED, record["diagnostics"]


def first_line(message: str) -> str:
    """Ruff's message without its `help:` lines (editors keep them or not)."""
    return message.splitlines()[0] if message else message
