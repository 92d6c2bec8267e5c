"""Where "Show Spark context" writes the prompt: a file only this user can read, in a
folder of this server's own, never a path another user could create or link first."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sparkls.lsp.handlers import context


def test_the_file_is_private_and_rewritten_in_place():
    """context.md in a 0700 folder, the file 0600; a second view overwrites the first."""
    first = context.write_private("one")
    second = context.write_private("two")
    assert first == second and second.read_text() == "two"
    assert second.parent.stat().st_mode & 0o777 == 0o700 and second.stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="O_NOFOLLOW is POSIX")
def test_a_link_put_in_place_of_the_file_is_not_followed(tmp_path):
    """A symbolic link where context.md goes is refused, and its target stays untouched."""
    path = context.write_private("x")
    target = tmp_path / "target"
    target.write_text("precious")
    path.unlink()
    path.symlink_to(target)
    try:
        with pytest.raises(OSError):
            context.write_private("overwritten?")
        assert target.read_text() == "precious"
    finally:
        path.unlink()


def test_each_server_process_has_its_own_folder():
    """Two server processes never share the folder (nor a fixed path like /tmp/sparkls-context.md)."""
    code = "from sparkls.lsp.handlers.context import write_private; print(write_private('x'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    mine = context.write_private("x")
    assert Path(other).name == mine.name == "context.md" and Path(other).parent != mine.parent
