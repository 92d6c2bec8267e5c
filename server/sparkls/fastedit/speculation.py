"""Speculative jobs: quick fixes computed while the user is still reading the menu.

When code actions are listed for diagnostics, the fast-tier edit of each fix starts
at once, so that `codeAction/resolve` usually finds it finished. This module owns the
table of those jobs and its rules; it knows nothing of LSP or of what a job computes
(a job is any coroutine), so it is tested on its own.

- **Dedupe**: a job is keyed by (uri, version, range, instruction); starting a key that
  is already in the table returns the existing job (and gives it a new deadline: the
  fix is still on offer).
- **Bound**: the table holds at most `capacity` jobs; starting one more cancels and
  drops the oldest. The menu the user looks at now is the one that matters.
- **Expiry**: a job not taken `ttl` seconds after it was (last) offered is cancelled
  and dropped, by a timer and also when looked up (so a late timer never serves it).
- **Take**: `take` removes the newest job for a (uri, range, instruction), whatever its
  version: the caller decides whether a job computed against an older version can be
  rebased or must be computed afresh.
- **Discard**: closing a document, or a change that makes a job useless, drops its jobs
  (`discard`, with a predicate).

A taken job is the caller's: it is no longer cancelled on expiry.

`take_outcome` is how a handler serves a chosen fix: the job's edit when it is (or can
be rebased onto) the current version, else a fresh computation.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sparkls.documents.store import DocumentStore
from sparkls.edits.rebase import Change, rebase_region
from sparkls.edits.tail import EditOutcome, rebase_outcome
from sparkls.fastedit.engine import EditRequest
from sparkls.errors import SparkError, StaleEdit

logger = logging.getLogger(__name__)

Range = tuple[int, int, int, int]  # start line, start character, end line, end character


@dataclass(frozen=True, slots=True)
class JobKey:
    uri: str
    version: int
    range: Range
    instruction: str

    @property
    def target(self) -> tuple[str, Range, str]:
        """What a chosen action names: the key without the version."""
        return self.uri, self.range, self.instruction


@dataclass(eq=False, slots=True)
class Job:
    key: JobKey
    task: asyncio.Task[Any]
    deadline: float
    timer: asyncio.TimerHandle | None = None
    # (text length, start, end): the span of the text it started from that the job
    # depends on; a change touching it makes the job useless (see `discard_touched`).
    anchor: tuple[int, int, int] | None = None
    on_expire: Callable[[JobKey], None] | None = field(default=None, repr=False)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a job's failure as seen: nobody may ever take it, and that is fine."""
    if not task.cancelled() and task.exception() is not None:
        logger.debug("speculative job failed: %s", task.exception())


class Speculation:
    """The table of speculative jobs of one session."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._jobs: dict[JobKey, Job] = {}  # insertion order is age order

    def __len__(self) -> int:
        return len(self._jobs)

    def keys(self) -> list[JobKey]:
        return list(self._jobs)

    def held(self) -> int:
        """How many documents have a job."""
        return len({key.uri for key in self._jobs})

    def forget(self, uri: str) -> None:
        """The document closed: its jobs are cancelled and dropped."""
        self.discard(uri)

    def start(
        self,
        key: JobKey,
        work: Callable[[], Awaitable[Any]],
        *,
        ttl: float,
        capacity: int,
        on_expire: Callable[[JobKey], None] | None = None,
        anchor: tuple[int, int, int] | None = None,
    ) -> tuple[Job | None, bool]:
        """The job for `key`, started with `work()` unless one is already there.

        Returns (job, started): `started` is False for a deduplicated request. With
        `capacity` 0 nothing is started and the job is None.
        """
        self._expire_due()
        job = self._jobs.get(key)
        if job is not None:
            self._jobs[key] = self._jobs.pop(key)  # offered again: now the newest
            self._arm(job, ttl)
            return job, False
        if capacity <= 0:
            return None, False
        while len(self._jobs) >= capacity:
            self._drop(next(iter(self._jobs)))
        task = asyncio.ensure_future(work())
        task.add_done_callback(_retrieve)
        job = Job(key, task, 0.0, anchor=anchor, on_expire=on_expire)
        self._jobs[key] = job
        self._arm(job, ttl)
        return job, True

    def take(self, uri: str, range: Range, instruction: str) -> Job | None:
        """Remove and return the newest live job for this fix, or None."""
        self._expire_due()
        found = [job for key, job in self._jobs.items() if key.target == (uri, range, instruction)]
        if not found:
            return None
        job = max(found, key=lambda j: j.key.version)
        del self._jobs[job.key]
        if job.timer is not None:
            job.timer.cancel()
        return job

    def discard(self, uri: str, where: Callable[[JobKey], bool] | None = None) -> int:
        """Cancel and drop the jobs of `uri` (those for which `where` holds); how many."""
        doomed = [key for key in self._jobs if key.uri == uri and (where is None or where(key))]
        for key in doomed:
            self._drop(key)
        return len(doomed)

    def discard_touched(
        self, uri: str, version: int, changes_since: Callable[[int], Sequence[Change] | None]
    ) -> int:
        """Drop the jobs of `uri` that a change since their version touched (or whose
        changes are no longer known); `changes_since(v)` gives the changes from v on."""

        def touched(key: JobKey) -> bool:
            job = self._jobs[key]
            if key.version == version or job.anchor is None:
                return False
            changes = changes_since(key.version)
            if changes is None:
                return True
            length, start, end = job.anchor
            try:
                rebase_region(length, start, end, changes)
            except (StaleEdit, ValueError):
                return True
            return False

        return self.discard(uri, touched)

    def clear(self) -> None:
        for key in list(self._jobs):
            self._drop(key)

    def _arm(self, job: Job, ttl: float) -> None:
        job.deadline = self._clock() + ttl
        if job.timer is not None:
            job.timer.cancel()
        job.timer = asyncio.get_running_loop().call_later(ttl, self._expire, job)

    def _expire(self, job: Job) -> None:
        if self._jobs.get(job.key) is job:
            self._drop(job.key)
            if job.on_expire is not None:
                job.on_expire(job.key)

    def _expire_due(self) -> None:
        now = self._clock()
        for job in [j for j in self._jobs.values() if j.deadline <= now]:
            self._expire(job)

    def _drop(self, key: JobKey) -> None:
        job = self._jobs.pop(key)
        if job.timer is not None:
            job.timer.cancel()
        job.task.cancel()


def request_range(request: EditRequest) -> Range:
    return request.start.line, request.start.character, request.end.line, request.end.character


def key_for(request: EditRequest, version: int) -> JobKey:
    return JobKey(request.uri, version, request_range(request), request.instruction)


async def take_outcome(
    speculation: Speculation,
    store: DocumentStore,
    request: EditRequest,
    compute: Callable[[], Awaitable[EditOutcome]],
) -> tuple[EditOutcome, bool]:
    """The edit for a chosen fix, and whether a speculative job served it.

    The job is awaited if still running. Its edit is served when computed against the
    current version, or rebased onto it; a job that failed, or whose region the user
    changed meanwhile, gives way to `compute()`.
    """
    job = speculation.take(request.uri, request_range(request), request.instruction)
    if job is not None:
        outcome = await _job_result(job)
        if outcome is not None and (current := _current(store, outcome)) is not None:
            return current, True
    return await compute(), False


async def _job_result(job: Job) -> EditOutcome | None:
    try:
        return await asyncio.shield(job.task)
    except asyncio.CancelledError:
        if job.task.cancelled():
            return None  # the job was cancelled; the request that took it was not
        job.task.cancel()  # the request was: nobody wants the job any more
        raise
    except Exception as exc:  # e.g. the document changed under it: compute afresh
        logger.info("speculative fix failed (%s); computing it afresh", exc)
        return None


def _current(store: DocumentStore, outcome: EditOutcome) -> EditOutcome | None:
    """`outcome` valid for the document as it is now, or None."""
    if not store.has(outcome.uri):
        return None
    if store.get(outcome.uri).version == outcome.version:
        return outcome
    try:
        return rebase_outcome(store, outcome)
    except SparkError:  # StaleEdit: the user changed the region since
        return None
