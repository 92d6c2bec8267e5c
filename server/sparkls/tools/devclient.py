"""A small LSP client kit for the demo and the benchmarks (not used by the server).

`start_emulator` runs `sparkls emulate` on a free loopback port; `BufferEditor` holds one
buffer, applies `workspace/applyEdit` like an editor (refusing stale versions), sends
`didChange` and keeps the `sparkls/status` notifications (`fast_tier_settled` waits for
the fast tier's connections); `start_session` starts `sparkls --stdio` and initializes
it with capabilities like VS Code's. It prints nothing; callers decide what to show.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from sparkls.documents.positions import LineIndex, Position, normalize_encoding

_LISTENING = re.compile(r"listening on (https?://\S+/v1)")


def start_emulator(*extra: str) -> tuple[subprocess.Popen[str], str]:
    """Start `sparkls emulate --port 0`; returns the process and its API root URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sparkls", "--log-level", "WARNING", "emulate", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = _LISTENING.search(line)
    if not match:
        proc.kill()
        raise RuntimeError(f"the emulator did not start: {line!r}")
    return proc, match.group(1)


class BufferEditor:
    """One open buffer that takes the server's edits as an editor would."""

    def __init__(self, client: LanguageClient, uri: str, text: str, encoding: str = "utf-16") -> None:
        self.client, self.uri, self.text, self.version = client, uri, text, 1
        self.encoding = normalize_encoding(encoding)
        self.previous_text = text
        self.apply_ms: list[float] = []  # the editor's own work per applied edit
        self.statuses: list[Any] = []  # `sparkls/status` notifications
        self.status_changed = asyncio.Event()  # set at each status; cleared by who waits

    def on_status(self, params: Any) -> None:
        self.statuses.append(params)
        self.status_changed.set()

    async def fast_tier_settled(self, *, timeout: float) -> Any | None:
        """The fast tier's last status once it is no longer connecting (`ready`,
        `degraded` or `failing`); None if it still is after `timeout` seconds."""

        def settled() -> Any | None:
            fast = getattr(getattr(self.statuses[-1], "tiers", None), "fast", None) if self.statuses else None
            return fast if getattr(fast, "state", None) in ("ready", "degraded", "failing") else None

        try:
            async with asyncio.timeout(timeout):
                while (status := settled()) is None:
                    self.status_changed.clear()
                    await self.status_changed.wait()
        except TimeoutError:
            return None
        return status

    @property
    def last_diff(self) -> str:
        """Unified diff of the last applied edit (computed on demand: it is slow)."""
        return "".join(
            difflib.unified_diff(
                self.previous_text.splitlines(True), self.text.splitlines(True), "before", "after", n=1
            )
        )

    def open(self) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=self.uri, language_id="python", version=1, text=self.text)
            )
        )

    def apply(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        started = time.perf_counter()
        edits: list[types.TextEdit] = []
        for change in edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == self.uri:
                if change.text_document.version not in (None, self.version):
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason="stale version")
                edits.extend(change.edits)
        edits.extend((edit.changes or {}).get(self.uri, []))
        lines = LineIndex(self.text)
        spans = sorted(
            (
                (
                    lines.offset(Position(e.range.start.line, e.range.start.character), self.encoding),
                    lines.offset(Position(e.range.end.line, e.range.end.character), self.encoding),
                    e,
                )
                for e in edits
            ),
            key=lambda s: s[0],
            reverse=True,
        )
        self.previous_text = self.text
        for start, end, e in spans:
            self.text = self.text[:start] + e.new_text + self.text[end:]
        self.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for *_, e in spans],
            )
        )
        self.apply_ms.append((time.perf_counter() - started) * 1000)
        return types.ApplyWorkspaceEditResult(applied=True)


def editor_capabilities() -> types.ClientCapabilities:
    """What VS Code declares for the features sparkls uses."""
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            configuration=False,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
        ),
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=["quickfix", "refactor.rewrite"])
                ),
                data_support=True,
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]),
            )
        ),
    )


SERVER_COMMAND = [sys.executable, "-m", "sparkls", "--stdio", "--log-level", "WARNING"]


async def start_session(
    root: Path,
    path: Path,
    options: dict[str, Any],
    *,
    on_message: Any = None,
    server_command: list[str] | None = None,
    notifications: dict[str, Any] | None = None,
) -> tuple[LanguageClient, BufferEditor]:
    """Start `sparkls --stdio`, initialize it, and open `path` in a `BufferEditor`;
    `notifications` maps other server notifications (`sparkls/nextEdit`) to handlers."""
    client = LanguageClient("sparkls-devclient", "1")
    editor = BufferEditor(client, path.as_uri(), path.read_text())
    for method, handler in (notifications or {}).items():
        client.feature(method)(lambda params, handler=handler: handler(params))

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.apply(params.edit)

    @client.feature("sparkls/status")
    def status(params: Any) -> None:
        editor.on_status(params)

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show_message(params: types.ShowMessageParams) -> None:
        if on_message is not None:
            on_message(params.message)

    await client.start_io(*(server_command or SERVER_COMMAND))
    # Demo and benchmark workspaces are throwaway folders: keep no index of them in
    # the user's cache unless asked to.
    options = {**options, "context": {"index": False, **options.get("context", {})}, "notifications": ["status", "nextEdit"]}
    result = await client.initialize_async(
        types.InitializeParams(capabilities=editor_capabilities(), root_uri=root.as_uri(), initialization_options=options)
    )
    editor.encoding = normalize_encoding(result.capabilities.position_encoding)
    client.initialized(types.InitializedParams())
    editor.open()
    return client, editor


async def stop_session(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def edit_params(uri: str, line: int, instruction: str, end_line: int | None = None) -> types.ExecuteCommandParams:
    """`sparkls.edit` at a cursor on `line` (or whole lines `line`..`end_line`)."""
    end = line if end_line is None else end_line
    rng = {"start": {"line": line, "character": 0}, "end": {"line": end, "character": 0}}
    return types.ExecuteCommandParams(
        command="sparkls.edit", arguments=[{"uri": uri, "range": rng, "instruction": instruction}]
    )
