"""What a reply may write, decided by the real path: never the git directory; a
protected file only after the user said yes to it by name (lsp/writes.py)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start
from tests.e2e.editor import HOLD

GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
SHAPES = "def area(r):\n    return 3.14159 * r * r\n"
TASKS = '{"version": "2.0.0", "tasks": [{"label": "x", "command": "touch pwned", "runOptions": {"runOn": "folderOpen"}}]}'
HOOK = "#!/bin/sh\ntouch pwned\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A cloned repository as an attacker made it: links into its own git directory."""
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / "shapes.py").write_text(SHAPES)
    os.symlink(".git/config", root / "gitcfg")
    os.symlink(".git/hooks", root / "hooks")
    return root


async def _start(client, emulator, root: Path, *, editor: str = "visual_studio_code", **more) -> str:
    deep = {"baseUrl": emulator.url, "apiKey": emulator.api_key, "transport": "http", "confirm": False}
    await start(client, emulator, root, editor=editor, options={"deep": deep, **more})
    uri = (root / "shapes.py").as_uri()
    client.editor.open(uri, SHAPES)
    return uri


async def _task(client, instruction: str, uri: str) -> dict:
    params = types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": instruction, "uris": [uri]}])
    return await client.workspace_execute_command_async(params)


def _messages(client) -> str:
    return "\n".join(m.message for m in client.messages)


async def test_a_link_to_the_git_config_is_never_written(client, emulator, workspace):
    """A task editing `gitcfg -> .git/config` (fsmonitor runs a command) is refused whole."""
    uri = await _start(client, emulator, workspace)
    result = await _task(client, 'REPLACE area WITH surface and EDIT gitcfg FROM "[core]" WITH "[core]\\n\\tfsmonitor = touch pwned"', uri)
    assert result["applied"] is False, result
    assert "gitcfg" in result["error"]["message"] and ".git/config" in result["error"]["message"]
    assert (workspace / ".git" / "config").read_text() == GIT_CONFIG
    assert client.editor.text(uri) == SHAPES and client.editor.applied == []
    assert "gitcfg" in _messages(client)


@pytest.mark.parametrize("name", ["hooks/post-checkout", ".git/hooks/pre-commit", ".GIT/hooks/pre-commit", ".Git/config"])
async def test_nothing_is_created_in_the_git_directory(client, emulator, workspace, name):
    """A new hook, through a linked folder or by any case of `.git`, is refused; nothing is created."""
    uri = await _start(client, emulator, workspace)
    result = await _task(client, f'REPLACE area WITH surface and CREATE {name} WITH "#!/bin/sh\\ntouch pwned\\n"', uri)
    assert result["applied"] is False, result
    assert sorted(p.name for p in (workspace / ".git" / "hooks").iterdir()) == []
    assert (workspace / ".git" / "config").read_text() == GIT_CONFIG
    assert client.editor.applied == [] and client.editor.text(uri) == SHAPES


async def test_a_worktree_pointer_leads_to_the_git_directory(client, emulator, tmp_path):
    """A `.git` file (`gitdir: ...`) makes its target the git directory: a link into it is refused."""
    root = tmp_path / "ws"
    gitdir = root / "meta" / "repo"
    (gitdir / "objects").mkdir(parents=True)
    (gitdir / "refs").mkdir()
    (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    (gitdir / "config").write_text(GIT_CONFIG)
    (root / ".git").write_text("gitdir: meta/repo\n")
    (root / "shapes.py").write_text(SHAPES)
    uri = await _start(client, emulator, root)
    result = await _task(client, 'REPLACE area WITH surface and EDIT meta/repo/config FROM "[core]" WITH "[core]\\n\\tfsmonitor = x"', uri)
    assert result["applied"] is False, result
    assert "meta/repo" in result["error"]["message"]
    assert (gitdir / "config").read_text() == GIT_CONFIG


async def test_a_protected_file_needs_confirmation_where_the_editor_asks(client, emulator, workspace):
    """With change annotations (VS Code), `.vscode/tasks.json` goes out under its own annotation needing confirmation."""
    uri = await _start(client, emulator, workspace)
    result = await _task(client, f"REPLACE area WITH surface and CREATE .vscode/tasks.json WITH `{TASKS}`", uri)
    assert result["applied"] is True, result
    [edit] = client.editor.applied
    annotations = edit.change_annotations
    protected = {k: a for k, a in annotations.items() if a.needs_confirmation}
    assert [a.label for a in protected.values()] == [".vscode/tasks.json (protected)"]
    assert "VS Code runs its tasks" in next(iter(protected.values())).description
    [create] = [c for c in edit.document_changes if isinstance(c, types.CreateFile)]
    assert create.annotation_id in protected
    tasks_edits = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit) and c.text_document.uri.endswith("tasks.json")]
    assert all(e.annotation_id in protected for c in tasks_edits for e in c.edits)
    assert client.editor.message_requests == []  # the editor's own review asks


@pytest.mark.parametrize(
    ("answer", "written"), [("Apply", True), ("Don't apply", False), (None, False), (HOLD, False)],
    ids=["apply", "dont-apply", "dismissed", "no-answer"],
)
async def test_an_editor_without_annotations_is_asked_by_name(client, emulator, workspace, answer, written):
    """Without change annotations, the user is asked naming the file; only "Apply" writes it."""
    (workspace / ".pre-commit-config.yaml").write_text("repos: []\n")
    client.editor.message_answer = answer
    uri = await _start(client, emulator, workspace, editor="neovim", trust={"askTimeout": 0.5})
    config = (workspace / ".pre-commit-config.yaml").as_uri()
    client.editor.open(config, "repos: []\n", "yaml")  # plain `changes` go to open buffers (Neovim 0.7 loads them)
    try:
        result = await _task(client, 'REPLACE area WITH surface and EDIT .pre-commit-config.yaml FROM "repos: []" WITH "repos: [x]"', uri)
    finally:
        client.editor.message_release.set()
    [asked] = [r for r in client.editor.message_requests if "Apply it?" in r.message]
    assert ".pre-commit-config.yaml" in asked.message and "pre-commit" in asked.message
    assert result["applied"] is written, result
    assert client.editor.text(config) == ("repos: [x]\n" if written else "repos: []\n")
    assert client.editor.text(uri) == (SHAPES.replace("area", "surface") if written else SHAPES)
    if not written:
        assert "you did not allow it to change .pre-commit-config.yaml" in result["error"]["message"]


async def test_a_fast_edit_of_a_file_the_user_protects_is_asked(client, emulator, tmp_path):
    """`trust.protect` extends the list: a fast edit there is applied only after "Apply"."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "deploy_hooks.py").write_text(SHAPES)
    client.editor.message_answer = "Don't apply"
    await start(client, emulator, root, editor="neovim", options={"trust": {"protect": ["deploy_*.py"]}})
    uri = (root / "deploy_hooks.py").as_uri()
    client.editor.open(uri, SHAPES)
    edit = {"uri": uri, "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 4}},
            "instruction": "REPLACE 3.14159 WITH 3.14"}
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="sparkls.edit", arguments=[edit]))
    assert result["applied"] is False and "deploy_hooks.py" in result["error"]["message"]
    assert client.editor.text(uri) == SHAPES
    client.editor.message_answer = "Apply"
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="sparkls.edit", arguments=[edit]))
    assert result["applied"] is True, result
    assert client.editor.text(uri) == SHAPES.replace("3.14159", "3.14")


async def test_a_file_changed_while_the_user_is_asked_refuses_the_edit(client, emulator, workspace):
    """The question waits on the user; the file changes meanwhile; "Apply" then sends nothing."""
    client.editor.message_answer, client.editor.message_late_answer = HOLD, "Apply"
    uri = await _start(client, emulator, workspace, editor="neovim")
    config = (workspace / ".pre-commit-config.yaml").as_uri()
    (workspace / ".pre-commit-config.yaml").write_text("repos: []\n")
    client.editor.open(config, "repos: []\n", "yaml")
    task = asyncio.ensure_future(
        _task(client, 'REPLACE area WITH surface and EDIT .pre-commit-config.yaml FROM "repos: []" WITH "repos: [x]"', uri)
    )
    for _ in range(3000):  # until the question is on screen (polled, bounded)
        if client.editor.message_requests:
            break
        await asyncio.sleep(0.01)
    client.editor.type_text(config, 1, 0, "# mine\n")
    client.editor.message_release.set()
    result = await task
    assert result["applied"] is False and "changed while the task ran" in result["error"]["message"], result
    assert client.editor.text(config) == "repos: []\n# mine\n" and client.editor.text(uri) == SHAPES
