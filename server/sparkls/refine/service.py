"""Refine the last edit of a document: the book of last edits, and the refine itself.

`RefineBook` keeps one `LastEdit` per document (the last sparkls edit, quick fix or
comment instruction applied there, or the last refine) and asks the fast tier to hold
the socket that served it (`TierSession.hold`), so that the continuation finds the
response in that connection's memory. `run_refine` sends the follow-up turn
(`TierSession.follow`: continued with `previous_response_id` where the chain holds,
else the whole conversation) and returns the reply as an `EditOutcome` of the
region as it is now: one versioned edit, rebased over typing elsewhere, refused when
the typing touched the region. No LSP types.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sparkls.guard.exclusions import PathFilter
from sparkls.context.region import Region
from sparkls.guard.secrets import redact
from sparkls.documents.store import Document, DocumentStore
from sparkls.edits.diff import Replacement, diff_replacements
from sparkls.edits.instruction import CommentInstruction, model_instruction, strip_comment
from sparkls.edits.reply import RegionView, new_region_text
from sparkls.edits.validate import check_region_parses
from sparkls.fastedit.engine import (
    MAX_REGION_CHARS, EditOutcome, PositionedEdit, check_may_send, display_path, edit_timings, region_shift,
    with_surrogates,
)
from sparkls.errors import EditError, NothingToRefine
from sparkls.models.chain import FollowUp, Turn
from sparkls.models.session import TierSession
from sparkls.refine.prompt import refine_prompts
from sparkls.refine.record import LastEdit, Located, conversation, locate, settled


class RefineBook:
    """Each open document's last sparkls edit."""

    def __init__(self) -> None:
        self._last: dict[str, LastEdit] = {}

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
        )
        self.forget(outcome.uri, session)
        session.hold(turn.chain)
        self._last[outcome.uri] = record

    def forget(self, uri: str, session: TierSession) -> None:
        old = self._last.pop(uri, None)
        if old is not None:
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


async def run_refine(
    store: DocumentStore,
    session: TierSession,
    book: RefineBook,
    uri: str,
    instruction: str,
    *,
    root: Path | None = None,
    path_filter: PathFilter | None = None,
    notify: Callable[[str], None] | None = None,
    comment: CommentInstruction | None = None,
) -> EditOutcome:
    """The last edit of `uri` revised by `instruction`, as an edit of the document now;
    or by `comment`, a `spark:` comment the user wrote on its lines (then removed by
    the same edit, as for a comment instruction)."""
    started = time.perf_counter()
    path = display_path(uri, root)
    doc = store.get(uri)
    record, where = book.locate(doc, path)
    if not instruction.strip():
        raise EditError("A refine needs an instruction (what to change in the last edit); nothing was sent.")
    check_may_send(uri, root, path_filter or PathFilter())
    _check_sendable(where, doc, path)
    if comment is not None:
        if not where.start <= comment.start < where.end:
            raise NothingToRefine(f"The `spark:` comment is not on the lines of the last Spark edit in {path}.")
        instruction = model_instruction(comment)
    short, full = refine_prompts(record, instruction, where.text if where.changed else None)
    version, length = doc.version, len(doc.text)
    context_done = time.perf_counter()

    reply = await session.follow(FollowUp(record.chain, short, full), notify=notify)
    replied = time.perf_counter()

    start = where.start + region_shift(
        store, doc, version, length, where.start, where.end, path=path, what="refine",
        touched=f"You edited the lines of the last Spark edit in {path} while Spark was refining them; "
        "nothing was changed. Run the refine again.",
    )
    end = start + len(where.text)
    view = RegionView(doc.text, start, end, doc.language_id)
    new = with_surrogates(where.text, new_region_text(reply.text, view), path)
    if comment is not None:
        new = strip_comment(new, comment)
    first, last = doc.position(start).line, doc.position(max(start, end - 1)).line
    check_region_parses(doc, Region(first, last, start, end, "definition"), new)
    replacements = [Replacement(start + r.start, start + r.end, r.text) for r in diff_replacements(where.text, new)]
    finished = time.perf_counter()
    return EditOutcome(
        uri=uri,
        version=doc.version,
        edits=[PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements],
        tier=session.name,
        model=session.tier.model,
        transport=reply.transport,
        attempts=reply.attempts,
        region_lines=(first, last),
        timings_ms=edit_timings(reply, started, context_done, replied, finished),
        region_offsets=(start, end),
        replacements=replacements,
        text_length=len(doc.text),
        turn=Turn(full, reply.text, reply.chain, reply.chained),
    )


def _check_sendable(where: Located, doc: Document, path: str) -> None:
    """The region's current text goes to the model only if it may (as for an edit)."""
    if not where.changed:
        return
    lines = f"Lines {doc.position(where.start).line + 1}-{doc.position(max(where.start, where.end - 1)).line + 1}"
    if len(where.text) > MAX_REGION_CHARS:
        raise EditError(f"{lines} of {path} are now {len(where.text):,} characters, more than sparkls sends; nothing was sent.")
    if redact(where.text)[1]:
        raise EditError(
            f"{lines} of {path} now hold what looks like a secret (a key, token or password); sparkls does not "
            "send secrets, so nothing was sent."
        )
