"""Emacs 28 with Debian's lsp-mode 8, in batch mode: sparkls as the documented add-on
beside the real `ruff server` (PyPI, pinned), on the emulator without a key."""

from __future__ import annotations

import re

import pytest

from tests.editors import neighbours
from tests.editors.docs import block
from tests.editors.driver import require, unavailable
from tests.editors.lsp_mode_driver import (
    CLOSED_FILE,
    CLOSED_FOLLOWED,
    CLOSED_TEXT,
    FOLLOW_UPS_TITLE,
    OTHER_FILE,
    OTHER_FOLLOWED,
    OTHER_TEXT,
    PAGE,
    QUICK_FIX_TITLE,
    RUFF_DIAGNOSTIC,
    TASK,
    lsp_mode_available,
    run_flow,
)
from tests.editors.workspace import EDIT_NAME, SAMPLE

FINAL = SAMPLE.replace("raduis", "radius").replace("+ nme", "+ name.strip()")


@pytest.fixture(scope="module")
def emacs() -> str:
    path = require("emacs")
    if not lsp_mode_available(path):
        unavailable("lsp-mode")
    return path


@pytest.fixture(scope="module")
def flow(emacs, keyless_emulator_process, tmp_path_factory):
    """One run of the user's flow: quick fix, rewrite, edit, refine, save, context view, task,
    a renamed function's follow-ups in two other files, and last the steps beside ruff."""
    keyless_emulator_process.reset()
    run, path = run_flow(emacs, tmp_path_factory.mktemp("lsp-mode"), keyless_emulator_process.url)
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return run.result, path


def test_sparkls_runs_beside_ruff(flow):
    """The documented add-on clients, sparkls and ruff, both start in the buffer; sparkls on the emulator it names."""
    result, _ = flow
    assert sorted(result["servers"]) == ["ruff", "sparkls"]
    assert result["status"] == "Spark (local): ready"


def test_quick_fix_on_the_other_servers_diagnostic(flow):
    """lsp-mode sends sparkls ruff's diagnostic; "Fix with Spark" on it lands."""
    result, path = flow
    (sent,) = result["quickfix"]["diagnostics"]
    assert sent["source"] == RUFF_DIAGNOSTIC["source"] and sent["message"] == RUFF_DIAGNOSTIC["message"]
    assert QUICK_FIX_TITLE in result["quickfix"]["offered"]
    assert "radius ** 2" in path.read_text(encoding="utf-8")


def test_rewrite_runs_as_a_command_without_resolve(flow):
    """Picking a rewrite in lsp-execute-code-action sends no codeAction/resolve (lsp-mode 8
    would send it to ruff too); the documented handler runs its command on sparkls."""
    result, _ = flow
    rewrite = result["rewrite"]
    assert "codeAction/resolve" not in rewrite["methods"]
    # Simplify on `label`, which has nothing to simplify: answered, no change, no error.
    assert rewrite["command"] == "sparkls.edit" and "error" not in rewrite["result"], rewrite


def test_edit_and_refine_run_in_the_background_and_land(flow):
    """C-c s e and C-c s r return before their answer; both edits land and are saved."""
    result, path = flow
    for step in ("edit", "refine"):
        assert result[step]["returned_pending"] is True
        assert result[step]["result"]["applied"] is True
    assert result["edit"]["arguments"][0]["instruction"] == EDIT_NAME
    assert path.read_text(encoding="utf-8") == FINAL


def test_columns_are_characters_after_an_emoji(flow):
    """With the documented utf-32 capability, lsp-mode's character columns reach sparkls as meant."""
    result, _ = flow
    line = SAMPLE.splitlines()[9]
    start = line.index("nme")  # code points: the emoji counts one
    assert result["edit"]["arguments"][0]["range"] == {
        "start": {"line": 9, "character": start}, "end": {"line": 9, "character": start + 3}
    }


def test_task_applies_across_the_workspace(flow):
    """C-c s t runs sparkls.task on the deep tier; its edit is applied."""
    result, _ = flow
    assert result["task"]["arguments"][0]["instruction"] == TASK
    assert result["task"]["result"]["applied"] is True and result["task"]["result"]["tier"] == "deep"


def test_context_view_shows_the_prompt(flow):
    """C-c s c shows the exact prompt, read-only, in a buffer of its own."""
    result, _ = flow
    context = result["context"]
    assert context["displayed"] is True and context["read_only"] is True
    assert "<|editable_region_start|>" in context["text"]


def test_healthy_session_is_quiet(flow):
    """No *Warnings* buffer (no "Unknown notification"), no error in *lsp-log*, nothing on
    sparkls's stderr nor on ruff's (the documented warn level), and no echo-area word of a
    problem from either server, down to both servers' shutdown."""
    result, _ = flow
    assert result["warnings"] is None
    assert not result["log_errors"]
    assert result["stderr_lines"] == 0
    assert result["ruff_stderr"] is not None and not result["ruff_stderr"].strip(), result["ruff_stderr"]
    servers = [m for m in result["closing_messages"] if m.startswith(("LSP ::", "Spark"))]  # not flymake's own
    said = [m for m in servers if re.search(r"problem|fail|error|invalid|Wrong type", m, re.I)]
    assert servers and not said, said


def test_every_step_passed(flow):
    """The whole flow ran through the real lsp-mode, step by step."""
    result, _ = flow
    assert result["steps"] == ["quick fix", "rewrite", "edit", "refine", "context view", "task", "follow-ups", "neighbours"]


def test_follow_ups_are_listed_and_update_both_files(flow):
    """`label` renamed by typing at its def: lsp-execute-code-action lists "Spark: update 4
    uses of label in 2 files"; picked, one fast-tier question per file, and the import and
    the call are renamed in report.py (open) and summary.py (not visited), not the comment."""
    result, path = flow
    done = result["follow_ups"]
    assert FOLLOW_UPS_TITLE in done["offered"]
    assert done["arguments"] == [{"uri": path.as_uri()}]
    answer = done["result"]
    assert answer["applied"] is True and answer["model_calls"] == 2 and answer["regions_rewritten"] == 4, answer
    assert [(f["path"], f["edits"]) for f in answer["files"]] == [(OTHER_FILE, 2), (CLOSED_FILE, 2)]
    assert done["other"]["text"] == OTHER_FOLLOWED and done["closed"]["text"] == CLOSED_FOLLOWED
    assert "# a label for each" in CLOSED_FOLLOWED
    assert "\ndef tag(name):\n" in done["this"]["text"]


def test_follow_ups_apply_without_asking_and_leave_files_unsaved(flow):
    """lsp-mode applies the one versioned workspace/applyEdit without a question: report.py at
    its version, summary.py (version null) visited and edited; neither is saved."""
    result, path = flow
    done = result["follow_ups"]
    assert done["questions"] == []
    last = [e for e in result["applied_edits"] if any(OTHER_FILE in d["uri"] for d in e["documents"])][-1]
    versions = {d["uri"].rsplit("/", 1)[-1]: d["version"] for d in last["documents"]}
    assert last["operation"] == "server-requested" and last["changes"] is None
    assert set(versions) == {OTHER_FILE, CLOSED_FILE}
    assert isinstance(versions[OTHER_FILE], int) and versions[CLOSED_FILE] is None
    closed = done["closed"]
    assert closed["visited"] is True and closed["modified"] is True
    assert closed["disk"] == CLOSED_TEXT == (path.parent / CLOSED_FILE).read_text(encoding="utf-8")
    assert done["other"]["modified"] is True and done["other"]["disk"] == OTHER_TEXT


def test_both_set_ups_ask_for_the_notifications_they_handle():
    """The key and keyless set-ups register handlers for, and ask for, status and nextEdit."""
    for heading in ("Set-up", "Without a key"):
        text = block(PAGE, "elisp", heading)
        assert ':notifications ["status" "nextEdit"]' in text
        assert '"sparkls/status"' in text and '"sparkls/nextEdit"' in text


def test_beside_ruff_fixes_land_and_diagnostics_follow_the_text(flow):
    """Beside ruff: "Fix with Spark" on ruff's diagnostic lands; after a Spark edit that
    adds a line, ruff's diagnostic moves with the text (ruff was told of the edit); ruff's
    own fix, resolved by ruff alone, still works."""
    result, _ = flow
    neighbours.check(result["neighbours"])


def test_both_set_ups_route_every_spark_action_command_to_sparkls():
    """Each command sparkls puts in a code action has an action handler in both set-ups,
    and both apply sparkls's edits with the documented handler."""
    from sparkls.lsp.handlers.code_actions import INSTRUCTION_COMMAND
    from sparkls.lsp.handlers.commands import EDIT_COMMAND
    from sparkls.lsp.handlers.context import SHOW_CONTEXT
    from sparkls.lsp.handlers.followups import FOLLOW_UPS_COMMAND
    from sparkls.lsp.handlers.refine import REFINE_COMMAND

    # The commands of the actions sparkls lists (lsp/handlers/*: `action(...)` and
    # `command_action(...)`), VS Code's own (spark.*) aside.
    action_commands = {EDIT_COMMAND, INSTRUCTION_COMMAND, REFINE_COMMAND, FOLLOW_UPS_COMMAND, SHOW_CONTEXT}
    for heading in ("Set-up", "Without a key"):
        text = block(PAGE, "elisp", heading)
        handled = set(re.findall(r'\("(sparkls\.\w+)" #\'sparkls-lsp--action\)', text))
        assert handled == action_commands, (heading, handled)
        assert '("workspace/applyEdit" #\'sparkls-lsp--apply-edit)' in text
