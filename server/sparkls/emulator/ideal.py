"""The ideal model: it knows each edit's true result and answers it exactly. Pure.

For benchmarks of what the user waits for (bench/real_edits.py's corpus played through
a real LSP session), the model's own mistakes must not count: the emulator is told the
edits to expect (``POST /_emulator/ideal``: the old region, its new text, the file's
path) and a request whose editable region is one of them is answered with its true
result, in the shape the request asks for:

- a request whose text shows the V4A patch envelope (``*** Begin Patch``: the text
  patch format of docs/model-protocol.md) gets the edit as a V4A patch in that
  envelope (``patches.v4a_text``, 3 quoted lines each side), or the whole region when
  a patch cannot say it;
- any other gets the whole new region in one fence (longer than any fence line in it);
- a request that offers the `apply_patch` tool (``tools: [{"type": "apply_patch"}]``)
  gets an ``apply_patch_call`` output item, as the SDK's ``ResponseApplyPatchToolCall``
  types it (an ``update_file`` operation with the path and the diff), streamed by
  ``replies.stream_patch_call``.

A known edit may script what a real model gets wrong instead (for the request
path's tests): ``patch``, the diff it answers a patch request with (one that does
not apply, say), and ``whole``, the reply text it answers a whole-region request with.

A request for a region it does not know goes to the scripted model (``model.py``). The
region is matched as the request shows it: without the cursor marker, without its last
line break, with LF line breaks.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from sparkls.emulator.patches import BEGIN, END, UPDATE, v4a_diff, v4a_text
from sparkls.emulator.protocol import CURSOR, find_region

_FILE_LINE = re.compile(r"^File: (.+)$", re.MULTILINE)
_FENCE_RUN = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)


@dataclasses.dataclass(frozen=True, slots=True)
class KnownEdit:
    old: str  # the region before the edit
    new: str  # the region after it
    path: str | None = None  # the file, as a patch names it (else the request's "File:" line)
    patch: str | None = None  # the diff a patch request gets instead of the true one (scripted mistakes)
    whole: str | None = None  # the reply text a whole-region request gets instead of the fenced region


def _key(region: str) -> str:
    text = region.replace(CURSOR, "").replace("\r\n", "\n").replace("\r", "\n")
    return text.rstrip("\n")  # a region ending in blank lines is shown without them (protocol.find_region)


def fenced(new: str) -> str:
    """The whole region in one fence, longer than any fence line it holds."""
    longest = max((len(m.group(1)) for m in _FENCE_RUN.finditer(new)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{new.removesuffix(chr(10))}\n{fence}"


def asks_for_patch(request_text: str) -> bool:
    """Whether the request offers the text patch format (it shows its envelope)."""
    return BEGIN in request_text


def offers_patch_tool(body: Any) -> bool:
    """Whether a Responses request offers the `apply_patch` tool."""
    tools = body.get("tools") if isinstance(body, dict) else None
    return isinstance(tools, list) and any(isinstance(t, dict) and t.get("type") == "apply_patch" for t in tools)


class IdealModel:
    """The edits the ideal model knows, by their old region."""

    def __init__(self) -> None:
        self._edits: dict[str, KnownEdit] = {}

    def __len__(self) -> int:
        return len(self._edits)

    def learn(self, edits: list[KnownEdit]) -> None:
        """Know these edits (besides those already known)."""
        for edit in edits:
            self._edits[_key(edit.old)] = edit

    def forget(self) -> None:
        self._edits.clear()

    def known(self, request_text: str) -> KnownEdit | None:
        """The known edit of the request's editable region, if any."""
        bounds = find_region(request_text)
        if bounds is None:
            return None
        return self._edits.get(_key(request_text[bounds[0] : bounds[1]]))

    def answer(self, request_text: str) -> str | None:
        """The exact answer to the request in the shape it asks for; None when its
        region is not a known edit's."""
        edit = self.known(request_text)
        if edit is None:
            return None
        if asks_for_patch(request_text):
            path = _path(edit, request_text)
            scripted = None if edit.patch is None else f"{BEGIN}\n{UPDATE}{path}\n{edit.patch}{END}\n"
            patch = v4a_text(path, edit.old, edit.new) if scripted is None else scripted
            if patch is not None:
                return patch
        return fenced(edit.new) if edit.whole is None else edit.whole

    def apply_patch_call(self, request_text: str, *, item_id: str, call_id: str) -> dict[str, Any] | None:
        """The ``apply_patch_call`` output item answering the request with the known
        edit's patch; None when the region is not known or a patch cannot say the edit."""
        edit = self.known(request_text)
        diff = None if edit is None else edit.patch or v4a_diff(edit.old, edit.new)
        if edit is None or diff is None:
            return None
        operation = {"type": "update_file", "path": _path(edit, request_text), "diff": diff}
        return {"type": "apply_patch_call", "id": item_id, "call_id": call_id, "status": "completed",
                "operation": operation}


def _path(edit: KnownEdit, request_text: str) -> str:
    if edit.path:
        return edit.path
    named = _FILE_LINE.search(request_text)
    return named.group(1).strip() if named else "file"


def known_edits(body: Any) -> list[KnownEdit]:
    """The edits of a ``POST /_emulator/ideal`` body (``{"edits": [{"old", "new", "path"?,
    "patch"?, "whole"?}]}``);
    ValueError when it is not that."""
    edits = body.get("edits") if isinstance(body, dict) else None
    if not isinstance(edits, list):
        raise ValueError('expected {"edits": [{"old": ..., "new": ..., "path": ...}, ...]}')
    out = []
    for i, edit in enumerate(edits):
        if not (isinstance(edit, dict) and isinstance(edit.get("old"), str) and isinstance(edit.get("new"), str)):
            raise ValueError(f"edit {i}: needs \"old\" and \"new\" strings")
        for field in ("path", "patch", "whole"):
            if edit.get(field) is not None and not isinstance(edit[field], str):
                raise ValueError(f"edit {i}: \"{field}\" must be a string")
        out.append(KnownEdit(edit["old"], edit["new"], edit.get("path"), edit.get("patch"), edit.get("whole")))
    return out
