"""Kubernetes Secret manifests: every value under `data:` or `stringData:` of a YAML
document that says `kind: Secret` is a secret, whatever its key is called (`extra`,
`.dockercfg`, `ca.pem`), also as a block scalar (`key: |` and the lines below it).

Bounded: `kind: Secret` is looked for within `REACH` bytes of the `data:` line, and
the values below it up to `REACH` bytes on, so a window sees all it decides on.
"""

from __future__ import annotations

import re

from sparkls.guard.secrets.edits import MARKER_BYTES, Budget, Edit

REACH = 8 * 1024

_DATA = re.compile(rb"data:[ \t]*\r?$", re.MULTILINE)
_KIND_SECRET = re.compile(rb"""kind:[ \t]*["']?secret["']?[ \t]*\r?$""", re.MULTILINE)
_ENTRY = re.compile(rb"""(?P<indent>[ \t]*)[^\s:#][^:\n]{0,252}:[ \t]*(?P<value>[^\s#][^\n]{0,4096})?""")
_BLOCK = re.compile(rb"""[|>][+-]?[0-9]?[ \t]*\r?""")


def secret_manifest_edits(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    if b"secret" not in lowered or b"data:" not in lowered:
        return []
    edits = []
    for block in budget.matches(_DATA.finditer(lowered)):
        floor = max(0, block.start() - REACH)
        newline = lowered.rfind(b"\n", floor, block.start())
        if newline < 0 and floor > 0:
            continue  # a line longer than REACH: not a manifest's (and its start is not read)
        line_start = newline + 1
        indent = lowered[line_start : block.start()]
        if indent.endswith(b"string"):
            indent = indent[:-6]
        if indent.strip(b" \t"):
            continue  # `data:` ends a longer key, or follows other text
        if not _near_kind_secret(lowered, block.start(), block.end()):
            continue
        limit = min(len(lowered), block.end() + REACH)
        edits += _values_below(data, block.end() + 1, len(indent.expandtabs()), limit, budget)
    return edits


def _near_kind_secret(lowered: bytes, start: int, end: int) -> bool:
    """Whether `kind: Secret` is the nearest `kind:` before the `data:` line, or after it,
    within REACH bytes."""
    before = lowered.rfind(b"kind:", max(0, start - REACH), start)
    if before >= 0 and _KIND_SECRET.match(lowered, before):
        return True
    after = lowered.find(b"kind:", end, min(len(lowered), end + REACH))
    return after >= 0 and _KIND_SECRET.match(lowered, after) is not None


def _values_below(data: bytes, start: int, indent: int, limit: int, budget: Budget) -> list[Edit]:
    """The values of the entries indented deeper than `indent` from `start` on."""
    edits: list[Edit] = []
    block_indent: int | None = None  # inside a block scalar: its key's indent
    first = False  # the block scalar's first line is still to come
    position = start
    while position < limit:
        if budget.left <= 0:
            budget.stop(position)
            break
        budget.left -= 1
        end = data.find(b"\n", position, limit)
        end = limit if end < 0 else end
        line = data[position:end]
        depth = len(line) - len(line.lstrip(b" \t"))
        text_end = end - line.endswith(b"\r")
        if line.strip():
            if depth <= indent:
                break
            if block_indent is not None and depth > block_indent:
                edits.append(Edit(position + depth, text_end, MARKER_BYTES if first else b"", first))
                first = False
            else:
                block_indent = None
                entry = _ENTRY.fullmatch(data, position, end)
                if entry is not None and entry["value"] is not None:
                    if _BLOCK.fullmatch(entry["value"]):
                        block_indent, first = depth, True
                    else:
                        edits.append(Edit(entry.start("value"), text_end, MARKER_BYTES, True))
        position = end + 1
    return edits
