"""The project both editor flows open, and what it must look like afterwards."""

from __future__ import annotations

from pathlib import Path

from sparkls.emulator.editor_settings import snippets

PROJECT_FILE_SNIPPET = ".sparkls.toml at the project root (any editor)"

SAMPLE = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + nme
'''

# A linter's diagnostic on `raduis` (line 5, 0-based), carrying an emulator directive.
DIAGNOSTIC = {
    "line": 5, "col": 21, "end_col": 27, "source": "pyflakes",
    "message": "undefined name 'raduis'; REPLACE raduis WITH radius",
}
QUICK_FIX_TITLE = "Fix with Spark: " + DIAGNOSTIC["message"]

# Each flow then edits `nme` (after an emoji and CJK text) and renames the parameter
# `radius` across the whole function `area` (a selection of lines 4-6).
EDIT_NAME = "REPLACE nme WITH name"
EDIT_PARAMETER = "Shorter parameter: REPLACE radius WITH r"
# Neovim then refines that last edit (`sparkls.refine`, `<leader>sr`).
REFINE = 'Readable: REPLACE "r ** 2" WITH "r * r"'
# Last, once the file is saved, a multi-file task (`sparkls.task`) on the same lines:
# only what the editor sends is checked, the server side comes later.
TASK = "Add a test for area"
# Typed in Neovim after the write: `name` becomes `who` in `def label(name):` (line 9).
NEXT_EDIT_KEYS = "9G0f(lciwwho"
EXPECTED = (
    SAMPLE.replace("raduis", "radius").replace("+ nme", "+ name").replace("(radius)", "(r)").replace("* radius", "* r")
)

REFINED = EXPECTED.replace("r ** 2", "r * r")


def write_workspace(root: Path, emulator_url: str) -> Path:
    """The project a user opens: one Python file, and the line `sparkls emulate` prints
    for `.sparkls.toml`, which puts both tiers on the emulator (no key)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".sparkls.toml").write_text(snippets(emulator_url)[PROJECT_FILE_SNIPPET] + "\n", encoding="utf-8")
    path = root / "shapes.py"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def utf16_range(line: int, text: str) -> dict:
    """The LSP range of `text` on SAMPLE's `line` (0-based), in UTF-16 columns."""
    content = SAMPLE.splitlines()[line]
    start = len(content[: content.index(text)].encode("utf-16-le")) // 2
    end = start + len(text.encode("utf-16-le")) // 2
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def lines_range(first: int, last: int) -> dict:
    """Whole lines `first`..`last` (0-based): from the start of one to the start of the next."""
    return {"start": {"line": first, "character": 0}, "end": {"line": last + 1, "character": 0}}
