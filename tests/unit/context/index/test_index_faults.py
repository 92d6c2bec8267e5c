"""The shared index through the faults of its file and of the walk: a held write lock,
a full database, a file that cannot be opened, a symlink loop, a file deleted under a
live server, another server's prune."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from sparkls.context.index import SymbolIndex, prune_indexes
from sparkls.context.index.health import BUSY, FULL, UNUSABLE, LiveMark, classify
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.lsp.indexing import IndexKeeper
from bench.kit.keeper_server import KeeperServer

HELPER = "def helper(x):\n    return x\n"


def _hold_write_lock(db_path: Path) -> sqlite3.Connection:
    """Another process's writer, as a suspended editor's server would be: BEGIN IMMEDIATE held."""
    holder = sqlite3.connect(db_path, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    return holder


# -- what a fault is -----------------------------------------------------------------------


def test_a_held_lock_a_full_database_and_a_folder_in_the_way_are_told_apart(tmp_path):
    """Real SQLite errors: a held write lock is `busy`, a database at its size limit is
    `full`, an index path that is a folder is `unusable`; a misuse is none of them."""
    index = SymbolIndex(tmp_path, tmp_path / "i.sqlite3", busy_timeout=0)
    holder = _hold_write_lock(index.db_path)
    with pytest.raises(sqlite3.OperationalError) as locked:
        index.remove_file("a.py")
    holder.execute("ROLLBACK")
    assert classify(locked.value) == BUSY
    full = sqlite3.connect(tmp_path / "full.sqlite3")
    full.execute("CREATE TABLE t (x)")
    (pages,) = full.execute("PRAGMA page_count").fetchone()
    full.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError) as no_room:
        full.execute("INSERT INTO t VALUES (randomblob(100000))")
    assert classify(no_room.value) == FULL
    assert classify(OSError(28, "No space left on device")) == FULL
    (tmp_path / "folder.sqlite3").mkdir()
    with pytest.raises((sqlite3.Error, OSError)) as folder:
        SymbolIndex(tmp_path, tmp_path / "folder.sqlite3")
    assert classify(folder.value) == UNUSABLE
    assert classify(sqlite3.ProgrammingError("Cannot operate on a closed database.")) is None
    assert classify("OperationalError: database is locked") == BUSY
    index.close()


# -- the walk (item 4) ---------------------------------------------------------------------


def test_the_walk_survives_a_symlink_loop_and_dangling_links(tmp_path):
    """`a.py -> b.py -> a.py` (Errno 40 on stat) and a link to nothing are skipped; the rest is walked."""
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    (tmp_path / "gone.py").symlink_to("nowhere.py")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")  # a folder loop: links to folders are not followed
    (tmp_path / "pkg" / "real.py").write_text(HELPER)
    walked = list(iter_files(tmp_path, PathFilter.from_root(tmp_path)))
    assert walked == [tmp_path / "pkg" / "real.py"]


def test_the_walk_survives_files_and_folders_vanishing_mid_walk(tmp_path):
    """A folder deleted after its parent was listed, and a file deleted after its folder
    was listed, are skipped without an error."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f.py").write_text(HELPER)
        (tmp_path / name / "g.py").symlink_to("f.py")
    walked = []
    for path in iter_files(tmp_path, PathFilter.from_root(tmp_path)):
        walked.append(path.relative_to(tmp_path).as_posix())
        if path.name == "f.py" and path.parent.name == "a":
            (tmp_path / "a" / "f.py").unlink()  # g.py, listed already, now leads nowhere
            for file in (tmp_path / "b").iterdir():
                file.unlink()
            (tmp_path / "b").rmdir()
    assert walked == ["a/f.py", "c/f.py", "c/g.py"]


def test_a_build_over_a_symlink_loop_indexes_the_rest(tmp_path):
    """The index stays on: the loop is skipped, the other files are indexed."""
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    (tmp_path / "c.py").write_text(HELPER)
    with SymbolIndex(tmp_path, tmp_path / "i.sqlite3") as index:
        stats = index.build(PathFilter.from_root(tmp_path))
        index.update_file("a.py")  # a refresh of the loop itself keeps what the index had
        assert stats.scanned == 1 and [path for path, _ in index.lookup("helper")] == ["c.py"]


# -- a held lock (item 3) ------------------------------------------------------------------


def test_a_write_waits_out_a_held_lock_and_is_not_lost(tmp_path):
    """The worker's write finds the lock held, tries again with backoff, and lands once it is released."""
    (tmp_path / "new.py").write_text(HELPER)
    index = SymbolIndex(tmp_path, tmp_path / "i.sqlite3", busy_timeout=0.01, busy_patience=60)
    holder = _hold_write_lock(index.db_path)
    tries: list[float] = []

    def sleep(delay: float) -> None:
        tries.append(delay)
        if len(tries) == 2:
            holder.execute("COMMIT")  # the other process lets go

    index.sleep = sleep
    index.update_file("new.py")
    assert len(tries) == 2 and [path for path, _ in index.lookup("helper")] == ["new.py"]
    index.close()


async def test_a_buffer_stored_while_locked_is_written_after_by_itself(tmp_path):
    """The server's store of a buffer under a held lock returns at once (nothing waits on
    it), is said as `busy` once, and is written when the lock goes, with no new store."""
    workspace = WorkspaceIndex(tmp_path, tmp_path / "i.sqlite3")
    workspace.index.busy_timeout = 0
    faults: list[str | None] = []
    written = asyncio.Event()

    def on_fault(condition, error):
        faults.append(condition)
        if condition is None:
            written.set()

    workspace.on_fault = on_fault
    holder = _hold_write_lock(workspace.index.db_path)
    store = DocumentStore()
    doc = store.open("file:///w/mod.py", HELPER, 1, "python")
    await workspace.store_buffer(tmp_path / "mod.py", doc, PathFilter.from_root(tmp_path))
    assert faults == [BUSY] and workspace.index.lookup("helper") == []
    holder.execute("ROLLBACK")
    await asyncio.wait_for(written.wait(), 30)
    assert [path for path, _ in workspace.index.lookup("helper")] == ["mod.py"]
    workspace.close()


# -- said once (items 2, 7) ----------------------------------------------------------------


def test_a_full_disk_is_said_once_per_condition(tmp_path):
    """Every typing pause failing on a full disk says it once; after a write that worked
    and a new failure, it is said again."""
    server = KeeperServer()
    keeper = IndexKeeper(server)  # type: ignore[arg-type]
    db = tmp_path / "index.sqlite3"
    for _ in range(50):
        keeper.fault(FULL, sqlite3.OperationalError("database or disk is full"), db)
    assert len(server.shown) == 1 and "is full" in server.shown[0] and str(tmp_path) in server.shown[0]
    keeper.fault(None, None, db)
    keeper.fault(None, None, db)
    assert len([line for line in server.logged if "working again" in line]) == 1
    keeper.fault(FULL, "OperationalError: database or disk is full", db)
    assert len(server.shown) == 2


async def test_an_index_that_cannot_be_opened_is_said_once_and_comes_back(tmp_path, monkeypatch):
    """The index path is a folder: start() does not raise, the user is told once (which
    path, what to do), and once the folder is gone the index opens by itself."""
    from sparkls.lsp import indexing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(indexing, "OPEN_FIRST", 0.01)
    from sparkls.context.index import default_db_path

    root = tmp_path / "w"
    root.mkdir()
    db = default_db_path(root)
    db.mkdir(parents=True)
    server = KeeperServer(root)
    keeper = IndexKeeper(server)  # type: ignore[arg-type]
    opened = asyncio.Event()
    keeper._rebuild = lambda why=None: opened.set()  # type: ignore[method-assign]
    keeper.start()
    while not server.shown:
        await asyncio.sleep(0.01)
    (message,) = server.shown
    assert str(db) in message and "a folder is in its place" in message and "Edits work without it" in message
    db.rmdir()
    await asyncio.wait_for(opened.wait(), 30)
    assert keeper.index is not None and len(server.shown) == 1 and any("working again" in m for m in server.logged)
    await keeper.close()


# -- pruning and a replaced file (item 6) -------------------------------------------------


def test_pruning_never_deletes_an_index_a_live_server_holds(tmp_path):
    """An index open in another server (its worker long gone, not used for days) is
    kept; once that server closes it, it goes."""
    cache = tmp_path / "cache"
    cache.mkdir()
    idle = SymbolIndex(tmp_path, cache / "index-idle.sqlite3")
    days_ago = time.time() - 5 * 86400
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{idle.db_path}{suffix}").exists():
            os.utime(f"{idle.db_path}{suffix}", (days_ago, days_ago))
    current = cache / "index-current.sqlite3"
    assert prune_indexes(current, max_files=0, in_use_seconds=0) == []
    assert idle.db_path.exists()
    idle.close()
    assert prune_indexes(current, max_files=0, in_use_seconds=0) == [idle.db_path]
    assert not idle.db_path.exists() and not Path(f"{idle.db_path}-live").exists()


def test_the_liveness_mark_is_shared_by_readers(tmp_path):
    """Two servers hold the same index's mark at once."""
    first, second = LiveMark(tmp_path / "i.sqlite3"), LiveMark(tmp_path / "i.sqlite3")
    assert first.hold() and second.hold()
    first.release()
    second.release()


def test_an_index_deleted_under_a_server_is_reopened(tmp_path):
    """The file deleted (another server's reset, a hand): `replaced()` says so, and after
    `reopen()` writes land in the new file, which another connection sees."""
    (tmp_path / "a.py").write_text(HELPER)
    index = SymbolIndex(tmp_path, tmp_path / "i.sqlite3")
    index.build(PathFilter.from_root(tmp_path))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index.db_path}{suffix}").unlink(missing_ok=True)
    assert index.replaced()
    index.reopen()
    assert not index.replaced()
    index.build(PathFilter.from_root(tmp_path))
    with SymbolIndex(tmp_path, index.db_path) as other:
        assert [path for path, _ in other.lookup("helper")] == ["a.py"]
    index.close()


def test_a_lock_released_by_a_thread_is_seen_by_the_worker_write(tmp_path):
    """The same as a held lock, released by another thread while the write waits."""
    (tmp_path / "new.py").write_text(HELPER)
    index = SymbolIndex(tmp_path, tmp_path / "i.sqlite3", busy_timeout=0.05, busy_patience=60)
    holder = sqlite3.connect(index.db_path, isolation_level=None, timeout=0, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    waiting = threading.Event()
    index.sleep = lambda delay: (waiting.set(), time.sleep(0.01))  # type: ignore[func-returns-value]
    writer = threading.Thread(target=index.update_file, args=("new.py",))
    writer.start()
    assert waiting.wait(30)
    holder.execute("COMMIT")
    writer.join(30)
    assert [path for path, _ in index.lookup("helper")] == ["new.py"]
    index.close()
