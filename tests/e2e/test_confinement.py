"""Nothing outside the workspace reaches the model, by any path (issue 12, item 1).

Each test plants a marker in a file outside the workspace, reachable from inside by a
symlink to a file, a symlink to a folder, or a `..` URI, then checks what the
emulator received (`/_emulator/prompts`) besides what the user is told.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start
from tests.e2e.test_context import _context_params, _index_ready
from tests.e2e.test_task import RENAME, SHAPES, _deep, _task

MARKER = "OUTSIDE_THE_WORKSPACE_7f3a"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """ws/ with shapes.py, and outside/ with a secret file and a folder that uses `area`."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    (outside / "lib").mkdir(parents=True)
    (ws / "shapes.py").write_text(SHAPES)
    (outside / "secret.py").write_text(f"TOKEN = '{MARKER}'\n")
    (outside / "lib" / "uses.py").write_text(f"from shapes import area  # {MARKER}\n\n\ndef f():\n    return area(1)\n")
    (outside / "lib" / "helpers.py").write_text(f"def helper_outside(x):\n    return '{MARKER}'\n")
    os.symlink(outside / "secret.py", ws / "notes.py")
    os.symlink(outside / "lib", ws / "lib")
    return ws, outside


def _sent(emulator) -> str:
    return "\n".join(emulator.prompts())


async def test_task_refuses_a_named_link_to_a_file_outside(client, emulator, layout):
    """A named symlink out is refused before it is read, open in the editor or not."""
    ws, _ = layout
    await start(client, emulator, ws, options=_deep(emulator))
    link = (ws / "notes.py").as_uri()
    client.editor.open(link, (ws / "notes.py").read_text())
    result = await _task(client, RENAME, [(ws / "shapes.py").as_uri(), link])
    assert any("notes.py" in w and "outside the workspace" in w for w in result["warnings"]), result
    assert "notes.py" not in [f["path"] for f in result["files_shown"]]
    assert MARKER not in _sent(emulator)


async def test_task_refuses_dot_dot_and_other_schemes(client, emulator, layout):
    """`ws/../outside/secret.py` and an `untitled:` buffer are refused, each named."""
    ws, _ = layout
    await start(client, emulator, ws, options=_deep(emulator))
    dotdot = (ws / "shapes.py").as_uri().replace("/ws/shapes.py", "/ws/../outside/secret.py")
    result = await _task(client, RENAME, [(ws / "shapes.py").as_uri(), dotdot, "untitled:Untitled-1"])
    warnings = " ".join(result["warnings"])
    assert "secret.py" in warnings and "Untitled-1" in warnings and "not a file on disk" in warnings
    assert MARKER not in _sent(emulator)


async def test_reference_search_does_not_follow_a_linked_folder(client, emulator, layout):
    """A file that mentions the symbol through a symlinked folder is never shown."""
    ws, _ = layout
    await start(client, emulator, ws, options=_deep(emulator))
    result = await _task(client, RENAME, [(ws / "shapes.py").as_uri()])
    assert result["applied"] is True, result
    assert all(not f["path"].startswith("lib/") for f in result["files_shown"])
    assert MARKER not in _sent(emulator)
    assert (ws / "lib" / "uses.py").read_text().startswith("from shapes import area")  # not edited either


async def test_index_never_sends_a_definition_from_outside(client, emulator, layout):
    """A name defined only behind a link out gets no definition snippet."""
    ws, _ = layout
    code = "def double(v):\n    return helper_outside(v) * 2\n"
    (ws / "main.py").write_text(code)
    await start(client, emulator, ws)
    await _index_ready(client)
    client.editor.open((ws / "main.py").as_uri(), code)
    result = await client.workspace_execute_command_async(_context_params((ws / "main.py").as_uri(), 1))
    assert MARKER not in result["prompt"]["input"]
    assert all(not s["path"].startswith("lib/") for s in result["snippets"])


async def test_a_symlinked_workspace_root_works(client, emulator, layout, tmp_path):
    """The workspace opened through a link to it: a task reads and edits its files."""
    ws, _ = layout
    os.symlink(ws, tmp_path / "ws_link")
    root = tmp_path / "ws_link"
    await start(client, emulator, root, options=_deep(emulator))
    shapes = (root / "shapes.py").as_uri()
    client.editor.open(shapes, SHAPES)
    result = await _task(client, RENAME, [shapes])
    assert result["applied"] is True, result
    assert client.editor.text(shapes) == SHAPES.replace("area", "circle_area")
    assert MARKER not in _sent(emulator)


async def test_fast_edit_on_a_link_to_a_secret_is_refused(client, emulator, layout, tmp_path):
    """An open link whose target is on the secret list is refused by the target's name."""
    ws, _ = layout
    (tmp_path / "outside" / ".env").write_text(f"API_KEY={MARKER}\n")
    os.symlink(tmp_path / "outside" / ".env", ws / "settings.py")
    await start(client, emulator, ws)
    uri = (ws / "settings.py").as_uri()
    client.editor.open(uri, (ws / "settings.py").read_text())
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="sparkls.edit",
        arguments=[{"uri": uri, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                    "instruction": "REPLACE API WITH KEY"}],
    ))
    assert result["applied"] is False and "does not send settings.py" in result["error"]["message"]
    assert MARKER not in _sent(emulator)


def test_context_cli_refuses_a_link_out(layout):
    """`sparkls context` on a symlink out prints a refusal naming it, and reads nothing."""
    ws, _ = layout
    proc = subprocess.run(
        [sys.executable, "-m", "sparkls", "context", str(ws / "notes.py"), "--line", "1", "--root", str(ws)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2 and "notes.py is outside the workspace" in proc.stderr
    assert MARKER not in proc.stdout + proc.stderr
