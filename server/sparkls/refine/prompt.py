"""The refine turn: what the model is told when asked to revise its last answer.

Continuing the response (`previous_response_id`), the model already has the file
excerpt, the instruction and its own answer: the turn is the new instruction, and the
region's current text when the user changed it since, marked as in the first request
(docs/model-protocol.md). Resent in full, the same turn follows the conversation
(the draft's earlier turns). Drafts of typed parts, for the guard. Pure.
"""

from __future__ import annotations

from sparkls.context.prompt import REGION_END, REGION_START, fence_tag
from sparkls.edits.ask import Ask, answer_section, answered
from sparkls.guard import PATCH_TOOL, Draft, Earlier, FromFile, FromUser, Section, fenced
from sparkls.guard.wire import Wire
from sparkls.refine.record import LastEdit

REVISE = "Revise your last answer (the editable region you rewrote) as follows: "
ANSWER_AGAIN = (
    "Answer as before: the complete new text of the editable region in one fenced code block, "
    "without the marker lines. Keep every line the instruction does not ask to change."
)


def refine_sections(
    record: LastEdit, instruction: str, current: FromFile | None, answer: Section | None = None,
) -> tuple[Section, ...]:
    """The new turn; `current`: the region as the user changed it, to be rewritten;
    `answer`: how to answer, when not with the whole region as before (edits/ask.py)."""
    sections = []
    if current is not None:
        region = current.text.removesuffix("\n").removesuffix("\r")
        body = (REGION_START + "\n", FromFile(region, current.path, current.uri, current.lines, rewrite=True), "\n" + REGION_END)
        sections.append(
            Section.of(
                "The user has changed the editable region since your answer. It now reads:\n",
                *fenced(body, fence_tag(record.language_id)),
            )
        )
    sections.append(Section.of(REVISE, FromUser(instruction.strip())))
    sections.append(answer or Section.of(ANSWER_AGAIN))
    return tuple(sections)


ADD_TO = "While you were answering, the user added to the instruction: "
ANSWER_BOTH = (
    "Answer with the complete new text of the editable region in one fenced code block, without the marker "
    "lines, following the first instruction and this addition."
)


def steer_drafts(sent: Wire, instruction: str) -> tuple[Draft, Draft]:
    """(the words to add to an edit still streaming, the whole conversation with them)."""
    turn = (Section.of(ADD_TO, FromUser(instruction.strip())), Section.of(ANSWER_BOTH))
    earlier = (*(Earlier("user" if r == "user" else "assistant", t) for r, t in sent.history), Earlier("user", sent.input))
    return Draft(sent.instructions, turn), Draft(sent.instructions, turn, earlier)


def refine_drafts(record: LastEdit, instruction: str, current: FromFile | None, ask: Ask = "whole") -> tuple[Draft, Draft]:
    """(the short turn, the whole conversation with it) for revising `record`, asking
    for `ask`. The short turn answers the chained response's tool call first (the
    service refuses a continuation that leaves it unanswered); the whole conversation
    shows that call as the patch text it stands for, so it has none to answer."""
    tools = (PATCH_TOOL,) if ask == "tool" else ()
    turn = refine_sections(record, instruction, current, None if ask == "whole" else answer_section(ask, record.path))
    earlier = tuple(Earlier("user" if role == "user" else "assistant", text) for role, text in record.history)
    short = answered(Draft(record.instructions, turn, tools=tools), record.call, record.path)
    return short, Draft(record.instructions, turn, earlier, tools)
