"""The workspace symbol index: build, warm restarts, changes, exclusions, lookups."""

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from sparkls.guard.exclusions import PathFilter
from tests.unit.trees import write_tree
from sparkls.context.index import SCHEMA_VERSION, SymbolIndex, database, default_db_path, symbol_index
from sparkls.context.symbols import Symbol

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
    return write_tree(tmp_path / "ws", WORKSPACE)


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


def _class(name: str) -> Symbol:
    """A one-line class, as a document's own symbols would give it."""
    return Symbol(name, "class", 0, 1, 0, 0, None)


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
    """.gitignore'd files and default excludes (`.env*`, `*credentials*`) are neither built, updated nor stored."""
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    hidden = {"build/gen.py": "def generated(): ...\n", ".env.py": "def secret_env(): ...\n",
              "config/credentials.py": "def secret_key(): ...\n"}
    write_tree(root, hidden)
    stats = _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        for rel in hidden:
            index.update_file(rel)
            index.store_symbols(rel, [_class("from_buffer")], size=20)
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


def test_stored_buffer_symbols_override_disk(root, db_path):
    """store_symbols records the symbols it is handed for a file, in place of the disk's."""
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        index.store_symbols("pkg/shapes.py", [_class("Hexagon")], size=24)
    assert _names(root, db_path, "Hexagon", "Circle") == {"Hexagon": ["pkg/shapes.py"], "Circle": []}


def test_build_after_a_buffer_update_reads_the_disk_again(root, db_path):
    """A file indexed from a buffer is read from disk at the next build."""
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        index.store_symbols("pkg/shapes.py", [_class("Hexagon")], size=24)
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
    monkeypatch.setattr(symbol_index, "BATCH_FILES", 2)
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
    monkeypatch.setattr(symbol_index, "MAX_FILE_BYTES", len(SHAPES) - 1)
    stats = _build(root, db_path)
    assert stats.skipped == 1 and _names(root, db_path, "Circle") == {"Circle": []}
    assert _build(root, db_path).parsed == 0


def test_lookup_does_not_wait_for_a_write_under_way(root, db_path):
    """A lookup answers from the last commit while another connection holds a write transaction open."""
    _build(root, db_path)
    writer = sqlite3.connect(db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM symbols")
    try:
        with SymbolIndex(root, db_path) as index:
            assert index.lookup("Circle")[0][0] == "pkg/shapes.py"
    finally:
        writer.execute("ROLLBACK")
        writer.close()


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
    monkeypatch.setattr(database, "extractor_fingerprint", lambda: "other rules")
    assert _build(root, db_path).parsed == 3
    assert _build(root, db_path).parsed == 0


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_update_file_never_reads_through_a_link_out_of_the_workspace(root, db_path, tmp_path):
    """A file swapped for a link to a file outside the workspace is forgotten, never read."""
    outside = tmp_path / "outside.py"
    outside.write_text("def leaked_secret(): ...\n", encoding="utf-8")
    _build(root, db_path)
    (root / "main.py").unlink()
    (root / "main.py").symlink_to(outside)
    with SymbolIndex(root, db_path) as index:
        index.update_file("main.py")
    assert _names(root, db_path, "leaked_secret", "main") == {"leaked_secret": [], "main": []}


def test_remove_file_of_a_folder_forgets_its_files(root, db_path):
    """remove_file on a folder (a deleted directory) forgets every file below it, and only those."""
    (root / "pkg2.py").write_text("def beside(): ...\n", encoding="utf-8")
    _build(root, db_path)
    with SymbolIndex(root, db_path) as index:
        index.remove_file("pkg")
    assert _names(root, db_path, "Circle", "beside") == {"Circle": [], "beside": ["pkg2.py"]}
