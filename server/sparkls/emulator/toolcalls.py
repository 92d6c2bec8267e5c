"""The `apply_patch` tool at the emulator: which requests get a call, which continuations are refused.

A request offering the tool (``tools: [{"type": "apply_patch"}]``) whose region the
ideal model knows (``ideal.py``) is answered with an ``apply_patch_call``; a request
that continues (``previous_response_id``) a response that ended with such a call must
answer it first with an ``apply_patch_call_output`` of its ``call_id`` in its input,
or it is refused as the service refuses it (400 ``invalid_request_error`` naming the
call). A continuation in text (a refine) is the scripted model's, as any other.
"""

from __future__ import annotations

import collections
from typing import Any

from sparkls.emulator import followup
from sparkls.emulator.control import Stats
from sparkls.emulator.events import ApiError, new_id
from sparkls.emulator.ideal import IdealModel, fenced, offers_patch_tool

OUTPUT = "apply_patch_call_output"


class PatchCalls:
    """The calls of the last `kept` responses that ended with one, by response id."""

    def __init__(self, ideal: IdealModel, stats: Stats, kept: int) -> None:
        self.ideal, self.stats, self.kept = ideal, stats, kept
        self._calls: collections.OrderedDict[str, str] = collections.OrderedDict()

    def check(self, body: dict[str, Any]) -> None:
        """Count what the request offers and answers; refuse it when it continues a
        response whose call its input leaves unanswered."""
        items = [i for i in body.get("input") or [] if isinstance(i, dict)] if isinstance(body.get("input"), list) else []
        outputs = {i.get("call_id") for i in items if i.get("type") == OUTPUT}
        self.stats.patch_outputs += sum(1 for i in items if i.get("type") == OUTPUT)
        self.stats.tool_offers += offers_patch_tool(body)
        call_id = self._calls.get(body.get("previous_response_id") or "")
        if call_id is not None and call_id not in outputs:
            raise ApiError(400, None, f"No tool output found for apply_patch call {call_id}.", "input",
                           error_type="invalid_request_error")

    def answer(self, body: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
        """The ideal model's ``apply_patch_call`` item for a new request offering the
        tool, and the region it makes (what a continuation works from); None: answer
        in text."""
        earlier, latest = followup.split_conversation(body)
        if not offers_patch_tool(body) or earlier is not None or body.get("previous_response_id"):
            return None
        edit = self.ideal.known(latest)
        item = self.ideal.apply_patch_call(latest, item_id=new_id("apc_"), call_id=new_id("call_"))
        return None if item is None or edit is None else (item, fenced(edit.new))

    def ended(self, response_id: str, item: dict[str, Any]) -> None:
        """The response `response_id` ended with the call `item`: a continuation must answer it."""
        self.stats.patch_calls += 1
        self._calls[response_id] = item["call_id"]
        while len(self._calls) > self.kept:
            self._calls.popitem(last=False)
