"""Emacs 28 with eglot 1.9 through `rass` (rassumfrassum, pinned), as emacs.md sets it up:
the real `ruff server` and sparkls behind one connection, on the emulator without a key."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.editors import neighbours
from tests.editors.driver import SPARKLS_BIN, require, unavailable
from tests.editors.emacs_driver import eglot_available, run_rass_flow


@pytest.fixture(scope="module")
def emacs() -> str:
    path = require("emacs")
    if not eglot_available(path):
        unavailable("eglot")
    return path


@pytest.fixture(scope="module")
def flow(emacs, keyless_emulator_process, tmp_path_factory):
    """One run: the steps beside ruff, then a completion at point."""
    assert shutil.which("rass", path=str(SPARKLS_BIN)), "rass comes with the test dependencies"
    keyless_emulator_process.reset()
    run, path = run_rass_flow(emacs, tmp_path_factory.mktemp("rass"), keyless_emulator_process.url)
    assert run.returncode == 0 and "error" not in run.result, run.explain()
    return run.result, path


def test_every_step_passed(flow):
    result, _ = flow
    assert result["steps"] == ["neighbours", "complete"]


def test_beside_ruff_fixes_land_and_diagnostics_follow_the_text(flow):
    """Through rass: "Fix with Spark" on ruff's diagnostic lands (a sparkls.edit command, eglot
    1.9 resolves nothing); a Spark edit that adds a line moves ruff's diagnostic with the text;
    ruff's own fix still works."""
    result, _ = flow
    neighbours.check(result["neighbours"])


def test_completion_reaches_sparkls_through_rass(flow):
    """Completion at point is routed to sparkls (it declares a completion provider rass
    keeps) and lists its item: no "[rass] no servers to handle" error."""
    result, _ = flow
    assert result["complete"]["error"] is None and result["complete"]["items"] == ["radius"], result["complete"]


def test_neither_server_says_anything_wrong(flow):
    """No *Warnings*, no echo-area word of a problem from ruff, rass or sparkls, and eglot's
    stderr buffer (rass's, with both servers' stderr) holds nothing but INFO lines."""
    result, _ = flow
    assert result["warnings"] is None
    said = [m for m in result["closing_messages"] if re.search(r"problem|fail|error|invalid|no servers", m, re.I)]
    assert not said, said
    noisy = [line for line in result["stderr"].splitlines() if line.strip() and not re.search(r"\sINFO\s", line)]
    assert not noisy, noisy
