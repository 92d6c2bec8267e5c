"""docs/architecture.md names every module of the runtime, in the folder it lives in.

The runtime is every module under server/sparkls/ but the emulator's (a stand-in for the
model service, never part of a user's server; docs/emulator.md is its own). A package's
`__init__.py` counts when it holds more than a docstring. A module is named when its
file name appears in its folder's entry of the tree in "## The layers" (the top-level
modules each on an entry of their own).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "server" / "sparkls"
DOC = ROOT / "docs" / "architecture.md"
APART = ("emulator",)
TOP = "."  # the folder of the top-level modules


def runtime_modules() -> list[Path]:
    """The runtime's modules, relative to server/sparkls/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in APART:
            continue
        if path.name == "__init__.py" and not _holds_code(path):
            continue
        found.append(relative)
    return found


def _holds_code(path: Path) -> bool:
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))  # the docstring
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        for node in body
    )


def entries() -> dict[str, str]:
    """The tree's entries: folder (`lsp/handlers`, `.` for the top level) -> the text it holds."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## The layers") :]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None, "docs/architecture.md: no tree under ## The layers"
    found: dict[str, str] = {}
    current = None
    for line in block.group(1).splitlines():
        head = re.match(r"^  (\S+)", line)
        if head and not head.group(1).startswith("--"):
            name = head.group(1)
            current = name.rstrip("/") if name.endswith("/") else TOP
            found[current] = found.get(current, "") + " " + (line if current != TOP else name)
        elif current is not None and line.startswith("   ") and current != TOP:
            found[current] += " " + line
    return found


def named(module: Path, tree: dict[str, str]) -> bool:
    folder = str(module.parent) if module.parent != Path(".") else TOP
    return re.search(rf"(?<![\w/.]){re.escape(module.name)}(?!\w)", tree.get(folder, "")) is not None


def test_every_module_of_the_runtime_is_named():
    """Each module of the runtime (the emulator's apart) is named in its folder's entry of docs/architecture.md."""
    tree = entries()
    missing = [str(module) for module in runtime_modules() if not named(module, tree)]
    assert missing == [], "not named in docs/architecture.md's tree: " + ", ".join(missing)


def test_the_tree_names_no_module_that_is_gone():
    """Each top-level file the tree names exists (a moved module is not left behind)."""
    tree = entries()
    files = re.findall(r"\b([a-z_]+\.py)\b", tree[TOP])
    gone = [name for name in files if not (PACKAGE / name).exists()]
    assert gone == [], gone
