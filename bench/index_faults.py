"""Benchmark: the shared index through the faults of its file (issue 27, items 2-4, 6, 7).

Figures, each from the real pieces (a `WorkspaceIndex` with its real worker process,
the session's `IndexKeeper` over a stand-in for the LSP server):

  - lock: another connection holds the write lock (`BEGIN IMMEDIATE`) for `--hold`
    seconds (25, as a suspended editor's server would); a file created meanwhile is
    reindexed through the worker, and a buffer stored from the server. Figure: the
    lock released -> both in the index (s).
  - full disk: the index in a 2 MB tmpfs in a private mount namespace (`unshare -rm`,
    where the machine allows; otherwise said and skipped), a filler file taking the
    rest; 30 buffers stored, one per "typing pause". Figures: the messages the user
    got, and the filler deleted -> the buffers' rows in the index (s).
  - cases: each fault of the issue, held before (the issue's finding) -> now (measured;
    the folder-in-the-way case with the first retry at 0.05 s instead of 1 s).

A recovery time depends on where the backoff stood when the cause went: from almost
nothing up to the current interval (writes: 0.5 s doubling to 30 s; opening: 1 s
doubling to 60 s; the worker's write: SQLite's 10 s wait, then 0.2 s doubling to 5 s).

    python bench/index_faults.py [--hold 25]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for bench.kit.keeper_server

from sparkls.context.index import SymbolIndex, prune_indexes  # noqa: E402
from sparkls.context.index.workspace import WorkspaceIndex  # noqa: E402
from sparkls.documents.store import DocumentStore  # noqa: E402
from sparkls.guard.exclusions import PathFilter  # noqa: E402
from sparkls.lsp.indexing import IndexKeeper  # noqa: E402
from bench.kit.keeper_server import KeeperServer  # noqa: E402

HELPER = "def helper(x):\n    return x\n"


async def _until(predicate, timeout: float = 120.0) -> float:
    started = time.perf_counter()
    while not predicate():
        if time.perf_counter() - started > timeout:
            return float("nan")
        await asyncio.sleep(0.02)
    return time.perf_counter() - started


def _paths(index: SymbolIndex, name: str) -> set[str]:
    return {path for path, _ in index.lookup(name)}


async def lock_case(root: Path, hold: float) -> tuple[float, bool]:
    """(lock released -> the created file and the stored buffer both indexed, edits-path read ok)."""
    (root / "main.py").write_text("x = 1\n")
    workspace = WorkspaceIndex(root, root.parent / "lock.sqlite3")
    await workspace.build([])
    holder = sqlite3.connect(workspace.index.db_path, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    (root / "created.py").write_text(HELPER)
    refresh = asyncio.ensure_future(workspace.refresh_file(root / "created.py"))
    doc = DocumentStore().open((root / "buffer.py").as_uri(), "def from_buffer():\n    pass\n", 1, "python")
    await workspace.store_buffer(root / "buffer.py", doc, PathFilter.from_root(root))
    read_ok = workspace.index.lookup("main") == []  # a read on the request path, lock held
    await asyncio.sleep(hold)
    holder.execute("ROLLBACK")
    seconds = await _until(lambda: _paths(workspace.index, "helper") and _paths(workspace.index, "from_buffer"))
    await refresh
    workspace.close()
    await workspace.wait_closed()
    return seconds, read_ok


async def full_disk_inner(folder: Path) -> None:
    """Inside the private mount namespace: `folder` is a small tmpfs."""
    root = Path(tempfile.mkdtemp())
    server = KeeperServer(root)
    keeper = IndexKeeper(server)  # type: ignore[arg-type]
    workspace = WorkspaceIndex(root, folder / "index.sqlite3")
    workspace.on_fault = lambda condition, error: keeper.fault(condition, error, workspace.index.db_path)
    await workspace.build([])
    filler = folder / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    store = DocumentStore()
    for i in range(30):  # thirty typing pauses, each its buffer's rows
        text = "".join(f"def name_{i}_{j}(x):\n    return '{'y' * 200}'\n" for j in range(50))
        doc = store.open((root / f"m{i}.py").as_uri(), text, 1, "python")
        await workspace.store_buffer(root / f"m{i}.py", doc, PathFilter.from_root(root))
    shown_full = len(server.shown)
    filler.unlink()
    seconds = await _until(lambda: bool(_paths(workspace.index, "name_29_0")))
    print(f"full disk: {shown_full} message(s) over 30 typing pauses; space freed -> rows written: {seconds:.2f} s")
    print(f"full disk: the log says when it passed: {any('working again' in m for m in server.logged)}")
    workspace.close()
    await workspace.wait_closed()


def full_disk_case() -> None:
    if shutil.which("unshare") is None:
        print("full disk: skipped (no unshare on this machine)")
        return
    script = (
        "mkdir -p /tmp/sparkls-full && mount -t tmpfs -o size=2m tmpfs /tmp/sparkls-full && "
        f"exec {sys.executable} {Path(__file__).resolve()} --full-disk-inner /tmp/sparkls-full"
    )
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        print(f"full disk: skipped (no private mount namespace here: {done.stderr.strip()[-200:]})")
    else:
        print(done.stdout.strip())


async def cases(root: Path) -> list[tuple[str, str, str]]:
    rows = []
    # 2: a folder in the index file's place
    import sparkls.lsp.indexing as indexing

    indexing.OPEN_FIRST = 0.05
    os.environ["XDG_CACHE_HOME"] = str(root / "cache")
    from sparkls.context.index import default_db_path

    ws = root / "w2"
    ws.mkdir()
    db = default_db_path(ws)
    db.mkdir(parents=True)
    server = KeeperServer(ws)
    keeper = IndexKeeper(server)  # type: ignore[arg-type]
    keeper.start()  # raised before: initialized aborted
    await _until(lambda: bool(server.shown), 30)
    db.rmdir()
    back = await _until(lambda: keeper.index is not None and keeper.index.ready, 60)
    rows.append(("index path a folder", "initialized aborts, no settings pull",
                 f"told {len(server.shown)}x, back {back:.1f} s after the folder went"))  # fmt: skip
    await keeper.close()
    # 4: a symlink loop
    loop = root / "w4"
    loop.mkdir()
    (loop / "a.py").symlink_to("b.py")
    (loop / "b.py").symlink_to("a.py")
    (loop / "c.py").write_text(HELPER)
    with SymbolIndex(loop, root / "loop.sqlite3") as index:
        stats = index.build(PathFilter.from_root(loop))
    rows.append(("symlink loop a.py -> b.py -> a.py", "index off (Errno 40)", f"index on, {stats.scanned} file(s) indexed"))
    # 6: pruning an idle server's index
    cache = root / "prune"
    cache.mkdir()
    idle = SymbolIndex(loop, cache / "index-idle.sqlite3")
    old = time.time() - 7 * 86400
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{idle.db_path}{suffix}").exists():
            os.utime(f"{idle.db_path}{suffix}", (old, old))
    deleted = prune_indexes(cache / "index-current.sqlite3", max_files=0, in_use_seconds=0)
    rows.append(("another server prunes an idle one's index", "deleted; reader on a dead file",
                 "kept" if not deleted else "DELETED"))  # fmt: skip
    for suffix in ("", "-wal", "-shm"):
        Path(f"{idle.db_path}{suffix}").unlink(missing_ok=True)
    reopened = idle.replaced()
    idle.reopen()
    idle.build(PathFilter.from_root(loop))
    rows.append(("index file deleted under a server", "reads the deleted file forever",
                 f"noticed: {reopened}, reopened and rebuilt: {bool(_paths(idle, 'helper'))}"))  # fmt: skip
    idle.close()
    return rows


async def main_async(hold: float) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "ws"
        root.mkdir()
        seconds, read_ok = await lock_case(root, hold)
        print(f"lock held {hold:.0f} s: released -> created file and buffer indexed: {seconds:.2f} s; "
              f"reads meanwhile: {'ok' if read_ok else 'FAILED'}")  # fmt: skip
        full_disk_case()
        rows = await cases(Path(scratch))
        rows.insert(0, (f"write lock held {hold:.0f} s", "update lost, no index all session",
                        "indexed after" if seconds == seconds else "LOST"))  # fmt: skip
    print()
    print(f"{'case':45} {'before':40} now")
    for case, before, now in rows:
        print(f"{case:45} {before:40} {now}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", type=float, default=25.0, help="seconds the write lock is held")
    parser.add_argument("--full-disk-inner", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.full_disk_inner is not None:
        asyncio.run(full_disk_inner(args.full_disk_inner))
    else:
        asyncio.run(main_async(args.hold))


if __name__ == "__main__":
    main()
