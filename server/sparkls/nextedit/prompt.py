"""The next-edit prompt and how its answer is read (docs/model-protocol.md, "Next edit").

The request shows the file's recent edits as unified-diff hunks (oldest first), the
cursor's line, and a few numbered candidate regions, each between a line
`<|editable_region_start|>` and a line `<|editable_region_end|>`, with one line of
context on each side. The model answers `Region N` on a line of its own, then the
complete new text of that one region in one fenced code block; or `NO_EDIT` when
nothing follows from the edits. The instructions are the same on every request (the
provider's prompt cache hits); the variable part comes last.

Every piece of the file (the diffs, each candidate and the lines around it) is a
file part of the draft, so the guard checks and redacts each one; a candidate is
the part to be rewritten. `read_answer` returns (region number, reply text for that
region) or None for `NO_EDIT`; the region's new text is then read by the rewrite
tail like any edit's. Pure: no LSP, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkls.context.prompt import REGION_END, REGION_START, fence_tag
from sparkls.errors import NoUsableReply
from sparkls.guard import Draft, FromFile, Section, fenced, joined

NO_EDIT = "NO_EDIT"
RECENT_EDITS = "Recent edits (oldest first):"
NEXT_EDIT_INSTRUCTIONS = f"""\
You are Spark, a code-editing model inside a programmer's editor. You predict the \
programmer's next edit.
The user message shows the edits just made to one file, as unified diffs, oldest \
first; the cursor's line; and numbered candidate regions of the file, each between a \
line {REGION_START} and a line {REGION_END}.
If one candidate region needs a change that follows from the recent edits (a use of \
a renamed name, a call of a changed function, a branch for a new member), answer \
with `Region N` (its number) on a line of its own, then the complete new text of that \
one region in one fenced code block, without the marker lines. Change only what \
follows from the recent edits; keep every other line exactly as it is.
If no region needs such a change, answer {NO_EDIT} and nothing else. Do not explain."""

_LABEL = re.compile(r"^\W*Region\s+(\d+)\b", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ShownRegion:
    """A candidate region as the prompt shows it."""

    first_line: int  # 0-based
    text: str  # its whole lines, as in the document
    before: str  # the line shown above the start marker ("" at the top of the file)
    after: str  # the line shown below the end marker
    reason: str


def render_next_edit_prompt(
    path: str, uri: str, language_id: str, diffs: list[str], cursor_line: int, regions: list[ShownRegion]
) -> Draft:
    sections = [
        Section.of(f"File: {path}"),
        Section.of(RECENT_EDITS + "\n", *fenced(joined(FromFile(d, path, uri) for d in diffs), "diff")),
        Section.of(f"Cursor: line {cursor_line + 1}"),
    ]
    sections += _regions(path, uri, language_id, regions)
    return Draft(NEXT_EDIT_INSTRUCTIONS, tuple(sections))


def _regions(path: str, uri: str | None, language_id: str, regions: list[ShownRegion]) -> list[Section]:
    """Each region of the file `path`, numbered, with a line around it."""
    tag = fence_tag(language_id)
    sections = []
    for number, region in enumerate(regions, 1):
        last = region.first_line + max(1, len(region.text.splitlines()))
        lines = (region.first_line, last - 1)
        shown: list[FromFile | str] = [FromFile(region.before, path, uri)] if region.before else []
        text = region.text.removesuffix("\n").removesuffix("\r")
        shown += [REGION_START, FromFile(text, path, uri, lines, rewrite=True), REGION_END]
        shown += [FromFile(region.after, path, uri)] if region.after else []
        heading = f"Region {number} (lines {region.first_line + 1}-{last}, {region.reason}):\n"
        sections.append(Section.of(heading, *fenced(joined(shown), tag)))
    return sections


FOLLOW_UP_INSTRUCTIONS = f"""\
You are Spark, a code-editing model inside a programmer's editor. You carry an edit \
made in one file over to another file that uses what it changed.
The user message names the edited file and shows its edits as unified diffs, oldest \
first; then numbered regions of another file, each between a line {REGION_START} and \
a line {REGION_END}, that use a name those edits renamed or a function whose \
parameters they changed.
For every region that needs a change following from the edits, answer `Region N` \
(its number) on a line of its own, then the complete new text of that region in one \
fenced code block, without the marker lines. Change only what follows from the \
edits; keep every other line exactly as it is. Leave out the regions that need no \
change; if none does, answer {NO_EDIT} and nothing else. Do not explain."""


def render_follow_up_prompt(
    edited: str, diffs: list[str], edited_uri: str, path: str, uri: str | None, language_id: str,
    regions: list[ShownRegion],
) -> Draft:
    """The question for another file (`path`; `uri` None when it is read from disk)
    about the edits `diffs` made to the file `edited`."""
    sections = [
        Section.of(f"Edited file: {edited}"),
        Section.of(RECENT_EDITS + "\n", *fenced(joined(FromFile(d, edited, edited_uri) for d in diffs), "diff")),
        Section.of(f"File: {path}"),
        *_regions(path, uri, language_id, regions),
    ]
    return Draft(FOLLOW_UP_INSTRUCTIONS, tuple(sections))


_LABEL_LINE = re.compile(r"^[^\w\n`~]*Region\s+(\d+)\b", re.IGNORECASE)
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def _labels(reply: str) -> list[tuple[int, int, int]]:
    """(region number, label start, label end) of each label line outside a code block."""
    found, fence, at = [], None, 0
    for line in reply.splitlines(keepends=True):
        opening = _FENCE_LINE.match(line)
        if fence is None:
            if (label := _LABEL_LINE.match(line)) is not None:
                found.append((int(label.group(1)), at, at + label.end()))
            elif opening is not None:
                fence = opening.group(1)
        elif opening is not None and opening.group(1).startswith(fence) and not line.strip().strip(fence[0]):
            fence = None
        at += len(line)
    return found


def read_answers(reply: str, regions: int) -> list[tuple[int, str]]:
    """(0-based region index, the reply for that region) of each region the reply
    rewrites, in its order; [] for NO_EDIT. A label counts on a line of its own
    outside any code block. Raises NoUsableReply for a label out of range, or an
    unlabelled block where several regions were shown."""
    labels = _labels(reply)
    if not labels:
        return [] if (found := read_answer(reply, regions)) is None else [found]
    answers = []
    for n, (number, _, end) in enumerate(labels):
        if not 1 <= number <= regions:
            raise NoUsableReply(f"The model's answer names region {number}; only {regions} were shown.")
        stop = labels[n + 1][1] if n + 1 < len(labels) else len(reply)
        answers.append((number - 1, reply[end:stop]))
    return answers


TYPED_ON = (
    "The user typed on while you were answering, so the question above is out of date. "
    "Answer this one instead, in the same form:"
)


def typed_on(question: Draft) -> Draft:
    """`question` as input steered into an earlier question still being answered."""
    return Draft(question.instructions, (Section.of(TYPED_ON), *question.sections), question.history)


def read_answer(reply: str, regions: int) -> tuple[int, str] | None:
    """(0-based region index, the reply from its label on) or None for NO_EDIT.

    Raises NoUsableReply for a label out of range, or no label where several regions
    were shown.
    """
    fence = reply.find("```")
    head = reply if fence < 0 else reply[:fence]
    label = _LABEL.search(head)
    if label is None:
        if NO_EDIT in reply.upper().replace(" ", "_") or fence < 0:
            return None
        if regions != 1:
            raise NoUsableReply("The model's next-edit answer does not say which region it rewrites.")
        return 0, reply
    number = int(label.group(1))
    if not 1 <= number <= regions:
        raise NoUsableReply(f"The model's next-edit answer names region {number}; only {regions} were shown.")
    return number - 1, reply[label.end() :]
