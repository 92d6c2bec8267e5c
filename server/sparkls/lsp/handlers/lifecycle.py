"""initialize / initialized / configuration / shutdown.

Settings come from `.sparkls.toml`, `initializationOptions` and the `sparkls` section
of `workspace/configuration` (config/load.py merges them). Problems are shown to the user
and the defaults kept. What a repository can write is checked once read
(config/project.py): the project file, and eglot's workspace configuration. The fast tier's connection opens right after `initialized`,
in the background. The first `workspace/configuration` pull is sent at `initialized`
too; requests wait for its answer, a few seconds at most (lsp/sessions.py).

`initialize` answers with what it must (capabilities, the position encoding) and
nothing more: settings are read at `initialized`, and what the requests need is loaded
then, so the editor's wait for the server's start is the floor's (LSP itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from sparkls.documents.positions import normalize_encoding
from sparkls.lsp import looplag
from sparkls.lsp.clients import EGLOT, resolves_across_servers
from sparkls.lsp.handlers import inline
from sparkls.lsp.notifications import asked_for
from sparkls.lsp.server import SparkServer


def _root(params: types.InitializeParams) -> Path | None:
    uri = params.workspace_folders[0].uri if params.workspace_folders else params.root_uri
    if uri:
        path = to_fs_path(uri)
        return Path(path) if path else None
    return Path(params.root_path) if params.root_path else None


def _show_problems(ls: SparkServer, problems: list[str]) -> None:
    if problems:
        ls.notify_user("invalid settings: " + "; ".join(problems), types.MessageType.Warning)


WATCHED_GLOBS = ["**/*.{py,pyi,js,jsx,mjs,cjs,ts,tsx,mts,cts,go,rs}", "**/.gitignore"]
WATCH_REGISTRATION = types.RegistrationParams(
    registrations=[
        types.Registration(
            id="sparkls-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED_GLOBS]
            ),
        )
    ]
)


def _supports_watch_registration(ls: SparkServer) -> bool:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    return bool(watched and watched.dynamic_registration)


def _supports_configuration(ls: SparkServer) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace and workspace.configuration)


def _take_workspace_section(ls: SparkServer, section: Any, said: set[str]) -> list[str]:
    """Keep the editor's `sparkls` section. Eglot's comes from a variable a repository's
    `.dir-locals.el` sets without asking: it is checked as a project file is, and each
    refusal is said once (eglot pushes it, and it is pulled, more than once)."""
    if isinstance(section, dict) and ls.client_name == EGLOT:
        from sparkls.config.project import EGLOT_WORKSPACE, check_repository_settings

        section, refused = check_repository_settings(section, EGLOT_WORKSPACE)
        ls.settings_sources["workspace"] = section
        new = [problem for problem in refused if problem not in said]
        said.update(new)
        return new
    ls.settings_sources["workspace"] = section if isinstance(section, dict) else None
    return []


async def _pull_configuration(ls: SparkServer, said: set[str]) -> None:
    result = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section="sparkls")])
    )
    refused = _take_workspace_section(ls, result[0] if result else None, said)
    _show_problems(ls, refused + ls.reload_settings())


async def _first_pull(ls: SparkServer, said: set[str]) -> None:
    """The pull at `initialized`: whatever comes of it, requests stop waiting for it."""
    try:
        await _pull_configuration(ls, said)
    except Exception as exc:  # a client that fails the request keeps our settings
        ls.log(f"workspace/configuration failed: {exc}", types.MessageType.Warning)
    finally:
        ls.first_settings.pulled()
    ls.status_board.warn_if_split()  # the settings are complete now


def register(server: SparkServer) -> None:
    refused_said: set[str] = set()  # the editor's refused settings, each said once per session

    @server.feature(types.INITIALIZE)
    def initialize(ls: SparkServer, params: types.InitializeParams) -> None:
        ls.documents.encoding = normalize_encoding(ls.workspace.position_encoding)
        ls.root = _root(params)
        ls.client_name = params.client_info.name if params.client_info is not None else None
        ls.set_trace(params.trace)  # which log records reach the editor's log
        # `notifications` is the client's, not a setting: taken out first.
        ls.asked_notifications, options, problems = asked_for(params.initialization_options, params.capabilities.experimental)
        ls.pending_problems.extend(problems)
        ls.settings_sources["initialization"] = options if isinstance(options, dict) else None
        if options is not None and not isinstance(options, dict):
            ls.pending_problems.append("initializationOptions must be an object; ignored")
        inline.register_for_client(ls)  # a completion item for clients without inline completion
        if resolves_across_servers(ls.client_name):  # lsp-mode 8 (lsp/clients.py): actions as commands
            ls.code_action_options.resolve_provider = False

    @server.feature(types.INITIALIZED)
    async def initialized(ls: SparkServer, params: types.InitializedParams) -> None:
        from sparkls.config import read_project_file

        project, problems = read_project_file(ls.root)
        ls.settings_sources["project"] = project
        problems = ls.pending_problems + problems + ls.reload_settings(renew=True)  # the root is known now
        _show_problems(ls, problems)
        ls.pending_problems = []
        pulls = _supports_configuration(ls)
        if pulls:  # asked first: nothing that fails below can keep it from being asked
            ls.first_settings.pulling()
            ls.spawn(_first_pull(ls, refused_said), "reading the editor's settings")
        # Warm now with what we know; a pulled configuration that changes the fast tier
        # replaces the session, and the new one warms itself.
        ls.warm_up()
        ls.preload.start(ls.spawn)
        looplag.started()  # the test suite's loop-lag monitor counts start-up apart
        if _supports_watch_registration(ls):
            try:
                await ls.client_register_capability_async(WATCH_REGISTRATION)
            except Exception as exc:  # the index still follows saves and edits
                ls.log(f"watching files failed: {exc}", types.MessageType.Warning)
        if not pulls:
            ls.status_board.warn_if_split()  # the settings are complete now

    @server.feature(types.SET_TRACE)
    def set_trace(ls: SparkServer, params: types.SetTraceParams) -> None:
        ls.set_trace(params.value)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: SparkServer, params: types.DidChangeConfigurationParams) -> None:
        pushed = params.settings.get("sparkls") if isinstance(params.settings, dict) else None
        if isinstance(pushed, dict):
            refused = _take_workspace_section(ls, pushed, refused_said)
            _show_problems(ls, refused + ls.reload_settings())
        elif _supports_configuration(ls):
            await _pull_configuration(ls, refused_said)
        ls.status_board.warn_if_split()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: SparkServer, params: None) -> None:
        await ls.shut_down()
