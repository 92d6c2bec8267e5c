"""Next-edit suggestions of a session: history, scheduling and the suggestion's life.

- `record(doc, before, version_before)`: the document changed (a user's keystroke, or
  an edit sparkls or the editor applied). Its changes go into the document's
  `EditHistory`. The suggestion on offer is **accepted** when the changes lie inside
  its region and leave exactly its new text there; any other change **drops** it
  (typing elsewhere, or over it). An event with several changes (an applied edit)
  rebuilds the text between them, one copy per change; a keystroke costs its change.
- `schedule(doc, ask, delay=..., ttl=...)`: ask for the next edit once the document
  has been quiet for `delay` seconds: `LatestOnly` (request/latest.py) runs it,
  so a newer change cancels the older question at once in its debounce. A question
  already streaming on a lane is left running: the newer question is steered into it
  (`response.steer`: its answer then answers the newer one), or, when that cannot be,
  cancels it before it is asked itself; one question per document is read at a time.
  A suggestion that arrives is offered for `ttl` seconds, then dropped. No question is
  asked for an undo or a redo, nor from a history that lost track of the text, and a
  suggestion that would reverse the user's last change or write a name the file holds
  nowhere is refused before it is offered (`safety.py`): a suggestion never damages code.
- `current(doc)`: the suggestion on offer for the document as it is now, or None.

`on_offer(uri, suggestion | None)` is told every time the offer changes (the server
turns it into a `sparkls/nextEdit` notification). Knows nothing of LSP.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sparkls.request.latest import LatestOnly
from sparkls.documents.store import Document, WholeText
from sparkls.errors import SparkError
from sparkls.nextedit.ask import Asking, Suggestion
from sparkls.nextedit.history import EditHistory, Edit
from sparkls.nextedit.safety import consistent, damage

logger = logging.getLogger(__name__)

# (document, its recent edits, this question's record, a question still streaming)
Ask = Callable[[Document, list[Edit], "Asking", "Asking | None"], Awaitable[Suggestion | None]]


@dataclass(slots=True)
class NextEditCounts:
    """What happened to next-edit questions since the session started."""

    questions: int = 0  # debounced questions that ran (candidates looked for)
    model_requests: int = 0  # questions that went to the model (there were candidates)
    superseded: int = 0  # cancelled by a newer change to the same document
    steered: int = 0  # newer questions steered into one still streaming, instead of asked anew
    offered: int = 0  # suggestions offered
    nothing: int = 0  # the model saw nothing to do (or rewrote nothing)
    accepted: int = 0
    dropped: int = 0  # typed over, typed elsewhere, expired, or the document closed
    failed: int = 0  # an unusable answer, a model error, a stale rewrite
    refused: int = 0  # would have reversed the user's last change, or written a name found nowhere
    reverts: int = 0  # changes that undid or redid an edit: no question asked

    def to_json(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class NextEditService:
    def __init__(self, *, history_limit: int = 5) -> None:
        self.history_limit = history_limit
        self.histories: dict[str, EditHistory] = {}
        self.scheduler = LatestOnly()
        self.counts = NextEditCounts()
        self._asking: dict[str, list[Asking]] = {}  # questions at work per document, oldest first
        self.on_offer: Callable[[str, Suggestion | None], None] | None = None
        self._offers: dict[str, tuple[Suggestion, asyncio.TimerHandle]] = {}

    # -- changes --------------------------------------------------------------------

    def record(self, doc: Document, before: str, version_before: int) -> bool:
        """Take in the changes from `version_before` (whose text was `before`) to now;
        True when they accepted the suggestion on offer."""
        changes = doc.changes_since(version_before) or []
        history = self.histories.setdefault(doc.uri, EditHistory(self.history_limit))
        accepted = self._accepts(doc, before, version_before, changes)
        if self._withdraw(doc.uri):
            if accepted:
                self.counts.accepted += 1
            else:
                self.counts.dropped += 1
        text = before
        for n, change in enumerate(changes):
            if isinstance(change, WholeText):
                history.clear()
                break
            history.record(change.start, change.end, text[change.start : change.end], change.text, doc.version)
            if n + 1 < len(changes):  # several changes in one event: each reads the text the last left
                text = text[: change.start] + change.text + text[change.end :]
        return accepted

    def _accepts(self, doc: Document, before: str, version_before: int, changes: list) -> bool:
        offer = self._offers.get(doc.uri)
        if offer is None or offer[0].outcome.version != version_before or not changes:
            return False
        suggestion = offer[0]
        start, end = suggestion.outcome.region_offsets
        for change in changes:
            if isinstance(change, WholeText) or not start <= change.start <= change.end <= end:
                return False
            end += len(change.text) - (change.end - change.start)
        new = suggestion.new_region
        return end - start == len(new) and doc.text[start : start + len(new)] == new and (
            len(doc.text) - len(before) == len(new) - (suggestion.outcome.region_offsets[1] - start)
        )

    # -- questions ------------------------------------------------------------------

    def schedule(self, doc: Document, ask: Ask, *, delay: float, ttl: float) -> asyncio.Task[Suggestion | None]:
        """Ask for the next edit after `delay` seconds of quiet (superseding older work:
        a question still streaming is left running for the new one to steer)."""
        version = doc.version
        before = self.scheduler.superseded

        async def work() -> Suggestion | None:
            # the question in flight: steered into when it can be (once its response is
            # created, on a lane), else stopped before this one is asked
            previous = self._streaming(doc.uri) or self._in_flight(doc.uri)
            history = self.histories.get(doc.uri)
            if history is not None and history.edits and not consistent(history.edits, doc.text):
                logger.warning("next edit: the edit history lost track of %s; it starts again", doc.uri)
                history.clear()
            if history is not None and history.reverting:
                self.counts.reverts += 1  # an undo or a redo: nothing the user made anew to follow
            if doc.version != version or history is None or not history.edits or history.reverting:
                if previous is not None and previous.task is not None:
                    previous.task.cancel()  # spared for a question that is not coming
                return None
            self.counts.questions += 1
            asked, mine = self.counts.model_requests, Asking(task=asyncio.current_task())
            self._asking.setdefault(doc.uri, []).append(mine)
            try:
                found = await ask(doc, list(history.edits), mine, previous)
            finally:
                self._asking[doc.uri] = [a for a in self._asking.get(doc.uri, []) if a is not mine]
            if mine.steered:
                self.counts.steered += 1
            if found is None and self.counts.model_requests > asked:
                self.counts.nothing += 1
            return found

        def spare(task: asyncio.Task[object]) -> bool:
            streaming = self._streaming(doc.uri) or self._in_flight(doc.uri, on_lane=True)
            return streaming is not None and streaming.task is task

        task = self.scheduler.submit(doc.uri, version, work, delay=delay, spare=spare)
        self.counts.superseded += self.scheduler.superseded - before
        task.add_done_callback(lambda t: self._landed(doc, t, ttl))
        return task

    def schedule_elsewhere(
        self, doc: Document, ask: Callable[[Asking], Awaitable[Suggestion | None]], *, ttl: float, diffs: str = "",
    ) -> asyncio.Task[Suggestion | None]:
        """Ask at once for the next edit that another document's edits ask of `doc` (an
        open document that uses what they renamed): one question per document as
        always, superseded by its own typing; its answer is offered as any other
        (`diffs`: those edits, whose names the answer may write)."""
        version = doc.version

        async def work() -> Suggestion | None:
            if doc.version != version:
                return None
            self.counts.questions += 1
            mine = Asking(task=asyncio.current_task())
            self._asking.setdefault(doc.uri, []).append(mine)
            try:
                return await ask(mine)
            finally:
                self._asking[doc.uri] = [a for a in self._asking.get(doc.uri, []) if a is not mine]

        task = self.scheduler.submit(doc.uri, version, work, delay=0.0)
        task.add_done_callback(lambda t: self._landed(doc, t, ttl, diffs))
        return task

    def asked_model(self) -> None:
        self.counts.model_requests += 1

    def _in_flight(self, uri: str, *, on_lane: bool = False) -> Asking | None:
        """The newest question for `uri` asked and not yet answered, steerable now or not
        (`on_lane`: only one sent on a lane, which may become steerable)."""
        return next(
            (a for a in reversed(self._asking.get(uri, []))
             if a.question is not None and a.task is not None and not a.task.done()
             and (not on_lane or a.steering.attached)),
            None,
        )

    def _streaming(self, uri: str) -> Asking | None:
        """The question for `uri` still streaming that newer typing can be steered into."""
        live = [a for a in self._asking.get(uri, []) if a.task is not None and not a.task.done()]
        self._asking[uri] = live
        return next((a for a in reversed(live) if a.steerable), None)

    def _landed(self, doc: Document, task: asyncio.Task[Suggestion | None], ttl: float, elsewhere: str = "") -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.counts.failed += 1
            if isinstance(error, SparkError):
                logger.info("no next-edit suggestion: %s", error)
            else:
                logger.warning("next-edit suggestion failed", exc_info=error)
            return
        found = task.result()
        if found is None:
            return
        if found.outcome.version != doc.version:
            self.counts.dropped += 1  # the user typed on after it was rebased: a newer question comes
            return
        if (why := self._damage(doc, found, elsewhere)) is not None:
            self.counts.refused += 1
            logger.info("next-edit suggestion at line %d refused: %s", found.line + 1, why)
            return
        self._withdraw(doc.uri)
        timer = asyncio.get_running_loop().call_later(ttl, self._expire, doc.uri, found)
        self._offers[doc.uri] = (found, timer)
        self.counts.offered += 1
        self._tell(doc.uri, found)

    def _damage(self, doc: Document, found: Suggestion, elsewhere: str) -> str | None:
        """Why `found` (for the document as it is) must not be offered, or None."""
        start, end = found.outcome.region_offsets
        history = self.histories.get(doc.uri)
        text = doc.text
        edits = history.edits if history is not None and consistent(history.edits, text) else []
        outside = text[:start] + "\n" + text[end:]
        return damage(text[start:end], found.new_region, outside, edits, text, elsewhere, doc.language_id)

    # -- the offer ------------------------------------------------------------------

    def current(self, doc: Document) -> Suggestion | None:
        offer = self._offers.get(doc.uri)
        return offer[0] if offer is not None and offer[0].outcome.version == doc.version else None

    def take(self, doc: Document) -> Suggestion | None:
        """Remove and return the suggestion on offer for the document as it is now."""
        found = self.current(doc)
        if found is not None:
            self._withdraw(doc.uri)
        return found

    def _expire(self, uri: str, suggestion: Suggestion) -> None:
        offer = self._offers.get(uri)
        if offer is not None and offer[0] is suggestion:
            self._withdraw(uri)
            self.counts.dropped += 1

    def _withdraw(self, uri: str) -> bool:
        offer = self._offers.pop(uri, None)
        if offer is None:
            return False
        offer[1].cancel()
        self._tell(uri, None)
        return True

    def _tell(self, uri: str, suggestion: Suggestion | None) -> None:
        if self.on_offer is not None:
            self.on_offer(uri, suggestion)

    def held(self) -> int:
        """How many documents have a history, an offer or a question at work."""
        return len(set(self.histories) | set(self._offers) | set(self.scheduler.uris()) | {u for u, a in self._asking.items() if a})

    def forget(self, uri: str) -> None:
        """The document closed: stop its question, drop its offer and its history."""
        self.scheduler.cancel(uri)
        for asking in self._asking.pop(uri, []):
            if asking.task is not None:
                asking.task.cancel()
        if self._withdraw(uri):
            self.counts.dropped += 1
        self.histories.pop(uri, None)
