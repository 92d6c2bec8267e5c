"""`.sparkls.toml`: read from the workspace root (the one I/O of config/), folded to
canonical keys (config/keys.py), then checked once for what a repository may not set;
the same check for any other source a repository can write (`check_repository_settings`:
eglot's workspace configuration, which a `.dir-locals.el` sets without asking).

A cloned repository is not the user: its project file may tune sparkls (models,
timeouts, context, a server on this machine) but never choose where the user's key
and code go, which key or key variable is used, which certificates are trusted,
whether the service keeps the code, or whether multi-file edits skip review; and it
may add protected paths (`trust.protect`) but not take any away. `PROJECT_RULES` is
that list, by canonical path; docs/configuration.md prints it and the VS Code
extension declares the same keys with a scope no workspace can set
(tests/unit/test_vscode_settings.py holds the two together). A refused key is named
once, as written, and ignored: the user's or the default value stays.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from sparkls.config.keys import Folded, drop, fold, set_value, settle
from sparkls.config.model import DEFAULT_LOCAL_BASE_URL, PROJECT_FILE, Settings
from sparkls.endpoints import is_loopback_host

OPENAI_HOST = "api.openai.com"


@dataclasses.dataclass(frozen=True)
class RepositorySource:
    """A settings source a repository can write, as the messages name it."""

    name: str  # what each message starts with
    who: str  # "<who> may not <why>"
    hint: str  # where the user sets a refused key instead


PROJECT_SOURCE = RepositorySource(
    PROJECT_FILE, "a project file", "set it in your editor's sparkls settings if you trust it"
)
# Eglot answers `workspace/configuration` from `eglot-workspace-configuration`, which it
# declares safe as a directory-local variable: a repository's `.dir-locals.el` sets it
# and Emacs applies it without asking.
EGLOT_WORKSPACE = RepositorySource(
    "eglot-workspace-configuration",
    "a repository's .dir-locals.el (eglot applies it without asking)",
    "set it in sparkls's :initializationOptions if you trust it",
)


def read_project_file(root: Path | None) -> tuple[Folded | None, list[str]]:
    """`.sparkls.toml` at the workspace root, folded and checked
    (`check_repository_settings`), or None when there is none; a broken file is
    reported and ignored."""
    if root is None:
        return None, []
    path = root / PROJECT_FILE
    try:
        data = tomllib.loads(_read_regular_file(path, MAX_PROJECT_FILE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return None, []
    except (OSError, ValueError) as exc:  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        return None, [f"{path}: {exc}; file ignored"]
    return check_repository_settings(data, PROJECT_SOURCE)


MAX_PROJECT_FILE_BYTES = 1 << 20


def _read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. A repository can make
    `.sparkls.toml` a symlink to `/dev/stdin` (the LSP stream), `/dev/zero` or a FIFO:
    opened without blocking, checked on the open descriptor, read bounded."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError("not a regular file")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"larger than {limit // 1024} KiB")
    return data


def check_repository_settings(source: dict[str, Any], origin: RepositorySource) -> tuple[Folded, list[str]]:
    """A settings tree a repository can write: folded to canonical keys, checked once
    (`check_project`), and its conflicting spellings settled; the problems name `origin`."""
    folded = fold(source)
    problems = check_project(folded, origin)
    return folded, problems + settle(folded, origin.name)


def _plain_url(value: Any) -> SplitResult | None:
    """An http(s) URL with a host and nothing that parsers read differently (userinfo,
    backslashes, whitespace, control characters, a bad port), else None."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if any(c in value for c in "@\\") or any(ord(c) <= 32 or ord(c) == 127 for c in value):
        return None
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number in range
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def is_openai_or_loopback(url: Any) -> bool:
    """OpenAI's https host (its default port), or any plain URL on this machine."""
    parts = _plain_url(url)
    if parts is None:
        return False
    if is_loopback_host(parts.hostname):
        return True
    return parts.scheme == "https" and (parts.hostname or "").rstrip(".") == OPENAI_HOST and parts.port in (None, 443)


def _plain_or_off(url: Any) -> bool:
    """"" (off), or a URL the model's own check reads as every client would: it refuses
    a host that is not loopback, keeping both tiers local."""
    return (isinstance(url, str) and not url.strip()) or _plain_url(url) is not None


def _never(value: Any) -> bool:
    return False


def _is_default(path: str, value: Any) -> bool:
    """Whether `value` is what the setting is when no source sets it: setting it to
    that is a no-op (a project file that spells out `api_key_env = "OPENAI_API_KEY"`)."""
    node: Any = _DEFAULTS
    for part in path.split("."):
        node = getattr(node, part, _DEFAULTS)
    return node is not _DEFAULTS and type(value) is type(node) and value == node


_DEFAULTS = Settings()


@dataclasses.dataclass(frozen=True)
class ProjectRule:
    """A setting a project file may set only to its default or to values `allowed` accepts."""

    path: str  # canonical dotted path
    allowed: Callable[[Any], bool]
    why: str  # what a repository would get if it could; the docs' table prints it
    shows_value: bool = False  # a URL or a variable's name is shown; a key never
    instead: Any = None  # the value used instead of a refused one (None: the key is dropped)
    then: str | None = None  # what the message says after the reason (None: the source's hint)


_ELSEWHERE = f"send your key and code to a server it chooses (only https://{OPENAI_HOST} or this machine)"


def _tier_rules(tier: str) -> list[ProjectRule]:
    return [
        ProjectRule(f"{tier}.base_url", is_openai_or_loopback, _ELSEWHERE, shows_value=True),
        ProjectRule(f"{tier}.api_key", _never, "make your code go to its own account"),
        ProjectRule(f"{tier}.api_key_env", _never, "send another of your secrets as the key", shows_value=True),
        ProjectRule(f"{tier}.ca_file", _never, "trust a certificate authority it ships"),
        ProjectRule(f"{tier}.store", _never, "have the service keep your code"),
    ]


PROJECT_RULES: tuple[ProjectRule, ...] = (
    *_tier_rules("fast"),
    *_tier_rules("deep"),
    ProjectRule("api_key", _never, "make your code go to its own account"),
    ProjectRule("api_key_env", _never, "send another of your secrets as the key", shows_value=True),
    ProjectRule(
        "local_base_url",
        _plain_or_off,
        "send your code to another machine",
        shows_value=True,
        instead=DEFAULT_LOCAL_BASE_URL,  # it asked for local: nothing may fall back to a remote host
        then=f"both tiers stay on {DEFAULT_LOCAL_BASE_URL}",
    ),
    ProjectRule("deep.confirm", _never, "apply multi-file edits without your review"),
)
PROTECT = "trust.protect"  # gitignore-style patterns: a project file may add, never negate


def check_project(project: Folded, origin: RepositorySource = PROJECT_SOURCE) -> list[str]:
    """Drop from a folded tree what a repository may not set (`PROJECT_RULES`, and
    `!negations` in `trust.protect`); one sentence per refused key, naming it as
    written. Every spelling's value is judged: a refused one refuses the key."""
    problems = []
    for rule in PROJECT_RULES:
        seen = project.values.get(rule.path, [])
        refused = [value for value in seen if not (_is_default(rule.path, value) or rule.allowed(value))]
        then = rule.then or origin.hint
        if refused and drop(project, rule.path):
            shown = [repr(v) for v in refused if isinstance(v, str)] if rule.shows_value else []
            value = f" = {', '.join(shown)}" if shown else ""
            problems.append(
                f"{origin.name}: {project.shown(rule.path)}{value} ignored: {origin.who} may not {rule.why}; {then}"
            )
        elif rule.instead is not None and rule.path in project.conflicts():
            shown = project.shown(rule.path)
            problems.append(f"{origin.name}: {shown} are one setting given different values; {then}")
        else:
            continue
        if rule.instead is not None:  # instead of settle's drop, which would fall back to remote
            set_value(project, rule.path, rule.instead)
            project.values[rule.path] = [rule.instead]
    return problems + _check_protect(project, origin)


def _check_protect(project: Folded, origin: RepositorySource) -> list[str]:
    """Keep `trust.protect` additions only: a `!pattern` would un-protect a path."""
    section = project.get("trust")
    patterns = section.get("protect") if isinstance(section, dict) else None
    if not isinstance(patterns, list):
        return []
    negations = [p for p in patterns if isinstance(p, str) and p.lstrip().startswith("!")]
    if not negations:
        return []
    section["protect"] = [p for p in patterns if p not in negations]
    shown = ", ".join(f"`{p}`" for p in negations)
    return [
        f"{origin.name}: {project.shown(PROTECT)} pattern {shown} ignored: {origin.who} may add protected paths, "
        f"not remove them; {origin.hint}"
    ]
