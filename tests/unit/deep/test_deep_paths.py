"""Paths the deep tier writes: inside the workspace, or refused with a reason."""

import os

import pytest

from sparkls.deep.blocks import SearchReplaceBlock
from sparkls.deep.paths import display_path, resolve_blocks, resolve_reply_path
from sparkls.errors import PathRefused


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "outside.py").write_text("secret = 1\n")
    return root


def block(path: str, number: int = 1) -> SearchReplaceBlock:
    return SearchReplaceBlock(path, ("x = 1",), ("x = 2",), number, 1)


def test_relative_path_resolves_inside_the_folder(workspace):
    """A plain relative path names the file in the workspace folder."""
    resolved = resolve_reply_path("src/app.py", [str(workspace)])
    assert resolved.absolute == str(workspace / "src" / "app.py")
    assert (resolved.relative, resolved.display, resolved.exists) == ("src/app.py", "src/app.py", True)
    assert resolved.uri == (workspace / "src" / "app.py").as_uri()


def test_new_file_resolves_and_does_not_exist(workspace):
    """A path to a file not yet there resolves, marked as not existing."""
    resolved = resolve_reply_path("src/new/mod.py", [str(workspace)])
    assert not resolved.exists


def test_dot_segments_and_backslashes_are_normalized(workspace):
    """'./src//app.py' and 'src\\app.py' name the same file as 'src/app.py'."""
    assert resolve_reply_path("./src//app.py", [str(workspace)]).relative == "src/app.py"
    assert resolve_reply_path("src\\app.py", [str(workspace)]).relative == "src/app.py"


def test_dot_dot_escape_is_refused(workspace):
    """'../outside.py' is refused with a reason the user can read."""
    with pytest.raises(PathRefused, match=r"'\.\./outside\.py'.*'\.\.' could lead outside"):
        resolve_reply_path("../outside.py", [str(workspace)])


def test_dot_dot_inside_a_path_is_refused(workspace):
    """Any '..' component is refused, even one that would come back inside."""
    with pytest.raises(PathRefused):
        resolve_reply_path("src/../../outside.py", [str(workspace)])


@pytest.mark.parametrize("path", ["/etc/passwd", "C:\\Windows\\x.py", "~/.bashrc"])
def test_absolute_paths_are_refused(workspace, path):
    """Absolute paths, POSIX, Windows or home-relative, are refused."""
    with pytest.raises(PathRefused, match="absolute paths are not accepted"):
        resolve_reply_path(path, [str(workspace)])


def test_absolute_path_inside_the_workspace_is_still_refused(workspace):
    """Even an absolute path that lies inside the workspace is refused (relative only)."""
    with pytest.raises(PathRefused):
        resolve_reply_path(str(workspace / "src" / "app.py"), [str(workspace)])


def test_symlinked_file_leading_outside_is_refused(workspace):
    """A symlink in the workspace pointing at a file outside it is refused."""
    os.symlink(workspace.parent / "outside.py", workspace / "link.py")
    with pytest.raises(PathRefused, match="leads outside the workspace"):
        resolve_reply_path("link.py", [str(workspace)])


def test_new_file_under_a_symlinked_folder_leading_outside_is_refused(workspace, tmp_path):
    """A new file under a symlinked directory that leads out is refused too."""
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", workspace / "ext")
    with pytest.raises(PathRefused, match="leads outside"):
        resolve_reply_path("ext/new.py", [str(workspace)])


def test_symlink_within_the_workspace_is_accepted(workspace):
    """A symlink whose target stays inside the workspace is fine."""
    os.symlink(workspace / "src" / "app.py", workspace / "alias.py")
    assert resolve_reply_path("alias.py", [str(workspace)]).exists


def test_workspace_folder_that_is_itself_a_symlink_works(tmp_path, workspace):
    """Containment compares real paths, so a symlinked workspace folder is inside itself."""
    os.symlink(workspace, tmp_path / "proj-link")
    assert resolve_reply_path("src/app.py", [str(tmp_path / "proj-link")]).exists


def test_git_folder_is_refused(workspace):
    """Files under .git are never edited."""
    with pytest.raises(PathRefused, match=r"\.git"):
        resolve_reply_path(".git/config", [str(workspace)])


def test_folder_is_not_a_file(workspace):
    """A path naming a directory is refused."""
    with pytest.raises(PathRefused, match="folder"):
        resolve_reply_path("src", [str(workspace)])


def test_empty_path_is_refused(workspace):
    """An empty path is refused."""
    with pytest.raises(PathRefused, match="empty"):
        resolve_reply_path("  ", [str(workspace)])


def test_no_workspace_folder_refuses_everything():
    """Without a workspace folder nothing can be resolved."""
    with pytest.raises(PathRefused, match="no workspace folder"):
        resolve_reply_path("a.py", [])


def test_second_folder_holds_the_file(tmp_path):
    """With two folders, an existing file is found in whichever holds it."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (two / "b.py").write_text("")
    resolved = resolve_reply_path("b.py", [str(one), str(two)])
    assert (resolved.folder, resolved.display) == (str(two), "two/b.py")


def test_folder_name_prefix_picks_the_folder(tmp_path):
    """With two folders, 'two/c.py' names c.py in the folder called two."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    resolved = resolve_reply_path("two/c.py", [str(one), str(two)])
    assert (resolved.folder, resolved.relative) == (str(two), "c.py")


def test_file_in_two_folders_is_ambiguous(tmp_path):
    """A bare path naming files in two folders is refused, never guessed."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (one / "b.py").write_text("")
    (two / "b.py").write_text("")
    with pytest.raises(PathRefused, match="several workspace folders"):
        resolve_reply_path("b.py", [str(one), str(two)])


def test_display_path_is_relative_and_prefixed_in_multi_root(tmp_path):
    """One folder: relative path; several: the folder's name first; outside: None."""
    assert display_path(str(tmp_path / "a" / "x.py"), [str(tmp_path / "a")]) == "x.py"
    assert display_path(str(tmp_path / "a" / "x.py"), [str(tmp_path / "a"), str(tmp_path / "b")]) == "a/x.py"
    assert display_path(str(tmp_path / "c.py"), [str(tmp_path / "a")]) is None


def test_fake_filesystem_seam():
    """The filesystem is a seam: a fake one decides what exists and where links lead."""

    class FakeFs:
        def realpath(self, path):
            return "/elsewhere/x.py" if path.endswith("link.py") else path

        def exists(self, path):
            return path.endswith("link.py")

        def isdir(self, path):
            return False

    assert not resolve_reply_path("ok.py", ["/ws"], FakeFs()).exists
    with pytest.raises(PathRefused):
        resolve_reply_path("link.py", ["/ws"], FakeFs())


def test_resolve_blocks_unifies_spellings(workspace):
    """'./src/app.py' and 'src/app.py' become one file name across blocks."""
    resolved = resolve_blocks([block("./src/app.py", 1), block("src/app.py", 2)], [str(workspace)])
    assert [b.path for b in resolved.blocks] == ["src/app.py", "src/app.py"]
    assert list(resolved.files) == ["src/app.py"]


def test_resolve_blocks_names_the_refused_block(workspace):
    """A refused path is reported with the number of the block that wrote it."""
    with pytest.raises(PathRefused, match=r"^Block 2: .*outside\.py") as info:
        resolve_blocks([block("src/app.py", 1), block("../outside.py", 2)], [str(workspace)])
    assert info.value.block == 2
