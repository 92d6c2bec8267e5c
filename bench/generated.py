"""Generated, fixed benchmark inputs: Python files of small functions and workspaces of small modules.

The same text every run, so that figures from different runs and builds compare.
"""

from __future__ import annotations

from pathlib import Path

HEADER = '"""Generated benchmark input."""\nimport math\nfrom typing import Any\n\n\n'
FUNCTION = '''\
def step_{k}(items, factor={k}):
    """Scale and sum the items (step {k})."""
    total = 0
    for item in items:
        if item % {m} == 0:
            total += item * factor
        else:
            total -= item
    return total


'''
FUNCTION_LINES = FUNCTION.count("\n")
FIRST = HEADER.count("\n")  # line of step_0's `def`


def make_source(lines: int) -> str:
    """A fixed Python file of exactly `lines` lines of small functions."""
    count = lines // FUNCTION_LINES + 1
    text = HEADER + "".join(FUNCTION.format(k=k, m=k % 7 + 2) for k in range(count))
    return "".join(text.splitlines(keepends=True)[:lines])


def functions_in(lines: int) -> int:
    return (lines - FIRST - 2) // FUNCTION_LINES  # whole functions, docstring line included


def make_workspace(root: Path, files: int) -> None:
    """`files` small modules in packages of 100, each importing its neighbour."""
    for i in range(files):
        folder = root / f"pkg_{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        j = (i + 1) % files
        (folder / f"mod_{i:05d}.py").write_text(
            f'"""Module {i}."""\nfrom pkg_{j // 100:03d}.mod_{j:05d} import helper_{j}\n\n\n'
            f"def helper_{i}(x):\n    return x * {i % 13 + 1}\n\n\n"
            f"def combine_{i}(items):\n    total = 0\n    for item in items:\n        total += helper_{j}(item)\n    return total\n\n\n"
            f"class Store{i}:\n    limit = {i % 50}\n\n    def __init__(self, data):\n        self.data = data\n\n"
            f"    def pick(self, key):\n        return self.data.get(key, helper_{i}(self.limit))\n"
        )
