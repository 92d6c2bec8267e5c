"""Files sparkls keeps on the machine are the user's alone, whatever the umask: the
cache folder and the folders sparkls makes 0700, the workspace index with its
`-wal`, `-shm` and `-live` files, the log file and the context view 0600 (issue 34,
item 5). What an older version left open to others is tightened; a folder the user
chose is never changed. Each test reads `os.stat(...).st_mode` of the real files.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from sparkls.context.index import SymbolIndex, default_db_path
from sparkls.context.index.health import UNUSABLE, classify
from sparkls.guard.exclusions import PathFilter

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")

# 000: every new file would be world-writable; 022: the common default; 277: a new
# file would not even be writable by its owner.
UMASKS = pytest.mark.parametrize("mask", [0o000, 0o022, 0o277], ids=["umask 000", "umask 022", "umask 277"])
SIDE_FILES = ("", "-wal", "-shm", "-live")


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """This process's umask, for the block (set after the test's own folders are made)."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "shapes.py").write_text("def area(radius):\n    return 3.14 * radius ** 2\n")
    return root


def _index_modes(db: Path) -> dict[str, str]:
    return {suffix or "index": oct(mode(f"{db}{suffix}")) for suffix in SIDE_FILES}


@UMASKS
def test_the_cache_folder_and_the_index_are_the_users_alone(tmp_path, monkeypatch, mask):
    """The index, its -wal, -shm and -live files are 0600 and the cache folder (and a
    cache root sparkls had to make) 0700, whatever the umask."""
    root = _workspace(tmp_path / "w")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # not there yet: made by sparkls
    db = default_db_path(root)
    with umask(mask):
        index = SymbolIndex(root, db)
        try:
            index.build(PathFilter.from_root(root, []))
            files = _index_modes(db)  # while open: the -wal and -shm exist
        finally:
            index.close()
    assert files == {"index": "0o600", "-wal": "0o600", "-shm": "0o600", "-live": "0o600"}
    assert oct(mode(db.parent)) == "0o700" and oct(mode(tmp_path / "xdg")) == "0o700"


OTHER_PROCESS = textwrap.dedent(
    """
    import json, os, sqlite3, sys
    from pathlib import Path
    db = Path(sys.argv[2])
    modes = lambda: {s or "index": oct(os.stat(f"{db}{s}").st_mode & 0o777) for s in ("", "-wal", "-shm")}
    if sys.argv[1] == "sparkls":
        from sparkls.context.index import SymbolIndex
        index = SymbolIndex(Path(sys.argv[3]), db)
        index.update_file("more.py")
        print(json.dumps(modes()))
        index.close()
    else:  # an older sparkls, or anything else that opens the file with plain SQLite
        con = sqlite3.connect(db, isolation_level=None)
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("INSERT INTO meta (key, value) VALUES ('other', 'x')")
        print(json.dumps(modes()))
        con.close()
    """
)


@pytest.mark.parametrize("who", ["sparkls", "plain sqlite"])
def test_files_another_process_makes_beside_the_index_are_private(tmp_path, monkeypatch, who):
    """Another process sharing the index under umask 000 (the index worker, another
    editor's server, an older version) makes -wal and -shm 0600 like the index."""
    root = _workspace(tmp_path / "w")
    (root / "more.py").write_text("def more():\n    return 1\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    db = default_db_path(root)
    SymbolIndex(root, db).close()  # made, closed: SQLite removed its -wal and -shm
    assert not Path(f"{db}-wal").exists()
    done = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, who, str(db), str(root)],
        capture_output=True, text=True, umask=0, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == {"index": "0o600", "-wal": "0o600", "-shm": "0o600"}


def test_an_index_an_older_version_left_open_to_others_is_made_private(tmp_path, monkeypatch):
    """A cache folder left 0755 and an index with its -wal and -shm left 0644 (and
    held open by an older server meanwhile) are brought to 0700 and 0600 on opening."""
    root = _workspace(tmp_path / "w")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    db = default_db_path(root)
    with umask(0o022):
        db.parent.mkdir(parents=True, mode=0o755)
        older = sqlite3.connect(db, isolation_level=None)
        older.execute("PRAGMA journal_mode = WAL")
        older.execute("CREATE TABLE old (x)")
        older.execute("INSERT INTO old VALUES (1)")
        Path(f"{db}-live").write_text("")
    try:
        assert _index_modes(db) == {"index": "0o644", "-wal": "0o644", "-shm": "0o644", "-live": "0o644"}
        index = SymbolIndex(root, db)
        index.close()
        assert _index_modes(db) == {"index": "0o600", "-wal": "0o600", "-shm": "0o600", "-live": "0o600"}
        assert oct(mode(db.parent)) == "0o700"
    finally:
        older.close()


def test_a_folder_the_user_chose_is_never_changed(tmp_path):
    """An index at a path of the user's choosing: its folder keeps its mode; folders
    sparkls had to make on the way are 0700, the file 0600."""
    root = _workspace(tmp_path / "w")
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    with umask(0o022):
        SymbolIndex(root, mine / "index.sqlite3").close()
        SymbolIndex(root, mine / "new" / "deeper" / "index.sqlite3").close()
    assert oct(mode(mine)) == "0o755"
    assert oct(mode(mine / "index.sqlite3")) == "0o600"
    assert [oct(mode(p)) for p in (mine / "new", mine / "new" / "deeper")] == ["0o700", "0o700"]


def test_a_cache_folder_of_another_users_is_refused_and_left_alone(tmp_path, monkeypatch):
    """The cache folder belonging to someone else (made by `sudo sparkls`, or a shared
    XDG_CACHE_HOME): the index is off, the user is told which folder, nothing is changed."""
    root = _workspace(tmp_path / "w")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    db = default_db_path(root)
    db.parent.mkdir(parents=True, mode=0o755)
    os.chmod(db.parent, 0o755)
    real = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: real + 4242)  # as if another user owned it
    with pytest.raises(PermissionError, match="belongs to another user") as refused:
        SymbolIndex(root, db)
    assert classify(refused.value) == UNUSABLE
    assert oct(mode(db.parent)) == "0o755" and list(db.parent.iterdir()) == []


@UMASKS
def test_the_context_view_is_the_users_alone(mask, monkeypatch):
    """"Show Spark context" writes its file 0600 in a folder of its own 0700."""
    from sparkls.lsp.handlers import context

    monkeypatch.setattr(context, "_FOLDER", None)  # a folder of this test's own
    with umask(mask):
        path = context.write_private("the prompt")
        path = context.write_private("the prompt, again")  # written over: still private
    try:
        assert path.read_text() == "the prompt, again"
        assert (oct(mode(path)), oct(mode(path.parent))) == ("0o600", "0o700")
    finally:
        context._FOLDER.cleanup()


def test_the_command_line_leaves_only_private_files(tmp_path):
    """`sparkls --log-file LOG context ...` under umask 000: the log file 0600 (its
    folder, the user's, unchanged), the cache folder 0700, the index 0600; a log file
    an older version made 0644 is made 0600 and keeps what it held."""
    root = _workspace(tmp_path / "w")
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o755)
    os.chmod(logs, 0o755)
    old_log = logs / "old.log"
    old_log.write_text("an older session\n")
    os.chmod(old_log, 0o644)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    for log in (logs / "new.log", old_log):
        subprocess.run(
            [sys.executable, "-m", "sparkls", "--log-file", str(log), "--log-level", "DEBUG",
             "context", str(root / "shapes.py"), "--line", "2", "--root", str(root)],
            env=env, capture_output=True, text=True, umask=0, timeout=120, check=True,
        )  # fmt: skip
    folder = tmp_path / "xdg" / "sparkls"
    (db,) = folder.glob("index-*.sqlite3")
    assert [oct(mode(p)) for p in (logs / "new.log", old_log, db)] == ["0o600"] * 3
    assert (oct(mode(folder)), oct(mode(logs))) == ("0o700", "0o755")
    assert old_log.read_text().startswith("an older session\n") and len(old_log.read_text()) > len("an older session\n")
