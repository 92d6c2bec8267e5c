"""A replay of Helix's LSP client, driving the real `sparkls` process over stdio.

Helix is not packaged for Debian, so the tests replay what it does, taken from its
source (github.com/helix-editor/helix, read at 079a789e, 25.07.1):

- helix-lsp/src/client.rs `Client::start`, `initialize`: the server is spawned with
  stdio piped and its root as working directory; `initialize` carries the process id,
  `rootPath`, `rootUri`, one workspace folder named after the root's last segment,
  the `config` table of `[language-server.NAME]` as `initializationOptions`, Helix's
  capability set (below) with `general.positionEncodings` utf-8, utf-32, utf-16 in that
  order, and `clientInfo` {"name": "helix", "version": VERSION_AND_GIT_HASH}.
  `executeCommand` always sends `arguments` (`command.arguments.unwrap_or_default()`:
  `[]` when the command has none). `changeset_to_changes`: one didChange per
  transaction, its changes in document order, each in the coordinates of the text the
  previous ones produced.
- helix-lsp/src/lib.rs `start_client`: `initialized` right after the answer; then
  (helix-term/src/application.rs, the injected `Initialized`) `didChangeConfiguration`
  with the same `config` as settings, then didOpen of the open documents (version 0).
- helix-lsp/src/transport.rs: each line of the server's stderr is logged at ERROR
  (`{name} err <- {line:?}`).
- helix-term/src/application.rs `handle_language_server_message`: server requests and
  notifications are handled on the editor's own loop. An unknown notification is logged
  at INFO ("Ignoring Unhandled notification from Language Server"); an unknown request
  at ERROR, answered MethodNotFound. `workDoneProgress/create` is answered null,
  `workspace/configuration` with the `config` table walked by the section's dotted
  parts (null when missing), `client/registerCapability` null, `applyEdit` applied
  (a versioned edit for another version fails: "document has changed"),
  `showDocument` opens the file.
- helix-view/src/handlers/lsp.rs `Editor::apply_text_edits` (for each text document
  edit of `apply_workspace_edit`, in order, not transactional): a file not open is
  loaded (`Editor::open` with `Action::Load`: a buffer with no view, didOpen to its
  language's servers at version 0, "failed to open document" and "file not found" if
  it cannot be read), a given version other than the document's fails ("document has
  changed"), then the edits are applied as one transaction (didChange) and the buffer
  is left modified: nothing is written until `:write` / `:write-all`.
- helix-view/src/action.rs `Action::lsp`: picking a code action that lacks its
  `edit` or its `command` resolves it with `helix_lsp::block_on` (the editor's loop is
  blocked meanwhile, so the server's requests wait: a progress token asked for during a
  resolve is granted only after it), applies the edit, then runs the command
  (helix-view/src/handlers/lsp.rs `execute_lsp_command`, spawned; an error is logged at ERROR).
- helix-term/src/commands/lsp.rs `code_action` / `code_actions_for_range`: `space a`
  sends each server the primary selection (a cursor is one character wide) and every
  diagnostic of the document, from whichever server, that overlaps it, in the
  receiving server's encoding, with `triggerKind` 1; disabled actions are dropped and
  the menu sorted by kind (action.rs `lsp_code_action_priority`).
- helix-term/src/commands/typed.rs `lsp_workspace_command`: the picker's commands
  carry no arguments.
- helix-term/src/handlers/completion/request.rs: `textDocument/completion` with a
  context (1 invoked, 2 trigger character, 3 re-asked for an incomplete list); Helix
  never asks for `textDocument/inlineCompletion`.

Several servers for one language (`language-servers = ["ruff", "sparkls"]`): one
client each (`HelixClient.beside`), the documents shared. As Helix does:
helix-view/src/handlers/lsp.rs `DocumentDidChange` sends every change to every server
of the document, each in its own position encoding and sync kind, whichever server's
edit it was; commands/lsp.rs `code_actions_for_range` asks each server that offers
code actions, with every overlapping diagnostic of the document converted to that
server's encoding, and the menu merges them; action.rs `Action::lsp` resolves a picked
action with the server that offered it, and runs its command there
(`execute_lsp_command(command, server_id)`); helix-term/src/handlers/diagnostics.rs
pulls `textDocument/diagnostic` from the servers that declare it (ruff does, since
Helix declares pull support), on open and after changes (`pull_diagnostics`).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.editors.helix_values import LANGUAGE_IDS, VERSION, WIDTH, capabilities, priority, traverse

@dataclass
class Doc:
    path: Path
    text: str
    language_id: str
    version: int = 0
    diagnostics: list[dict[str, Any]] = field(default_factory=list)  # other servers': char offsets, `_server`
    in_view: bool = True  # False when loaded by a workspace edit (`Action::Load`)
    saved_version: int = 0  # the version last read or written: `[+]` when it differs

    @property
    def modified(self) -> bool:
        return self.version != self.saved_version

    @property
    def uri(self) -> str:
        return self.path.as_uri()


class HelixClient:
    """One Helix session with one language server: the editor's side, as Helix does it."""

    def __init__(
        self, root: Path, command: str, config: Any, env: dict[str, str], *, name: str = "sparkls", args: tuple[str, ...] = (),
    ) -> None:
        self.root, self.command, self.config, self.env, self.name, self.args = root, command, config, env, name, args
        self.docs: dict[str, Doc] = {}
        self.log: list[tuple[str, str]] = []  # Helix's log: (level, line)
        self.stderr: list[str] = []
        self.messages: list[tuple[int, str]] = []  # window/showMessage: (type, message)
        # Server requests as received: method, params, while_blocked (received during a
        # resolve), answered, answers_before_answer (server answers read meanwhile).
        self.calls: list[dict[str, Any]] = []
        self.shown: list[dict[str, Any]] = []  # showDocument: uri, text, folder mode
        self.notifications: list[tuple[str, Any]] = []
        # application.rs: a granted token starts the server's spinner, which stops only
        # when an `end` leaves the server no token (lib.rs `LspProgressMap`).
        self.progress: set[Any] = set()
        self.capabilities: dict[str, Any] = {}
        self.timings: dict[str, float] = {}
        self.encoding = "utf-16"
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()  # server calls, in order
        self._idle = asyncio.Event()  # the editor's loop is free (not blocked in a resolve)
        self._idle.set()
        self._noted = asyncio.Event()  # a notification arrived
        self._events = 0  # answers from the server seen, to order late grants
        self._tasks: list[asyncio.Task[Any]] = []
        self._spawned: list[asyncio.Task[Any]] = []
        self.peers: list[HelixClient] = []  # the document's other servers (`beside`)

    def beside(self, *others: HelixClient) -> None:
        """Run `others` as servers of the same documents (started, before any is opened)."""
        group = [self, *others]
        for client in group:
            client.peers = [c for c in group if c is not client]

    @property
    def servers(self) -> list[HelixClient]:
        return [self, *self.peers]

    # -- process and framing ---------------------------------------------------------

    async def start(self) -> dict[str, Any]:
        """Spawn the server, initialize it as Helix does; returns the InitializeResult."""
        started = time.perf_counter()
        program = shutil.which(self.command, path=self.env.get("PATH")) or self.command
        self.proc = await asyncio.create_subprocess_exec(
            program, *self.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=self.root, env=self.env,
        )
        self._tasks = [asyncio.ensure_future(f) for f in (self._read(), self._read_stderr(), self._editor_loop())]
        root_uri = self.root.as_uri()
        result = await self.request("initialize", {
            "processId": os.getpid(), "workspaceFolders": [{"uri": root_uri, "name": self.root.name}],
            "rootPath": str(self.root), "rootUri": root_uri, "initializationOptions": self.config,
            "capabilities": capabilities(), "clientInfo": {"name": "helix", "version": VERSION},
        })
        self.timings["initialize_ms"] = (time.perf_counter() - started) * 1000
        self.capabilities = result["capabilities"]
        self.encoding = self.capabilities.get("positionEncoding", "utf-16")
        self.notify("initialized", {})
        if self.config is not None:
            self.notify("workspace/didChangeConfiguration", {"settings": self.config})
        self._started = started
        return result

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any) -> asyncio.Future[Any]:
        """Send a request at once (its order is kept); the future is its result."""
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        self._send({"id": self._next_id, "method": method, "params": params})
        return future

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            length = None
            while (line := await self.proc.stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                return
            message = json.loads(await self.proc.stdout.readexactly(length))
            if "method" in message:
                call = {"method": message["method"], "params": message.get("params"), "id": message.get("id"),
                        "while_blocked": not self._idle.is_set(), "answered": False, "_seen": self._events}
                if "id" in message:
                    self.calls.append(call)
                self._inbox.put_nowait(call)
            elif (future := self._pending.pop(message.get("id"), None)) is not None and not future.done():
                self._events += 1
                if "error" in message:
                    future.set_exception(ResponseError(message["error"]))
                else:
                    future.set_result(message.get("result"))

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            text = line.decode("utf-8", "replace")
            self.stderr.append(text)
            self.log.append(("ERROR", f"{self.name} err <- {text!r}"))

    async def stop(self) -> int:
        """Shutdown and exit, as `:quit` does; the server's exit status."""
        for task in self._spawned:
            await task
        try:
            await asyncio.wait_for(self.request("shutdown", None), 20)
        finally:
            self.notify("exit", None)
            code = await asyncio.wait_for(self.proc.wait(), 20)
            await asyncio.wait_for(asyncio.gather(*self._tasks[:2]), 20)  # stdout and stderr read to the end
            self._tasks[2].cancel()
        return code

    # -- the editor's loop: what Helix does with the server's requests ----------------

    async def _editor_loop(self) -> None:
        while True:
            call = await self._inbox.get()
            await self._idle.wait()  # Helix's loop is busy in block_on until the resolve returns
            if call["id"] is None:
                self._notification(call["method"], call["params"])
                continue
            try:
                self._send({"id": call["id"], "result": self._method_call(call["method"], call["params"])})
            except ResponseError as exc:
                self._send({"id": call["id"], "error": exc.error})
            call.update(answered=True, answers_before_answer=self._events - call.pop("_seen"))

    def _notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))
        self._noted.set()
        if method == "window/showMessage":
            self.messages.append((params["type"], params["message"]))
        elif method == "$/progress":
            kind = params["value"].get("kind")
            if kind == "end":
                self.progress.discard(params["token"])
            elif kind == "begin":
                self.progress.add(params["token"])
        elif method == "window/logMessage":
            self.log.append(("INFO", f"window/logMessage: {params!r}"))
        elif method == "textDocument/publishDiagnostics":
            doc = self.docs.get(params["uri"])
            if doc is not None and params.get("version") in (None, doc.version):
                doc.diagnostics = [d for d in doc.diagnostics if d["_server"] != self.name]
                for diagnostic in params["diagnostics"]:
                    self.add_diagnostic(doc, diagnostic, self.encoding, server=self.name)
        else:
            self.log.append(("INFO", "Ignoring Unhandled notification from Language Server"))

    async def log_message(self, prefix: str) -> str:
        """The first window/logMessage starting with `prefix` (in Helix's log), awaited."""
        while True:
            for method, params in self.notifications:
                if method == "window/logMessage" and params["message"].startswith(prefix):
                    return params["message"]
            self._noted.clear()
            await self._noted.wait()

    def _method_call(self, method: str, params: Any) -> Any:
        if method == "window/workDoneProgress/create":
            self.progress.add(params["token"])
            return None
        if method == "workspace/applyEdit":
            reason = self.apply_workspace_edit(params["edit"])
            return {"applied": True} if reason is None else {"applied": False, "failureReason": reason, "failedChange": 0}
        if method == "workspace/configuration":
            return [self._section(item.get("section")) for item in params["items"]]
        if method == "workspace/workspaceFolders":
            return [{"uri": self.root.as_uri(), "name": self.root.name}]
        if method in ("client/registerCapability", "client/unregisterCapability", "workspace/diagnostic/refresh"):
            return None
        if method == "window/showDocument":
            return self._show_document(params)
        if method == "window/showMessageRequest":
            self.messages.append((params["type"], params["message"]))
            return None  # dismissed
        self.log.append(("ERROR", f"Language Server: Method {method} not found"))
        raise ResponseError({"code": -32601, "message": f"Method not found: {method}"})

    def _section(self, section: str | None) -> Any:
        config = self.config
        for part in (section or "").split(".") if section else []:
            if not isinstance(config, dict) or part not in config:
                return None
            config = config[part]
        return config

    def _show_document(self, params: dict[str, Any]) -> dict[str, bool]:
        from urllib.parse import unquote, urlsplit

        path = Path(unquote(urlsplit(params["uri"]).path))
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.log.append(("ERROR", f"failed to open document: {path}: {exc}"))
            return {"success": False}
        self.shown.append({"uri": params["uri"], "path": path, "text": text,
                           "folder_mode": path.parent.stat().st_mode & 0o777})
        return {"success": True}

    # -- documents ---------------------------------------------------------------------

    def open(self, path: Path, language_id: str = "python", *, in_view: bool = True) -> Doc:
        """Open `path` on every server of the session (its document shared)."""
        doc = Doc(path, path.read_text(encoding="utf-8"), language_id, in_view=in_view)
        for server in self.servers:
            server.docs[doc.uri] = doc
            server.notify("textDocument/didOpen", {"textDocument": {
                "uri": doc.uri, "languageId": language_id, "version": doc.version, "text": doc.text}})
        return doc

    def position(self, doc: Doc, offset: int, text: str | None = None) -> dict[str, int]:
        """The LSP position of char `offset` in `text` (the document's), in this server's encoding."""
        text = doc.text if text is None else text
        line = text.count("\n", 0, offset)
        start = text.rfind("\n", 0, offset) + 1
        return {"line": line, "character": sum(WIDTH[self.encoding](ch) for ch in text[start:offset])}

    def offset(self, doc: Doc, pos: dict[str, int], encoding: str | None = None) -> int:
        lines = doc.text.split("\n")
        if pos["line"] >= len(lines):
            return len(doc.text)
        start = sum(len(line) + 1 for line in lines[: pos["line"]])
        width, at = WIDTH[encoding or self.encoding], 0
        for i, ch in enumerate(lines[pos["line"]]):
            if at >= pos["character"]:
                return start + i
            at += width(ch)
        return start + len(lines[pos["line"]])

    def transact(self, doc: Doc, changes: list[tuple[int, int, str]]) -> None:
        """Apply one transaction (char offsets in the current text, non-overlapping) and
        send its didChange to every server of the document, as Helix does: changes in
        document order, each positioned (in that server's encoding) in the text the
        earlier ones made (client.rs `changeset_to_changes`)."""
        servers = [c for c in self.servers if doc.uri in c.docs]
        events: dict[int, list[dict[str, Any]]] = {id(c): [] for c in servers}
        shift = 0
        for start, end, new in sorted(changes):
            for server in servers:
                begin = server.position(doc, start + shift)
                finish = traverse(begin, doc.text[start + shift : end + shift], server.encoding)
                events[id(server)].append({"range": {"start": begin, "end": finish}, "text": new})
            doc.text = doc.text[: start + shift] + new + doc.text[end + shift :]
            shift += len(new) - (end - start)
        doc.version += 1
        for server in servers:
            sync = server.capabilities.get("textDocumentSync")
            kind = sync.get("change") if isinstance(sync, dict) else sync
            sent = [{"text": doc.text}] if kind == 1 else events[id(server)]
            server.notify("textDocument/didChange", {
                "textDocument": {"uri": doc.uri, "version": doc.version}, "contentChanges": sent})

    def type(self, doc: Doc, offset: int, text: str) -> None:
        """Type `text` at `offset` in insert mode: one transaction per key."""
        for i, ch in enumerate(text):
            self.transact(doc, [(offset + i, offset + i, ch)])

    def save(self, doc: Doc) -> None:
        """`:write`: the file, then didSave (with the text if the server asks for it)."""
        doc.path.write_text(doc.text, encoding="utf-8")
        doc.saved_version = doc.version
        sync = self.capabilities.get("textDocumentSync")
        save = sync.get("save") if isinstance(sync, dict) else None
        if save is False or (isinstance(sync, dict) and save is None):
            return
        params: dict[str, Any] = {"textDocument": {"uri": doc.uri}}
        if isinstance(save, dict) and save.get("includeText"):
            params["text"] = doc.text
        self.notify("textDocument/didSave", params)

    def apply_workspace_edit(self, edit: dict[str, Any]) -> str | None:
        """handlers/lsp.rs `apply_workspace_edit`: None when applied, else the failure."""
        groups = [(c["textDocument"]["uri"], c["textDocument"].get("version"), c["edits"])
                  for c in edit.get("documentChanges") or [] if "textDocument" in c]
        groups += [(uri, None, edits) for uri, edits in (edit.get("changes") or {}).items()] if not groups else []
        for uri, version, edits in groups:
            doc = self.docs.get(uri) or self._load(uri)
            if doc is None:
                return "file not found"
            if version is not None and version != doc.version:
                self.log.append(("ERROR", f"outdated workspace edit for {doc.path}"))
                return "document has changed"
            self.transact(doc, [(self.offset(doc, e["range"]["start"]), self.offset(doc, e["range"]["end"]), e["newText"])
                                for e in edits])
        return None

    def _load(self, uri: str) -> Doc | None:
        """`Editor::open(path, Action::Load)` for a file a workspace edit names: None if unreadable."""
        from urllib.parse import unquote, urlsplit

        path = Path(unquote(urlsplit(uri).path))
        try:
            return self.open(path, LANGUAGE_IDS.get(path.suffix, ""), in_view=False)
        except OSError as exc:
            self.log.append(("ERROR", f"failed to open document: {path}: {exc}"))
            return None

    # -- the user's commands ---------------------------------------------------------------

    def add_diagnostic(self, doc: Doc, diagnostic: dict[str, Any], encoding: str = "utf-16", *, server: str = "pylsp") -> None:
        """A diagnostic another server (pylsp, in `encoding`) published for `doc`."""
        rng = diagnostic["range"]
        doc.diagnostics.append({**diagnostic, "_from": self.offset(doc, rng["start"], encoding),
                                "_to": self.offset(doc, rng["end"], encoding), "_server": server})

    async def pull_diagnostics(self, doc: Doc) -> None:
        """diagnostics.rs: `textDocument/diagnostic` of each server that declares it; its
        answer replaces that server's diagnostics of the document."""
        for server in self.servers:
            if doc.uri not in server.docs or not server.capabilities.get("diagnosticProvider"):
                continue
            version = doc.version
            report = await server.request("textDocument/diagnostic", {"textDocument": {"uri": doc.uri}})
            if doc.version != version:
                continue  # an answer for an older text: Helix drops it
            doc.diagnostics = [d for d in doc.diagnostics if d["_server"] != server.name]
            for diagnostic in report.get("items") or []:
                server.add_diagnostic(doc, diagnostic, server.encoding, server=server.name)

    async def code_actions(self, doc: Doc, anchor: int, head: int | None = None) -> list[dict[str, Any]]:
        """`space a` with the selection anchor..head (a cursor when head is None): the
        menu, gathered from every server of the document (each action keeps its server)."""
        start, end = (anchor, anchor + 1) if head is None else (min(anchor, head), max(anchor, head))
        overlapping = [d for d in doc.diagnostics if start == d["_from"] or (end > d["_from"] and d["_to"] > start)]
        sent = time.perf_counter()
        menu: list[dict[str, Any]] = []
        for server in self.servers:
            if doc.uri not in server.docs or not server.capabilities.get("codeActionProvider"):
                continue
            diagnostics = [{**{k: v for k, v in d.items() if not k.startswith("_")},
                            "range": {"start": server.position(doc, d["_from"]), "end": server.position(doc, d["_to"])}}
                           for d in overlapping]
            actions = await server.request("textDocument/codeAction", {
                "textDocument": {"uri": doc.uri},
                "range": {"start": server.position(doc, start), "end": server.position(doc, min(end, len(doc.text)))},
                "context": {"diagnostics": diagnostics, "triggerKind": 1},
            })
            menu += [{**a, "_server": server} for a in actions or [] if "disabled" not in a]
        self.timings.setdefault("first_code_action_ms", (time.perf_counter() - self._started) * 1000)
        self.timings.setdefault("first_code_action_answer_ms", (time.perf_counter() - sent) * 1000)
        return sorted(menu, key=lambda a: -priority(a))

    async def pick(self, action: dict[str, Any]) -> dict[str, Any]:
        """Validate a menu entry (action.rs `Action::lsp`): resolve while blocking, apply,
        run; with the server that offered it."""
        server = action.get("_server", self)
        action = {k: v for k, v in action.items() if k != "_server"}
        if server is not self:
            return await server.pick(action)
        if isinstance(action.get("command"), str):  # a bare Command
            self.execute_command(action)
            return action
        resolved = action
        provider = self.capabilities.get("codeActionProvider")
        if (action.get("edit") is None or action.get("command") is None) and isinstance(provider, dict) \
                and provider.get("resolveProvider"):
            self._idle.clear()  # helix_lsp::block_on: nothing else runs on the editor's loop
            blocked = time.perf_counter()
            try:
                resolved = await asyncio.wait_for(self.request("codeAction/resolve", action), 20)
            except (ResponseError, TimeoutError):
                resolved = action  # `.ok()`: the action as listed
            finally:
                self.timings.setdefault("resolves_ms", []).append((time.perf_counter() - blocked) * 1000)
                if resolved.get("edit") is not None:
                    self.apply_workspace_edit(resolved["edit"])
                if resolved.get("command") is not None:
                    self.execute_command(resolved["command"])
                self._idle.set()
            return resolved
        if action.get("edit") is not None:
            self.apply_workspace_edit(action["edit"])
        if action.get("command") is not None:
            self.execute_command(action["command"])
        return action

    def execute_command(self, command: dict[str, Any]) -> asyncio.Task[Any]:
        """`execute_lsp_command`: spawned; the result is awaited by the returned task."""
        future = self.request("workspace/executeCommand",
                              {"command": command["command"], "arguments": command.get("arguments") or []})

        async def run() -> Any:
            try:
                return await future
            except ResponseError as exc:
                self.log.append(("ERROR", f"Error executing LSP command: {exc}"))
                return exc

        task = asyncio.ensure_future(run())
        self._spawned.append(task)
        return task

    def workspace_command(self, name: str) -> asyncio.Task[Any]:
        """`:lsp-workspace-command NAME` (or picking NAME in its picker): no arguments."""
        return self.execute_command({"title": name, "command": name, "arguments": None})

    async def completion(self, doc: Doc, offset: int, trigger_kind: int = 1) -> Any:
        return await self.request("textDocument/completion", {
            "textDocument": {"uri": doc.uri}, "position": self.position(doc, offset),
            "context": {"triggerKind": trigger_kind}})

    def errors(self) -> list[str]:
        """Helix's log lines at ERROR (a healthy session has none), every server's."""
        return [line for client in self.servers for level, line in client.log if level == "ERROR"]


class ResponseError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error
