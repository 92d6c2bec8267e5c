"""An `apply_patch_call` output item read from a Responses stream: the edit made through the tool. Pure.

The SDK's `ResponseApplyPatchToolCall`: an item of type ``apply_patch_call`` with an
``id``, the ``call_id`` a continuation answers (``apply_patch_call_output``, sent by
`events.response_create` from the guard's `Wire.outputs`), a ``status`` and an
``operation`` (``update_file`` with ``path`` and ``diff`` in V4A; ``create_file``,
``delete_file``). `events.classify` turns a done one into a `PatchCall`; `answer.py`
keeps the response's last (edits/ask.py reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PatchCall:
    """An `apply_patch_call` output item, done: the model's edit through the
    `apply_patch` tool (the SDK's `ResponseApplyPatchToolCall`). `operation` is its
    operation's type (`update_file`; `create_file` and `delete_file` are refused by
    the edit), `path` and `diff` (V4A hunks) as it names them."""

    item: str
    call_id: str
    operation: str
    path: str
    diff: str


def patch_call(item: dict[str, Any], key: str = "") -> PatchCall | None:
    """The `apply_patch_call` of an output item, if it is one."""
    if item.get("type") != "apply_patch_call":
        return None
    operation = item.get("operation") if isinstance(item.get("operation"), dict) else {}
    return PatchCall(
        key or str(item.get("id") or ""), str(item.get("call_id") or ""), str(operation.get("type") or ""),
        str(operation.get("path") or ""), str(operation.get("diff") or ""),
    )
