"""The V4A patch grammar: the `apply_patch` tool's diffs and the same patch as text. Pure.

The Responses API's `apply_patch` tool answers with an `apply_patch_call` whose
`update_file` operation carries a path and a *diff*: V4A hunks without an envelope.
Where the tool is not offered, the model writes the same patch as text, inside an
envelope naming the file (docs/model-protocol.md):

    *** Begin Patch
    *** Update File: path/to/file.py
    @@ def area(self):
    -        return 3.14 * self.r ** 2
    +        return math.pi * self.r ** 2
    *** End Patch

A diff is a list of hunks. A hunk starts at a line ``@@`` or ``@@ <anchor>`` (several
stacked ``@@`` lines narrow the place one after another: a class, then a method); the
first hunk may start without one. Its lines start with ``" "`` (a context line),
``"-"`` (removed) or ``"+"`` (added); an empty line is an empty context line; ``***
End of File`` may close a hunk. What models also write, read as they mean it: a unified
diff's ``@@ -12,7 +12,8 @@ tail`` header (the numbers dropped, the tail an anchor),
``---``/``+++`` file headers before the first hunk, ``\\ No newline at end of file``,
CRLF line breaks, markers padded with spaces, the patch in a code fence or between
prose.

Refused whole (`PatchRefused`), never guessed: a line that is none of the above, an
envelope without ``*** End Patch`` (cut off?), a second envelope, an added, deleted or
moved file, a patch for another file than the one edited, a file section or diff with
no hunk, a hunk with no line. Where each hunk goes is `edits/patch.py`'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkls.documents.positions import LINE_BREAK
from sparkls.errors import PatchRefused

BEGIN, END = "*** Begin Patch", "*** End Patch"
UPDATE, ADD, DELETE, MOVE = "*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:"
END_OF_FILE = "*** End of File"
_NUMBERED = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk: where it says it is (`anchors`, outermost first) and its lines as
    (op, text) with op ``" "``, ``"-"`` or ``"+"``; `number` counts from 1 in the patch."""

    number: int
    anchors: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects: its context and removed lines."""
        return [text for op, text in self.lines if op != "+"]

    @property
    def added(self) -> list[str]:
        return [text for op, text in self.lines if op == "+"]


@dataclass(frozen=True, slots=True)
class FilePatch:
    """A patch of one file: the path it names (None for a bare diff) and its hunks."""

    path: str | None
    hunks: tuple[Hunk, ...]


def _refused(why: str, reason: str, hunk: int | None = None) -> PatchRefused:
    return PatchRefused(f"The model's patch {why}, so nothing was changed.", reason=reason, hunk=hunk)


def _anchor(header: str) -> str:
    """The anchor text of a hunk header line (``@@ def f():``, ``@@ -3,4 +3,5 @@ f``)."""
    numbered = _NUMBERED.match(header.strip())
    text = numbered.group(1) if numbered else header.strip()[2:]
    return text.strip()


def parse_diff(diff: str, *, first_line: int = 1) -> list[Hunk]:
    """The hunks of a V4A diff without an envelope (the `update_file` operation's);
    `first_line` numbers the diff's lines in messages when it sits inside a reply."""
    lines = LINE_BREAK.split(diff)
    if lines and lines[-1] == "":
        lines.pop()
    hunks: list[Hunk] = []
    anchors: list[str] = []
    body: list[tuple[str, str]] = []

    def close() -> None:
        if not body:
            return
        hunks.append(Hunk(len(hunks) + 1, tuple(anchors), tuple(body)))
        anchors.clear()
        body.clear()

    for i, line in enumerate(lines):
        where = first_line + i
        if line.lstrip(" \t").startswith("@@"):
            close()
            if text := _anchor(line):
                anchors.append(text)
            continue
        if line.strip() == END_OF_FILE:
            if not body:
                raise _refused(f"has an empty hunk (its line {where})", "malformed", len(hunks) + 1)
            close()
            continue
        if not hunks and not body and line.startswith(("--- ", "+++ ")) and _is_file_header(lines, i):
            continue
        if line.startswith("\\"):
            continue  # "\ No newline at end of file"
        if line == "":
            body.append((" ", ""))
        elif line[0] in " -+":
            body.append((line[0], line[1:]))
        else:
            raise _refused(
                f"has a line that is neither context (' '), removed ('-') nor added ('+'): its line {where}, "
                f"{line.strip()[:60]!r}",
                "malformed", len(hunks) + 1,
            )
    if anchors and not body:
        raise _refused("ends with a hunk header and no lines under it", "malformed", len(hunks) + 1)
    close()
    if not hunks:
        raise _refused("has no hunk", "malformed")
    return hunks


def _is_file_header(lines: list[str], i: int) -> bool:
    """Whether line i opens (or closes) a ``---``/``+++`` file-header pair."""
    line = lines[i]
    if line.startswith("--- "):
        return i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
    return i > 0 and lines[i - 1].startswith("--- ")


def _marker(line: str, marker: str) -> str | None:
    """What follows `marker` on `line` (padded with spaces or not), or None."""
    text = line.strip()
    if text == marker.rstrip(":") and marker.endswith(":"):
        return ""
    return text[len(marker) :].strip() if text.startswith(marker) else None


def find_envelope(reply: str) -> tuple[int, int] | None:
    """(first, last) line indices of the reply's ``*** Begin Patch`` … ``*** End
    Patch`` (the begin line may be missing when an ``*** Update File:`` line opens
    it); None when the reply holds no patch text. Refuses an envelope left open and
    a reply with two."""
    lines = LINE_BREAK.split(reply)
    begins = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
    ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
    updates = [i for i, ln in enumerate(lines) if _marker(ln, UPDATE) is not None]
    if len(begins) > 1 or len(ends) > 1:
        raise _refused("holds several patches (several '*** Begin Patch' or '*** End Patch' lines)", "files")
    if not begins and not updates:
        return None
    first = begins[0] if begins else updates[0]
    if not ends or ends[0] < first:
        raise _refused(
            "has no '*** End Patch' line after its '*** Begin Patch': it may have been cut off", "cut_off"
        )
    return first, ends[0]


def parse_patch(reply: str) -> FilePatch | None:
    """The patch a text reply holds (see the module doc), or None when it holds none."""
    span = find_envelope(reply)
    if span is None:
        return None
    lines = LINE_BREAK.split(reply)
    first, last = span
    body = lines[first + 1 : last] if lines[first].strip() == BEGIN else lines[first:last]
    offset = first + 2 if lines[first].strip() == BEGIN else first + 1
    path: str | None = None
    start: int | None = None
    for i, line in enumerate(body):
        if _FENCE.match(line) and start is None:
            continue
        for marker, what in ((ADD, "adds a file"), (DELETE, "deletes a file"), (MOVE, "moves the file")):
            if _marker(line, marker) is not None:
                raise _refused(f"{what} ({line.strip()[:80]!r}); sparkls edits only the region shown", "files")
        named = _marker(line, UPDATE)
        if named is not None:
            if start is not None or not named:
                if named:
                    raise _refused("updates several files", "files")
                raise _refused("names no file to update", "malformed")
            path, start = named, i + 1
        elif start is None and line.strip():
            raise _refused(f"has {line.strip()[:60]!r} before its '*** Update File:' line", "malformed")
    if start is None:
        raise _refused("names no file to update ('*** Update File: path')", "malformed")
    diff = body[start:]
    while diff and _FENCE.match(diff[-1]):
        diff.pop()  # a fence closing inside the envelope, before "*** End Patch"
    return FilePatch(path, tuple(parse_diff("\n".join(diff), first_line=offset + start)))


def bare_diff(reply: str) -> FilePatch | None:
    """A headerless V4A diff a text reply holds in its one code fence (the tool's shape,
    written as text): the fence's first non-blank line is a ``@@`` line and a later one
    adds or removes a line. None otherwise."""
    lines = LINE_BREAK.split(reply)
    opened = [i for i, ln in enumerate(lines) if _FENCE.match(ln)]
    if len(opened) != 2:
        return None
    inner = lines[opened[0] + 1 : opened[1]]
    first = next((ln for ln in inner if ln.strip()), "")
    if not first.lstrip(" \t").startswith("@@") or not any(ln[:1] in "+-" and ln[:3] not in ("+++", "---") for ln in inner):
        return None
    return FilePatch(None, tuple(parse_diff("\n".join(inner), first_line=opened[0] + 2)))


def same_file(named: str, shown: str) -> bool:
    """Whether a path a patch names is the file the model was shown as `shown`: the same
    after ``\\`` becomes ``/`` and a leading ``./``, ``a/`` or ``b/`` goes, or one ends
    the other at a ``/`` (a model that wrote the absolute path, or only the name)."""
    def clean(path: str) -> str:
        path = path.strip().strip("`'\"").replace("\\", "/")
        for prefix in ("./", "a/", "b/"):
            path = path.removeprefix(prefix)
        return path

    a, b = clean(named), clean(shown)
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)
