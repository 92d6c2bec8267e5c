"""Which workspace paths may be sent (guard/exclusions.py)."""

import os
from pathlib import Path

import pytest

from sparkls.guard import exclusions
from sparkls.guard.exclusions import PathFilter, iter_files, parse_rule
from tests.unit.trees import write_tree


def gitignore(text: str, **nested: str) -> PathFilter:
    """A filter from a root .gitignore and nested ones (`sub="..."` -> sub/.gitignore)."""
    files = {".gitignore": text}
    files.update({f"{folder}/.gitignore": body for folder, body in nested.items()})
    return PathFilter(ignore_files=files)


def listed(root: Path, path_filter: PathFilter) -> list[str]:
    return [path.relative_to(root).as_posix() for path in iter_files(root, path_filter)]


def record_scandir(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders (relative to root) that exclusions lists from now on."""
    scanned: list[str] = []
    real_scandir = os.scandir

    def recording_scandir(path):
        scanned.append(Path(path).relative_to(root).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(exclusions.os, "scandir", recording_scandir)
    return scanned


# --- the default excludes --------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.local",
        "config/.env",
        "services/api/.env.production",
        ".envrc",
        "server.pem",
        "certs/server.key",
        "id_rsa",
        "home/.ssh/id_rsa.pub",
        "aws_credentials.json",
        "config/credentials.yml",
        "app.secret.yaml",
        "settings.secrets",
    ],
)
def test_default_excludes_match_file_names_at_any_depth(path):
    """Each default pattern excludes its files wherever they are."""
    assert PathFilter().is_excluded(path)


@pytest.mark.parametrize("path", [".ENV", "deploy/KEY.PEM", "Server.Key", "ID_RSA"])
def test_default_excludes_ignore_case(path):
    """Default excludes match whatever the case of the name."""
    assert PathFilter().is_excluded(path)


def test_default_excludes_cover_folders_too():
    """A folder named like a secret (`.env/`, a virtualenv) is excluded with its files."""
    assert PathFilter().is_excluded(".env/lib/site.py")


@pytest.mark.parametrize(
    "path", ["environment.py", "src/keyboard.py", "docs/env.md", "key.py", "src/pem_reader.py"]
)
def test_default_excludes_leave_ordinary_files(path):
    """Files that merely resemble a default pattern may be sent."""
    assert not PathFilter().is_excluded(path)


def test_git_folder_is_always_excluded():
    """Anything inside `.git/` is never sent, whatever the other rules say."""
    path_filter = PathFilter(ignore_files={".gitignore": "!.git/\n!*\n"})
    assert path_filter.is_excluded(".git/config")
    assert path_filter.is_excluded("vendor/lib/.git/HEAD")


def test_git_file_of_a_worktree_is_excluded():
    """A `.git` file (worktrees, submodules) is excluded too."""
    assert PathFilter().is_excluded("module/.git")


# --- user patterns ----------------------------------------------------------------------


def test_user_folder_pattern_excludes_its_contents():
    """`secrets/` in context.exclude excludes everything below such a folder."""
    path_filter = PathFilter(["secrets/"])
    assert path_filter.is_excluded("secrets/db.txt")
    assert path_filter.is_excluded("deploy/secrets/prod/key.txt")


def test_user_glob_pattern_excludes_matching_files():
    """`*.generated.ts` excludes generated files anywhere."""
    path_filter = PathFilter(["*.generated.ts"])
    assert path_filter.is_excluded("src/api/client.generated.ts")
    assert not path_filter.is_excluded("src/api/client.ts")


def test_user_double_star_pattern_excludes_at_any_depth():
    """`**/fixtures/**` excludes the contents of every fixtures folder."""
    path_filter = PathFilter(["**/fixtures/**"])
    assert path_filter.is_excluded("fixtures/a.json")
    assert path_filter.is_excluded("tests/unit/fixtures/deep/b.json")
    assert not path_filter.is_excluded("tests/unit/test_fixtures.py")


def test_user_negation_works_within_user_patterns():
    """A user `!pattern` re-includes what an earlier user pattern excluded."""
    path_filter = PathFilter(["*.generated.ts", "!keep.generated.ts"])
    assert not path_filter.is_excluded("src/keep.generated.ts")


def test_user_negation_cannot_lift_a_default_exclude():
    """Defaults are a floor: a user `!.env.example` does not re-include it."""
    assert PathFilter(["!.env.example"]).is_excluded(".env.example")


def test_bad_user_pattern_is_reported_and_skipped():
    """A pattern that cannot compile becomes a problem sentence, not a crash."""
    path_filter = PathFilter(["[z-a]", "*.log"])
    assert len(path_filter.problems) == 1
    assert "[z-a]" in path_filter.problems[0]
    assert path_filter.is_excluded("x.log")


# --- gitignore syntax ---------------------------------------------------------------------


def test_comments_and_blank_lines_match_nothing():
    """`#` lines and blank lines are not patterns."""
    path_filter = gitignore("# build output\n\n   \n#*.py\n")
    assert not path_filter.is_excluded("main.py")
    assert not path_filter.is_excluded("# build output")


def test_escaped_hash_and_bang_are_literal():
    """`\\#name` and `\\!name` match files whose names start with `#` and `!`."""
    path_filter = gitignore("\\#notes.txt\n\\!important.txt\n")
    assert path_filter.is_excluded("#notes.txt")
    assert path_filter.is_excluded("!important.txt")


def test_trailing_spaces_are_ignored_unless_escaped():
    """`a.txt   ` matches `a.txt`; `b\\ ` matches `b ` (with its space)."""
    path_filter = gitignore("a.txt   \nb\\ \n")
    assert path_filter.is_excluded("a.txt")
    assert path_filter.is_excluded("b ")
    assert not path_filter.is_excluded("b")


def test_negation_re_includes_a_file():
    """`!keep.log` after `*.log` lets keep.log be sent."""
    path_filter = gitignore("*.log\n!keep.log\n")
    assert path_filter.is_excluded("debug.log")
    assert not path_filter.is_excluded("keep.log")


def test_last_matching_line_wins():
    """A later exclude overrides an earlier negation."""
    path_filter = gitignore("*.log\n!keep.log\nkeep.log\n")
    assert path_filter.is_excluded("keep.log")


def test_negation_cannot_re_include_inside_an_excluded_folder():
    """With `build/` excluded, `!build/keep.txt` cannot bring the file back."""
    path_filter = gitignore("build/\n!build/keep.txt\n")
    assert path_filter.is_excluded("build/keep.txt")


def test_negation_works_when_only_the_contents_are_excluded():
    """`logs/*` excludes the contents, not the folder, so `!logs/keep.txt` works."""
    path_filter = gitignore("logs/*\n!logs/keep.txt\n")
    assert path_filter.is_excluded("logs/today.txt")
    assert not path_filter.is_excluded("logs/keep.txt")


def test_trailing_slash_matches_folders_only():
    """`cache/` excludes a folder named cache but not a file named cache."""
    path_filter = gitignore("cache/\n")
    assert path_filter.is_excluded("cache", is_dir=True)
    assert path_filter.is_excluded("src/cache/x.py")
    assert not path_filter.is_excluded("src/cache")


def test_leading_slash_anchors_to_the_folder():
    """`/todo.txt` matches only at the root, not in subfolders."""
    path_filter = gitignore("/todo.txt\n")
    assert path_filter.is_excluded("todo.txt")
    assert not path_filter.is_excluded("docs/todo.txt")


def test_middle_slash_anchors_to_the_folder():
    """`doc/frotz` matches doc/frotz at the root, not a/doc/frotz."""
    path_filter = gitignore("doc/frotz\n")
    assert path_filter.is_excluded("doc/frotz")
    assert not path_filter.is_excluded("a/doc/frotz")


def test_name_pattern_matches_at_any_depth():
    """`*.o` (no slash) matches in every folder."""
    path_filter = gitignore("*.o\n")
    assert path_filter.is_excluded("main.o")
    assert path_filter.is_excluded("src/lib/util.o")


def test_star_does_not_cross_folders():
    """`src/*.py` matches src/a.py but not src/pkg/a.py."""
    path_filter = gitignore("src/*.py\n")
    assert path_filter.is_excluded("src/a.py")
    assert not path_filter.is_excluded("src/pkg/a.py")


def test_question_mark_matches_one_character():
    """`file?.txt` matches file1.txt but not file10.txt or file.txt."""
    path_filter = gitignore("file?.txt\n")
    assert path_filter.is_excluded("file1.txt")
    assert not path_filter.is_excluded("file10.txt")
    assert not path_filter.is_excluded("file.txt")


def test_leading_double_star_matches_in_all_folders():
    """`**/foo/bar` matches foo/bar anywhere, including at the root."""
    path_filter = gitignore("**/foo/bar\n")
    assert path_filter.is_excluded("foo/bar")
    assert path_filter.is_excluded("x/y/foo/bar")
    assert not path_filter.is_excluded("foo/baz")


def test_trailing_double_star_matches_everything_inside():
    """`abc/**` matches everything inside abc, but not abc itself."""
    path_filter = gitignore("abc/**\n!abc/keep\n")
    assert path_filter.is_excluded("abc/x/y.txt")
    assert not path_filter.is_excluded("abc", is_dir=True)
    assert not path_filter.is_excluded("abc/keep")


def test_middle_double_star_matches_zero_or_more_folders():
    """`a/**/b` matches a/b, a/x/b and a/x/y/b."""
    path_filter = gitignore("a/**/b\n")
    for path in ["a/b", "a/x/b", "a/x/y/b"]:
        assert path_filter.is_excluded(path), path
    assert not path_filter.is_excluded("a/xb")


@pytest.mark.parametrize(
    ("pattern", "excluded", "kept"),
    [
        ("file[abc].txt", "fileb.txt", "filed.txt"),
        ("v[0-9].log", "v7.log", "vx.log"),
        ("v[!0-9].log", "vx.log", "v7.log"),
        ("v[^0-9].log", "vx.log", "v7.log"),
        ("[]]x", "]x", "ax"),
        ("v[[:digit:]].log", "v3.log", "va.log"),
    ],
)
def test_character_classes(pattern, excluded, kept):
    """`[...]` classes: sets, ranges, negation with `!` or `^`, `]` first, names."""
    path_filter = gitignore(pattern + "\n")
    assert path_filter.is_excluded(excluded)
    assert not path_filter.is_excluded(kept)


def test_unclosed_bracket_is_literal():
    """A `[` without `]` matches itself."""
    assert gitignore("a[b\n").is_excluded("a[b")


def test_nested_gitignore_is_relative_to_its_folder():
    """`/out` in sub/.gitignore matches sub/out only."""
    path_filter = gitignore("", sub="/out\n")
    assert path_filter.is_excluded("sub/out")
    assert not path_filter.is_excluded("out")
    assert not path_filter.is_excluded("sub/deeper/out")


def test_nested_gitignore_applies_only_below_its_folder():
    """`*.tmp` in sub/.gitignore does not exclude tmp files elsewhere."""
    path_filter = gitignore("", sub="*.tmp\n")
    assert path_filter.is_excluded("sub/a/x.tmp")
    assert not path_filter.is_excluded("other/x.tmp")


def test_nested_gitignore_overrides_its_parent():
    """A negation in a deeper .gitignore re-includes what the root excluded."""
    path_filter = gitignore("*.log\n", sub="!important.log\n")
    assert not path_filter.is_excluded("sub/important.log")
    assert path_filter.is_excluded("important.log")


def test_nested_negation_cannot_re_include_inside_a_folder_excluded_above():
    """A deeper negation cannot lift a folder excluded by a parent .gitignore."""
    path_filter = gitignore("vendor/\n", vendor="!lib.py\n")
    assert path_filter.is_excluded("vendor/lib.py")


def test_info_exclude_is_overridden_by_gitignore():
    """`.git/info/exclude` applies, below the .gitignore files in precedence."""
    path_filter = PathFilter(
        ignore_files={".git/info/exclude": "*.bak\nnotes.md\n", ".gitignore": "!notes.md\n"}
    )
    assert path_filter.is_excluded("a.bak")
    assert not path_filter.is_excluded("notes.md")


def test_gitignore_negation_cannot_lift_a_default_exclude():
    """`!.env.example` in .gitignore does not make .env.example sendable."""
    assert gitignore(".env*\n!.env.example\n").is_excluded(".env.example")


# --- reasons and paths ---------------------------------------------------------------------


def test_reason_names_the_rule_and_where_it_comes_from():
    """The reason quotes the pattern with its file and line."""
    path_filter = gitignore("# comment\n*.log\n", sub="*.tmp\n")
    assert path_filter.reason("x.log") == ".gitignore:2 '*.log'"
    assert path_filter.reason("sub/x.tmp") == "sub/.gitignore:1 '*.tmp'"
    assert PathFilter().reason("a/.env") == "default exclude '.env*'"
    assert PathFilter(["secrets/"]).reason("secrets/a.txt") == (
        "inside secrets/: context.exclude 'secrets/'"
    )


def test_reason_is_none_for_a_sendable_path():
    """A path no rule excludes has no reason."""
    assert gitignore("*.log\n").reason("src/main.py") is None


def test_paths_are_normalized():
    """`./a/b`, `a//b` and a trailing `/` (a folder) are understood."""
    path_filter = gitignore("build/\n")
    assert path_filter.is_excluded("./build/x.o")
    assert path_filter.is_excluded("src//build/x.o")
    assert path_filter.is_excluded("build/")


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "a/../../b"])
def test_paths_outside_the_workspace_are_refused(path):
    """A path that is not workspace-relative raises ValueError."""
    with pytest.raises(ValueError):
        PathFilter().is_excluded(path)


def test_parse_rule_skips_comments():
    """parse_rule returns None for comments and blank lines."""
    assert parse_rule("# x", "t") is None
    assert parse_rule("", "t") is None


# --- reading the tree -------------------------------------------------------------------------


def test_from_root_reads_root_and_nested_gitignores(tmp_path):
    """from_root applies the root, nested and info/exclude ignore files."""
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.log\n",
            "pkg/.gitignore": "/generated.py\n",
            ".git/info/exclude": "scratch.txt\n",
        },
    )
    path_filter = PathFilter.from_root(tmp_path, ["*.bak"])
    assert path_filter.is_excluded("a/b.log")
    assert path_filter.is_excluded("pkg/generated.py")
    assert not path_filter.is_excluded("generated.py")
    assert path_filter.is_excluded("scratch.txt")
    assert path_filter.is_excluded("x.bak")


def test_from_root_does_not_enter_excluded_folders(tmp_path, monkeypatch):
    """Reading the ignore files skips folders already excluded, as git does."""
    write_tree(tmp_path, {".gitignore": "build/\n", "build/deep/.gitignore": "*\n", "src/main.py": ""})
    scanned = record_scandir(tmp_path, monkeypatch)
    PathFilter.from_root(tmp_path)
    assert sorted(scanned) == [".", "src"]


def test_iter_files_lists_sendable_files_in_a_stable_order(tmp_path):
    """iter_files yields every file no rule excludes, sorted folder by folder."""
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n",
            ".env": "TOKEN=x",
            ".git/HEAD": "ref",
            "b.py": "",
            "a.py": "",
            "debug.log": "",
            "build/out.js": "",
            "src/z.py": "",
            "src/sub/y.py": "",
            "src/.env.local": "",
        },
    )
    assert listed(tmp_path, PathFilter.from_root(tmp_path)) == [
        ".gitignore",
        "a.py",
        "b.py",
        "src/z.py",
        "src/sub/y.py",
    ]


def test_iter_files_does_not_enter_excluded_folders(tmp_path, monkeypatch):
    """Excluded folders (ignored, default-excluded, .git) are never listed."""
    write_tree(
        tmp_path,
        {
            ".gitignore": "node_modules/\n",
            "node_modules/pkg/index.js": "",
            ".git/objects/ab/cdef": "",
            ".env/bin/python": "",
            "src/app.js": "",
        },
    )
    path_filter = PathFilter.from_root(tmp_path)
    scanned = record_scandir(tmp_path, monkeypatch)
    assert listed(tmp_path, path_filter) == [".gitignore", "src/app.js"]
    assert sorted(scanned) == [".", "src"]


def test_iter_files_skips_links_that_leave_the_workspace(tmp_path):
    """A symlink to a file outside the root is not listed; folder links are not followed."""
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write_tree(outside, {"config.yaml": "password: hunter22"})
    write_tree(root, {"main.py": "", "real.txt": ""})
    (root / "config.yaml").symlink_to(outside / "config.yaml")
    (root / "alias.txt").symlink_to(root / "real.txt")
    (root / "linked_dir").symlink_to(outside, target_is_directory=True)
    assert listed(root, PathFilter.from_root(root)) == ["alias.txt", "main.py", "real.txt"]
