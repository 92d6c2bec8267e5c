"""Every instruction the README and the editor pages give as an example works on a first
try, on the emulator, exactly as written there: each is read out of the page (a page
that changes its example changes what is tested), sent through real sparkls as the page
says, and must change the code, never fail.

The examples: the README's edit ("return None on empty input"), its refines ("shorter",
"keep the old name"), its comment instruction (`# spark: add retries with backoff`), its
rewrites ("Spark: Add a docstring", "Spark: Add type hints", "Spark: Simplify") and its
multi-file task in words ("rename the function area to surface everywhere"); helix.md's
comment instruction (its `parse` block, as shown) and its refine comment (`# spark:
shorter, and keep the old name`); and a completion with no directive, as any editor
asks for one.
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from tests.e2e.conftest import run_edit
from tests.e2e.editor import capabilities
from tests.editors.docs import block

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HELIX = (ROOT / "docs" / "editors" / "helix.md").read_text(encoding="utf-8")

EDIT = re.search(r'give an instruction \("([^"]+)"\)', README).group(1)
REFINES = re.search(r'\*\*Adjust what it just did\*\* \| "([^"]+)", "([^"]+)"', README).groups()
COMMENT = re.search(r"Write `(# spark: [^`]+)`", README).group(1)
REWRITES = re.findall(r'"(Spark: [^"]+)"', re.search(r"\*\*Rewrites on a selection\*\* \|([^|]*)\|", README).group(1))
TASK = re.search(r'sends a task, in your own\s+words \("([^"]+)"\)', README).group(1)
HELIX_PARSE = block("helix.md", "python", "The comment instruction: `# spark: …`")
HELIX_REFINE = re.search(r"write\s+`(# spark: [^`]+)` on one of the lines it changed", HELIX).group(1)

TOTAL = "def total(items):\n    result = sum(items)\n    return result\n"
SHAPES = '''def area(radius):
    return 3.14 * radius ** 2


def is_small(radius):
    if radius < 1:
        return True
    else:
        return False
'''
REPORT = "from shapes import area\n\nprint(\"area:\", area(2))\n"


async def _start(client, emulator, root: Path, files: dict[str, str]) -> dict[str, str]:
    """The keyless set-up the README's first try uses (`localBaseUrl`), as Neovim; `files`
    written and opened; their URIs."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities("neovim"),
            initialization_options={"localBaseUrl": emulator.url},
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )
    uris = {}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
        uris[name] = (root / name).as_uri()
        client.editor.open(uris[name], text)
    return uris


async def _actions(client, uri: str, start: int, end: int | None = None, character: int = 0) -> list[types.CodeAction]:
    first = types.Position(line=start, character=character)
    last = types.Position(line=end, character=0) if end is not None else first
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=first, end=last),
            context=types.CodeActionContext(diagnostics=[], trigger_kind=types.CodeActionTriggerKind.Invoked),
        )
    )


async def _pick(client, actions: list[types.CodeAction], title: str) -> None:
    """Resolve the action titled `title` (or starting so) and apply its edit, as Neovim does."""
    (action,) = [a for a in actions if a.title == title or a.title.startswith(title)]
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None, [m.message for m in client.messages]
    assert client.editor.apply_workspace_edit(resolved.edit).applied


def _refine(client, uri: str, instruction: str):
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.refine", arguments=[{"uri": uri, "instruction": instruction}])
    )


def _no_failure_said(client) -> None:
    shown = [m.message for m in client.messages]
    assert not any("does not understand" in m or "no complete code block" in m or "nothing was changed" in m for m in shown), shown


async def test_the_readme_edit_and_its_refines(client, keyless_emulator, tmp_path):
    """The README's instruction, then its two refines: "shorter" shortens the edit just made;
    after a rename, "keep the old name" takes the old name back."""
    assert EDIT == "return None on empty input" and REFINES == ("shorter", "keep the old name")
    uri = (await _start(client, keyless_emulator, tmp_path, {"total.py": TOTAL}))["total.py"]
    assert (await run_edit(client, uri, 1, EDIT))["applied"] is True
    assert client.editor.text(uri) == TOTAL.replace("):\n", "):\n    if not items:\n        return None\n")
    assert (await _refine(client, uri, REFINES[0]))["applied"] is True
    assert client.editor.text(uri) == "def total(items):\n    if not items:\n        return\n    return sum(items)\n"
    assert (await run_edit(client, uri, 1, "rename items to values"))["applied"] is True
    assert (await _refine(client, uri, REFINES[1]))["applied"] is True
    assert client.editor.text(uri) == "def total(items):\n    if not items:\n        return\n    return sum(items)\n"
    _no_failure_said(client)


async def test_the_readme_comment_instruction(client, keyless_emulator, tmp_path):
    """`# spark: add retries with backoff` above a function: "Spark: apply instruction"
    rewrites it and removes the comment; the result is Python."""
    text = COMMENT + "\n" + TOTAL
    uri = (await _start(client, keyless_emulator, tmp_path, {"total.py": text}))["total.py"]
    await _pick(client, await _actions(client, uri, 0, character=4), "Spark: apply instruction")
    new = client.editor.text(uri)
    assert "spark:" not in new and "for attempt in range(3):" in new and "time.sleep(2 ** attempt)" in new
    compile(new, "total.py", "exec")
    _no_failure_said(client)


async def test_the_readme_rewrites(client, keyless_emulator, tmp_path):
    """"Spark: Add a docstring", "Spark: Add type hints" and "Spark: Simplify" on a selection each change the code."""
    assert REWRITES == ["Spark: Add a docstring", "Spark: Add type hints", "Spark: Simplify"]
    uri = (await _start(client, keyless_emulator, tmp_path, {"shapes.py": SHAPES}))["shapes.py"]
    await _pick(client, await _actions(client, uri, 4, 9), "Spark: Simplify")
    assert "def is_small(radius):\n    return radius < 1\n" in client.editor.text(uri)
    await _pick(client, await _actions(client, uri, 0, 2), "Spark: Add type hints")
    assert "def area(radius: float) -> float:" in client.editor.text(uri)
    await _pick(client, await _actions(client, uri, 0, 2), "Spark: Add a docstring")
    assert 'def area(radius: float) -> float:\n    """Area."""\n' in client.editor.text(uri)
    _no_failure_said(client)


async def test_the_readme_task_in_plain_words(client, keyless_emulator, tmp_path):
    """"rename the function area to surface everywhere": one edit across both files, the
    string's words kept."""
    uris = await _start(client, keyless_emulator, tmp_path, {"shapes.py": SHAPES, "report.py": REPORT})
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": TASK, "uris": list(uris.values())}])
    )
    assert result["applied"] is True, [m.message for m in client.messages]
    assert client.editor.text(uris["shapes.py"]).startswith("def surface(radius):")
    assert client.editor.text(uris["report.py"]) == 'from shapes import surface\n\nprint("area:", surface(2))\n'


async def test_the_helix_comment_instruction_and_refine_comment(client, keyless_emulator, tmp_path):
    """helix.md's `parse` block as shown: "Spark: apply instruction" returns None on an empty
    line; then its refine comment on an edited line is offered and shortens the edit."""
    uri = (await _start(client, keyless_emulator, tmp_path, {"parse.py": HELIX_PARSE}))["parse.py"]
    await _pick(client, await _actions(client, uri, 1, character=8), "Spark: apply instruction")
    guarded = client.editor.text(uri)
    assert guarded.startswith("def parse(line):\n    if not line.strip():\n        return None\n    key, _, value"), guarded
    client.editor.type_text(uri, 2, len("        return None"), "  " + HELIX_REFINE)
    await _pick(client, await _actions(client, uri, 2, character=10), "Spark: refine last edit")
    assert client.editor.text(uri) == guarded.replace("        return None\n", "        return\n")
    _no_failure_said(client)


async def test_a_completion_with_no_directive(client, keyless_emulator, tmp_path):
    """Ghost text at `return ` completes from the code around it, no `COMPLETE` line needed."""
    text = "def total(items):\n    result = sum(items)\n    return \n"
    uri = (await _start(client, keyless_emulator, tmp_path, {"total.py": text}))["total.py"]
    answer = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=2, character=11))
    )
    for _ in range(200):  # the item comes once the model has answered; the editor asks again as you type
        if answer.items:
            break
        answer = await client.text_document_completion_async(
            types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=2, character=11))
        )
    assert [item.label for item in answer.items] == ["result"]


def test_the_examples_are_counted():
    """The examples read out of the pages (the figure the closing note gives)."""
    examples = [EDIT, *REFINES, COMMENT, *REWRITES, TASK, HELIX_PARSE, HELIX_REFINE]
    assert len(examples) == 10 and all(examples)
