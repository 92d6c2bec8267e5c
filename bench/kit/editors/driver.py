"""Running a real editor against sparkls: finding it, its environment, a bounded run.

An editor that is not installed skips its tests, except under CI (`CI` set), where
it fails them: `.ci/run` installs the editors, so a missing one is a broken set-up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

# What .ci/run installs for each editor (Debian packages).
APT_PACKAGES = {
    "nvim": "neovim",
    "emacs": "emacs-nox elpa-eglot",
    "eglot": "elpa-eglot",
    "lsp-mode": "elpa-lsp-mode",
}
# The `sparkls` next to this interpreter (.venv/bin), found through PATH as a user's would be.
SPARKLS_BIN = Path(sys.executable).parent


def unavailable(what: str) -> NoReturn:
    """Skip the test because `what` is not installed; under CI, fail it instead."""
    reason = f"{what} is not installed (apt-get install {APT_PACKAGES[what]})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, and .ci/run should have installed it", pytrace=False)
    pytest.skip(reason)


def require(binary: str) -> str:
    """The path of `binary` on PATH, or `unavailable`."""
    return shutil.which(binary) or unavailable(binary)


def editor_env(home: Path, *, sparkls_bin: Path = SPARKLS_BIN, **extra: str) -> dict[str, str]:
    """The editor's environment: a private home, `sparkls` (from `sparkls_bin`) on PATH,
    no API key (none is needed on loopback)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    for name in ("config", "data", "state", "cache"):
        (home / name).mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name.upper()}_HOME"] = str(home / name)
    env["HOME"] = str(home)
    env["PATH"] = f"{sparkls_bin}{os.pathsep}{env.get('PATH', '')}"
    env.pop("OPENAI_API_KEY", None)
    env.update(extra)
    return env


@dataclass
class EditorRun:
    returncode: int
    result: dict[str, Any]
    output: str  # the editor's stdout and stderr, for failure messages

    def explain(self) -> str:
        result = json.dumps(self.result, indent=1)
        return f"exit {self.returncode}; result {result}\n--- output ---\n{self.output[-4000:]}"


def run_editor(argv: list[str], env: dict[str, str], result_file: Path, *, cwd: Path, timeout: float) -> EditorRun:
    """Run the editor to completion (bounded by `timeout` seconds) and read its result."""
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, check=False, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        output = _text(exc.stdout) + _text(exc.stderr)
        raise AssertionError(f"{Path(argv[0]).name} did not finish within {timeout:g} s\n{output[-4000:]}") from None
    try:
        result = json.loads(result_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        result = {}
    return EditorRun(done.returncode, result, done.stdout + done.stderr)


def _text(data: str | bytes | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else data or ""
