"""Asking for a patch or the whole region, and reading the answer (edits/ask.py), with the
wire it makes (the apply_patch tool, a tool call's output) and the events it reads."""

from __future__ import annotations

import pytest

from sparkls.documents.store import DocumentStore
from sparkls.edits.ask import asked, answered, choose_ask, read_answer, turn_text
from sparkls.edits.reply import RegionView
from sparkls.errors import PatchRefused
from sparkls.guard import PATCH_TOOL, Draft, Guard, Section
from sparkls.models.answer import AnswerBuilder
from sparkls.models.collect import Reply
from sparkls.models.events import Completed, PatchCall, Where, chat_body, classify, responses_body

LONG = "".join(f"    value_{i} = compute_something_long(argument_{i}, another_argument_{i})\n" for i in range(20))
REGION = "def build():\n" + LONG + "    return value_0\n"
SHORT = "x = 1\n"
WHERE = Where("fast", "127.0.0.1", "spark")


def test_a_long_region_is_asked_as_a_patch_the_tool_on_responses_the_text_on_chat():
    assert choose_ask(REGION, "calc.py", "responses") == "tool"
    assert choose_ask(REGION, "calc.py", "chat") == "text"
    assert choose_ask(SHORT, "calc.py", "responses") == "whole"


def test_the_tool_is_offered_on_the_wire_and_the_text_form_shows_its_envelope():
    draft = Draft("Rewrite.", (Section.of("region"),))
    tool = Guard(None).seal(asked(draft, "tool", "calc.py"))
    body = responses_body("spark", tool)
    assert body["tools"] == [{"type": "apply_patch"}] and tool.tools == (PATCH_TOOL,)
    assert "apply_patch tool" in tool.input and "*** Begin Patch" not in tool.input
    text = Guard(None).seal(asked(draft, "text", "calc.py"))
    assert "tools" not in responses_body("spark", text) and "*** Begin Patch" in text.input
    assert "tools" not in chat_body("spark", text)
    whole = Guard(None).seal(asked(draft, "whole", "calc.py"))
    assert "tools" not in responses_body("spark", whole) and whole.input == "region"


def test_a_continuation_answers_the_tool_call_before_its_turn():
    draft = answered(Draft("Rewrite.", (Section.of("Revise: shorter names"),)), "call_1", "calc.py")
    items = responses_body("spark", Guard(None).seal(draft), previous_response_id="resp_1")["input"]
    assert items[0] == {"type": "apply_patch_call_output", "call_id": "call_1", "status": "completed",
                        "output": "The patch was applied to calc.py."}
    assert items[1]["role"] == "user"
    assert answered(draft, None, "calc.py") == draft


def _done(item: dict) -> dict:
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


CALL = {"type": "apply_patch_call", "id": "apc_1", "call_id": "call_1", "status": "completed",
        "operation": {"type": "update_file", "path": "calc.py", "diff": "@@\n-    return value_0\n+    return value_1\n"}}


def test_an_apply_patch_call_is_read_from_the_stream_or_from_the_completed_output():
    event = classify(_done(CALL), WHERE)
    assert event == PatchCall("apc_1", "call_1", "update_file", "calc.py", CALL["operation"]["diff"])
    builder = AnswerBuilder(WHERE)
    builder.feed(event)
    assert builder.answer(Completed("resp_1")) == "" and builder.patch_call(Completed("resp_1")) == event
    listed = AnswerBuilder(WHERE)
    assert listed.patch_call(Completed("resp_1", output=(CALL,))) == event


def _view() -> RegionView:
    store = DocumentStore()
    doc = store.open("file:///w/calc.py", REGION, 1, "python")
    return RegionView(doc.text, 0, len(REGION), "python")


def _reply(text: str = "", call: PatchCall | None = None) -> Reply:
    return Reply(text, "resp_1", 0.0, 0.0, patch=call)


def test_the_tool_calls_patch_is_applied_to_the_region():
    call = PatchCall("apc_1", "call_1", "update_file", "calc.py", "@@\n-    return value_0\n+    return value_1\n")
    new = read_answer(_reply(call=call), _view(), "calc.py", "tool")
    assert new == REGION.replace("return value_0", "return value_1")
    assert turn_text(_reply(call=call)).startswith("*** Begin Patch\n*** Update File: calc.py\n@@\n")


@pytest.mark.parametrize("operation, path, diff", [
    ("update_file", "calc.py", "@@\n-    return value_9\n+    return value_1\n"),  # quotes a line the region lacks
    ("update_file", "other.py", "@@\n-    return value_0\n+    return value_1\n"),  # another file
    ("delete_file", "calc.py", ""),
    ("create_file", "calc.py", "+x\n"),
])
def test_a_tool_call_that_cannot_be_applied_whole_is_refused(operation, path, diff):
    with pytest.raises(PatchRefused):
        read_answer(_reply(call=PatchCall("apc_1", "call_1", operation, path, diff)), _view(), "calc.py", "tool")


def test_a_model_offered_a_patch_may_still_answer_with_the_whole_region():
    new = REGION.replace("return value_0", "return value_2")
    assert read_answer(_reply(f"```python\n{new}```"), _view(), "calc.py", "tool") == new
    text_patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return value_0\n+    return value_2\n*** End Patch\n"
    assert read_answer(_reply(text_patch), _view(), "calc.py", "text") == new
