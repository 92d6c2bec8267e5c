"""What is sent, shown to the user: `sparkls.showContext`, its code action, `sparkls context`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import start

SAMPLE = '''import math
import os


class Circle:
    def area(self, radius):
        return math.pi * radius ** 2
'''


def _context_params(uri: str, line: int) -> types.ExecuteCommandParams:
    pos = {"line": line, "character": 8}
    return types.ExecuteCommandParams(command="sparkls.showContext", arguments=[{"uri": uri, "range": {"start": pos, "end": pos}}])


async def test_show_context_returns_and_shows_what_is_sent(client, emulator, tmp_path):
    """The report names the region and snippets; the prompt opens as a document; nothing is sent."""
    path = tmp_path / "circle.py"
    path.write_text(SAMPLE)
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), SAMPLE)
    result = await client.workspace_execute_command_async(_context_params(path.as_uri(), 6))
    assert result["region"] == {"path": "circle.py", "start_line": 6, "end_line": 7}
    assert {"path": "circle.py", "start_line": 1, "end_line": 1, "kind": "import"} in result["snippets"]
    assert {"path": "circle.py", "start_line": 5, "end_line": 5, "kind": "container"} in result["snippets"]
    assert all(s["start_line"] != 2 for s in result["snippets"])  # `import os` is not used here
    assert result["tokens"] > 0 and "<|editable_region_start|>" in result["prompt"]["input"]
    (shown,) = client.shown_documents
    shown_path = Path(shown.uri.removeprefix("file://"))
    assert "<|editable_region_start|>" in shown_path.read_text()
    # Never a fixed shared path: a folder of the server's own that only this user can enter.
    assert shown_path.name == "context.md" and shown_path.parent.name.startswith("sparkls-")
    assert shown_path.parent.stat().st_mode & 0o077 == 0 and shown_path.stat().st_mode & 0o077 == 0
    assert result["path"] == str(shown_path)
    assert emulator.stats()["responses"] == 0


@pytest.mark.parametrize("editor", ["emacs", "neovim@v0.7.0"], ids=["eglot", "neovim-0.7"])
async def test_show_context_without_show_document_names_a_private_file(client, emulator, tmp_path, editor):
    """Without showDocument (eglot 1.9, Neovim 0.7), the prompt goes to a private context.md
    whose path the message names and the result returns; the log does not carry the prompt."""
    path = tmp_path / "circle.py"
    path.write_text(SAMPLE)
    await start(client, emulator, tmp_path, editor=editor)
    client.editor.open(path.as_uri(), SAMPLE)
    result = await client.workspace_execute_command_async(_context_params(path.as_uri(), 6))
    written = Path(result["path"])
    assert written.name == "context.md" and written.parent.name.startswith("sparkls-")
    assert written.parent.stat().st_mode & 0o777 == 0o700 and written.stat().st_mode & 0o077 == 0
    assert result["prompt"]["input"] in written.read_text()
    (message,) = [m.message for m in client.messages if "context for circle.py" in m.message]
    assert message.startswith("Spark: context for circle.py lines 6-7 (") and message.endswith(f" in {written}")
    assert client.shown_documents == []
    assert not any(result["prompt"]["input"] in m.message for m in client.log_messages)


async def test_show_context_code_action(client, emulator, tmp_path):
    """A "Show Spark context" code action runs sparkls.showContext."""
    path = tmp_path / "circle.py"
    path.write_text(SAMPLE)
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), SAMPLE)
    pos = types.Position(line=6, character=8)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(start=pos, end=pos),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (action,) = [a for a in actions if a.title == "Show Spark context"]
    assert action.command.command == "sparkls.showContext"


def test_context_cli_json(tmp_path):
    """`sparkls context FILE --line N --json` prints the documented report."""
    (tmp_path / "circle.py").write_text(SAMPLE)
    out = subprocess.run(
        [sys.executable, "-m", "sparkls", "context", str(tmp_path / "circle.py"), "--line", "7", "--root", str(tmp_path), "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    report = json.loads(out)
    assert report["region"] == {"path": "circle.py", "start_line": 6, "end_line": 7}
    assert [s["kind"] for s in report["snippets"]] == ["import", "container"]
    assert isinstance(report["tokens"], int) and report["tokens"] > 0


def test_context_cli_refuses_excluded_files(tmp_path):
    """A file that is never sent is reported as such, with a non-zero exit."""
    (tmp_path / ".env.py").write_text(SAMPLE)
    proc = subprocess.run(
        [sys.executable, "-m", "sparkls", "context", str(tmp_path / ".env.py"), "--line", "7", "--root", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 1 and "does not send" in proc.stderr and proc.stdout == ""


async def _index_ready(client) -> None:
    """Wait for the server's log line saying the workspace index is built."""
    import asyncio

    async with asyncio.timeout(30):
        while not any(m.message.startswith("workspace index:") for m in client.log_messages):
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)


async def _context_in_workspace(client, emulator, path, code: str, line: int, language_id: str = "python") -> dict:
    """sparkls.showContext at `line` of `path` (written with `code` and opened), once
    the workspace index around it is built."""
    path.write_text(code)
    await start(client, emulator, path.parent)
    await _index_ready(client)
    client.editor.open(path.as_uri(), code, language_id=language_id)
    return await client.workspace_execute_command_async(_context_params(path.as_uri(), line))


async def test_definitions_from_other_files_come_from_the_index(client, emulator, tmp_path):
    """A function defined in another file of the workspace is sent with the region."""
    (tmp_path / "geometry.py").write_text('def scale(x, k):\n    """Multiply x by k."""\n    return x * k\n')
    (tmp_path / "ignored.py").write_text("def scale(x, k):\n    return 'from an ignored file'\n")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    code = "from geometry import scale\n\n\ndef double(v):\n    return scale(v, 2)\n"
    result = await _context_in_workspace(client, emulator, tmp_path / "main.py", code, 4)
    assert {"path": "geometry.py", "start_line": 1, "end_line": 3, "kind": "definition"} in result["snippets"]
    assert "Multiply x by k." in result["prompt"]["input"]
    assert "from an ignored file" not in result["prompt"]["input"]


async def test_typescript_types_are_followed_and_comments_name_nothing(client, emulator, tmp_path):
    """Through the server's index: `new EmptyError()` where `const EmptyError: EmptyErrorCtor`
    sends the interface's construct signature; a word in a comment ("first") sends nothing."""
    fields = "".join(f"  field{i}: string;\n" for i in range(30))
    (tmp_path / "errors.ts").write_text(
        f"export interface EmptyErrorCtor {{\n  new (): EmptyError;\n{fields}}}\n\n"
        "export const EmptyError: EmptyErrorCtor = createErrorClass();\n"
    )
    (tmp_path / "first.ts").write_text("export function first(): number {\n  return 1;\n}\n")
    code = "import { EmptyError } from './errors';\n\nexport function fail(): never {\n  // not the first failure\n  throw new EmptyError();\n}\n"
    result = await _context_in_workspace(client, emulator, tmp_path / "main.ts", code, 4, "typescript")
    sent = result["prompt"]["input"]
    assert "  new (): EmptyError;" in sent and "field7" not in sent
    assert "function first" not in sent


async def test_context_cli_shows_what_the_editor_sends(client, emulator, tmp_path):
    """`sparkls context --json` reports the snippets and prompt of sparkls.showContext at the same place."""
    (tmp_path / "geometry.py").write_text('def scale(x, k):\n    """Multiply x by k."""\n    return x * k\n')
    code = "from geometry import scale\n\n\ndef double(v):\n    return scale(v, 2)\n"
    path = tmp_path / "main.py"
    path.write_text(code)
    await start(client, emulator, tmp_path)
    await _index_ready(client)
    client.editor.open(path.as_uri(), code)
    shown = await client.workspace_execute_command_async(_context_params(path.as_uri(), 4))
    printed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "sparkls", "context", str(path), "--line", "5", "--column", "9", "--root", str(tmp_path), "--json"],
            capture_output=True, text=True, check=True,
        ).stdout
    )
    assert {"path": "geometry.py", "start_line": 1, "end_line": 3, "kind": "definition"} in printed["snippets"]
    assert printed["snippets"] == shown["snippets"]
    assert printed["prompt"] == shown["prompt"]


def test_context_cli_keeps_no_index_when_told_not_to(tmp_path, monkeypatch):
    """With `context.index = false`, `sparkls context` builds no index and sends no other file's definitions."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / ".sparkls.toml").write_text("[context]\nindex = false\n")
    (tmp_path / "ws" / "geometry.py").write_text("def scale(x, k):\n    return x * k\n")
    (tmp_path / "ws" / "main.py").write_text("from geometry import scale\n\n\ndef double(v):\n    return scale(v, 2)\n")
    out = subprocess.run(
        [sys.executable, "-m", "sparkls", "context", str(tmp_path / "ws" / "main.py"), "--line", "5", "--root", str(tmp_path / "ws"), "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert all(s["path"] == "main.py" for s in json.loads(out)["snippets"])
    assert not (tmp_path / "cache").exists()


async def test_watched_file_changes_update_the_index(client, emulator, tmp_path):
    """A file created outside the editor is indexed once the client reports it."""
    import asyncio

    code = "def double(v):\n    return triple(v) - v\n"
    path = tmp_path / "main.py"
    path.write_text(code)
    await start(client, emulator, tmp_path)
    await _index_ready(client)
    (watch,) = client.editor.registrations
    assert watch.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    client.editor.open(path.as_uri(), code)
    created = tmp_path / "more.py"
    created.write_text("def triple(x):\n    return 3 * x\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=created.as_uri(), type=types.FileChangeType.Created)])
    )
    async with asyncio.timeout(30):
        while True:  # the reindex runs in a worker thread: ask until it has landed
            result = await client.workspace_execute_command_async(_context_params(path.as_uri(), 1))
            if any(s["path"] == "more.py" for s in result["snippets"]):
                break
            await asyncio.sleep(0.05)


def test_members_from_other_files_go_and_typescript(tmp_path, monkeypatch):
    """Through the workspace index: a Go struct's field and a TypeScript interface's property
    used in another file come as the type's header plus that member's line."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    ws.mkdir()
    fields = "\n".join(f"\tField{i} string" for i in range(40))
    (ws / "types.go").write_text(f"package shapes\n\ntype Server struct {{\n{fields}\n\tPort int // the port\n}}\n")
    (ws / "main.go").write_text("package shapes\n\nfunc Describe(s *Server) int {\n\treturn s.Port + 1\n}\n")
    props = "\n".join(f"  option{i}: string;" for i in range(40))
    (ws / "options.ts").write_text(f"export interface Options {{\n{props}\n  retries: number; // how many times\n}}\n")
    (ws / "main.ts").write_text("import { Options } from './options';\n\nexport function attempts(opts: Options): number {\n  return opts.retries;\n}\n")

    def prompt(name: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "sparkls", "context", str(ws / name), "--line", "4", "--root", str(ws), "--json"],
            capture_output=True, text=True, check=True,
        ).stdout
        return json.loads(out)["prompt"]["input"]

    go = prompt("main.go")
    assert "type Server struct {" in go and "\tPort int // the port" in go and "Field7" not in go
    ts = prompt("main.ts")
    assert "export interface Options {" in ts and "  retries: number; // how many times" in ts and "option7" not in ts
