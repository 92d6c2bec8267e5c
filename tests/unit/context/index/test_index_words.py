"""The workspace index's words: which files use which names (`files_using`)."""

import asyncio
import os
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from sparkls.guard.exclusions import PathFilter
from tests.unit.trees import write_tree
from sparkls.context.index import SCHEMA_VERSION, SymbolIndex, database, symbol_index
from sparkls.context.index.workspace import WorkspaceIndex

WORKSPACE = {
    "pkg/shapes.py": "class Circle:\n    def area(self):\n        return 3.14\n",
    "main.py": "from pkg.shapes import Circle\n\nprint(Circle().area())\n",
    "web/app.ts": "import { area } from './geo';\nexport const $total = area(2);  // π\n",
    "web/other.ts": "export function perimeter(): number {\n  return 0;\n}\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", WORKSPACE)


@pytest.fixture
def index(root: Path, tmp_path: Path):
    with SymbolIndex(root, tmp_path / "cache" / "index.sqlite3") as index:
        index.build(PathFilter.from_root(root))
        yield index


def _words(index: SymbolIndex, path: str) -> set[str]:
    with closing(sqlite3.connect(index.db_path)) as db:
        rows = db.execute("SELECT words FROM file_words JOIN files ON files.id = file_words.file WHERE files.path = ?", (path,))
        return {word for (blob,) in rows for word in database.unpack_words(blob).split()}


def _touch(path: Path, text: str) -> None:
    """Rewrite a file and move its mtime forward, as an editor's save does."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def test_identifiers_are_distinct_words_of_two_characters_or_more():
    """Identifiers with `_`, `$`, digits and non-ASCII letters are words; numbers and one-letter names are not."""
    words = database.identifiers("x = _priv + $el + café2 + 42 + x + a.bc  # naïve _priv\n")
    assert words == sorted({"_priv", "$el", "café2", "bc", "naïve"})


def test_build_writes_each_files_words(index):
    """A build records the identifiers each file uses, comments included."""
    assert {"Circle", "area", "self"} <= _words(index, "pkg/shapes.py")
    assert {"area", "$total", "geo"} <= _words(index, "web/app.ts")
    assert "perimeter" not in _words(index, "web/app.ts")


def test_files_using_finds_every_file_that_uses_a_word(index):
    """files_using returns the files whose text uses any of the words, sorted by path."""
    assert index.files_using(["area"]) == ["main.py", "pkg/shapes.py", "web/app.ts"]
    assert index.files_using(["perimeter", "Circle"]) == ["main.py", "pkg/shapes.py", "web/other.ts"]
    assert index.files_using(["nowhere"]) == []
    assert index.files_using([]) == []
    assert index.files_using(["no where", 'a"b', "-", "perimeter"]) == ["web/other.ts"]  # not words: never an error
    assert index.files_using(["no where"]) == []


def test_files_using_respects_the_limit(index):
    """At most `limit` paths, the first in order, also when the words are asked in chunks."""
    assert index.files_using(["area"], limit=2) == ["main.py", "pkg/shapes.py"]
    many = [f"unused_{n}" for n in range(1200)] + ["perimeter", "Circle"]  # three chunks of parameters
    assert index.files_using(many, limit=2) == ["main.py", "pkg/shapes.py"]
    assert index.files_using(many) == ["main.py", "pkg/shapes.py", "web/other.ts"]


def test_update_file_replaces_the_words(root, index):
    """A file changed on disk and reindexed uses its new words, and no longer its old ones."""
    _touch(root / "main.py", "from pkg.shapes import Square\n\nprint(Square().side)\n")
    index.update_file("main.py")
    assert index.files_using(["area", "Circle"]) == ["pkg/shapes.py", "web/app.ts"]
    assert index.files_using(["Square", "side"]) == ["main.py"]


def test_a_removed_file_loses_its_words(root, index):
    """A file deleted (by itself, or with its folder) uses nothing any more."""
    (root / "main.py").unlink()
    index.update_file("main.py")
    index.remove_file("web")
    assert index.files_using(["area", "perimeter", "Circle"]) == ["pkg/shapes.py"]
    with sqlite3.connect(index.db_path) as db:
        assert db.execute("SELECT count(*) FROM file_words WHERE file NOT IN (SELECT id FROM files)").fetchone() == (0,)


def test_a_file_removed_at_the_next_build_loses_its_words(root, index):
    """A build drops the words of a file gone from disk."""
    (root / "web/other.ts").unlink()
    index.build(PathFilter.from_root(root))
    assert index.files_using(["perimeter"]) == []


def test_stored_buffer_keeps_the_words_from_disk(index):
    """store_symbols (an open buffer's symbols, no parse) leaves the file's words as the disk gave them."""
    before = _words(index, "main.py")
    index.store_symbols("main.py", [], size=10)
    assert _words(index, "main.py") == before
    assert "main.py" in index.files_using(["Circle"])


def test_previous_schema_is_rebuilt_with_words(root, tmp_path):
    """A database of the previous schema (no words table) is rebuilt, not read, when opened."""
    db_path = tmp_path / "old.sqlite3"
    with sqlite3.connect(db_path) as db:
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, language TEXT NOT NULL);"
            "CREATE TABLE symbols (path TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL,"
            " end_line INTEGER NOT NULL, signature_end_line INTEGER NOT NULL, doc_end_line INTEGER NOT NULL, container TEXT);"
        )
        db.execute("INSERT INTO meta VALUES ('extractor', ?)", (database.extractor_fingerprint(),))
        for rel in WORKSPACE:  # as the old build left them: nothing would be parsed again
            stat = (root / rel).stat()
            db.execute("INSERT INTO files VALUES (?, ?, ?, 'python')", (rel, stat.st_mtime_ns, stat.st_size))
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    with SymbolIndex(root, db_path) as index:
        stats = index.build(PathFilter.from_root(root))
        assert stats.parsed == len(WORKSPACE)
        assert index.files_using(["area"]) == ["main.py", "pkg/shapes.py", "web/app.ts"]


def test_workspace_index_answers_only_while_built_and_open(root, tmp_path):
    """WorkspaceIndex.files_using is [] before the build and after close, never an error."""

    async def scenario() -> tuple[list[str], list[str], list[str]]:
        workspace = WorkspaceIndex(root, tmp_path / "cache" / "index.sqlite3")
        try:
            before = await asyncio.to_thread(workspace.files_using, ["area"])
            await workspace.build([])
            built = await asyncio.to_thread(workspace.files_using, ["area"], limit=1)
        finally:
            workspace.close()
            await workspace.wait_closed()
        return before, built, await asyncio.to_thread(workspace.files_using, ["area"])

    assert asyncio.run(scenario()) == ([], ["main.py"], [])


def test_words_keep_their_case(index):
    """`Circle` is not `circle`: the FTS5 tokenizer folds case, the words it is given do not."""
    assert index.files_using(["Circle"]) == ["main.py", "pkg/shapes.py"]
    assert index.files_using(["circle"]) == []
    assert index.files_using(["CIRCLE", "cIRCLE"]) == []
    assert index.files_using(["$total"]) == ["web/app.ts"]
    assert index.files_using(["total"]) == []  # `$` is part of the word


def test_a_build_killed_midway_leaves_a_usable_index_that_the_next_build_completes(root, tmp_path, monkeypatch):
    """A build stopped after its first batch keeps that batch's words; the next one adds the rest, merges the
    words index, and later updates still replace a file's words."""
    monkeypatch.setattr(symbol_index, "BATCH_FILES", 2)
    db_path = tmp_path / "cache" / "index.sqlite3"
    parse = SymbolIndex._parse_file
    calls = []

    def dies_on_the_third(self, *args):
        calls.append(args[0])
        if len(calls) == 3:
            raise KeyboardInterrupt  # as a worker killed mid-build: nothing after the first batch is written
        return parse(self, *args)

    monkeypatch.setattr(SymbolIndex, "_parse_file", dies_on_the_third)
    with SymbolIndex(root, db_path) as index, pytest.raises(KeyboardInterrupt):
        index.build(PathFilter.from_root(root))
    monkeypatch.setattr(SymbolIndex, "_parse_file", parse)
    with SymbolIndex(root, db_path) as index:  # the restart
        assert set(index.files_using(["area", "perimeter", "Circle"])) <= set(WORKSPACE)
        assert index.build(PathFilter.from_root(root)).parsed == 2
        assert index.files_using(["area"]) == ["main.py", "pkg/shapes.py", "web/app.ts"]
        assert index.files_using(["perimeter", "Circle"]) == ["main.py", "pkg/shapes.py", "web/other.ts"]
        _touch(root / "main.py", "from pkg.shapes import Square\n")
        index.update_file("main.py")
        assert index.files_using(["Circle", "Square"]) == ["main.py", "pkg/shapes.py"]
        assert index.files_using(["area"]) == ["pkg/shapes.py", "web/app.ts"]


def test_without_fts5_the_files_words_are_read_instead(root, tmp_path, monkeypatch):
    """Where SQLite lacks FTS5, files_using gives the same answers from each file's stored words."""
    monkeypatch.setattr(database, "fts5_available", lambda: False)
    with SymbolIndex(root, tmp_path / "scan.sqlite3") as index:
        index.build(PathFilter.from_root(root))
        with closing(sqlite3.connect(index.db_path)) as db:
            assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'words'").fetchone() == (0,)
        assert index.files_using(["area"]) == ["main.py", "pkg/shapes.py", "web/app.ts"]
        assert index.files_using(["area"], limit=2) == ["main.py", "pkg/shapes.py"]
        assert index.files_using(["circle", "perimeter"]) == ["web/other.ts"]
        index.remove_file("web")
        assert index.files_using(["area", "perimeter"]) == ["main.py", "pkg/shapes.py"]


def test_an_index_made_with_fts5_is_rebuilt_by_a_process_without_it(root, index, monkeypatch):
    """A process whose SQLite lacks FTS5 cannot keep the words index: it starts the index again, and it answers."""
    monkeypatch.setattr(database, "fts5_available", lambda: False)
    with SymbolIndex(root, index.db_path) as other:
        assert other.build(PathFilter.from_root(root)).parsed == len(WORKSPACE)
        assert other.files_using(["Circle"]) == ["main.py", "pkg/shapes.py"]
    monkeypatch.undo()
    with SymbolIndex(root, index.db_path) as again:  # with FTS5 again: kept as it is, still right
        assert again.build(PathFilter.from_root(root)).parsed == 0
        assert again.files_using(["Circle"]) == ["main.py", "pkg/shapes.py"]


def _tokens_in_pieces() -> dict[str, str]:
    """Tokens with the shapes a secret scanner knows, written in pieces (no scanner flags this file)."""
    return {
        "github": "gh" + "p_" + "Zq8wT2xV9kLm4NpR7sYb3CdF6gHj1KaE5uWo",
        "aws": "AK" + "IA" + "Z7QW3ER8TY2UI4OP",
        "slack": "xo" + "xb-" + "2400931547-" + "4107726381526-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    }


def _stored_words(db_path: Path) -> set[str]:
    """Every word the SQLite file holds, read from the file itself: each file's words
    blob, and the terms of the FTS5 index (folded as it stores them: `#` + lower case)."""
    with closing(sqlite3.connect(db_path)) as db:
        words = {w for (blob,) in db.execute("SELECT words FROM file_words") for w in database.unpack_words(blob).split()}
        if database.words_mode(db) == "fts5":
            db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, words, row)")
            words |= {term for (term,) in db.execute("SELECT term FROM temp.terms")}
    return words


def test_the_index_keeps_no_word_of_a_secret(tmp_path: Path):
    """A file holding a GitHub, an AWS and a Slack token: none of their words is in the database file, its other words are."""
    tokens = _tokens_in_pieces()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "settings.py").write_text(
        f'GITHUB_TOKEN = "{tokens["github"]}"\n'
        f"aws_access_key_id = {tokens['aws']}  # the deploy user\n"
        f"SLACK = ['{tokens['slack']}']\n"
        "def client_for(region):\n    return region\n",
        encoding="utf-8",
    )
    db_path = tmp_path / "cache" / "index.sqlite3"
    with SymbolIndex(root, db_path) as index:
        index.build(PathFilter.from_root(root))
        assert index.files_using(["client_for"]) == ["settings.py"]
    stored = _stored_words(db_path)
    assert {"GITHUB_TOKEN", "aws_access_key_id", "client_for", "region"} <= stored
    pieces = {piece for token in tokens.values() for piece in re.findall(r"[A-Za-z_]\w{3,}", token)}
    assert pieces == {tokens["github"], tokens["aws"], "xoxb", "AbCdEfGhIjKlMnOpQrStUvWx"}  # the words they would give
    folded = {database._tokens([piece]) for piece in pieces}
    assert not (pieces | folded) & stored
