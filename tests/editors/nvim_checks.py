"""What both Neovim flows (0.7 and 0.12) must show: assertions shared by
tests/editors/test_neovim.py and tests/editors/test_neovim012.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.editors.driver import EditorRun
from tests.editors.nvim_driver import (
    CLOSED_FILE,
    CLOSED_TEXT,
    FOLLOW_UPS_TITLE,
    INLINE_LINE,
    MULTI_FILE_TASK,
    OTHER_FILE,
    OTHER_TEXT,
    WARNING,
    lsp_log,
)
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
    # the keys the user mapped, as typed (mapleader unset: `\`), never `<leader>` as written
    assert result["next_edit"]["notice"].endswith("): \\sn to jump, \\sa to accept"), result["next_edit"]["notice"]
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


# report.py as the task left it (in its buffer, unsaved), then as the follow-ups leave
# it: the import and the call renamed, the word in the string not.
REPORT_AFTER_TASK = OTHER_TEXT.replace("Area of a circle", "Circle area")
REPORT_FOLLOWED = 'from shapes import circle_area\n\nprint("Circle area:", circle_area(2))\n'
CLOSED_FOLLOWED = CLOSED_TEXT.replace("area", "circle_area")


def follow_ups_update_other_files(result: dict[str, Any], path: Path, *, suffix: str = "") -> None:
    """Renaming `area` by typing: "Spark: update ..." is listed and picked; one fast-tier
    question per file; one applyEdit (plain `changes`) renames the uses in the open
    report.py and in summary.py, which Neovim loads into a hidden buffer, unsaved."""
    done = result["follow_ups"]
    assert done["picked"] == FOLLOW_UPS_TITLE + suffix
    assert done["arguments"] == [{"uri": path.as_uri()}] and "error" not in done
    answer = done["result"]
    assert answer["applied"] is True and answer["model_calls"] == 2 and answer["regions_rewritten"] == 4, answer
    assert [(f["path"], f["edits"]) for f in answer["files"]] == [(OTHER_FILE, 2), (CLOSED_FILE, 2)]
    other, closed = path.parent / OTHER_FILE, path.parent / CLOSED_FILE
    assert result["applied_edits"][-1] == {"shape": "changes", "uris": sorted([other.as_uri(), closed.as_uri()])}
    assert done["other"]["text"] == REPORT_FOLLOWED.rstrip("\n") and done["other"]["modified"] is True
    loaded = {k: done["closed"][k] for k in ("exists", "loaded", "listed", "shown", "modified")}
    assert loaded == {"exists": True, "loaded": True, "listed": True, "shown": False, "modified": True}
    assert done["closed"]["text"] == CLOSED_FOLLOWED.rstrip("\n")
    assert done["closed_disk"] == CLOSED_TEXT == closed.read_text(encoding="utf-8")  # not written
    assert other.read_text(encoding="utf-8") == OTHER_TEXT  # nor report.py (the task's edit is unsaved too)


def undo_per_buffer(result: dict[str, Any]) -> None:
    """`u` in each buffer's window. In summary.py it undoes the follow-up edit alone.
    In report.py it undoes the task's edit as well: Neovim keeps edits applied to a
    buffer while you are in another window in one undo step, until that buffer's
    window is entered, and the flow never entered report.py's window between the two."""
    undone = result["follow_ups"]["undone"]
    assert undone["closed"] == {"text": CLOSED_TEXT.rstrip("\n"), "modified": False}
    assert undone["other"] == {"text": OTHER_TEXT.rstrip("\n"), "modified": False}
