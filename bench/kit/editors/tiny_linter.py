"""A second language server for the editor tests: a linter that publishes one diagnostic.

    python tiny_linter.py WORD SOURCE MESSAGE

Speaks LSP over stdio (full document sync) and, whenever a document is opened or
changed, publishes one error diagnostic on the first occurrence of WORD (none once
WORD is gone), with SOURCE and MESSAGE. It stands for the user's usual server (pylsp,
pyright, ruff) beside sparkls, so the editor's own code-action request carries a
diagnostic sparkls did not publish. Standard library only; nothing on stdout but LSP.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length or 0))


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def diagnostics(text: str, word: str, source: str, message: str) -> list[dict[str, Any]]:
    """One diagnostic on the first `word` of `text` (UTF-16 columns), or none."""
    for number, line in enumerate(text.splitlines()):
        column = line.find(word)
        if column >= 0:
            start = len(line[:column].encode("utf-16-le")) // 2
            end = start + len(word.encode("utf-16-le")) // 2
            where = {"start": {"line": number, "character": start}, "end": {"line": number, "character": end}}
            return [{"range": where, "severity": 1, "source": source, "message": message}]
    return []


def serve(word: str, source: str, message: str, incoming: BinaryIO, outgoing: BinaryIO) -> None:
    while (request := read_message(incoming)) is not None:
        method, params = request.get("method"), request.get("params") or {}
        if method == "initialize":
            capabilities = {"textDocumentSync": 1}
            write_message(outgoing, {"jsonrpc": "2.0", "id": request["id"], "result": {"capabilities": capabilities}})
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            document = params["textDocument"]
            text = document["text"] if method.endswith("didOpen") else params["contentChanges"][-1]["text"]
            found = diagnostics(text, word, source, message)
            notice = {"uri": document["uri"], "diagnostics": found}
            write_message(outgoing, {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": notice})
        elif method == "exit":
            return
        elif "id" in request:  # shutdown, and anything else asked: an empty answer
            write_message(outgoing, {"jsonrpc": "2.0", "id": request["id"], "result": None})


if __name__ == "__main__":
    serve(*sys.argv[1:4], sys.stdin.buffer, sys.stdout.buffer)
