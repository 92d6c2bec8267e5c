"""The refine turn: what the model is told when asked to revise its last answer.

Continuing the response (`previous_response_id`), the model already has the file
excerpt, the instruction and its own answer: the turn is the new instruction, and the
region's current text when the user changed it since, marked as in the first request
(DESIGN.md's model protocol). Resent in full, the same turn follows the conversation
(`Prompt.history`). Pure.
"""

from __future__ import annotations

from sparkls.context.prompt import REGION_END, REGION_START, Prompt, fenced
from sparkls.guard.secrets import redact
from sparkls.refine.record import LastEdit

REVISE = "Revise your last answer (the editable region you rewrote) as follows: "
ANSWER_AGAIN = (
    "Answer as before: the complete new text of the editable region in one fenced code block, "
    "without the marker lines. Keep every line the instruction does not ask to change."
)


def refine_input(instruction: str, language_id: str, current: str | None) -> str:
    """The new turn; `current`: the region's text when the user changed it."""
    parts = []
    if current is not None:
        region = current.removesuffix("\n").removesuffix("\r")
        parts.append(
            "The user has changed the editable region since your answer. It now reads:\n"
            + fenced(f"{REGION_START}\n{region}\n{REGION_END}", language_id)
        )
    parts.append(REVISE + redact(instruction)[0].strip())
    parts.append(ANSWER_AGAIN)
    return "\n\n".join(parts)


def refine_prompts(record: LastEdit, instruction: str, current: str | None) -> tuple[Prompt, Prompt]:
    """(the short turn, the whole conversation with it) for revising `record`."""
    turn = refine_input(instruction, record.language_id, current)
    return Prompt(record.instructions, turn), Prompt(record.instructions, turn, record.history)
