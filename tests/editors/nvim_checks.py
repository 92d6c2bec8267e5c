"""What both Neovim flows (0.7 and 0.12) must show: assertions shared by
tests/editors/test_neovim.py and tests/editors/test_neovim012.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.editors.driver import EditorRun
from tests.editors.nvim_driver import INLINE_LINE, MULTI_FILE_TASK, OTHER_TEXT, WARNING, lsp_log
from tests.editors.workspace import REFINED, lines_range

BUSY = {"sparkls.edit": "Spark: editing…", "sparkls.refine": "Spark: refining…", "sparkls.task": "Spark: running the task…"}
WARN = 3  # vim.log.levels.WARN


def task_is_applied(result: dict[str, Any], path: Path) -> None:
    """<leader>st sends the instruction, both open files and the selection, and the
    task's edit lands in both buffers."""
    (argument,) = result["task"]["arguments"]
    other = path.parent / "report.py"
    assert argument == {"instruction": MULTI_FILE_TASK, "uris": [path.as_uri(), other.as_uri()], "range": lines_range(3, 5)}
    assert result["task"]["result"]["applied"] is True, result["task"]["result"]
    shapes, report = result["task"]["texts"]
    assert shapes == REFINED.replace("Area of a circle", "Circle area").rstrip("\n")
    assert report == OTHER_TEXT.replace("Area of a circle", "Circle area").rstrip("\n")


def busy_then_applied(result: dict[str, Any]) -> None:
    """Each keymap says it is at work as soon as it sends the request, then "applied"."""
    said = [n for n in result["notices"] if n.startswith("Spark: ") and not n.startswith("Spark: next edit")]
    assert said[:6] == [
        BUSY["sparkls.edit"], said[1], BUSY["sparkls.edit"], said[3], BUSY["sparkls.refine"], said[5],
    ], said
    assert all(said[i].startswith("Spark: applied in ") for i in (1, 3, 5)), said


def warning_is_kept(result: dict[str, Any]) -> None:
    """An edit applied with a warning: the keymap's last word says both, as a warning."""
    warned = result["warned"]
    assert warned["result"]["applied"] is True and warned["result"]["warnings"] == [WARNING]
    assert warned["notices"][0] == BUSY["sparkls.edit"]
    last, level = warned["notices"][-1], warned["levels"][-1]
    assert last.startswith("Spark: applied in ") and WARNING in last and level == WARN, warned


def next_edit_renames_the_use(result: dict[str, Any]) -> None:
    """Renaming `name` by typing: the documented handler announces the next edit; its code action renames the use."""
    assert result["next_edit"]["notice"].startswith("Spark: next edit at line 10 (use of name")
    assert result["next_edit"]["picked"].startswith("Spark: next edit at line 10")
    label = result["next_edit"]["text"].splitlines()[8:10]
    assert label == ["def label(who):", '    return "😀 名前: " + who']


def context_shows_the_prompt(result: dict[str, Any]) -> None:
    """The context view opens a buffer holding the prompt of an edit at line 10."""
    text = result["context"]["text"]
    assert "[instructions]" in text and "[input]" in text
    assert "<|editable_region_start|>\ndef label(who):" in text


def quiet_log(run: EditorRun) -> None:
    """A healthy session leaves no [ERROR] line in Neovim's LSP log (sparkls's stderr lands there)."""
    log = lsp_log(run)
    assert Path(run.result["log_path"]).name == "lsp.log"
    assert log["errors"] == [], log["errors"]


def inline_completion_accepted(result: dict[str, Any]) -> None:
    """The ghost text shows what the model adds at the cursor, and <Tab> puts it in the buffer."""
    assert result["inline"]["ghost"] == "area(r) * 2"
    assert result["inline"]["text"].splitlines()[-1] == INLINE_LINE
