"""The floor: the thinnest pygls server that does sparkls's one-line edit against the same model.

What any server must pay for `sparkls.edit`, and nothing more, so that `vs_floor.py` can
say what sparkls adds:

- documents: a dict of line lists; a ranged `didChange` replaces only the lines it
  touches (columns converted in the negotiated position encoding, on those lines only),
  a whole-text `didChange` is split once. pygls's own document copies are skipped, as
  sparkls skips them (pygls rebuilds the whole text, line by line, on every ranged change);
- `sparkls.edit` (`{"uri", "range", "instruction"}`): the range's lines and WINDOW lines
  each side are the editable region, between `<|editable_region_start|>` and
  `<|editable_region_end|>`, with CONTEXT lines shown above and below; the instruction
  last. No tree-sitter, no index, no checks;
- one `response.create` on one persistent WebSocket (opened at `initialized`), the
  deltas joined, the first fenced block taken as the region's new text, and one
  `workspace/applyEdit` replacing the region's lines (version-stamped);
- `textDocument/codeAction`: one "Edit with Spark" command for the range, nothing read.

Settings are sparkls's own `initializationOptions` keys: `fast.baseUrl` (or `base_url`),
`fast.apiKey` (or `api_key`) and `fast.model`.

    python bench/floor_server.py        # an LSP server on stdio

A benchmark fixture, not a product: no retries, no reconnect backoff, no messages.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from websockets.asyncio.client import ClientConnection, connect

WINDOW = 5  # editable region: the range's lines and this many lines each side
CONTEXT = 20  # read-only lines shown above and below the region
START, END = "<|editable_region_start|>", "<|editable_region_end|>"
INSTRUCTIONS = (
    f"The user message shows part of one file. The lines between {START} and {END} are the "
    "editable region. Carry out the instruction by rewriting the editable region only. Answer "
    "with the complete new text of the editable region in one fenced code block."
)
ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines breaks LSP does not have, and CR
LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)


def split_lines(text: str) -> list[str]:
    """LSP lines (breaks `\\n`, `\\r\\n`, `\\r`) with their breaks; C speed when no CR."""
    if any(c in text for c in ODD_BREAKS):
        return LSP_LINE.findall(text)
    return text.splitlines(keepends=True)


def content_length(line: str) -> int:
    return len(line) - (2 if line.endswith("\r\n") else 1 if line.endswith(("\n", "\r")) else 0)


def index_of(line: str, units: int, encoding: str) -> int:
    """The index in `line` of a column given in `encoding` units (clamped to the content)."""
    end = content_length(line)
    if line.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return min(units, end)
    count = 0
    for i, ch in enumerate(line[:end]):
        if count >= units:
            return i
        count += len(ch.encode("utf-8")) if encoding == types.PositionEncodingKind.Utf8 else 1 + (ord(ch) > 0xFFFF)
    return end


def units_of(text: str, encoding: str) -> int:
    if text.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(ord(c) > 0xFFFF for c in text)


class Doc:
    __slots__ = ("lines", "version")

    def __init__(self, text: str, version: int) -> None:
        self.lines, self.version = split_lines(text), version

    def replace(self, rng: types.Range, text: str, encoding: str) -> None:
        lines = self.lines
        sl, el = rng.start.line, rng.end.line
        first = lines[sl] if sl < len(lines) else ""
        last = lines[el] if el < len(lines) else ""
        head = first[: index_of(first, rng.start.character, encoding)]
        tail = last[index_of(last, rng.end.character, encoding) :]
        lines[sl : el + 1] = split_lines(head + text + tail)


def _user_handler_only(method: str) -> Any:
    """A builtin that only calls our handler: pygls keeps no copy of the document."""

    @lsp_method(method)
    def handler(self: LanguageServerProtocol, params: Any) -> Any:
        if (user := self.fm.features.get(method)) is not None:
            yield user, (params,), None

    return handler


class FloorProtocol(LanguageServerProtocol):
    lsp_text_document__did_open = _user_handler_only(types.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _user_handler_only(types.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _user_handler_only(types.TEXT_DOCUMENT_DID_CLOSE)


class FloorServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("sparkls-floor", "1", protocol_cls=FloorProtocol)
        self.docs: dict[str, Doc] = {}
        self.base_url, self.api_key, self.model = "http://127.0.0.1:8765/v1", "", "gpt-5.3-codex-spark"
        self.socket: asyncio.Task[ClientConnection] | None = None
        self.lock = asyncio.Lock()  # one response in flight per socket

    def connection(self) -> asyncio.Task[ClientConnection]:
        if self.socket is None or (self.socket.done() and (self.socket.exception() or self.socket.result().close_code is not None)):
            url = re.sub(r"^http", "ws", self.base_url.rstrip("/")) + "/responses"
            headers = [("Authorization", f"Bearer {self.api_key}")]
            self.socket = asyncio.ensure_future(connect(url, additional_headers=headers, compression=None, max_size=None))
        return self.socket

    async def ask(self, prompt: str) -> str:
        """One `response.create`; the reply's text, once the response completed."""
        message = {
            "type": "response.create", "model": self.model, "instructions": INSTRUCTIONS, "store": False,
            "input": [{"role": "user", "content": [{"type": "input_text", "text": prompt}]}],
        }
        async with self.lock:
            ws = await self.connection()
            await ws.send(json.dumps(message))
            parts = []
            while True:
                event = json.loads(await ws.recv())
                kind = event["type"]
                if kind == "response.output_text.delta":
                    parts.append(event["delta"])
                elif kind == "response.completed":
                    return "".join(parts)
                elif kind in ("error", "response.failed", "response.incomplete"):
                    raise RuntimeError(f"the model failed: {json.dumps(event)[:300]}")


def build_server() -> FloorServer:
    server = FloorServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: FloorServer, params: types.InitializeParams) -> None:
        fast = (params.initialization_options or {}).get("fast") or {}
        ls.base_url = fast.get("baseUrl") or fast.get("base_url") or ls.base_url
        ls.api_key = fast.get("apiKey") or fast.get("api_key") or ls.api_key
        ls.model = fast.get("model") or ls.model

    @server.feature(types.INITIALIZED)
    def initialized(ls: FloorServer, params: types.InitializedParams) -> None:
        ls.connection()  # the persistent socket, opened before the first edit

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: FloorServer, params: None) -> None:
        if ls.socket is not None and ls.socket.done() and not ls.socket.exception():
            await ls.socket.result().close()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FloorServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.docs[params.text_document.uri] = Doc(params.text_document.text, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FloorServer, params: types.DidChangeTextDocumentParams) -> None:
        doc, encoding = ls.docs[params.text_document.uri], ls.workspace.position_encoding or "utf-16"
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                doc.replace(change.range, change.text, encoding)
            else:
                doc.lines = split_lines(change.text)
        doc.version = params.text_document.version

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FloorServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.docs.pop(params.text_document.uri, None)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: FloorServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        rng = {"start": {"line": params.range.start.line, "character": params.range.start.character},
               "end": {"line": params.range.end.line, "character": params.range.end.character}}
        args = {"uri": params.text_document.uri, "range": rng, "instruction": ""}
        command = types.Command(title="Edit with Spark", command="sparkls.edit", arguments=[args])
        return [types.CodeAction(title="Edit with Spark", kind=types.CodeActionKind.RefactorRewrite, command=command)]

    @server.command("sparkls.edit")
    async def edit(ls: FloorServer, *args: Any) -> dict[str, Any]:
        started, arg = time.perf_counter(), args[0]
        uri, rng, encoding = arg["uri"], arg["range"], ls.workspace.position_encoding or "utf-16"
        doc = ls.docs[uri]
        lines, version = doc.lines, doc.version
        if not lines:
            return {"applied": False, "error": {"message": "empty document"}}
        a = max(0, min(rng["start"]["line"], len(lines) - 1) - WINDOW)
        b = min(len(lines) - 1, rng["end"]["line"] + WINDOW)
        region = "".join(lines[a : b + 1])
        before, after = "".join(lines[max(0, a - CONTEXT) : a]), "".join(lines[b + 1 : b + 1 + CONTEXT])
        region = region[: len(region) - (len(lines[b]) - content_length(lines[b]))]  # its last line break
        excerpt = f"{before}{START}\n{region}\n{END}\n{after}"
        prompt = f"File: {uri.rsplit('/', 1)[-1]}\n\nExcerpt:\n```\n{excerpt.rstrip()}\n```\n\nInstruction: {arg['instruction']}"
        asked = time.perf_counter()
        reply = await ls.ask(prompt)
        answered = time.perf_counter()
        found = FENCE.search(reply)
        if found is None:
            return {"applied": False, "error": {"message": "no fenced block in the reply"}}
        ends_with_break = content_length(lines[b]) < len(lines[b])
        new_text = found.group(2) if ends_with_break else found.group(2).removesuffix("\n")
        end = types.Position(b + 1, 0) if ends_with_break else types.Position(b, units_of(lines[b], encoding))
        text_edit = types.TextEdit(range=types.Range(start=types.Position(a, 0), end=end), new_text=new_text)
        document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        change = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=[text_edit])])
        result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=change, label="Spark edit"))
        ms = lambda t0, t1: round((t1 - t0) * 1000, 3)  # noqa: E731
        timings = {"context": ms(started, asked), "model": ms(asked, answered), "apply": ms(answered, time.perf_counter())}
        return {"applied": bool(result.applied), "tier": "fast", "model": ls.model, "timings_ms": timings}

    return server


if __name__ == "__main__":
    build_server().start_io()
