"""What a reply may write: the one list of protected paths, decided by real path.

Every edit sparkls hands the editor (a fast edit, a quick fix, a refine, a comment
instruction, a multi-file task, a follow-up in other files) names files that a model
chose, and a model can be steered by text in the repository. So before any edit goes
out, each file it touches gets a verdict from `Protection.verdict(path)`:

- **never**: the file lies in a git directory — by a `.git` component of its name as
  written or of its real path, read as a disk may store it (any case: a
  case-insensitive disk opens `.GIT/config` as `.git/config`; `.git.`, `.git::$DATA`,
  `git~1` on Windows; `.git` with code points HFS+ ignores), inside the git directory a `.git` pointer file names (worktrees and
  submodules: `gitdir: <path>`, and that directory's `commondir`), or inside any folder
  that *is* a git directory by what it holds (`HEAD`, `objects/`, `refs/`), wherever
  it lies. Nothing there is ever written: `.git/config` and `.git/hooks/` make git run
  commands.
- **ask**: the file makes a tool run code, or changes what sparkls trusts
  (`PROTECTED`, plus the user's `trust.protect` patterns). It is written only after
  the user said yes to it by name.
- **free**: anything else.

The name as written and the real file a link leads to are both checked, and the
stricter verdict wins: a link `notes.md -> .vscode/tasks.json` is protected, and so is
a link named `.envrc` that leads to an ordinary file (direnv reads the link).
`PROTECTED` is printed in docs/security.md (a test holds the two together).

I/O: `realpath`, and a few `stat`s and one small read (a `.git` pointer file) per
folder on the way from the workspace folder to the file. Writes are rare; nothing is
cached, so a link changed a moment ago is seen.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from sparkls.guard.exclusions import IgnoreRule, parse_rule

Verdict = Literal["never", "ask", "free"]


@dataclass(frozen=True, slots=True)
class Protected:
    """One built-in protected name and why writing it needs the user's yes."""

    pattern: str  # gitignore syntax, matched at any depth, case-insensitively
    why: str


# Files that make a tool run code when the folder is opened, entered or committed, or
# that decide what sparkls trusts. Ordinary code that runs only when you run it
# yourself (package.json scripts, Makefile, setup.py, conftest.py) is not here: you
# review it as code.
PROTECTED: tuple[Protected, ...] = (
    Protected(".sparkls.toml", "sparkls's own settings: what it may send and where"),
    Protected(".gitignore", "it decides which files sparkls may send to a model"),
    Protected(".vscode/", "VS Code runs its tasks (some on folder open), launch configurations and settings"),
    Protected(".github/workflows/", "GitHub Actions runs these workflows with the repository's secrets"),
    Protected(".gitlab-ci.yml", "GitLab CI runs it"),
    Protected(".circleci/", "CircleCI runs it"),
    Protected(".envrc", "direnv runs it when you enter the folder"),
    Protected(".gitattributes", "it can make git run filter and diff commands"),
    Protected(".gitmodules", "it makes git fetch and check out other repositories"),
    Protected(".pre-commit-config.yaml", "pre-commit's git hooks run what it lists"),
    Protected(".husky/", "husky's git hooks run these scripts"),
    Protected(".devcontainer/", "dev containers build and run what it describes"),
    Protected(".idea/", "JetBrains IDEs run its run configurations and tools"),
    Protected(".npmrc", "it can change the registry and the scripts npm runs"),
    Protected(".yarnrc", "it can change the registry and the scripts yarn runs"),
    Protected(".yarnrc.yml", "it can change the registry and the plugins yarn runs"),
    Protected(".helix/", "Helix starts the language servers its languages.toml names"),
    Protected(".nvim.lua", "Neovim runs it with 'exrc' on"),
    Protected(".nvimrc", "Neovim runs it with 'exrc' on"),
    Protected(".exrc", "Vim and Neovim run it with 'exrc' on"),
    Protected(".dir-locals.el", "Emacs applies its local variables (and evaluates some)"),
    Protected(".dir-locals-2.el", "Emacs applies its local variables (and evaluates some)"),
)

GIT = ".git"


@dataclass(frozen=True, slots=True)
class Decision:
    """A file's verdict and, unless free, why (a sentence naming what it is)."""

    verdict: Verdict
    why: str | None = None
    shown: str = ""  # the file as the user knows it: workspace-relative

    def message(self) -> str:
        return f"{self.shown} {self.why}" if self.why else self.shown


def _rules(patterns: Iterable[tuple[str, str]]) -> list[tuple[IgnoreRule, str]]:
    rules = []
    for pattern, why in patterns:
        try:
            rule = parse_rule(pattern, "trust.protect", ignore_case=True)
        except ValueError:
            continue  # reported when the settings were read
        if rule is not None and not rule.negated:
            rules.append((rule, why))
    return rules


_BUILT_IN = _rules((p.pattern, p.why) for p in PROTECTED)


class Protection:
    """The verdicts for one session's workspace folders and `trust.protect` patterns."""

    __slots__ = ("folders", "_real", "_rules")

    def __init__(self, folders: Sequence[str], extra: Sequence[str] = ()) -> None:
        self.folders = tuple(os.path.normpath(f) for f in folders)
        self._real = tuple(os.path.realpath(f) for f in self.folders)
        user = _rules((p, "it matches your `trust.protect` setting") for p in extra)
        self._rules = _BUILT_IN + user

    def verdict(self, path: str) -> Decision:
        """The verdict for the file at absolute `path` (it may not exist yet)."""
        path = os.path.normpath(path)
        real = os.path.realpath(path)
        # A file outside every workspace folder is judged by its whole path.
        written = self._relative(path, self.folders) or (os.sep, _posix(path.lstrip(os.sep)))
        resolved = self._relative(real, self._real) or (os.sep, _posix(real.lstrip(os.sep)))
        shown = written[1] if written[0] != os.sep else path
        if _has_git_component(written[1]):
            return Decision("never", f"is inside a git directory ({_git_part(written[1])})", shown)
        if _has_git_component(resolved[1]):
            return Decision("never", f"leads into a git directory ({resolved[1]})", shown)
        git_dir = self._git_directory_holding(real)
        if git_dir is not None:
            where = self._relative(git_dir, self._real)
            return Decision("never", f"leads into the git directory {where[1] if where else git_dir}", shown)
        if (why := self._protected(written[1])) is not None:
            return Decision("ask", f"is a protected file: {why}", shown)
        if (why := self._protected(resolved[1])) is not None:
            return Decision("ask", f"is a protected file (it leads to {resolved[1]}): {why}", shown)
        return Decision("free", None, shown)

    @staticmethod
    def _relative(path: str, folders: Sequence[str]) -> tuple[str, str] | None:
        """(folder, posix path relative to it) for the first folder holding `path`."""
        for folder in folders:
            if path == folder:
                return folder, ""
            if path.startswith(folder.rstrip(os.sep) + os.sep):
                return folder, _posix(os.path.relpath(path, folder))
        return None

    def _protected(self, rel: str) -> str | None:
        parts = [stored_name(part) for part in rel.split("/")]
        for depth in range(1, len(parts) + 1):
            prefix, is_dir = "/".join(parts[:depth]), depth < len(parts)
            for rule, why in self._rules:
                if rule.matches(prefix, parts[depth - 1], is_dir):
                    return why
        return None

    def _git_directory_holding(self, real: str) -> str | None:
        """The git directory `real` lies in (a workspace folder's `.git` pointer's
        target, its `commondir`, or a folder that is a git directory by its content),
        looked for from the file's folder up to its workspace folder."""
        folder = next((f for f in self._real if real.startswith(f.rstrip(os.sep) + os.sep)), None)
        targets = [target for f in self._real for target in _pointed_git_dirs(f)]
        for target in targets:
            if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
                return target
        if folder is None:
            return None
        current = os.path.dirname(real)
        while len(current) >= len(folder):
            if _is_git_directory(current):
                return current
            for target in _pointed_git_dirs(current):
                if real.startswith(target.rstrip(os.sep) + os.sep):
                    return target
            if current == folder:
                break
            current = os.path.dirname(current)
        return None


def _posix(relative: str) -> str:
    return PurePosixPath(*relative.split(os.sep)).as_posix() if relative else ""


# Code points HFS+ drops from names (so `.g\u200cit` opens `.git` there; git refuses them too).
_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def stored_name(name: str) -> str:
    """A path component as a disk may store it: an NTFS stream suffix (`.git::$DATA`),
    trailing dots and spaces (Windows), the code points HFS+ ignores dropped, case
    folded. Lookalike letters stay other names: no disk confuses them."""
    stem = name.split(":", 1)[0] if ":" in name else name
    return (_IGNORED.sub("", stem).rstrip(" .") or name).casefold()


def _is_dot_git(name: str) -> bool:
    return stored_name(name) in (GIT, "git~1")  # `git~1`: the NTFS 8.3 short name of `.git`


def _has_git_component(rel: str) -> bool:
    return any(_is_dot_git(part) for part in rel.split("/"))


def _git_part(rel: str) -> str:
    parts = rel.split("/")
    index = next(i for i, part in enumerate(parts) if _is_dot_git(part))
    return "/".join(parts[: index + 1])


def _is_git_directory(folder: str) -> bool:
    """A folder git would use as a repository: `HEAD`, `objects/` and `refs/`."""
    return (
        os.path.isfile(os.path.join(folder, "HEAD"))
        and os.path.isdir(os.path.join(folder, "objects"))
        and os.path.isdir(os.path.join(folder, "refs"))
    )


def _pointed_git_dirs(folder: str) -> list[str]:
    """The git directories `<folder>/.git` stands for: itself when a folder; the
    `gitdir:` a pointer file names (worktrees, submodules) and that directory's
    `commondir` (the main repository's, whose config and hooks it uses)."""
    dot_git = os.path.join(folder, GIT)
    if os.path.isdir(dot_git):
        return [os.path.realpath(dot_git)]
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as fh:
            first = fh.read(4096).splitlines()[0] if os.path.isfile(dot_git) else ""
    except (OSError, IndexError):
        return []
    if not first.startswith("gitdir:"):
        return []
    git_dir = os.path.realpath(os.path.join(folder, first.removeprefix("gitdir:").strip()))
    found = [git_dir]
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as fh:
            common = fh.read(4096).strip()
    except OSError:
        return found
    if common:
        found.append(os.path.realpath(os.path.join(git_dir, common)))
    return found
