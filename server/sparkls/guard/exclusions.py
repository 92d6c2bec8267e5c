"""Which workspace files may ever be sent to a model.

A workspace-relative path is excluded when any of these layers says so:

1. `.git`: any path component named `.git`, always.
2. The default excludes (`DEFAULT_EXCLUDES`): secrets by their usual names, matched
   case-insensitively on the name of every path component (`config/.env.local`,
   `deploy/KEY.PEM`, a `credentials/` directory).
3. The user's `context.exclude` patterns, gitignore syntax, relative to the root.
4. The repository's ignore files: `.git/info/exclude` and every `.gitignore` from the
   root down, with git's precedence (a deeper file overrides a shallower one; within
   a file, the last matching line wins).

Each layer is a floor the others cannot lift: a `!negation` re-includes only within
its own layer, so a `.gitignore` line `!.env.example` does not re-include a file the
defaults exclude. As in git, nothing below an excluded directory can be re-included.

Gitignore syntax supported: blank lines, `#` comments (`\\#` for a literal `#`),
trailing spaces (kept when escaped as `\\ `), `!` negation (`\\!` for a literal `!`),
a trailing `/` matching directories only, a leading or middle `/` anchoring the
pattern to its file's folder (otherwise it matches a name at any depth), `*`, `?`,
`[...]` classes with ranges, `!`/`^` negation and `[:alpha:]`-style names, and `**`
(`**/x`, `x/**`, `a/**/b`). Matching is case-sensitive, as git's is by default.

`PathFilter` decides from pattern texts and is pure; `PathFilter.from_root` and
`iter_files` read the file tree. Nothing here shells out to git.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

log = logging.getLogger(__name__)

DEFAULT_EXCLUDES = [".env*", "*.pem", "*.key", "id_rsa*", "*credentials*", "*.secret*"]
GITIGNORE = ".gitignore"
INFO_EXCLUDE = ".git/info/exclude"  # the repository's own, unshared ignore file

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "digit": "0-9",
    "lower": "a-z",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One parsed pattern line."""

    pattern: str  # as written, for messages
    source: str  # where it came from: "default", "context.exclude", "sub/.gitignore:3"
    negated: bool
    dir_only: bool
    anchored: bool  # matched against the path below its folder, else against the name
    regex: re.Pattern[str]

    def matches(self, path: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.fullmatch(path if self.anchored else name) is not None

    def describe(self) -> str:
        return f"{self.source} {self.pattern!r}"


def parse_rule(line: str, source: str, *, ignore_case: bool = False) -> IgnoreRule | None:
    """Parse one gitignore line; None for a blank line or a comment.

    Raises ValueError for a pattern that cannot be compiled (`[z-a]`).
    """
    line = line.rstrip("\r\n")
    if not line or line.startswith("#"):
        return None
    body = line.rstrip(" ")
    if body != line and body.endswith("\\"):
        body += " "  # `foo\ `: the escaped space stays
    negated = body.startswith("!")
    if negated:
        body = body[1:]
    dir_only = body.endswith("/")
    body = body.rstrip("/")
    if not body:
        return None
    anchored = "/" in body
    body = body.removeprefix("/")
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    try:
        regex = re.compile(_glob_to_regex(body), flags)
    except re.error as exc:
        raise ValueError(f"{source}: bad pattern {line!r} ({exc})") from exc
    return IgnoreRule(line.strip(), source, negated, dir_only, anchored, regex)


def _glob_to_regex(glob: str) -> str:
    """Translate a gitignore glob (no leading or trailing `/`) to a regex."""
    segments = glob.split("/")
    last = len(segments) - 1
    out: list[str] = []
    for index, segment in enumerate(segments):
        if segment == "**":
            if last == 0:
                out.append(".*")
            elif index == last:
                out.append(".+")  # `x/**`: everything inside x, not x itself
            else:
                out.append("(?:.*/)?")  # `**/x`, `a/**/b`: zero or more folders
            continue
        out.append(_segment_to_regex(segment))
        if index < last:
            out.append("/")
    return "".join(out)


def _segment_to_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (parsed := _bracket_to_regex(segment, i)) is not None:
            regex, i = parsed
            out.append(regex)
            continue
        elif char == "\\" and i + 1 < len(segment):
            i += 1
            out.append(re.escape(segment[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _bracket_to_regex(segment: str, start: int) -> tuple[str, int] | None:
    """`[...]` at `start` as a regex class and the index after it; None if unclosed."""
    i = start + 1
    negated = i < len(segment) and segment[i] in "!^"
    i += negated
    items: list[str] = []
    while i < len(segment):
        char = segment[i]
        if char == "]" and items:
            body = "".join(items)
            return (f"[^/{body}]" if negated else f"[{body}]"), i + 1
        if segment.startswith("[:", i):
            close = segment.find(":]", i + 2)
            if close != -1 and segment[i + 2 : close] in _POSIX_CLASSES:
                items.append(_POSIX_CLASSES[segment[i + 2 : close]])
                i = close + 2
                continue
        if char == "\\" and i + 1 < len(segment):
            i += 1
            char = segment[i]
        elif char == "-" and items and i + 1 < len(segment) and segment[i + 1] != "]":
            items.append("-")  # a range, as in `a-z`
            i += 1
            continue
        items.append(re.escape(char))
        i += 1
    return None


def _last_match(
    rules: Sequence[IgnoreRule], path: str, name: str, is_dir: bool
) -> IgnoreRule | None:
    """The rule that decides (the last one matching), if any."""
    for rule in reversed(rules):
        if rule.matches(path, name, is_dir):
            return rule
    return None


def _normalize(rel_path: str | PurePath) -> str:
    text = PurePath(rel_path).as_posix()
    if text == ".":
        return ""
    if PurePath(text).is_absolute() or ".." in text.split("/"):
        raise ValueError(f"not a workspace-relative path: {rel_path!r}")
    return text


class PathFilter:
    """Decides whether a workspace-relative path may be sent (see the module docstring).

    `ignore_files` maps each ignore file's workspace-relative path (`.gitignore`,
    `src/.gitignore`, `.git/info/exclude`) to its text.
    """

    def __init__(
        self,
        extra_patterns: Sequence[str] = (),
        ignore_files: Mapping[str, str] | None = None,
        *,
        defaults: Sequence[str] = DEFAULT_EXCLUDES,
    ) -> None:
        self.problems: list[str] = []  # bad user patterns, one sentence each
        self._defaults = [
            rule
            for pattern in defaults
            if (rule := parse_rule(pattern, "default exclude", ignore_case=True)) is not None
        ]
        self._user: list[IgnoreRule] = []
        for pattern in extra_patterns:
            try:
                rule = parse_rule(pattern, "context.exclude")
            except ValueError as exc:
                self.problems.append(f"{exc}; pattern ignored")
                continue
            if rule is not None:
                self._user.append(rule)
        self._ignored_by_folder: dict[str, list[IgnoreRule]] = {}
        self._folder_reasons: dict[str, str | None] = {}
        for path, text in sorted((ignore_files or {}).items(), key=_ignore_file_order):
            self.add_ignore_file(path, text)

    @classmethod
    def from_root(cls, root: Path, extra_patterns: Sequence[str] = ()) -> PathFilter:
        """Read `.git/info/exclude` and the `.gitignore` files below `root`.

        Folders excluded so far are not entered, so their ignore files are not read
        (git does the same).
        """
        path_filter = cls(extra_patterns)
        _read_ignore_file(path_filter, root, INFO_EXCLUDE)
        pending = [""]
        while pending:
            folder = pending.pop()
            _read_ignore_file(path_filter, root, f"{folder}/{GITIGNORE}" if folder else GITIGNORE)
            for entry in _scan(root / folder):
                if not entry.is_dir(follow_symlinks=False):
                    continue
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if path_filter._own_reason(rel, entry.name, is_dir=True) is None:
                    pending.append(rel)
        return path_filter

    def add_ignore_file(self, path: str, text: str) -> None:
        """Add the patterns of one ignore file, given by its workspace-relative path.

        Add a folder's file before asking about anything inside that folder.
        """
        path = _normalize(path)
        folder = "" if path == INFO_EXCLUDE else path.rpartition("/")[0]
        rules = self._ignored_by_folder.setdefault(folder, [])
        parsed: list[IgnoreRule] = []
        for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
            try:
                rule = parse_rule(line, f"{path}:{number}")
            except ValueError as exc:
                log.debug("%s; line ignored", exc)
                continue
            if rule is not None:
                parsed.append(rule)
        if path == INFO_EXCLUDE:
            rules[:0] = parsed  # below every .gitignore in precedence
        else:
            rules.extend(parsed)
        self._folder_reasons.clear()

    def is_excluded(self, rel_path: str | PurePath, *, is_dir: bool = False) -> bool:
        """Whether the path (or anything it is inside) is excluded."""
        return self.reason(rel_path, is_dir=is_dir) is not None

    def reason(self, rel_path: str | PurePath, *, is_dir: bool = False) -> str | None:
        """Which rule excludes the path, for messages; None when it may be sent."""
        is_dir = is_dir or str(rel_path).endswith("/")
        path = _normalize(rel_path)
        if not path:
            return None
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            reason = self._folder_reason(folder, parts[depth - 1])
            if reason is not None:
                return f"inside {folder}/: {reason}"
        return self._own_reason(path, parts[-1], is_dir=is_dir)

    def _folder_reason(self, folder: str, name: str) -> str | None:
        if folder not in self._folder_reasons:
            self._folder_reasons[folder] = self._own_reason(folder, name, is_dir=True)
        return self._folder_reasons[folder]

    def _own_reason(self, path: str, name: str, *, is_dir: bool) -> str | None:
        """The rule excluding `path` itself, not counting the folders it is in."""
        if name == ".git":
            return "the .git folder is never sent"
        for rule in self._defaults:
            if rule.matches(path, name, is_dir):
                return rule.describe()
        rule = _last_match(self._user, path, name, is_dir)
        if rule is not None and not rule.negated:
            return rule.describe()
        rule = self._ignored_by(path, name, is_dir)
        if rule is not None and not rule.negated:
            return rule.describe()
        return None

    def _ignored_by(self, path: str, name: str, is_dir: bool) -> IgnoreRule | None:
        """The deciding ignore-file rule: deepest folder first, last line first."""
        folder = path.rpartition("/")[0]
        while True:
            rules = self._ignored_by_folder.get(folder)
            if rules:
                below = path[len(folder) + 1 :] if folder else path
                rule = _last_match(rules, below, name, is_dir)
                if rule is not None:
                    return rule
            if not folder:
                return None
            folder = folder.rpartition("/")[0]


def iter_files(root: Path, path_filter: PathFilter) -> Iterator[Path]:
    """The files below `root` that may be sent, in a stable order.

    Excluded folders are not entered. Symbolic links to folders are not followed;
    a symbolic link to a file is yielded only when its target is inside `root`. An
    entry that cannot be looked at (a link loop, no permission, gone since the folder
    was listed) is skipped, and so is a folder that cannot be listed: the walk goes on.
    """
    real_root = os.path.realpath(root)
    pending = [""]
    while pending:
        folder = pending.pop()
        folders = []
        for entry in _scan(root / folder):
            rel = f"{folder}/{entry.name}" if folder else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file()  # follows a link: ELOOP for a loop
                is_link = is_file and entry.is_symlink()
            except OSError as exc:
                log.debug("cannot look at %s: %s", rel, exc)
                continue
            if is_dir:
                if path_filter._own_reason(rel, entry.name, is_dir=True) is None:
                    folders.append(rel)
            elif (
                is_file
                and path_filter._own_reason(rel, entry.name, is_dir=False) is None
                and (not is_link or _inside(real_root, entry.path))
            ):
                yield root / rel
        pending.extend(reversed(folders))


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError as exc:
        log.debug("cannot list %s: %s", folder, exc)
        return []


def _inside(real_root: str, path: str) -> bool:
    try:
        return os.path.realpath(path).startswith(real_root.rstrip(os.sep) + os.sep)
    except OSError:  # a loop, where realpath says so
        return False


def _ignore_file_order(item: tuple[str, str]) -> tuple[bool, int, str]:
    """info/exclude first, then shallower folders before deeper ones."""
    path = _normalize(item[0])
    return path != INFO_EXCLUDE, path.count("/"), path


def _read_ignore_file(path_filter: PathFilter, root: Path, rel: str) -> None:
    try:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return
    except OSError as exc:
        log.debug("cannot read %s: %s", rel, exc)
        return
    path_filter.add_ignore_file(rel, text)
