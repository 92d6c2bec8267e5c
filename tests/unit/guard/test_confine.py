"""What may be read for a prompt: inside the workspace folders, by real path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sparkls.guard.confine import Confinement


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with links out of it, and the outside they lead to."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "pkg").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("a = 1\n")
    (outside / "secret.py").write_text("TOKEN = 'outside'\n")
    (outside / "dir" / "b.py").write_text("b = 2\n")
    os.symlink(outside / "secret.py", ws / "link.py")
    os.symlink(outside / "dir", ws / "linkdir")
    os.symlink(ws / "pkg" / "a.py", ws / "inner_link.py")
    return ws, outside


def test_a_file_inside_is_read(layout):
    """A plain file in the workspace is inside and read."""
    ws, _ = layout
    assert Confinement([ws]).read_text(ws / "pkg" / "a.py") == "a = 1\n"


def test_a_link_to_a_file_outside_is_refused(layout):
    """A symlink in the workspace to a file outside is refused, naming where it leads."""
    ws, outside = layout
    confine = Confinement([ws])
    assert confine.read_text(ws / "link.py") is None
    assert f"leads to {os.path.realpath(outside / 'secret.py')}" in confine.refusal(ws / "link.py")


def test_a_link_to_a_folder_outside_is_refused(layout):
    """A file reached through a symlinked folder that leads outside is refused."""
    ws, _ = layout
    assert Confinement([ws]).read_text(ws / "linkdir" / "b.py") is None


def test_dot_dot_out_is_refused(layout):
    """`ws/pkg/../../outside/secret.py` is outside, however it is spelt."""
    ws, _ = layout
    assert Confinement([ws]).refusal(ws / "pkg" / ".." / ".." / "outside" / "secret.py") is not None


def test_a_link_that_stays_inside_is_read(layout):
    """A symlink to another workspace file is fine."""
    ws, _ = layout
    assert Confinement([ws]).read_text(ws / "inner_link.py") == "a = 1\n"


def test_a_symlinked_workspace_root_is_fine(layout, tmp_path):
    """The workspace opened through a link to it: its files are inside."""
    ws, _ = layout
    os.symlink(ws, tmp_path / "ws_link")
    confine = Confinement([tmp_path / "ws_link"])
    assert confine.read_text(tmp_path / "ws_link" / "pkg" / "a.py") == "a = 1\n"
    assert confine.read_text(tmp_path / "ws_link" / "link.py") is None


@pytest.mark.parametrize("uri", ["untitled:Untitled-1", "https://example.com/a.py", "vscode-notebook-cell:/x#y"])
def test_other_schemes_are_refused(layout, uri):
    """Only file: URIs can be inside the workspace."""
    ws, _ = layout
    assert "not a file on disk" in Confinement([ws]).refusal_for_uri(uri)


def test_no_folder_refuses_everything(layout):
    """Without a workspace folder nothing is inside."""
    ws, _ = layout
    assert Confinement([]).refusal(ws / "pkg" / "a.py") is not None
