"""Issue 27, item 1: a definition from another file is shown from the text its index
rows were taken from (context/index/sources.py): this server's buffer as indexed, the
disk where the rows came from it and it has not changed, else the file read again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.documents.positions import split_lines
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter

UTILS = 'def helper(x):\n    """Twice x."""\n    return 2 * x\n\n\ndef other():\n    return 0\n'
MAIN = "def run(v):\n    return helper(v) + 1\n"


@pytest.fixture
def repo(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "utils.py").write_text(UTILS)
    (root / "main.py").write_text(MAIN)
    return root


@pytest.fixture
async def two(repo: Path, tmp_path: Path):
    """Two servers' indexes on one repository, sharing one database file."""
    db = tmp_path / "index.sqlite3"
    first, second = WorkspaceIndex(repo, db), WorkspaceIndex(repo, db)
    await first.build([])
    second.ready = True
    yield first, second
    for index in (first, second):
        index.close()
        await index.wait_closed()


def _helper_snippet(index: WorkspaceIndex, repo: Path) -> tuple[int, str]:
    """(first line, text) of the `helper` snippet an edit of main.py is sent."""
    doc = DocumentStore().open((repo / "main.py").as_uri(), MAIN, 1)
    at = MAIN.index("return")
    ctx = build_edit_context(doc, at, at, path="main.py", max_region_lines=300, lookup=index)
    (snippet,) = [s for s in ctx.snippets if s.path == "utils.py"]
    return snippet.start_line, snippet.text


async def test_another_servers_unsaved_buffer_rows_are_never_shown_from_the_disk_at_their_lines(two, repo):
    """The issue's case: the second server indexes its buffer of utils.py with an unsaved
    `import os` on top (rows one line down). The first server re-reads the disk and
    shows `def helper` at line 0; the second shows its buffer, `def helper` at line 2."""
    first, second = two
    buffer = DocumentStore().open((repo / "utils.py").as_uri(), "import os\n\n" + UTILS, 2)
    await second.store_buffer(repo / "utils.py", buffer, PathFilter())
    assert [(p, s.start_line) for p, s in first.index.lookup("helper")] == [("utils.py", 2)]  # the shared rows
    line, text = _helper_snippet(first, repo)
    assert line == 0 and text.startswith("def helper(x):")
    line, text = _helper_snippet(second, repo)
    assert line == 2 and text.startswith("def helper(x):")
    second.forget_buffer(repo / "utils.py")  # closed unsaved: the disk is the truth again
    line, text = _helper_snippet(second, repo)
    assert line == 0 and text.startswith("def helper(x):")


async def test_a_file_changed_on_disk_since_it_was_indexed_is_read_again(two, repo):
    first, _ = two
    (repo / "utils.py").write_text("# moved down\n\n\n" + UTILS)
    os.utime(repo / "utils.py", ns=(1, 1))  # another mtime for sure
    line, text = _helper_snippet(first, repo)
    assert line == 3 and text.startswith("def helper(x):")
    (repo / "utils.py").unlink()
    assert first.definitions("helper") == [] and first.file_lines("utils.py") is None


async def test_a_definition_only_in_this_servers_buffer_is_found(two, repo):
    """A function typed into an open buffer and indexed: found by the server that has
    the buffer, with that buffer's lines; the other server re-reads the disk, which
    does not hold it."""
    first, second = two
    buffer = DocumentStore().open((repo / "utils.py").as_uri(), UTILS + "\n\ndef brand_new():\n    return 0\n", 2)
    await second.store_buffer(repo / "utils.py", buffer, PathFilter())
    row = UTILS.count("\n") + 2  # after the two blank lines
    assert [(p, s.start_line) for p, s in second.definitions("brand_new")] == [("utils.py", row)]
    assert second.file_lines("utils.py")[row] == "def brand_new():"
    assert first.definitions("brand_new") == []


async def test_an_excluded_buffer_is_neither_indexed_nor_shown(two, repo):
    _, second = two
    buffer = DocumentStore().open((repo / "utils.py").as_uri(), "def hidden():\n    pass\n", 2)
    await second.store_buffer(repo / "utils.py", buffer, PathFilter(["utils.py"]))
    assert second.definitions("hidden") == []


async def test_lines_are_counted_as_the_tree_counts_rows(tmp_path: Path):
    """A form feed (Python's old page break) or U+2028 is no line break for tree-sitter:
    the lines a row is read from break where its rows do (`str.splitlines` would shift
    every row after one)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "paged.py").write_text("def a():\n    return 1\n\x0c\ndef b():\n    return '\u2028'\n\ndef c():\n    pass\n")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    try:
        await index.build([])
        for name in ("b", "c"):
            ((path, symbol),) = index.definitions(name)
            assert index.file_lines(path)[symbol.start_line].startswith(f"def {name}():")
    finally:
        index.close()
        await index.wait_closed()
    assert split_lines("a\r\nb\rc\nd\x0ce\u2028f") == ["a", "b", "c", "d\x0ce\u2028f"]
