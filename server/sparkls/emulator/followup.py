"""The scripted model continuing a conversation: "no — shorter" about its last answer.

A request continues an earlier answer when it names it (``previous_response_id``:
the emulator looks the answer up) or carries it (an ``assistant`` message in
``input``: a conversation resent in full). Then, as a real model continuing the
conversation would, the scripted model works from its previous answer: the region is
the code of that answer, and the directives of the new turn only (``REPLACE a WITH
b``, ``COMPLETE x``, or the plain words ``understanding.py`` follows, "keep the
old name" included) apply to it. A new turn that shows the region again between the
region markers (the user changed it since) is answered from that text instead. Pure.
"""

from __future__ import annotations

import re
from typing import Any

from sparkls.emulator import model, nextedit
from sparkls.emulator.protocol import find_region
from sparkls.emulator.shapes import render

_FENCED = re.compile(r"^(`{3,})[^\n`]*\n(.*?)\n\1[ \t]*$", re.MULTILINE | re.DOTALL)


def split_conversation(body: dict[str, Any]) -> tuple[str | None, str]:
    """(the last assistant message's text in ``input``, or None; the request text
    of what follows it: the instructions and the later input items).

    An assistant message with ``status: "incomplete"`` (an answer cut short, as a
    steered response's is) is no answer to work from: it is left out, and the
    conversation is answered as if it were not there; when the newest turn is itself a
    whole next-edit question (newer typing steered in), a model answers that one."""
    items = body.get("input")
    if not isinstance(items, list):
        return None, model.responses_request_text(body)
    if any(_cut_short(item) for item in items):
        items = [item for item in items if not _cut_short(item)]
        newest = model.responses_request_text({"input": items[-1:]})
        if nextedit.is_next_edit_request(newest):  # a newer question steered in: it alone is answered
            return None, model.responses_request_text({**body, "input": items[-1:]})
        body = {**body, "input": items}
    last = max((i for i, item in enumerate(items) if isinstance(item, dict) and item.get("role") == "assistant"), default=None)
    if last is None:
        return None, model.responses_request_text(body)
    earlier = model.responses_request_text({"input": [items[last]]})
    return earlier, model.responses_request_text({**body, "input": items[last + 1 :]})


def _cut_short(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "assistant" and item.get("status") == "incomplete"


def answer_code(answer: str) -> str:
    """The code of an earlier answer: its (last) fenced block, else the whole text."""
    blocks = _FENCED.findall(answer)
    return blocks[-1][1] if blocks else answer.strip("\n")


def origin_region(body: dict[str, Any]) -> str | None:
    """The editable region of the request a conversation resent in full began with
    (the input before its last assistant message), or None."""
    items = body.get("input")
    if not isinstance(items, list):
        return None
    last = max((i for i, item in enumerate(items) if isinstance(item, dict) and item.get("role") == "assistant"), default=None)
    if last is None:
        return None
    text = model.responses_request_text({"input": items[:last]})
    bounds = find_region(text)
    return None if bounds is None else text[bounds[0] : bounds[1]].replace(model.CURSOR, "")


def continue_answer(previous: str, request_text: str, *, reply: str = "fenced", origin: str | None = None) -> str:
    """The answer to *request_text* continuing the earlier answer *previous*; *origin*:
    the region that answer rewrote, when known (for "keep the old name")."""
    if reply == "empty":
        return ""
    if find_region(request_text) is not None:
        return model.answer(request_text, reply=reply)
    old = answer_code(previous)
    directives = model.parse_directives(request_text)
    new = model.edit_region(old, directives)
    if not (directives.replaces or directives.completes):
        followed = model.follow_words(request_text, old, new, earlier=origin)
        if followed is not None and followed.prose is not None:
            return followed.prose
        new = new if followed is None else followed.region
    return render(reply, new, old, request_text)
