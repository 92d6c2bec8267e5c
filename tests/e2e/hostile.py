"""The hostile-repository suite's tools: a repository built from a declaration, and
the real server opened on it with a user's realistic environment, in a process that
can reach nothing but this machine (`netaudit.py`), every attempt written down.

- `HostileRepo`: what an attacker publishes, declared (files, symlinks, a `.git`
  folder or a `.git` pointer file, `.sparkls.toml`); `build(where)` makes it, with
  the canaries planted (tests/canaries.py). `BuiltRepo.snapshot()` and
  `changes(since)` say which files changed, the git directory's included wherever
  it is: the check for a write case ("a reply edited `gitcfg`: `.git/config` is
  unchanged").
- `hostile_session(repo, ...)`: `sparkls --stdio` under the network audit, with the
  user's secrets in its environment (`USER_ENV`: an OpenAI key and a GitHub token,
  recognisable values), initialized with the user's own settings (`user_settings`:
  by default none, so both tiers go to OpenAI as they would for most users; the
  audit refuses that too, and records it). It yields a `HostileSession`.
- `HostileSession`: `settled()` waits for the tiers' `sparkls/status` (the server has
  read every setting and warmed, or failed to); `left_the_machine()` the attempts to
  reach a host other than this machine and the user's own (`USER_HOSTS`);
  `told(...)` the messages naming given words; `task(...)` runs a deep task.

A write case (a reply editing through a symlink into `.git`, creating
`.vscode/tasks.json`) and a secret case (a secret-shaped value in a file of the
repository) are a `HostileRepo` and a few lines: see tests/e2e/test_hostile_repo.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import stat
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests import canaries
from tests.e2e import netaudit
from tests.e2e.editor import capabilities, make_editor_client
from tests.e2e.testbound import end_session

CHECKOUT = Path(__file__).resolve().parents[2]  # where `tests` is importable from
PROJECT_FILE = ".sparkls.toml"
# The user's secrets, in the server's environment: recognisable, so that any place
# they turn up (a header, a body, an address) is found by a plain search.
USER_ENV = {
    "OPENAI_API_KEY": "sk-proj-USERKEY0hostile0suite0not0a0real0key0000",
    "GITHUB_TOKEN": "ghp_USERTOKEN0hostile0suite0not0real000",
}
# Where the user's own settings send requests when they set nothing: OpenAI, over TLS.
USER_HOSTS = frozenset({("api.openai.com", 443)})
SETTLE_SECONDS = 60  # a bound on waiting for a status, not a timing
WARM_UP_BROKE = "warming the fast tier failed"  # the editor's log, when the warm-up task raised


# -- the repository ------------------------------------------------------------------


@dataclass(frozen=True)
class HostileRepo:
    """A repository as an attacker would publish it.

    `files`: path -> text. `symlinks`: path -> target, as `ln -s target path` makes
    it (relative to the link's folder, as git stores links); `{git}` in a target is
    the git directory's absolute path. `git`: "dir" (a `.git` folder), "pointer" (a
    `.git` file, `gitdir: <path>`, naming a git directory beside the repository, as
    worktrees and submodules have) or None. `settings`: the text of `.sparkls.toml`."""

    files: Mapping[str, str] = field(default_factory=dict)
    symlinks: Mapping[str, str] = field(default_factory=dict)
    git: str | None = "dir"
    settings: str | None = None

    def build(self, where: Path) -> BuiltRepo:
        root = where / "repo"
        root.mkdir(parents=True)
        git_dir = None
        if self.git == "dir":
            git_dir = root / ".git"
        elif self.git == "pointer":
            git_dir = where / "repo.git"
            (root / ".git").write_text(f"gitdir: {git_dir}\n")
        elif self.git is not None:
            raise ValueError(f"git must be 'dir', 'pointer' or None, not {self.git!r}")
        if git_dir is not None:
            _git_dir(git_dir)
        for path, text in self.files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        if self.settings is not None:
            (root / PROJECT_FILE).write_text(self.settings, encoding="utf-8")
        for path, target in self.symlinks.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target.replace("{git}", str(git_dir)), root / path)
        canaries.plant(root)
        return BuiltRepo(where, root, git_dir)


def _git_dir(git_dir: Path) -> None:
    """The files of a fresh `git init` that matter here: what git reads and runs."""
    (git_dir / "hooks").mkdir(parents=True)
    (git_dir / "refs" / "heads").mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n")
    (git_dir / "description").write_text("a hostile repository\n")


@dataclass(frozen=True)
class BuiltRepo:
    where: Path  # the test's folder: the repository, the git directory, the audit record
    root: Path
    git_dir: Path | None

    def uri(self, path: str) -> str:
        return (self.root / path).as_uri()

    def snapshot(self) -> dict[str, tuple[str, ...]]:
        """Every entry of the repository and of its git directory (wherever it is):
        kind, mode and content hash, or a link's target. Links are not followed."""
        found: dict[str, tuple[str, ...]] = {}
        tops = [("", self.root)] + ([("git:", self.git_dir)] if self.git_dir and not _inside(self.git_dir, self.root) else [])
        for prefix, top in tops:
            for folder, dirs, files in os.walk(top):
                for name in dirs + files:
                    path = Path(folder) / name
                    info = os.lstat(path)
                    key = prefix + path.relative_to(top).as_posix()
                    if stat.S_ISLNK(info.st_mode):
                        found[key] = ("link", os.readlink(path))
                    elif stat.S_ISDIR(info.st_mode):
                        found[key] = ("dir", oct(stat.S_IMODE(info.st_mode)))
                    else:
                        digest = hashlib.sha256(path.read_bytes()).hexdigest()
                        found[key] = ("file", oct(stat.S_IMODE(info.st_mode)), digest)
        return found

    def changes(self, since: dict[str, tuple[str, ...]]) -> list[str]:
        """The entries added, removed or changed since the snapshot `since`."""
        now = self.snapshot()
        return sorted(key for key in since.keys() | now.keys() if since.get(key) != now.get(key))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


# -- the session ---------------------------------------------------------------------


def _normal(text: str) -> str:
    """Text as a key is compared in any spelling: lower case, no `_`, `-`, space or backquote."""
    return re.sub(r"[_\-\s`'\"]", "", text.lower())


@dataclass
class HostileSession:
    client: LanguageClient
    repo: BuiltRepo
    record: Path  # the network audit's record
    env: dict[str, str]
    pulled: asyncio.Event = field(default_factory=asyncio.Event)  # the server asked for the editor's settings

    def attempts(self) -> list[netaudit.Attempt]:
        return netaudit.read(self.record)

    def left_the_machine(self, trusted: frozenset[tuple[str, int]] = USER_HOSTS) -> list[netaudit.Attempt]:
        """Attempts to reach a host that is neither this machine nor one of `trusted` (host, port)."""
        return [a for a in self.attempts() if not a.allowed and (a.host.lower(), a.port) not in trusted]

    def secrets_in_attempts(self) -> list[netaudit.Attempt]:
        """Attempts whose address holds one of the user's secrets."""
        return [a for a in self.attempts() if any(value in f"{a.host}:{a.port}" for value in USER_ENV.values())]

    def told(self, *words: str) -> list[str]:
        """The messages shown to the user (`window/showMessage`) naming each of `words`
        in any spelling (`base_url`, `baseUrl`, `BASE-URL` are one word here)."""
        wanted = [_normal(word) for word in words]
        return [m.message for m in self.client.messages if all(w in _normal(m.message) for w in wanted)]

    def statuses(self) -> dict[str, dict[str, Any]]:
        """The latest `sparkls/status` of each tier."""
        return self.client.editor.statuses[-1]["tiers"] if self.client.editor.statuses else {}

    def logged(self, *words: str) -> list[str]:
        """The lines of the editor's log (`window/logMessage`) holding each of `words`."""
        return [m.message for m in self.client.log_messages if all(w in m.message for w in words)]

    async def settled(self) -> dict[str, dict[str, Any]]:
        """Wait until the server has read every setting and the fast tier has warmed or
        failed to (or its warm-up broke, which the editor's log says), and the deep tier
        has said where it goes: by their `sparkls/status`; and, from an editor that
        answers `workspace/configuration`, until the server has asked for its settings."""

        def done() -> bool:
            tiers = self.statuses()
            warmed = tiers.get("fast", {}).get("state") not in (None, "idle", "connecting")
            return "deep" in tiers and (warmed or bool(self.logged(WARM_UP_BROKE)))

        protocol = self.client.protocol
        workspace = self.client.capabilities.workspace if self.client.capabilities else None
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                while not done():
                    # Registered at once (no task to start first), so nothing arrives unseen; the
                    # one not met is left to be replaced (a cancelled one would break the client).
                    waits = [protocol.wait_for_notification_async(m) for m in ("sparkls/status", types.WINDOW_LOG_MESSAGE)]
                    for wait in waits:  # one left at the server's exit fails then: nobody's error
                        wait.add_done_callback(lambda f: f.cancelled() or f.exception())
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if workspace and workspace.configuration:
                    await self.pulled.wait()  # its answer is read before any later message of ours
        except TimeoutError:
            raise AssertionError(f"the tiers never settled: {self.client.editor.statuses}") from None
        return self.statuses()

    def open(self, path: str, language_id: str = "python") -> str:
        """Open the repository's `path` in the editor (once); its URI."""
        uri = self.repo.uri(path)
        if uri not in self.client.editor.buffers:
            self.client.editor.open(uri, (self.repo.root / path).read_text(encoding="utf-8"), language_id)
        return uri

    async def task(self, instruction: str, paths: list[str]) -> dict[str, Any]:
        """`sparkls.task` on `paths` (opened first), as the user runs it."""
        uris = [self.open(path) for path in paths]
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="sparkls.task", arguments=[{"instruction": instruction, "uris": uris}])
        )


def emulated(emulator: Any, url: str | None = None) -> dict[str, Any]:
    """User settings putting both tiers on the emulator (or `url`, a recording endpoint
    in front of it) with its key: for write and secret cases, where the model's reply
    matters and the settings do not."""
    tier = {"baseUrl": url or emulator.url, "apiKey": emulator.api_key}
    return {"fast": dict(tier), "deep": {**tier, "transport": "http"}}


def server_env(record: Path, env: Mapping[str, str | None]) -> dict[str, str]:
    """The server's environment: the test run's, without any key of the developer's,
    with `env` (None unsets a variable) and the audit's record."""
    out = {k: v for k, v in os.environ.items() if k not in USER_ENV and not k.endswith("_API_KEY")}
    for name, value in env.items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value
    out[netaudit.ENV] = str(record)
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))
    return out


@contextlib.asynccontextmanager
async def hostile_session(
    repo: BuiltRepo,
    *,
    user_settings: dict[str, Any] | None = None,
    env: Mapping[str, str | None] = USER_ENV,
    args: tuple[str, ...] = (),
    umask: int | None = None,
    editor: str = "visual_studio_code",
) -> AsyncIterator[HostileSession]:
    """The real server on `repo` under the network audit (see the module). `env` is
    the user's environment on top of the test run's; `args` more `sparkls` arguments
    (`--log-file`); `umask` the server's. The editor runs in the repository's root,
    as editors started from a terminal there do (a relative path resolves there).
    After the block the server has exited: everything it said is in `client.messages`
    (count what the user was told there, once no more can come)."""
    record = repo.where / "netaudit.jsonl"
    client = make_editor_client()
    session = HostileSession(client, repo, record, dict(env))
    answer = client.get_configuration

    def pulled(**item: Any) -> Any:  # what pytest-lsp answers `workspace/configuration` with
        session.pulled.set()
        return answer(**item)

    client.get_configuration = pulled  # type: ignore[method-assign]
    extra = {} if umask is None else {"umask": umask}
    await client.start_io(
        sys.executable, "-m", "tests.e2e.netaudit_server", "--stdio", *args,
        env=server_env(record, env), cwd=str(repo.root), **extra,
    )  # fmt: skip
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(editor),
                initialization_options={**(user_settings or {}), "notifications": ["status", "nextEdit"]},
                root_uri=repo.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=repo.root.as_uri(), name="repo")],
            )
        )
        client.editor.encoding = result.capabilities.position_encoding or "utf-16"
        yield session
    finally:
        await end_session(client)
        await client.stop()
