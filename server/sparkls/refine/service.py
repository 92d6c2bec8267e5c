"""Refine the last edit of a document: the book of last edits, and the refine itself.

`RefineBook` keeps one `LastEdit` per document (the last sparkls edit, quick fix or
comment instruction applied there, or the last refine) and asks the fast tier to hold
the socket that served it (`TierSession.hold`; on a lane nothing is held: a refine forks
from the connection's memory on a lane of its own). `run_refine` sends the follow-up turn
(`TierSession.follow`: continued with `previous_response_id` where the chain holds,
else the whole conversation) and returns the reply as an `EditOutcome` of the
region as it is now: one versioned edit, rebased over typing elsewhere, refused when
the typing touched the region. `steer_in_flight` adds a refine's words to an edit
still streaming instead (request/inflight.py). No LSP types.
"""

from __future__ import annotations

import time

from sparkls.context.region import MAX_REGION_CHARS
from sparkls.documents.store import Document, DocumentStore
from sparkls.edits.instruction import CommentInstruction, model_instruction, strip_comment
from sparkls.edits.reply import RegionView
from sparkls.edits.ask import choose_ask, read_answer, turn_text
from sparkls.edits.tail import EditOutcome, edit_timings, finish, region_shift
from sparkls.errors import EditError, NoUsableReply, NothingToRefine
from sparkls.guard import FromFile
from sparkls.models.chain import FollowUp, Turn
from sparkls.models.session import TierSession
from sparkls.request.inflight import InFlight
from sparkls.refine.prompt import refine_drafts, steer_drafts
from sparkls.refine.record import LastEdit, Located, conversation, locate, settled
from sparkls.request.environment import RequestEnv


class RefineBook:
    """Each open document's last sparkls edit."""

    def __init__(self) -> None:
        self._last: dict[str, LastEdit] = {}
        self._sessions: dict[str, TierSession] = {}  # the session holding each record's socket

    def held(self) -> int:
        return len(self._last)

    def remember(self, store: DocumentStore, outcome: EditOutcome, session: TierSession, path: str) -> None:
        """Keep `outcome` (about to be applied, or offered) as its document's last edit."""
        turn = outcome.turn
        if turn is None or not outcome.edits or not store.has(outcome.uri):
            return
        doc = store.get(outcome.uri)
        if doc.version != outcome.version:
            return  # computed against another version: it cannot be applied as it is
        spans = sorted((doc.offset(e.start), doc.offset(e.end), e.text) for e in outcome.edits)
        start, end = min(outcome.region_offsets[0], spans[0][0]), max(outcome.region_offsets[1], spans[-1][1])
        before = doc.text[start:end]
        text = before
        for s, e, new in reversed(spans):
            text = text[: s - start] + new + text[e - start :]
        record = LastEdit(
            outcome.uri, path, doc.language_id, doc.version, start, end, text, before,
            turn.prompt.instructions, conversation(turn.prompt.history, turn.prompt.input, turn.reply), turn.chain,
            call=turn.call if turn.chain is not None else None,
        )
        self.forget(outcome.uri)
        session.hold(turn.chain)
        self._last[outcome.uri] = record
        self._sessions[outcome.uri] = session

    def forget(self, uri: str) -> None:
        """The document closed (or has a newer last edit): its socket is let go."""
        old, session = self._last.pop(uri, None), self._sessions.pop(uri, None)
        if old is not None and session is not None:
            session.release(old.chain)

    def get(self, uri: str) -> LastEdit | None:
        return self._last.get(uri)

    def locate(self, doc: Document, path: str) -> tuple[LastEdit, Located]:
        """The last edit of `doc` and where its region is now; `NothingToRefine` says why not."""
        record = self._last.get(doc.uri)
        if record is None:
            raise NothingToRefine(f"There is no Spark edit in {path} to refine; nothing was sent.")
        where = locate(record, doc.text, doc.changes_since(record.version))
        record = self._last[doc.uri] = settled(record, doc.version, where)
        return record, where

    def where(self, doc: Document) -> Located | None:
        """Where the last edit's region is in `doc` now; None when there is nothing to refine."""
        try:
            return self.locate(doc, doc.uri)[1]
        except NothingToRefine:
            return None


async def steer_in_flight(env: RequestEnv, edit: InFlight, instruction: str) -> bool:
    """Add `instruction` to the edit of `edit.uri` still streaming (`response.steer`);
    True when the model took it: that edit's own reply answers both. False when it
    could not be steered (not on a lane, not sent yet, already done, or refused)."""
    sent = edit.steering.prompt
    if sent is None or not edit.steering.live or not instruction.strip():
        return False
    env.guard.check_document(edit.uri)
    short, whole = [await env.seal(d) for d in steer_drafts(sent, instruction)]
    return await edit.steering.steer(short, whole=whole)


async def run_refine(
    env: RequestEnv, book: RefineBook, uri: str, instruction: str, *, comment: CommentInstruction | None = None,
) -> EditOutcome:
    """The last edit of `uri` revised by `instruction`, as an edit of the document now;
    or by `comment`, a `spark:` comment the user wrote on its lines (then removed by
    the same edit, as for a comment instruction)."""
    started = time.perf_counter()
    path = env.path(uri)
    doc = env.document(uri)
    record, where = book.locate(doc, path)
    if not instruction.strip():
        raise EditError("A refine needs an instruction (what to change in the last edit); nothing was sent.")
    env.guard.check_document(uri)
    if comment is not None:
        if not where.start <= comment.start < where.end:
            raise NothingToRefine(f"The `spark:` comment is not on the lines of the last Spark edit in {path}.")
        instruction = model_instruction(comment)
    version, length = doc.version, len(doc.text)  # what the drafts are made of; sealing may take a while
    current = _changed(where, doc, path)
    ask = choose_ask(where.text, path, env.fast.tier.api, patches=env.fast.tier.patches)
    short, full = [await env.seal(d) for d in refine_drafts(record, instruction, current, ask)]
    context_done = time.perf_counter()

    while True:
        reply = await env.fast.follow(FollowUp(record.chain, short, full), notify=env.notify)
        start = where.start + region_shift(
            env.store, doc, version, length, where.start, where.end, path=path, what="refine",
            touched=f"You edited the lines of the last Spark edit in {path} while Spark was refining them; "
            "nothing was changed. Run the refine again.",
        )
        view = RegionView(doc.text, start, start + len(where.text), doc.language_id)
        try:
            new = read_answer(reply, view, path, ask, may_delete=True)
            break
        except NoUsableReply:
            if ask == "whole":
                raise
            ask = "whole"  # once more, as the whole region; the user hears only if that fails too
            short, full = [await env.seal(d) for d in refine_drafts(record, instruction, current, ask)]
    replied = time.perf_counter()
    if comment is not None:
        new = strip_comment(new, comment)
    outcome = finish(
        doc, start, where.text, new, reply=reply, tier=env.fast.name, model=env.fast.tier.model, timings_ms={},
        turn=Turn(full, turn_text(reply), reply.chain, reply.chained, reply.patch.call_id if reply.patch else None),
    )
    outcome.timings_ms.update(edit_timings(reply, started, context_done, replied, time.perf_counter()))
    return outcome


def _changed(where: Located, doc: Document, path: str) -> FromFile | None:
    """The region as the user changed it since the edit, to be rewritten (the guard
    refuses it if it now holds a secret); None when unchanged."""
    if not where.changed:
        return None
    lines = doc.lines.span(where.start, where.end)
    if len(where.text) > MAX_REGION_CHARS:
        raise EditError(
            f"Lines {lines[0] + 1}-{lines[1] + 1} of {path} are now {len(where.text):,} characters, "
            "more than sparkls sends; nothing was sent."
        )
    return FromFile(where.text, path, doc.uri, lines, rewrite=True)
