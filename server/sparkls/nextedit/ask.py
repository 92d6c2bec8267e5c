"""One next-edit question to the fast tier: candidates -> prompt -> answer -> suggestion.

`ask_next_edit` finds the candidate regions (`candidates.py`); with none it returns
None without asking the model (a burst of plain typing costs nothing). Otherwise it
renders the prompt (`prompt.py`), asks the fast tier, reads which region the model
rewrote and its new text (`edits/reply.py`, as for any edit), checks that the text
parses, and returns the rewrite as an `EditOutcome` for the document as it is now
(the rewrite tail, edits/tail.py: rebased past typing elsewhere, `StaleEdit` when
the typing touched the region). A question still streaming when the user types on is
steered (`response.steer`, models/steering.py) with the newer question instead of
being abandoned: its answer is then read against the newer one (`Asking`).
A candidate that holds what looks like a secret is never shown; everything shown
goes through the guard (`RequestEnv.seal`), the lines around a candidate included.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sparkls.context.region import MAX_REGION_CHARS, has_line_over
from sparkls.documents.store import Document
from sparkls.edits.reply import RegionView
from sparkls.edits.tail import EditOutcome, finish, read_region, region_shift
from sparkls.guard import Guard
from sparkls.guard.wire import Wire
from sparkls.models.collect import Reply
from sparkls.models.steering import Steering

# An edit in a line longer than this (minified code) asks nothing, here or in other
# files: reading what it renamed compares the words of the lines it touches, which
# costs their square (10 ms at 4,000 characters, 1.6 s at 48,000, 30 s at 200,000).
MAX_LINE_CHARS = 4_000
# How long a newer question waits for the one in flight on a lane to be created (or its
# successor), so as to steer into it rather than stop it and ask anew.
STEER_WAIT = 2.0
from sparkls.request.environment import RequestEnv
from sparkls.nextedit.candidates import find_candidates
from sparkls.nextedit.history import Edit
from sparkls.nextedit.prompt import (
    ShownRegion, read_answers, render_follow_up_prompt, render_next_edit_prompt, typed_on,
)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A region rewrite offered as the next edit, valid at `outcome.version`."""

    outcome: EditOutcome
    new_region: str  # the region's whole new text
    reason: str  # why that region: "use of raduis (now radius)"

    @property
    def line(self) -> int:
        """The first changed line (0-based)."""
        return self.outcome.edits[0].start.line

    def span(self, text: str) -> tuple[int, int, str]:
        """(start, end, new text): one replacement covering all of its changes, in
        `text`, widened to whole words (`raduis` -> `radius`, not `ui` -> `iu`)."""
        reps = self.outcome.replacements
        low, high = self.outcome.region_offsets
        start, end = reps[0].start, reps[-1].end
        while start > low and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        while end < high and (text[end].isalnum() or text[end] == "_"):
            end += 1
        pieces, at = [], start
        for r in reps:
            pieces += [text[at : r.start], r.text]
            at = r.end
        return start, end, "".join(pieces) + text[at:end]


def in_long_lines(doc: Document, edits: list[Edit]) -> bool:
    """Whether an edit lies in a line too long to be read for a question (MAX_LINE_CHARS)."""
    return any(has_line_over(doc, e.start, e.end, MAX_LINE_CHARS) for e in edits)


def _shown(guard: Guard, doc: Document, first: int, last: int, reason: str) -> tuple[ShownRegion, RegionView] | None:
    lines, text = doc.lines, doc.text
    start = lines.starts[first]
    end = lines.starts[last + 1] if last + 1 < lines.line_count else len(text)
    if end - start > MAX_REGION_CHARS:
        return None  # a minified line: not read, not shown
    region = text[start:end]
    if guard.holds_secret(region):
        return None
    before = lines.line_text(first - 1).rstrip("\r\n") if first > 0 else ""
    after = lines.line_text(last + 1).rstrip("\r\n") if last + 1 < lines.line_count else ""
    view = RegionView(text, start, end, doc.language_id, (before,) if before else (), (after,) if after else ())
    return ShownRegion(first, region, before, after, reason), view


@dataclass(frozen=True, slots=True)
class Question:
    """One next-edit question, ready to send: the regions shown and the text they were
    taken from (its version and length), and the sealed prompt."""

    shown: tuple[tuple[ShownRegion, RegionView], ...]
    prompt: Wire
    steer: Wire  # the same question, told as newer typing to a question still being answered
    version: int
    length: int
    started: float
    ready: float


@dataclass(eq=False, slots=True)
class Asking:
    """A question at the model, and the questions steered into it (`response.steer`)
    when the user typed on: its answer is read against the one the service took last
    (`answered`), whoever asked for it and whether or not they are still waiting."""

    steering: Steering = field(default_factory=Steering)
    question: Question | None = None  # its own
    task: asyncio.Task[Any] | None = None
    steered: bool = False  # this question went into an earlier one still streaming
    steered_in: dict[Wire, Question] = field(default_factory=dict)  # newer questions sent into it, by prompt

    def answered(self, reply: Reply) -> Question | None:
        """The question `reply` answers: the newest one a successor took, else its own."""
        if reply.steered and self.steering.committed:
            return self.steered_in.get(self.steering.committed[-1], self.question)
        return self.question

    @property
    def steerable(self) -> bool:
        return self.question is not None and self.steering.live


async def prepare_question(env: RequestEnv, doc: Document, edits: list[Edit], *, limit: int = 3) -> Question | None:
    """The question `edits` raise in `doc` now; None when there is no candidate, or
    when an edit lies in lines too long to be shown (a minified line: never read)."""
    started = time.perf_counter()
    version, lines, text = doc.version, doc.lines, doc.text  # what it is asked about, whatever the seal's wait
    if in_long_lines(doc, edits):
        return None
    candidates = find_candidates(doc, edits, edits[-1].end, limit=limit)
    shown = [s for c in candidates if (s := _shown(env.guard, doc, c.first, c.last, c.reason))]
    if not shown:
        return None
    diffs = [e.diff(text, lines.line_of(e.start)) for e in edits]
    path = env.path(doc.uri)
    draft = render_next_edit_prompt(path, doc.uri, doc.language_id, diffs, lines.line_of(edits[-1].end), [r for r, _ in shown])
    prompt, steer = await env.seal(draft), await env.seal(typed_on(draft))
    return Question(tuple(shown), prompt, steer, version, len(text), started, time.perf_counter())


async def prepare_follow_up(
    env: RequestEnv, doc: Document, edited: tuple[str, str], diffs: list[str], sites: list[tuple[int, int, str]],
    *, limit: int = 3,
) -> Question | None:
    """The question another file's edits (`edited`: its path and uri; `diffs`) raise
    in the open document `doc` at `sites` (from `elsewhere.find_sites`, first `limit`)."""
    started = time.perf_counter()
    version, length = doc.version, len(doc.text)
    shown = [s for first, last, reason in sites if (s := _shown(env.guard, doc, first, last, reason))][:limit]
    if not shown:
        return None
    draft = render_follow_up_prompt(
        edited[0], diffs, edited[1], env.path(doc.uri), doc.uri, doc.language_id, [r for r, _ in shown]
    )
    prompt, steer = await env.seal(draft), await env.seal(typed_on(draft))
    return Question(tuple(shown), prompt, steer, version, length, started, time.perf_counter())


async def ask_follow_up(env: RequestEnv, doc: Document, question: Question, asking: Asking) -> Suggestion | None:
    """The next edit in `doc` that another file's edits ask for: the first region the
    answer rewrites, offered as any next edit is."""
    asking.question = question
    reply = await env.fast.complete(question.prompt, steering=asking.steering)
    return read_suggestion(env, doc, asking.answered(reply) or question, reply)


async def ask_next_edit(
    env: RequestEnv,
    doc: Document,
    edits: list[Edit],
    *,
    limit: int = 3,
    on_request: Callable[[], None] | None = None,
    asking: Asking | None = None,
    previous: Asking | None = None,
) -> Suggestion | None:
    """The next edit that follows from `edits` in `doc`, or None (no candidate, or
    the model sees nothing to do). With `previous`, a question still streaming for
    this document: the new question is steered into it (its answer then comes from
    that request, read against this question: None here), or, when it cannot be, the
    old one is cancelled and this one asked. `asking`: this question's own record."""
    question = await prepare_question(env, doc, edits, limit=limit)
    if previous is not None and question is not None and previous.question is not None and not previous.steerable:
        await previous.steering.ready(STEER_WAIT)  # sent on a lane, its response not created yet
    if previous is not None and question is not None and previous.steerable:
        previous.steered_in[question.prompt] = question  # before: the steer may commit after we are gone
        if await previous.steering.steer(question.steer, whole=question.prompt):
            if asking is not None:
                asking.steered = True
            return None
    if previous is not None and previous.task is not None and not previous.task.done():
        previous.task.cancel()
        await asyncio.wait([previous.task])
    if question is None:
        return None
    if on_request is not None:
        on_request()
    asking = asking or Asking()
    asking.question = question
    reply = await env.fast.complete(question.prompt, steering=asking.steering)
    return read_suggestion(env, doc, asking.answered(reply) or question, reply)


def read_suggestion(env: RequestEnv, doc: Document, question: Question, reply: Reply) -> Suggestion | None:
    """The suggestion `reply` makes for `question`, in `doc` as it is now."""
    path, session = env.path(doc.uri), env.fast
    answers = read_answers(reply.text, len(question.shown))  # a follow-up's may rewrite several: the first
    if not answers:
        return None
    answer = answers[0]
    region, view = question.shown[answer[0]]
    new_region = read_region(answer[1], view, path)
    if new_region == view.old:
        return None
    start = view.start + region_shift(
        env.store, doc, question.version, question.length, view.start, view.end, path=path,
        what="next-edit suggestion", touched=f"{path} changed where the next edit was to go; the suggestion was dropped.",
    )
    timings = {"context": (question.ready - question.started) * 1000, "wait": reply.wait_ms, "ttft": reply.ttft_ms,
               "stream": reply.stream_ms, "total": (time.perf_counter() - question.started) * 1000}
    outcome = finish(
        doc, start, view.old, new_region, reply=reply, tier=session.name, model=session.tier.model,
        timings_ms=timings, kind="lines",
    )
    return Suggestion(outcome, new_region, region.reason)
