"""Private key blocks (`-----BEGIN ... PRIVATE KEY-----`: RSA, EC, DSA, OPENSSH,
ENCRYPTED, PGP or plain).

The BEGIN and END lines stay; the first body line becomes the marker and the other
body lines become empty (their indentation and quotes stay), so every line stays a
line. A body is a run of base64 lines (bare, quoted, or with `\\n` escapes) holding
at least one run of 16+ base64 characters, so a parser's `BEGIN = "-----BEGIN RSA
PRIVATE KEY-----"` constant is left alone. The body is looked for after a BEGIN line
and before an END line, so an excerpt that cuts a key in half still hides the half
it shows. A key on one line with `\\n` escapes (a JSON service-account file) has its
body replaced by one marker.

Bounded: a body is looked for up to `MAX_KEY` bytes from its marker, and a line start
up to `MAX_KEY` bytes back, so a text of markers alone (or one endless line) is read
in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sparkls.guard.secrets.edits import MARKER_BYTES, Budget, Edit

MAX_KEY = 12 * 1024  # bytes: a private key (an 8192-bit RSA one is about 6.5 KB) fits

_PEM_MARKER = re.compile(rb"-----(?P<kind>BEGIN|END) (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(rb"-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
# One body line: indent and quote, the base64 run (or a PGP `=` checksum), then a `\n`
# escape, closing quote and continuation (`+`, `,`, `\`).
_BODY_LINE = re.compile(rb"""[ \t]*+(?:\\?["'])?(?P<b64>=?[A-Za-z0-9+/]+={0,2})(?:\\n)?(?:\\?["'])?[ \t]*+[+,\\]?[ \t]*+\r?""")
_HEADERS = rb"Proc-Type|DEK-Info|Comment|Version|Hash|Charset"
_SKIPPED_LINE = re.compile(rb"""[ \t]*(?:\\?["']?(?:""" + _HEADERS + rb"""):.*)?\r?""")
_B64_RUN = re.compile(rb"[A-Za-z0-9+/]{16}")
# A whole key on one line with `\n` escapes: its body (what follows the marker, up to
# the END marker or the first character a body cannot hold), then what may end it,
# read backwards (`\n` escapes, spaces, a backslash).
_INLINE_BODY = re.compile(rb"(?:\\[nr]|[ \t])*+(?P<body>[A-Za-z0-9+/=\\ \t]*+)")
_BODY_TAIL_REVERSED = re.compile(rb"(?:[nr]\\|[ \t\\])*+")


def private_key_edits(data: bytes, budget: Budget) -> list[Edit]:
    if b"PRIVATE KEY" not in data:
        return []
    edits: list[Edit] = []
    handled = 0  # bytes before this offset belong to a key already handled
    for marker in budget.matches(_PEM_MARKER.finditer(data)):
        if marker.start() < handled:
            continue
        line_start = _line_start(data, marker.start())
        line_end = _line_end(data, marker.end())
        if marker["kind"] == b"END":
            if line_start is not None:
                body = _body_lines(data, _lines_before(data, line_start, max(handled, line_start - MAX_KEY)))
                edits += _body_edits(data, sorted(body), counted=True)
            handled = marker.end()
            continue
        end = _PEM_END.search(data, marker.end(), line_end)
        inline = _inline_body(data, marker.end(), end.start() if end else line_end)
        found = inline is not None
        if inline is not None:
            edits.append(Edit(*inline, MARKER_BYTES, True))
        if end is not None:
            handled = end.end()
            continue
        body = _body_lines(data, _lines_after(data, line_end + 1, marker.end() + MAX_KEY))
        edits += _body_edits(data, body, counted=not found)
        handled = body[-1][1] if body else line_end
    return edits


def _inline_body(data: bytes, start: int, stop: int) -> tuple[int, int] | None:
    """The span of a key body on the marker's own line (`\\n` escapes), if there is one."""
    match = _INLINE_BODY.match(data, start, stop)
    assert match is not None  # every part of the pattern may be empty
    body_start, body_end = match.span("body")
    tail = _BODY_TAIL_REVERSED.match(data[body_start:body_end][::-1])
    body_end -= tail.end() if tail else 0
    return (body_start, body_end) if _B64_RUN.search(data, body_start, body_end) else None


def _line_end(data: bytes, position: int) -> int:
    """Where the line holding `position` ends, looked for up to MAX_KEY bytes on."""
    limit = min(len(data), position + MAX_KEY)
    end = data.find(b"\n", position, limit)
    return limit if end < 0 else end


def _line_start(data: bytes, position: int) -> int | None:
    """Where the line holding `position` starts; None past MAX_KEY bytes back."""
    floor = max(0, position - MAX_KEY)
    found = data.rfind(b"\n", floor, position)
    if found >= 0:
        return found + 1
    return 0 if floor == 0 else None


def _lines_after(data: bytes, start: int, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line from `start` on, end excluding the newline, up to `limit`."""
    limit = min(limit, len(data))
    while start <= limit:
        end = data.find(b"\n", start, limit)
        end = limit if end < 0 else end
        yield start, end
        start = end + 1


def _lines_before(data: bytes, line_start: int, floor: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line above the one at `line_start`, down to `floor`."""
    while line_start > floor:
        end = line_start - 1
        line_start = data.rfind(b"\n", floor, end) + 1
        if line_start == 0 and floor > 0:
            return
        yield line_start, end


def _body_lines(data: bytes, lines: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    """The key-body lines met along `lines`, up to the first line of anything else."""
    body: list[tuple[int, int]] = []
    for start, end in lines:
        if _BODY_LINE.fullmatch(data, start, end):
            body.append((start, end))
        elif not _SKIPPED_LINE.fullmatch(data, start, end):
            break
    return body


def _body_edits(data: bytes, body: list[tuple[int, int]], *, counted: bool) -> list[Edit]:
    """First body line -> the marker, the others emptied (indent and quotes stay)."""
    if not any(_B64_RUN.search(data, start, end) for start, end in body):
        return []
    edits = []
    for position, (start, end) in enumerate(body):
        match = _BODY_LINE.fullmatch(data, start, end)
        assert match is not None
        first = position == 0
        edits.append(Edit(*match.span("b64"), MARKER_BYTES if first else b"", counted and first))
    return edits
