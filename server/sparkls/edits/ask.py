"""How a fast rewrite asks for its answer, and how it reads it: a patch or the region.

Every fast-tier rewrite (an edit, a quick fix, a comment instruction, a refine) makes
one decision per request (`edits/shape.py`, `choose_reply_shape`) and says it in its
request's last section, after the region markers and the context, so the stable
parts before it stay cached:

- ``tool``: a tier on the Responses API (WebSocket lanes or pool, SSE) offers the
  `apply_patch` tool (`guard.PATCH_TOOL` on the draft; the transport sends
  ``tools: [{"type": "apply_patch"}]``); the model answers with an ``apply_patch_call``
  whose ``update_file`` diff (V4A hunks) is applied to the region by edits/patch.py;
- ``text``: a tier on Chat Completions (local servers) is shown the V4A envelope
  (``*** Begin Patch`` …) and answers with it as text;
- ``whole``: the region's complete new text in one fence, as the instructions say,
  where that is no longer than a patch, and always when a patch is asked again.

`read_answer` reads a reply whatever shape it came in (a model offered a patch may
still write the whole region); a patch that cannot be applied whole raises
`PatchRefused`, and the request path asks again once for the whole region. Pure.
"""

from __future__ import annotations

from typing import Literal

from sparkls.edits.patch import region_from_diff, region_from_reply
from sparkls.edits.reply import RegionView
from sparkls.edits.shape import choose_reply_shape
from sparkls.edits.v4a import bare_diff, parse_patch
from sparkls.edits.tail import read_region, with_surrogates
from sparkls.errors import PatchRefused
from sparkls.guard import PATCH_TOOL, Draft, Section, ToolOutput
from sparkls.models.collect import Reply

Ask = Literal["whole", "tool", "text"]

ANSWER_WHOLE = (
    "Answer with the complete new text of the editable region in one fenced code block, without the marker lines."
)
ANSWER_TOOL = (
    "Answer by calling the apply_patch tool once: an update_file of {path} whose diff changes only lines of the "
    "editable region, each hunk starting with @@ and quoting enough unchanged lines of the region to be found "
    "exactly once. Do not write the region out."
)
ANSWER_TEXT = """\
Answer with a patch of the editable region instead of its complete text, in this format and nothing else:
*** Begin Patch
*** Update File: {path}
@@
 an unchanged line of the region, to find the change
-a line removed
+a line added
*** End Patch
Each hunk starts with @@ and quotes enough unchanged lines of the region (prefixed by a space) to be found \
exactly once; change only lines of the editable region."""


def choose_ask(region: str, path: str, api: str, *, patches: bool = True) -> Ask:
    """The one decision of a request: a patch where it is shorter than the region (the
    tool on the Responses API, the text form on Chat Completions), else the whole;
    always the whole when the tier's `patches` setting is off."""
    if not patches or not choose_reply_shape(region, path).patch:
        return "whole"
    return "tool" if api == "responses" else "text"


def answer_section(ask: Ask, path: str) -> Section:
    """The request's last section: how to answer."""
    if ask == "tool":
        return Section.of(ANSWER_TOOL.format(path=path))
    if ask == "text":
        return Section.of(ANSWER_TEXT.format(path=path))
    return Section.of(ANSWER_WHOLE)


def asked(draft: Draft, ask: Ask, path: str) -> Draft:
    """`draft` asking for `ask`: a patch's answer section (and the tool) added; a whole
    region is what the fast instructions already ask for, so nothing is added then."""
    if ask == "whole":
        return draft
    shaped = draft.then(answer_section(ask, path))
    return Draft(shaped.instructions, shaped.sections, shaped.history, (PATCH_TOOL,) if ask == "tool" else (),
                 shaped.answered)


def answered(draft: Draft, call_id: str | None, path: str) -> Draft:
    """`draft` sending first the answer to the earlier response's `apply_patch_call`
    `call_id` (the edit it continues was applied), when there is one."""
    if call_id is None:
        return draft
    output = ToolOutput(call_id, "completed", f"The patch was applied to {path}.")
    return Draft(draft.instructions, draft.sections, draft.history, draft.tools, (*draft.answered, output))


def read_answer(reply: Reply, view: RegionView, path: str, ask: Ask, *, may_delete: bool = False) -> str:
    """The region's new text in `reply` (see the module doc): the tool call's patch, a
    text patch, or the whole region; `PatchRefused` (or another `NoUsableReply`) when
    none of them can be used."""
    call = reply.patch
    if call is not None:
        if call.operation != "update_file":
            raise PatchRefused(
                f"The model's patch would {call.operation.replace('_', ' ')} instead of changing {path}, "
                "so nothing was changed.", reason="files",
            )
        return with_surrogates(view.old, region_from_diff(call.diff, view, path=path, named=call.path), path)
    if ask == "whole" or (parse_patch(reply.text) or bare_diff(reply.text)) is None:
        return read_region(reply.text, view, path, may_delete=may_delete)  # the whole region, as ever
    return with_surrogates(view.old, region_from_reply(reply.text, view, path=path), path)


def turn_text(reply: Reply) -> str:
    """What the conversation keeps of `reply` (a later refine resent in full shows it):
    its text, or its tool call as the text patch it stands for."""
    call = reply.patch
    if call is None:
        return reply.text
    diff = call.diff if call.diff.endswith("\n") else call.diff + "\n"
    return f"*** Begin Patch\n*** Update File: {call.path}\n{diff}*** End Patch"
