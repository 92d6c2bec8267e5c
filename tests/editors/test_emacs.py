"""Emacs 28 with eglot 1.9 (Debian's emacs-nox and elpa-eglot), in batch mode, against real sparkls."""

from __future__ import annotations

import subprocess

import pytest

from bench.kit.editors.docs import code_blocks
from bench.kit.editors.driver import require, unavailable
from bench.kit.editors.emacs_driver import (
    CLOSED_FILE,
    CLOSED_FOLLOWED,
    CLOSED_TEXT,
    FOLLOW_UPS_TITLE,
    OTHER_FILE,
    OTHER_FOLLOWED,
    OTHER_TEXT,
    SLOW_EXPECTED,
    TYPED,
    eglot_available,
    run_flow,
    slow_flow,
)
from bench.kit.editors.workspace import (
    EDIT_NAME,
    REFINED,
    QUICK_FIX_TITLE,
    SAMPLE,
    TASK,
    lines_range,
    utf16_range,
)


@pytest.fixture(scope="module")
def emacs() -> str:
    path = require("emacs")
    if not eglot_available(path):
        unavailable("eglot")
    return path


@pytest.fixture(scope="module")
def flow(emacs, keyless_emulator_process, tmp_path_factory):
    """One run of the user's flow: quick fix, two edits with an instruction, refine, save,
    context view, task, and last a renamed function's follow-ups in two other files."""
    keyless_emulator_process.reset()
    run, path = run_flow(emacs, tmp_path_factory.mktemp("emacs"), keyless_emulator_process.url)
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return run.result, path


@pytest.fixture(scope="module", params=[True, False], ids=["idle", "typing"])
def slow(request, emacs, keyless_emulator_process, tmp_path_factory):
    """C-c s e against a model that takes 3 s to start answering, a line typed meanwhile."""
    keyless_emulator_process.reset()
    keyless_emulator_process.set_faults(delay_ms=3000, count=None)
    try:
        run, _ = run_flow(emacs, tmp_path_factory.mktemp("slow"), keyless_emulator_process.url,
                          flow=slow_flow(idle=request.param))
    finally:
        keyless_emulator_process.reset()
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return request.param, run.result


def test_flow_saves_the_edited_file(flow):
    """The quick fix, both edits and the refine land in the buffer, and saving writes them."""
    result, path = flow
    assert path.read_text(encoding="utf-8") == REFINED
    assert result["steps"] == ["quick fix", "edit", "edit", "refine", "context view", "task", "follow-ups"]


def test_quick_fix_runs_the_edit_command(flow):
    """Eglot 1.9 cannot resolve edits: the quick fix comes as a sparkls.edit command, with the diagnostic."""
    result, _ = flow
    assert result["offered"] == [QUICK_FIX_TITLE]
    fix = result["commands"][0]
    assert fix["command"] == "sparkls.edit" and fix["result"]["applied"] is True
    (argument,) = fix["arguments"]
    assert argument["diagnostics"][0]["source"] == "pyflakes"


def test_region_is_sent_in_utf16(flow):
    """The region after an emoji and CJK text reaches the server in UTF-16 columns (eglot 1.9)."""
    result, _ = flow
    (argument,) = result["commands"][1]["arguments"]
    assert argument["range"] == utf16_range(9, "nme")
    assert argument["instruction"] == EDIT_NAME


def test_whole_lines_region(flow):
    """A region from the start of line 4 to the start of line 7 is sent as (3, 0)-(6, 0)."""
    result, _ = flow
    (argument,) = result["commands"][2]["arguments"]
    assert argument["range"] == lines_range(3, 5)
    assert result["commands"][2]["result"]["applied"] is True


def test_task_sends_instruction_files_and_region(flow):
    """C-c s t on a region sends sparkls.task the instruction, the buffer's URI and the range."""
    result, path = flow
    assert result["task"]["command"] == "sparkls.task"
    (argument,) = result["task"]["arguments"]
    assert argument == {"instruction": TASK, "uris": [path.as_uri()], "range": lines_range(3, 5)}


def test_status_reaches_the_documented_variable(flow):
    """The documented `sparkls/status` handler keeps `sparkls-status` up to date."""
    result, _ = flow
    assert result["status"] == "Spark (local): ready"


def test_documented_elisp_reads(emacs, tmp_path):
    """Every Elisp block of emacs.md has balanced parentheses and reads as complete forms."""
    blocks = [b for found in code_blocks("emacs.md", "elisp").values() for b in found]
    assert len(blocks) >= 4
    files = []
    for n, text in enumerate(blocks):
        files.append(tmp_path / f"block{n}.el")
        files[-1].write_text(text, encoding="utf-8")
    check = (
        "(dolist (file command-line-args-left)"
        " (with-temp-buffer (insert-file-contents file) (emacs-lisp-mode) (check-parens)"
        " (goto-char (point-min))"
        " (while (progn (forward-comment (buffer-size)) (not (eobp))) (read (current-buffer)))))"
    )
    done = subprocess.run(
        [emacs, "--batch", "-q", "--eval", check, *map(str, files)],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_emulators_eglot_snippet_reads(emacs, tmp_path):
    """What `sparkls emulate` prints for Emacs reads as one complete form."""
    from sparkls.emulator.editor_settings import snippets

    snippet = next(text for where, text in snippets("http://127.0.0.1:8765/v1").items() if where.startswith("Emacs"))
    (tmp_path / "snippet.el").write_text(snippet, encoding="utf-8")
    check = (
        "(with-temp-buffer (insert-file-contents (car command-line-args-left)) (emacs-lisp-mode) (check-parens)"
        " (goto-char (point-min)) (read (current-buffer))"
        " (forward-comment (buffer-size)) (unless (eobp) (error \"more than one form\")))"
    )
    done = subprocess.run(
        [emacs, "--batch", "-q", "--eval", check, str(tmp_path / "snippet.el")],
        check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_edit_does_not_freeze_emacs(slow):
    """C-c s e returns at once: keys typed while the model works land at once, before the edit."""
    _, result = slow
    assert result["slow"]["returned_pending"] is True
    assert result["slow"]["typed_pending"] is True
    assert result["slow"]["text"].startswith(TYPED + "\n")


def test_typing_elsewhere_is_kept_and_the_edit_lands_or_is_refused_whole(slow):
    """Idle after typing: the edit lands past the typed line. Still typing: refused, with a message, nothing changed."""
    idle, result = slow
    answer = result["slow"]["answer"]["result"]
    if idle:
        assert answer["applied"] is True
        assert result["slow"]["text"] == SLOW_EXPECTED
    else:
        assert answer["applied"] is False and answer["error"]["code"] == "edit_rejected"
        assert result["slow"]["text"] == TYPED + "\n" + SAMPLE
        assert any("did not apply the edit" in m and "nothing was changed" in m for m in result["messages"])


def test_healthy_session_is_quiet(flow, slow):
    """No line on the server's stderr and no *Warnings* buffer, whole flow or slow edit alike."""
    for result in (flow[0], slow[1]):
        assert result["stderr_lines"] == 0
        assert result["warnings"] is None


def test_context_view_shows_the_prompt(flow):
    """C-c s c shows the exact prompt, read-only, in a buffer of its own, not the echo area."""
    result, _ = flow
    context = result["context"]
    assert context["displayed"] is True and context["read_only"] is True
    assert "<|editable_region_start|>" in context["text"] and "def area(r):" in context["text"]


def test_context_view_opens_the_servers_file(flow):
    """The server names the private context.md it wrote; C-c s c opens that file."""
    result, _ = flow
    context = result["context"]
    assert context["path"] and context["buffer"] == context["path"].rsplit("/", 1)[-1]


def test_follow_ups_are_listed_and_update_both_files(flow):
    """`area` renamed by typing at its def: eglot-code-actions lists "Spark: update 4 uses of
    area in 2 files"; picked, one fast-tier question per file, one workspace/applyEdit
    renames the import and the call in report.py (visited) and summary.py (not visited)."""
    result, path = flow
    assert FOLLOW_UPS_TITLE in result["menus"][-1]
    done = result["follow_ups"]
    assert done["arguments"] == [{"uri": path.as_uri()}]
    answer = done["answer"]["result"]
    assert answer["applied"] is True and answer["model_calls"] == 2 and answer["regions_rewritten"] == 4, answer
    assert [(f["path"], f["edits"]) for f in answer["files"]] == [(OTHER_FILE, 2), (CLOSED_FILE, 2)]
    assert done["other"]["text"] == OTHER_FOLLOWED and done["closed"]["text"] == CLOSED_FOLLOWED
    assert "# the area of each" in CLOSED_FOLLOWED and '"Area of a circle:"' in OTHER_FOLLOWED  # not code: kept
    assert done["this"]["text"].startswith("import math\n\n\ndef circle_area(r):")


def test_follow_ups_edit_is_versioned(flow):
    """The edit is one workspace/applyEdit with documentChanges: report.py at eglot's version,
    summary.py (not visited) with version null."""
    result, path = flow
    last = result["applied_edits"][-1]
    versions = {d["uri"].rsplit("/", 1)[-1]: d["version"] for d in last["documents"]}
    assert last["changes"] is None and set(versions) == {OTHER_FILE, CLOSED_FILE}
    assert isinstance(versions[OTHER_FILE], int) and versions[CLOSED_FILE] is None


def test_follow_ups_ask_first_then_visit_the_other_file_unsaved(flow):
    """Eglot 1.9 asks "[eglot] Server wants to edit: ... Proceed?" naming both files (a file
    not visited forces the question, confirmations off or not); then it visits summary.py
    and edits it without saving; report.py is edited unsaved too."""
    result, path = flow
    done = result["follow_ups"]
    (question,) = done["questions"]
    assert question["answer"] is True
    prompt = question["prompt"]
    assert prompt.startswith("[eglot] Server wants to edit:") and prompt.rstrip().endswith("Proceed?")
    assert str(path.parent / OTHER_FILE) in prompt and str(path.parent / CLOSED_FILE) in prompt
    closed = done["closed"]
    assert closed["visited"] is True and closed["modified"] is True
    assert closed["disk"] == CLOSED_TEXT == (path.parent / CLOSED_FILE).read_text(encoding="utf-8")
    assert done["other"]["modified"] is True and done["other"]["disk"] == OTHER_TEXT
