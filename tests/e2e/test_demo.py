"""`sparkls demo` (`make demo`): a tour of an editor session with sparkls, against the emulator."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sparkls.tools.demo import TIMING_KEYS

SPARKLS = [sys.executable, "-m", "sparkls"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return {**env, "PYTHONUNBUFFERED": "1"}


def _sample_folder(out: str) -> Path:
    match = re.search(r"^The sample: (\S+)/shapes\.py ", out, re.MULTILINE)
    assert match, out
    return Path(match.group(1))


@pytest.fixture(scope="module")
def demo() -> str:
    proc = subprocess.run([*SPARKLS, "demo"], capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _steps(out: str) -> str:
    return out.split("\n1. ", 1)[1].split("\nshapes.py after the edits:", 1)[0]


def test_every_step_is_applied(demo):
    """Both edits and the quick fix land, each shown as a diff."""
    assert "-    return math.pi * raduis ** 2" in demo and "+    return math.pi * radius ** 2" in demo
    assert '+    return f"Hello, {name}!"' in demo
    assert "+        self.count += step" in demo


def test_the_steps_show_a_users_words_only(demo):
    """The instructions and the diagnostic read as a user and a linter put them; no directive shows."""
    steps = _steps(demo)
    assert '"Fix the misspelt variable"' in steps and '"Use an f-string"' in steps
    assert "\"Fix with Spark: undefined name 'stpe'\"" in steps
    assert "REPLACE" not in steps


def test_the_emulator_is_said_to_play_the_model(demo):
    """The output says the model is the emulator, following a script."""
    assert "played by the local emulator" in demo and "a script, not a model" in demo


def test_every_step_has_its_timing_breakdown(demo):
    """Each edit and the quick fix show context, ttft, stream, edit, apply and total."""
    lines = [line for line in _steps(demo).splitlines() if line.strip().startswith("time (ms):")]
    assert len(lines) == 3
    assert all(f" {key} " in line for line in lines for key in TIMING_KEYS)


def test_the_first_edit_cost_is_explained(demo):
    """One line says what the first edit paid once, and why."""
    (line,) = [line for line in demo.splitlines() if line.startswith("The first edit paid")]
    assert "tree-sitter queries" in line and "applyEdit" in line


def test_it_ends_with_the_editor_docs(demo):
    """The last lines point to each editor's set-up, files that exist."""
    tail = demo.split("Next: set up your editor", 1)[1].splitlines()[1:]
    paths = [Path(line.split(":", 1)[1].strip()) for line in tail if line.strip()]
    assert [p.name for p in paths] == ["README.md", "neovim.md", "helix.md", "emacs.md", "lsp-mode.md"]
    assert all(p.is_file() for p in paths)


def test_its_folder_is_removed(demo):
    """The temporary folder holding the sample is gone when the demo ends."""
    assert not _sample_folder(demo).exists()


# `sparkls demo`, held mid-session: once the fast tier has warmed up it waits (for
# Ctrl-C) instead of going on to the edits, so the SIGINT cannot come after its end.
# SIGINT gets Python's own handler back first, as in a terminal: a suite started in
# the background of a script (`.ci/run &`) runs with SIGINT ignored, every child
# inherits that, and an ignored SIGINT let the demo run to its end (exit 0, not 130).
HELD_DEMO = """
import asyncio, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from sparkls.tools import demo
warm_up = demo._wait_warm
async def held(editor):
    said = await warm_up(editor)
    print("held mid-session", flush=True)
    await asyncio.Event().wait()
    return said
demo._wait_warm = held
sys.exit(demo.run_demo())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_ctrl_c_removes_its_folder():
    """Interrupted mid-session (server and emulator running), the demo removes its folder and exits 130."""
    proc = subprocess.Popen([sys.executable, "-c", HELD_DEMO], stdout=subprocess.PIPE, text=True, env=_env())
    assert proc.stdout is not None
    seen = ""
    while (line := proc.stdout.readline()) != "held mid-session\n":
        assert line, seen
        seen += line
    os.kill(proc.pid, signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, seen + line + rest
    assert "Interrupted." in rest
    assert not _sample_folder(seen).exists()
