"""JSON-RPC under LSP, as pure logic: cutting the input into messages, and the rules
a message must pass before a handler sees it.

Owns:

- `FrameParser`: LSP's base protocol (``Content-Length: N`` headers, a blank line,
  N bytes of body), incremental over chunks split anywhere. It resynchronises after
  a bad header block (garbage, no or a non-numeric ``Content-Length``) and refuses a
  body above `MAX_CONTENT_LENGTH`, skipping its bytes without holding them. A length
  that does not match its body never swallows the session: a ``Content-Length: N``
  line (digits, then a line break) inside a body or a refused body cannot be JSON (a
  JSON string holds no raw line break), so it is taken as the next header and the
  broken message before it is skipped. It never holds more than
  `MAX_CONTENT_LENGTH` plus one header line.
- `Gate`: what to do with one body under JSON-RPC 2.0 and the LSP lifecycle: deliver
  it, answer it with an error, drop it with a log line, or exit (with LSP's exit code).

Does not own: reading or writing bytes (stdio.py) and pygls's handling of a delivered
message (protocol.py, which gives the gate its `handles` and `structure` functions).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

# A didOpen carries a whole file, JSON-escaped: 64 MiB leaves room for a 20 MB file
# escaped three times over, and bounds what one message can make the server hold.
MAX_CONTENT_LENGTH = 64 * 2**20
MAX_HEADER_LINE = 4096  # bytes; real header lines are under 100

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

_TOKEN = b"content-length:"
_KEEP = len(_TOKEN) - 1  # bytes kept when a long line is cut: a token may straddle the cut
_HEADER = re.compile(rb"[A-Za-z0-9-]+:")  # a header's name and colon, as RFC 7230 has it (near enough)
_MAX_DIGITS = 18  # more digits than this is over any limit (and int() of 5,000 digits raises)
# A header line found inside a body (lowercased), up to its raw line break.
_HEADER_LINE = re.compile(rb"content-length:[ \t]*[0-9]+[ \t]*\r?\n")
_LOOKBACK = 64  # the longest such line looked for, line break included
# A body that ends inside a header line: its announced length stopped short of the line break.
_HEADER_AT_END = re.compile(rb"content-length:[ \t]*[0-9]*[ \t]*\r?\Z")


@dataclass(frozen=True, slots=True)
class Noise:
    """Input that was not a well-framed message and was skipped: a line for the log."""

    problem: str


def _header_in(data: bytes | bytearray, start: int, end: int, floor: int) -> int:
    """Where a ``Content-Length: N`` line whose line break lies in `data[start:end]`
    begins (no earlier than `floor`), or -1 when there is none. Cheap on what editors
    send: compact JSON has no raw line break (one memchr), and otherwise tokens are
    found with `find` over a lowercased copy."""
    if data.find(b"\n", start, end) < 0:
        return -1
    low = max(floor, start - _LOOKBACK)
    text = bytes(data[low:end]).lower()
    at = text.find(_TOKEN)
    while at >= 0:
        line = _HEADER_LINE.match(text, at)
        if line is not None and low + line.end() > start and line.end() - at <= _LOOKBACK:
            return low + at
        at = text.find(_TOKEN, at + 1)
    return -1


def _header_at_end(data: bytes | bytearray, start: int, end: int) -> int:
    """Where a header line that `data[start:end]` ends inside of begins, or -1."""
    low = max(start, end - _LOOKBACK)
    found = _HEADER_AT_END.search(bytes(data[low:end]).lower())
    return low + found.start() if found else -1


class FrameParser:
    """Bytes in, message bodies (`bytes`) and `Noise` out, in input order."""

    def __init__(self, *, max_content_length: int = MAX_CONTENT_LENGTH, max_header_line: int = MAX_HEADER_LINE) -> None:
        self.max_content_length = max_content_length
        self.max_header_line = max(max_header_line, len(_TOKEN) + _MAX_DIGITS + 2)
        self._buf = bytearray()
        self._body: int | None = None  # the length of the body being read
        self._scanned = 0  # bytes of that body already searched for a header line
        self._skip = 0  # bytes of a refused body still to pass over
        self._tail = b""  # the last bytes passed over of it: a header line may straddle two reads
        self._length: int | None = None  # Content-Length of the header block being read
        self._problem: str | None = None  # what was wrong in this block, if nothing right came after
        self._lines = 0  # non-blank lines in this header block

    @property
    def buffered(self) -> int:
        """Bytes held: part of a body, part of a header line, or the end of a refused body."""
        return len(self._buf) + len(self._tail)

    def feed(self, data: bytes) -> list[bytes | Noise]:
        out: list[bytes | Noise] = []
        buf = self._buf
        buf += data
        pos = 0
        while True:
            if self._skip:
                pos = self._pass_over(pos, out)
                if self._skip:
                    break
                continue
            if self._body is not None:
                end = pos + self._body
                have = min(end, len(buf))
                cut = _header_in(buf, pos + self._scanned, have, pos)
                if cut < 0 and have == end:
                    cut = _header_at_end(buf, pos, end)
                if cut >= 0:  # the body was shorter than announced: the next message has begun
                    out.append(Noise(f"a message announced {self._body} bytes but the next header came after {cut - pos}: skipped"))
                    pos, self._body, self._scanned = cut, None, 0
                    continue
                if have < end:
                    self._scanned = have - pos
                    break
                with memoryview(buf) as held:  # one copy of the body, not two
                    out.append(bytes(held[pos:end]))
                pos, self._body, self._scanned = end, None, 0
                continue
            newline = buf.find(b"\n", pos)
            if newline < 0:
                pos = self._cut_long_line(pos, out)
                break
            line = bytes(buf[pos:newline])
            pos = newline + 1
            if line in (b"", b"\r"):
                self._end_of_headers(out)
            else:
                self._header(line, out)
        del buf[:pos]
        return out

    def _pass_over(self, pos: int, out: list[bytes | Noise]) -> int:
        """Pass over what is here of a refused body, holding only its last few bytes; a
        header line in it (the length was a lie) ends the skipping there."""
        buf = self._buf
        taken = min(self._skip, len(buf) - pos)
        seen = self._tail + bytes(buf[pos : pos + taken])
        at = _header_in(seen, len(self._tail), len(seen), 0)
        if at < 0:
            self._skip -= taken
            self._tail = seen[-_LOOKBACK:] if self._skip else b""
            return pos + taken
        out.append(Noise("a header came inside the message refused as over the limit: reading on from it"))
        held = len(self._tail)
        self._skip, self._tail = 0, b""
        if at >= held:
            return pos + at - held
        buf[pos:pos] = seen[at:held]  # the header began in bytes already passed over
        return pos

    def _cut_long_line(self, pos: int, out: list[bytes | Noise]) -> int:
        """Drop the start of an unfinished header line longer than a header can be."""
        partial = len(self._buf) - pos
        if partial <= self.max_header_line:
            return pos
        token = bytes(self._buf[pos:]).lower().rfind(_TOKEN)
        keep = partial - token if token >= 0 and partial - token <= self.max_header_line else _KEEP
        out.append(Noise(f"skipped {partial - keep} bytes of a header line with no end"))
        self._lines += 1
        return len(self._buf) - keep

    def _header(self, line: bytes, out: list[bytes | Noise]) -> None:
        self._lines += 1
        token = line.lower().rfind(_TOKEN)
        if token < 0 or len(line) - token > self.max_header_line:
            if not _HEADER.match(line):  # not Content-Type or any other header: garbage
                out.append(Noise(f"skipped a line that is not a header: {line[:40]!r}"))
            return
        if token > 0:
            out.append(Noise(f"skipped {token} bytes before Content-Length: {line[:min(token, 40)]!r}"))
        value = line[token + len(_TOKEN) :].strip()
        if value.isdigit():  # ASCII digits only, so no sign
            self._length = int(value) if len(value) <= _MAX_DIGITS else self.max_content_length + 1
            self._problem = None
        else:
            self._length = None
            self._problem = f"Content-Length {value[:40]!r} is not a length"

    def _end_of_headers(self, out: list[bytes | Noise]) -> None:
        length, problem, lines = self._length, self._problem, self._lines
        self._length, self._problem, self._lines = None, None, 0
        if length is None:
            if lines:
                out.append(Noise(f"a header block without a valid Content-Length was skipped ({problem or 'no Content-Length'})"))
        elif length > self.max_content_length:
            out.append(Noise(f"a message of {length} bytes is over the limit of {self.max_content_length}: skipped"))
            self._skip = length
        else:
            self._body = length


def encode_frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


# What the gate decides for one message.


@dataclass(frozen=True, slots=True)
class Deliver:
    """A well-formed message for pygls, already structured."""

    message: Any


@dataclass(frozen=True, slots=True)
class Answer:
    """An error response to send (the request is not handled)."""

    id: int | str | None
    code: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}


@dataclass(frozen=True, slots=True)
class Drop:
    """A message not handled and not answered (JSON-RPC never answers a notification)."""

    reason: str
    level: int = logging.DEBUG


@dataclass(frozen=True, slots=True)
class Exit:
    code: int


Verdict = Deliver | Answer | Drop | Exit


class BadParams(Exception):
    """Raised by a gate's `structure` when params do not fit the method's type."""


class Phase(Enum):
    NEW = "new"  # before `initialize`
    RUNNING = "running"
    SHUT_DOWN = "shut down"  # after the `shutdown` request


def _keys(message: dict[str, Any]) -> str:
    return "keys " + ", ".join(sorted(map(str, message))[:8])


def _valid_id(value: object) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


class Gate:
    """JSON-RPC 2.0 and the LSP lifecycle over decoded messages.

    `handles(method)` says whether a handler exists; `structure(message)` turns a
    message dict into what pygls takes, raising `BadParams` when its params do not fit;
    `pending(id)`, when given, says whether a request with that id is still in progress
    (one of the client's being served, or one of ours awaiting its answer). The leftovers
    of a cancel are quiet (a debug line): a `$/cancelRequest` for a request already
    answered, a response to a request nobody waits for any more (or never sent).
    """

    def __init__(
        self,
        handles: Callable[[str], bool],
        structure: Callable[[dict[str, Any]], Any],
        pending: Callable[[int | str], bool] | None = None,
    ) -> None:
        self._handles = handles
        self._structure = structure
        self._pending = pending
        self.phase = Phase.NEW

    def exit_code(self) -> int:
        """LSP's exit code for an exit now: 0 after `shutdown`, else 1."""
        return 0 if self.phase is Phase.SHUT_DOWN else 1

    def receive(self, body: bytes) -> Verdict:
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
            return Answer(None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
        return self.check(message)

    def check(self, message: object) -> Verdict:
        if isinstance(message, list):
            return Answer(None, INVALID_REQUEST, "Invalid request: a batch (LSP does not use batches)")
        if not isinstance(message, dict):
            return Answer(None, INVALID_REQUEST, "Invalid request: a message must be a JSON object")
        if "method" not in message:
            return self._response(message)
        method, msg_id, has_id = message["method"], message.get("id"), "id" in message
        reply_to = msg_id if _valid_id(msg_id) else None
        if message.get("jsonrpc") != "2.0":
            return Answer(reply_to, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
        if not isinstance(method, str):
            return Answer(reply_to, INVALID_REQUEST, "Invalid request: the method must be a string")
        if has_id and reply_to is None:
            return Answer(None, INVALID_REQUEST, f"Invalid request: {method}: the id must be a string or an integer")
        if message.get("params") is not None and not isinstance(message["params"], (dict, list)):
            return Answer(reply_to, INVALID_REQUEST, f"Invalid request: {method}: params must be an object or an array")
        if method == "exit":
            return Exit(self.exit_code())
        if has_id:
            return self._request(msg_id, method, message)
        return self._notification(method, message)

    def _response(self, message: dict[str, Any]) -> Verdict:
        if "id" not in message:
            return Answer(None, INVALID_REQUEST, "Invalid request: a message needs a method, or an id and a result")
        if ("result" in message) == ("error" in message):
            return Drop(f"a message with an id but no method and not one of result/error, ignored: {_keys(message)}", logging.WARNING)
        if message.get("jsonrpc") != "2.0" or not _valid_id(message["id"]):
            return Drop(f"a malformed response was ignored: {_keys(message)}", logging.WARNING)
        if self._done(message["id"]):
            return Drop(f"a response to request {message['id']!r}, which nothing waits for (any more), was ignored")
        return Deliver(self._structure(message))

    def _done(self, msg_id: object) -> bool:
        """Whether `msg_id` names no request in progress (False when that is not known)."""
        return self._pending is not None and _valid_id(msg_id) and not self._pending(msg_id)  # type: ignore[arg-type]

    def _request(self, msg_id: int | str, method: str, message: dict[str, Any]) -> Verdict:
        if self.phase is Phase.NEW and method != "initialize":
            return Answer(msg_id, SERVER_NOT_INITIALIZED, f"Server not initialized: {method} came before initialize")
        if self.phase is Phase.SHUT_DOWN:
            return Answer(msg_id, INVALID_REQUEST, f"Invalid request: {method} came after shutdown")
        if self.phase is Phase.RUNNING and method == "initialize":
            return Answer(msg_id, INVALID_REQUEST, "Invalid request: initialize came twice")
        if not self._handles(method):
            return Answer(msg_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        try:
            structured = self._structure(message)
        except BadParams as exc:
            return Answer(msg_id, INVALID_PARAMS, f"Invalid params for {method}: {exc}")
        if method == "initialize":
            self.phase = Phase.RUNNING
        elif method == "shutdown":
            self.phase = Phase.SHUT_DOWN
        return Deliver(structured)

    def _notification(self, method: str, message: dict[str, Any]) -> Verdict:
        if self.phase is not Phase.RUNNING:
            return Drop(f"{method} notification ignored: the server is {self.phase.value}")
        params = message.get("params")
        if method == "$/cancelRequest" and isinstance(params, dict) and self._done(params.get("id")):
            return Drop(f"$/cancelRequest for {params.get('id')!r}, which is not in progress (answered already): ignored")
        if not self._handles(method):
            return Drop(f"{method} notification ignored: no handler")
        try:
            return Deliver(self._structure(message))
        except BadParams as exc:
            return Drop(f"Invalid params for {method} notification, ignored: {exc}", logging.WARNING)
