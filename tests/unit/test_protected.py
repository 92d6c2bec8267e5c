"""guard/protected.py: which files a reply may write, by the name written and the real path."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from sparkls.guard.protected import PROTECTED, Protection

GIT_CONFIG = "[core]\n\tbare = false\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A workspace with a git directory and the links an attacker's clone can hold."""
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("x = 1\n")
    os.symlink(".git/config", root / "gitcfg")
    os.symlink(".git/hooks", root / "hooks")
    os.symlink("gitcfg", root / "chain1")
    os.symlink("chain1", root / "chain2")
    os.symlink(".git", root / "meta")
    os.symlink(".vscode/tasks.json", root / "notes.md")
    os.symlink("src/app.py", root / ".envrc")
    return root


def verdict(root: Path, name: str, extra: tuple[str, ...] = ()) -> str:
    return Protection([str(root)], extra).verdict(str(root / name)).verdict


@pytest.mark.parametrize(
    "name",
    [
        ".git/config", ".git/hooks/post-checkout", ".GIT/config", ".Git/hooks/pre-push", "src/.git/config",
        "gitcfg", "hooks/post-checkout", "hooks/", "chain2", "meta/config", "meta/hooks/pre-commit",
        "./.git/../.git/config", "src/../.git/config", ".git",
    ],
)
def test_the_git_directory_is_never_written(repo: Path, name: str) -> None:
    """By name in any case, through links to a file, a folder or a chain of links."""
    assert verdict(repo, name) == "never"


@pytest.mark.parametrize(
    "name",
    [
        ".vscode/tasks.json", ".vscode/settings.json", "sub/.vscode/launch.json", ".VSCode/tasks.json",
        ".github/workflows/ci.yml", ".envrc", "pkg/.envrc", ".sparkls.toml", ".gitattributes", ".gitmodules",
        ".pre-commit-config.yaml", ".devcontainer/devcontainer.json", ".husky/pre-commit", ".npmrc",
        ".helix/languages.toml", ".nvim.lua", ".dir-locals.el", ".gitignore", "./.vscode/../.vscode/tasks.json",
        "notes.md",
    ],
)
def test_files_that_run_tools_are_asked_for(repo: Path, name: str) -> None:
    """A protected name, or a link to one (`notes.md -> .vscode/tasks.json`), needs a yes."""
    assert verdict(repo, name) == "ask"


@pytest.mark.parametrize("name", ["src/app.py", "README.md", ".github/ISSUE_TEMPLATE.md", "vscode/tasks.json", "git/config", ".gitx/config", "src/new.py"])
def test_ordinary_files_are_free(repo: Path, name: str) -> None:
    assert verdict(repo, name) == "free"


def test_a_link_named_like_a_protected_file_is_asked_for(repo: Path) -> None:
    """`.envrc -> src/app.py`: direnv reads the link, so the name decides too."""
    decision = Protection([str(repo)]).verdict(str(repo / ".envrc"))
    assert decision.verdict == "ask" and "direnv" in (decision.why or "")


def test_a_worktree_pointer_and_its_commondir(tmp_path: Path) -> None:
    """`.git` as a file (`gitdir:`), and the `commondir` of that git directory, are git directories."""
    root = tmp_path / "ws"
    main_git = root / "store" / "main.git"
    worktree_git = main_git / "worktrees" / "wt"
    (worktree_git).mkdir(parents=True)
    (worktree_git / "commondir").write_text("../..\n")
    (main_git / "config").write_text(GIT_CONFIG)
    (root / ".git").write_text("gitdir: store/main.git/worktrees/wt\n")
    os.symlink("store/main.git/config", root / "cfg")
    protection = Protection([str(root)])
    assert protection.verdict(str(root / "store/main.git/worktrees/wt/HEAD")).verdict == "never"
    assert protection.verdict(str(root / "cfg")).verdict == "never"
    assert protection.verdict(str(root / ".git")).verdict == "never"


def test_a_submodule_pointer(tmp_path: Path) -> None:
    """A submodule's `.git` file points into the top repository's `.git/modules/`."""
    root = tmp_path / "ws"
    (root / ".git" / "modules" / "lib").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    protection = Protection([str(root)])
    assert protection.verdict(str(root / "lib" / ".git")).verdict == "never"
    assert protection.verdict(str(root / "lib" / "code.py")).verdict == "free"


def test_a_git_directory_is_known_by_what_it_holds(tmp_path: Path) -> None:
    """A folder with HEAD, objects/ and refs/ is a git directory, whatever its name."""
    root = tmp_path / "ws"
    bare = root / "vendor" / "thing"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    decision = Protection([str(root)]).verdict(str(bare / "hooks" / "post-merge"))
    assert decision.verdict == "never" and "vendor/thing" in (decision.why or "")


def test_the_user_extends_the_list(repo: Path) -> None:
    """`trust.protect` patterns (gitignore syntax) add to the built-in list."""
    assert verdict(repo, "deploy/run.sh") == "free"
    assert verdict(repo, "deploy/run.sh", ("deploy/",)) == "ask"
    assert verdict(repo, "src/app.py", ("*.py",)) == "ask"
    assert verdict(repo, ".vscode/tasks.json", ("!.vscode/",)) == "ask"  # a negation lifts nothing


def test_the_docs_list_exactly_what_is_protected() -> None:
    """docs/security.md prints the built-in list: the same names, in the same order."""
    doc = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    section = doc.split("## What a reply may write", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, re.M)
    assert listed == [p.pattern for p in PROTECTED]


def test_a_file_outside_the_workspace_is_judged_by_its_whole_path(tmp_path: Path) -> None:
    """An open file outside every folder: its path's `.git` or protected names still count."""
    root, elsewhere = tmp_path / "ws", tmp_path / "other"
    (elsewhere / ".git").mkdir(parents=True)
    root.mkdir()
    protection = Protection([str(root)])
    assert protection.verdict(str(elsewhere / ".git" / "config")).verdict == "never"
    assert protection.verdict(str(elsewhere / ".vscode" / "tasks.json")).verdict == "ask"
    assert protection.verdict(str(elsewhere / "app.py")).verdict == "free"


@pytest.mark.parametrize("name", [".git./config", ".git /config", ".git::$INDEX_ALLOCATION/config", "git~1/config", "GIT~1/hooks/x", ".g\u200cit/config", "\ufeff.git/config"])
def test_git_as_a_disk_may_store_it(repo: Path, name: str) -> None:
    """`.git` spelled as Windows or HFS+ would open it is the git directory too."""
    assert verdict(repo, name) == "never"


@pytest.mark.parametrize("name", [".vscode./tasks.json", ".vsc\u200dode/tasks.json", ".envrc::$DATA", ".ENVRC "])
def test_protected_names_as_a_disk_may_store_them(repo: Path, name: str) -> None:
    assert verdict(repo, name) == "ask"


def test_lookalike_letters_are_other_names(repo: Path) -> None:
    """A Cyrillic `і` is another name on every disk: an ordinary file."""
    assert verdict(repo, ".g\u0456t/config") == "free"
