"""The emulator's ideal model: each known edit answered exactly, in the shape asked for."""

from __future__ import annotations

import httpx
import pytest
from openai.types.responses import ResponseApplyPatchToolCall

from sparkls.config import Settings
from sparkls.context.prompt import prepare_draft
from sparkls.edits.patch import region_from_diff, region_from_reply
from sparkls.edits.reply import RegionView
from sparkls.edits.tail import read_region
from sparkls.emulator import Emulator
from sparkls.emulator.ideal import IdealModel, KnownEdit, known_edits
from sparkls.emulator.model import responses_request_text
from sparkls.guard import Draft
from sparkls.models.events import responses_body
from tests.real_edits import RealEdit, load
from tests.sealing import seal

# Every fourth edit of the corpus: every stratum and language, a quick test.
SAMPLE = [e for i, e in enumerate(load()) if i % 4 == 0 and e.old_region.strip()]
PATCH_FORMAT = "Answer with a patch:\n*** Begin Patch\n*** Update File: <path>\n@@\n...\n*** End Patch"


def request_body(edit: RealEdit, *, patch: bool = False) -> tuple[dict, RegionView]:
    """The body sparkls sends for the edit (the commit's subject as the instruction),
    optionally offering the text patch format, and the region as the model is shown it."""
    doc = edit.document()
    ctx, draft = prepare_draft(doc, *edit.selection, path=edit.path, settings=Settings(), instruction=edit.subject)
    if patch:
        draft = Draft(draft.instructions + "\n" + PATCH_FORMAT, draft.sections)
    body = responses_body("spark", seal(draft))
    return body, RegionView.of(ctx, doc.text, edit.language_id)


def ideal_for(edits: list[RealEdit]) -> IdealModel:
    ideal = IdealModel()
    ideal.learn([KnownEdit(e.old_region, e.new_region, e.path) for e in edits])
    return ideal


@pytest.mark.parametrize("edit", SAMPLE, ids=lambda e: e.name)
def test_a_known_edit_is_answered_exactly_as_the_whole_region(edit: RealEdit):
    """A request as sparkls sends it gets the true new region, which sparkls reads back byte for byte."""
    body, view = request_body(edit)
    answer = ideal_for(SAMPLE).answer(responses_request_text(body))
    assert answer is not None and "*** Begin Patch" not in answer
    assert read_region(answer, view, edit.path) == edit.new_region


@pytest.mark.parametrize("edit", SAMPLE, ids=lambda e: e.name)
def test_a_known_edit_is_answered_exactly_as_a_patch_when_asked(edit: RealEdit):
    """A request offering the text patch format gets a V4A patch that applies to the true new region."""
    body, view = request_body(edit, patch=True)
    answer = ideal_for(SAMPLE).answer(responses_request_text(body))
    assert answer is not None and answer.startswith("*** Begin Patch\n*** Update File: " + edit.path)
    assert region_from_reply(answer, view, path=edit.path) == edit.new_region


@pytest.mark.parametrize("edit", SAMPLE[:12], ids=lambda e: e.name)
def test_the_apply_patch_call_is_the_sdk_type_and_applies(edit: RealEdit):
    """The tool's answer validates as the SDK's ResponseApplyPatchToolCall, and its diff applies exactly."""
    body, view = request_body(edit)
    item = ideal_for([edit]).apply_patch_call(responses_request_text(body), item_id="apc_1", call_id="call_1")
    assert item is not None
    call = ResponseApplyPatchToolCall.model_validate(item)
    assert call.operation.type == "update_file" and call.operation.path == edit.path
    assert region_from_diff(call.operation.diff, view, path=edit.path, named=call.operation.path) == edit.new_region


def test_an_unknown_region_is_left_to_the_scripted_model():
    body, _ = request_body(SAMPLE[0])
    assert ideal_for(SAMPLE[1:]).answer(responses_request_text(body)) is None
    assert IdealModel().answer("no region here") is None


@pytest.mark.parametrize(
    "body",
    [[], {"edits": "x"}, {"edits": [{"old": "a"}]}, {"edits": [{"old": "a", "new": 1}]},
     {"edits": [{"old": "a", "new": "b", "path": 3}]}],
)
def test_a_malformed_list_of_edits_is_refused(body):
    with pytest.raises(ValueError):
        known_edits(body)


@pytest.mark.asyncio
async def test_the_emulator_answers_known_edits_over_http():
    """Told the edits through its control endpoint, the emulator answers them exactly;
    told none, it answers as the scripted model again."""
    edit = SAMPLE[3]
    body, view = request_body(edit)
    body = {**body, "stream": False}
    known = {"edits": [{"old": edit.old_region, "new": edit.new_region, "path": edit.path}]}
    async with Emulator() as emulator, httpx.AsyncClient(base_url=emulator.url) as client:
        assert (await client.post("/_emulator/ideal", json=known)).json() == {"edits": 1}
        assert (await client.get("/_emulator/ideal")).json() == {"edits": 1}
        assert (await client.post("/_emulator/ideal", json={"edits": [{"old": 1}]})).status_code == 400
        response = (await client.post("/responses", json=body)).json()
        text = "".join(part["text"] for item in response["output"] if item["type"] == "message"
                       for part in item["content"])
        assert read_region(text, view, edit.path) == edit.new_region
        assert (await client.post("/_emulator/ideal", json={"edits": []})).json() == {"edits": 0}
        response = (await client.post("/responses", json=body)).json()
        text = "".join(part["text"] for item in response["output"] if item["type"] == "message"
                       for part in item["content"])
        assert text != ideal_for([edit]).answer(responses_request_text(body))
