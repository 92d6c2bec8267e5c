"""A minimal editor for end-to-end tests: buffers that apply edits like a real client.

It applies `workspace/applyEdit` to its own buffers with its own position arithmetic
(deliberately not sparkls's), refuses a versioned edit for a stale version as VS Code
does, and then sends `didChange` as an editor would. Edits that create files or touch
files that are not open (a multi-file task's) are applied to the disk, all or nothing;
`reject_reason` makes it refuse every edit, as a user who declines would.
"""

from __future__ import annotations

import asyncio
import re

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from tests.e2e import testbound

HOLD = "<hold>"  # Editor.message_answer: the user does not answer showMessageRequest (yet)


def _offset(text: str, pos: types.Position, encoding: str) -> int:
    """As an editor reads an LSP position: lines end at \r\n, \n or \r; `character`
    counts `encoding` units (a lone surrogate is one UTF-16 unit, three UTF-8 bytes)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    if pos.line >= len(starts):
        return len(text)
    start = starts[pos.line]
    end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
    line = text[start:end].rstrip("\r\n")
    codec = {"utf-16": "utf-16-le", "utf-8": "utf-8", "utf-32": "utf-32-le"}[encoding]
    width = {"utf-16": 2, "utf-8": 1, "utf-32": 4}[encoding]
    encoded = line.encode(codec, "surrogatepass")[: pos.character * width]
    return start + len(encoded.decode(codec, "surrogatepass"))


@dataclass
class Buffer:
    text: str
    version: int


class Editor:
    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.buffers: dict[str, Buffer] = {}
        self.encoding = "utf-16"
        self.applied: list[types.WorkspaceEdit] = []
        self.statuses: list[dict] = []  # `sparkls/status` notifications, in order
        self.registrations: list[types.Registration] = []  # client/registerCapability
        self.reject_reason: str | None = None  # when set, every workspace edit is refused with it
        self.message_requests: list[types.ShowMessageRequestParams] = []  # window/showMessageRequest
        self.message_answer: str | None = None  # the action the user picks (None: dismissed; HOLD: no answer yet)
        self.message_release = asyncio.Event()  # a HOLD request is answered once this is set...
        self.message_late_answer: str | None = None  # ...with this action (None: dismissed)
        self.full_sync = False  # send the whole text after each change, as simple clients do
        self.next_edits: list[dict] = []  # `sparkls/nextEdit` notifications, in order

    def open(self, uri: str, text: str, language_id: str = "python") -> None:
        self.buffers[uri] = Buffer(text, 1)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            )
        )

    def close(self, uri: str) -> None:
        del self.buffers[uri]
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def text(self, uri: str) -> str:
        return self.buffers[uri].text

    def type_text(self, uri: str, line: int, character: int, new_text: str) -> None:
        """Insert text as a user would, sending an incremental didChange."""
        pos = types.Position(line=line, character=character)
        self._apply_edits(uri, [types.TextEdit(range=types.Range(start=pos, end=pos), new_text=new_text)])

    def replace_text(self, uri: str, line: int, start: int, end: int, new_text: str) -> None:
        """Replace characters `start`..`end` of `line` in one incremental didChange."""
        rng = types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=end))
        self._apply_edits(uri, [types.TextEdit(range=rng, new_text=new_text)])

    def apply_workspace_edit(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        if self.reject_reason is not None:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=self.reject_reason)
        if any(_touches_disk(change, self.buffers) for change in edit.document_changes or []):
            return self._apply_with_files(edit)
        groups: list[tuple[str, int | None, list[types.TextEdit]]] = []
        for change in edit.document_changes or []:
            assert isinstance(change, types.TextDocumentEdit), change
            groups.append((change.text_document.uri, change.text_document.version, list(change.edits)))
        for uri, edits in (edit.changes or {}).items():
            groups.append((uri, None, list(edits)))
        for uri, version, _ in groups:
            if uri not in self.buffers:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{uri} is not open")
            if version is not None and version != self.buffers[uri].version:
                return types.ApplyWorkspaceEditResult(
                    applied=False,
                    failure_reason=f"version {version} is stale (buffer is at {self.buffers[uri].version})",
                )
        for uri, _, edits in groups:
            self._apply_edits(uri, edits)
        self.applied.append(edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply_with_files(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        """documentChanges that create files or edit files that are not open: all or
        nothing, as VS Code's transactional handling does. Open buffers are edited as
        usual; other files on disk."""
        disk: dict[str, str | None] = {}  # uri -> new text of a file on disk (None: missing)
        buffers: list[tuple[str, list[types.TextEdit]]] = []
        for change in edit.document_changes or []:
            if isinstance(change, types.CreateFile):
                path = Path(to_fs_path(change.uri))
                if path.exists() or disk.get(change.uri) is not None:
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{change.uri} exists")
                disk[change.uri] = ""
                continue
            assert isinstance(change, types.TextDocumentEdit), change
            uri, version = change.text_document.uri, change.text_document.version
            if uri in self.buffers:
                if version is not None and version != self.buffers[uri].version:
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"version {version} is stale")
                buffers.append((uri, list(change.edits)))
                continue
            if uri not in disk:
                path = Path(to_fs_path(uri))
                disk[uri] = path.read_text(encoding="utf-8") if path.exists() else None
            if disk[uri] is None:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{uri} does not exist")
            disk[uri] = _edited(disk[uri], list(change.edits), self.encoding)
        for uri, text in disk.items():
            path = Path(to_fs_path(uri))
            path.parent.mkdir(parents=True, exist_ok=True)  # as VS Code creates a new file's folders
            path.write_text(text or "", encoding="utf-8")
        for uri, edits in buffers:
            self._apply_edits(uri, edits)
        self.applied.append(edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply_edits(self, uri: str, edits: list[types.TextEdit]) -> None:
        """Apply edits bottom-up and send them as incremental changes, as VS Code does."""
        buf = self.buffers[uri]
        text = buf.text
        ordered = sorted(
            ((_offset(text, e.range.start, self.encoding), _offset(text, e.range.end, self.encoding), e) for e in edits),
            key=lambda item: item[0],
            reverse=True,
        )
        for start, end, e in ordered:
            text = text[:start] + e.new_text + text[end:]
        buf.text = text
        buf.version += 1
        changes: list[types.TextDocumentContentChangeEvent] = (
            [types.TextDocumentContentChangeWholeDocument(text=text)]
            if self.full_sync
            else [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for _, _, e in ordered]
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=buf.version),
                content_changes=changes,
            )
        )


def _touches_disk(change: Any, buffers: dict[str, Buffer]) -> bool:
    """A document change that creates a file or edits one that is not open."""
    return isinstance(change, types.CreateFile) or (
        isinstance(change, types.TextDocumentEdit) and change.text_document.uri not in buffers
    )


def _edited(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """`text` with `edits` applied bottom-up (positions in `encoding`)."""
    spans = sorted(
        ((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def _command_or_code_action(obj: Any, _: type) -> types.Command | types.CodeAction:
    # lsprotocol 2025.0.0 reads any object with a "command" key as a Command, which
    # turns a CodeAction that carries a command into a bare Command. A Command's
    # "command" is a string; a CodeAction's is an object.
    converter = _CONVERTER
    if isinstance(obj.get("command"), str):
        return converter.structure(obj, types.Command)
    return converter.structure(obj, types.CodeAction)


_CONVERTER: Any = None


def _plain(value: Any) -> Any:
    """pygls hands unknown notifications over as named tuples; make them dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def make_editor_client() -> LanguageClient:
    global _CONVERTER
    client = make_test_lsp_client()
    client.editor = Editor(client)
    testbound.adopt(client)  # watched while a test runs under its bound
    _CONVERTER = client.protocol._converter
    _CONVERTER.register_structure_hook(Union[types.Command, types.CodeAction], _command_or_code_action)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        client.editor.registrations.extend(params.registrations)

    @client.feature("sparkls/status")
    def status(params: Any) -> None:
        client.editor.statuses.append(_plain(params))

    @client.feature("sparkls/nextEdit")
    def next_edit(params: Any) -> None:
        client.editor.next_edits.append(_plain(params))

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def show_message_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        client.editor.message_requests.append(params)
        answer = client.editor.message_answer
        if answer == HOLD:  # the user looks away: no answer until the test lets go
            await client.editor.message_release.wait()
            late = client.editor.message_late_answer
            return types.MessageActionItem(title=late) if late is not None else None
        return types.MessageActionItem(title=answer) if answer is not None else None

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return client.editor.apply_workspace_edit(params.edit)

    return client


def capabilities(name: str, *, position_encodings: list[str] | None = None) -> types.ClientCapabilities:
    caps = client_capabilities(name)
    if position_encodings is not None:
        caps.general = types.GeneralClientCapabilities(position_encodings=position_encodings)
    return caps
