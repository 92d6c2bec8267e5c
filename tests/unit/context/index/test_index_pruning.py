"""The cache folder's index files: kept to a number and a size, least recently used first out."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from sparkls.context.index import default_db_path, prune_indexes
from sparkls.context.index.workspace import WorkspaceIndex

HOUR = 3600


def _index(folder: Path, name: str, *, hours_ago: float, size: int = 10, wal: bool = False) -> Path:
    """An index file last used `hours_ago` hours ago (and its -wal, -shm files)."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / f"index-{name}.sqlite3"
    used = time.time() - hours_ago * HOUR
    for path in [db, *([Path(f"{db}-wal"), Path(f"{db}-shm")] if wal else [])]:
        path.write_bytes(b"x" * size)
        os.utime(path, (used, used))
    return db


def _left(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


def test_the_least_recently_used_go_beyond_the_file_limit(tmp_path):
    """Beyond `max_files`, the indexes used longest ago are deleted, -wal and -shm with them."""
    current = _index(tmp_path, "current", hours_ago=0)
    _index(tmp_path, "recent", hours_ago=2)
    old = _index(tmp_path, "old", hours_ago=48, wal=True)
    _index(tmp_path, "older", hours_ago=72)
    assert prune_indexes(current, max_files=2) == [old, tmp_path / "index-older.sqlite3"]
    assert _left(tmp_path) == {"index-current.sqlite3", "index-recent.sqlite3"}


def test_the_least_recently_used_go_beyond_the_size_limit(tmp_path):
    """Beyond `max_bytes` in all, the indexes used longest ago are deleted."""
    current = _index(tmp_path, "current", hours_ago=0, size=600)
    _index(tmp_path, "recent", hours_ago=2, size=300)
    _index(tmp_path, "old", hours_ago=48, size=300)
    prune_indexes(current, max_bytes=1000)
    assert _left(tmp_path) == {"index-current.sqlite3", "index-recent.sqlite3"}


def test_an_index_used_within_the_hour_is_kept(tmp_path):
    """An index another editor's server may have open (used in the last hour) stays, over the limit or not."""
    current = _index(tmp_path, "current", hours_ago=0)
    _index(tmp_path, "busy", hours_ago=0.5)
    assert prune_indexes(current, max_files=1) == []


def test_the_current_index_is_kept_and_marked_as_used(tmp_path):
    """The workspace's own index is never deleted, and opening it makes it the most recent."""
    current = _index(tmp_path, "current", hours_ago=100, size=5000)
    _index(tmp_path, "other", hours_ago=2)
    prune_indexes(current, max_files=1, max_bytes=100)
    assert _left(tmp_path) == {"index-current.sqlite3"}
    assert time.time() - current.stat().st_mtime < HOUR


def test_other_files_in_the_folder_are_left_alone(tmp_path):
    """Only index databases and their -wal/-shm files are ever deleted."""
    current = _index(tmp_path, "current", hours_ago=0)
    (tmp_path / "notes.txt").write_text("mine")
    os.utime(tmp_path / "notes.txt", (0, 0))
    prune_indexes(current, max_files=1)
    assert _left(tmp_path) == {"index-current.sqlite3", "notes.txt"}


@pytest.mark.skipif(sys.platform == "win32", reason="XDG_CACHE_HOME is not read on Windows")
async def test_opening_the_workspace_index_prunes_the_cache_folder(tmp_path, monkeypatch):
    """The first build of a workspace index deletes the cache folder's stale index files."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    folder = default_db_path(root).parent
    for number in range(25):
        _index(folder, f"stale{number:02d}", hours_ago=24 + number)
    index = WorkspaceIndex(root)
    try:
        await index.build([])
    finally:
        index.close()
        await index.wait_closed()
    left = sorted(name for name in _left(folder) if name.endswith(".sqlite3"))
    assert left == sorted([default_db_path(root).name, *(f"index-stale{n:02d}.sqlite3" for n in range(19))])
