"""The workspace symbol index: build, warm restarts, changes, exclusions, lookups."""

import asyncio
import os
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from sparkls.context import index as index_module
from sparkls.context.exclusions import PathFilter
from sparkls.context.index import SCHEMA_VERSION, SymbolIndex, default_db_path

SHAPES = 'class Circle:\n    """A circle."""\n\n    def area(self):\n        return 3.14\n'
MAIN = "from pkg.shapes import Circle\n\n\ndef main():\n    return Circle().area()\n"
WORKSPACE = {
    "pkg/shapes.py": SHAPES,
    "main.py": MAIN,
    "web/app.ts": "export function render(): string {\n  return '';\n}\n",
    "README.md": "# not code\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    for rel, text in WORKSPACE.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")
    return workspace


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "index.sqlite3"


def _build(root: Path, db_path: Path, **kwargs):
    with SymbolIndex(root, db_path) as index:
        return index.build(PathFilter.from_root(root), **kwargs)


def _names(root: Path, db_path: Path, *names: str) -> dict[str, list[str]]:
    """name -> the paths defining it."""
    with SymbolIndex(root, db_path) as index:
        return {name: [path for path, _ in index.lookup(name)] for name in names}


def _touch(path: Path, text: str) -> None:
    """Rewrite a file and move its mtime forward, as an editor's save does."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def test_build_indexes_files_with_a_grammar(root, db_path):
    """A cold build parses every file with a grammar and stores its symbols."""
    stats = _build(root, db_path)
    assert (stats.scanned, stats.parsed, stats.removed, stats.skipped) == (3, 3, 0, 0)
    with SymbolIndex(root, db_path) as index:
        assert index.counts() == (3, 4)  # Circle, area, main, render


def test_lookup_finds_a_definition_in_another_file(root, db_path):
    """lookup returns the path and the symbol's lines, kind and container."""
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        [(path, area)] = index.lookup("area")
    assert path == "pkg/shapes.py"
    assert (area.kind, area.container, area.start_line, area.end_line) == ("method", "Circle", 3, 4)


def test_second_build_parses_nothing(root, db_path):
    """A restart on an unchanged workspace reads no file again (warm)."""
    _build(root, db_path)
    stats = _build(root, db_path)
    assert (stats.scanned, stats.parsed, stats.removed) == (3, 0, 0)
    assert _names(root, db_path, "Circle") == {"Circle": ["pkg/shapes.py"]}


def test_touched_file_alone_is_reparsed(root, db_path):
    """A file with a new mtime and size is parsed again, and only it."""
    _build(root, db_path)
    _touch(root / "pkg/shapes.py", "class Square:\n    pass\n")
    stats = _build(root, db_path)
    assert stats.parsed == 1
    assert _names(root, db_path, "Square", "Circle") == {"Square": ["pkg/shapes.py"], "Circle": []}


def test_deleted_file_loses_its_symbols(root, db_path):
    """A file gone from disk is removed with its symbols at the next build."""
    _build(root, db_path)
    (root / "web/app.ts").unlink()
    stats = _build(root, db_path)
    assert (stats.removed, stats.parsed) == (1, 0)
    assert _names(root, db_path, "render") == {"render": []}


def test_ignored_and_secret_files_are_never_indexed(root, db_path):
    """.gitignore'd files and default excludes (`.env*`, `*credentials*`) are neither built nor updated."""
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    hidden = {"build/gen.py": "def generated(): ...\n", ".env.py": "def secret_env(): ...\n",
              "config/credentials.py": "def secret_key(): ...\n"}
    for rel, text in hidden.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    stats = _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        for rel in hidden:
            index.update_file(rel)
            index.update_file(rel, "def from_buffer(): ...\n")
    assert stats.scanned == 3
    assert _names(root, db_path, "generated", "secret_env", "secret_key", "from_buffer") == {
        "generated": [], "secret_env": [], "secret_key": [], "from_buffer": []
    }


def test_schema_version_mismatch_rebuilds(root, db_path):
    """A database of another schema version is emptied and built again from scratch."""
    _build(root, db_path)
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    stats = _build(root, db_path)
    assert stats.parsed == 3
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_unreadable_database_is_replaced(root, db_path):
    """A file that is not a database is replaced by a fresh index."""
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"not a database, just bytes" * 100)
    assert _build(root, db_path).parsed == 3


def test_update_file_from_buffer_overrides_disk(root, db_path):
    """update_file with a buffer's text indexes that text, not the file on disk."""
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        index.update_file("pkg/shapes.py", "class Hexagon:\n    pass\n")
    assert _names(root, db_path, "Hexagon", "Circle") == {"Hexagon": ["pkg/shapes.py"], "Circle": []}


def test_build_after_a_buffer_update_reads_the_disk_again(root, db_path):
    """A file indexed from a buffer is read from disk at the next build."""
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        index.update_file("pkg/shapes.py", "class Hexagon:\n    pass\n")
    assert _build(root, db_path).parsed == 1
    assert _names(root, db_path, "Hexagon", "Circle") == {"Hexagon": [], "Circle": ["pkg/shapes.py"]}


def test_update_file_from_disk_and_remove_file(root, db_path):
    """update_file reads a new file from disk, forgets a missing one; remove_file forgets one."""
    _build(root, db_path)
    (root / "extra.go").write_text("package p\n\nfunc Extra() {}\n", encoding="utf-8")
    (root / "main.py").unlink()
    with SymbolIndex(root, db_path) as index:
        index.update_file("extra.go")
        index.update_file("main.py")
        index.remove_file("web/app.ts")
    assert _names(root, db_path, "Extra", "main", "render") == {"Extra": ["extra.go"], "main": [], "render": []}


def test_progress_is_monotone_and_ends_at_total(root, db_path, monkeypatch):
    """The progress callback counts up, batch by batch, to the number of files to parse."""
    monkeypatch.setattr(index_module, "BATCH_FILES", 2)
    for number in range(4):
        (root / f"more/m{number}.py").parent.mkdir(exist_ok=True)
        (root / f"more/m{number}.py").write_text(f"def f{number}(): ...\n", encoding="utf-8")
    calls: list[tuple[int, int]] = []
    _build(root, db_path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 7), (2, 7), (4, 7), (6, 7), (7, 7)]


def test_progress_of_a_warm_build_is_zero_of_zero(root, db_path):
    """A build with nothing to parse reports (0, 0) once."""
    _build(root, db_path)
    calls: list[tuple[int, int]] = []
    _build(root, db_path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 0)]


def test_big_files_are_recorded_without_symbols(root, db_path, monkeypatch):
    """A file over MAX_FILE_BYTES is not parsed, gives no symbols, and is not retried."""
    monkeypatch.setattr(index_module, "MAX_FILE_BYTES", len(SHAPES) - 1)
    stats = _build(root, db_path)
    assert stats.skipped == 1 and _names(root, db_path, "Circle") == {"Circle": []}
    assert _build(root, db_path).parsed == 0


async def test_lookup_on_the_loop_while_a_worker_thread_builds(root, db_path, monkeypatch):
    """While build runs in a worker thread (asyncio.to_thread), the event loop's thread reads between batches."""
    monkeypatch.setattr(index_module, "BATCH_FILES", 1)
    loop = asyncio.get_running_loop()
    between_batches, resume = asyncio.Event(), threading.Event()

    def progress(done: int, total: int) -> None:
        if done == 1:  # the first batch is written: let the loop read, then go on
            loop.call_soon_threadsafe(between_batches.set)
            resume.wait(timeout=30)

    with SymbolIndex(root, db_path) as index:
        build = asyncio.create_task(asyncio.to_thread(index.build, PathFilter.from_root(root), progress=progress))
        await between_batches.wait()
        files_mid_build = index.counts()[0]
        resume.set()
        stats = await build
        assert (files_mid_build, stats.parsed) == (1, 3)
        assert index.lookup("Circle")[0][0] == "pkg/shapes.py"


@pytest.mark.skipif(sys.platform == "win32", reason="XDG_CACHE_HOME is not read on Windows")
def test_default_db_path_is_in_the_user_cache(tmp_path, monkeypatch):
    """The database lives under $XDG_CACHE_HOME/sparkls, named by a hash of the root."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first, second = default_db_path(tmp_path / "a"), default_db_path(tmp_path / "b")
    assert first.parent == tmp_path / "cache" / "sparkls" and first != second
    assert first.name.startswith("index-") and first.name.endswith(".sqlite3") and len(first.stem) == 22


def test_new_extraction_rules_reparse_every_file(root, db_path, monkeypatch):
    """When the symbol queries or extractor change (another fingerprint), every file is parsed again."""
    _build(root, db_path)
    monkeypatch.setattr(index_module, "extractor_fingerprint", lambda: "other rules")
    assert _build(root, db_path).parsed == 3
    assert _build(root, db_path).parsed == 0
