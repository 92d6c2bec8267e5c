"""A stand-in for ruff or basedpyright in the Neovim 0.11+ flow: a tiny LSP server.

It publishes one diagnostic (given as JSON in argv[1]: `line`, `col`, `end_col`,
`message`, `source`, and the `word` it is about) on each Python document whose `line`
holds `word` at `col`, and clears it once the word is gone; it offers no code
actions of its own: as a linter beside sparkls, it is the "other server" whose
diagnostic the documented quick-fix keymap hands to sparkls. Plain JSON-RPC over
stdio, standard library only, nothing on stderr.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next JSON-RPC message, or None at end of input."""
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
    stream.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stream.flush()


def diagnostics(uri: str, text: str, diagnostic: dict[str, Any]) -> dict[str, Any]:
    """The `textDocument/publishDiagnostics` notification for `uri`, whose text is `text`."""
    line, col, end = diagnostic["line"], diagnostic["col"], diagnostic["end_col"]
    lines = text.splitlines()
    found = line < len(lines) and lines[line][col:end] == diagnostic["word"]
    published = [{
        "range": {"start": {"line": line, "character": diagnostic["col"]},
                  "end": {"line": line, "character": diagnostic["end_col"]}},
        "severity": 1, "source": diagnostic["source"], "message": diagnostic["message"],
    }] if found else []
    return {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
            "params": {"uri": uri, "diagnostics": published}}


def answer(message: dict[str, Any]) -> Any:
    """The result of a request this server answers."""
    if message["method"] == "initialize":
        return {"capabilities": {"textDocumentSync": 1, "codeActionProvider": True},
                "serverInfo": {"name": "nvim-linter"}}
    return [] if message["method"] == "textDocument/codeAction" else None


def main() -> None:
    diagnostic = json.loads(sys.argv[1])
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        method = message.get("method")
        if "id" in message and method:
            write_message(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": answer(message)})
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            params = message["params"]
            text = params["textDocument"]["text"] if "contentChanges" not in params else params["contentChanges"][-1]["text"]
            write_message(stdout, diagnostics(params["textDocument"]["uri"], text, diagnostic))
        elif method == "exit":
            return


if __name__ == "__main__":
    main()
