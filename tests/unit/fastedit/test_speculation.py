"""The speculative job table: dedupe, bound, expiry, take and discard."""

from __future__ import annotations

import asyncio

import pytest

from sparkls.fastedit.speculation import JobKey, Speculation

RANGE = (5, 21, 5, 27)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def key(version: int = 1, uri: str = "file:///a.py", rng=RANGE, instruction: str = "fix it") -> JobKey:
    return JobKey(uri, version, rng, instruction)


class Work:
    """Counts how many jobs were started; each waits for `release`."""

    def __init__(self) -> None:
        self.started = 0
        self.release = asyncio.Event()

    def __call__(self):
        self.started += 1
        return self._run(self.started)

    async def _run(self, n: int) -> str:
        await self.release.wait()
        return f"result {n}"


async def test_same_key_starts_one_job():
    """Two offers of the same fix at the same version share one job."""
    spec, work = Speculation(), Work()
    first, started = spec.start(key(), work, ttl=30, capacity=3)
    second, again = spec.start(key(), work, ttl=30, capacity=3)
    assert started and not again and first is second
    assert work.started == 1 and len(spec) == 1
    spec.clear()


async def test_different_version_or_range_is_another_job():
    """A new version or another range is a different fix."""
    spec, work = Speculation(), Work()
    spec.start(key(1), work, ttl=30, capacity=5)
    spec.start(key(2), work, ttl=30, capacity=5)
    spec.start(key(1, rng=(6, 0, 6, 3)), work, ttl=30, capacity=5)
    assert work.started == 3
    spec.clear()


async def test_capacity_cancels_the_oldest():
    """Beyond capacity the oldest job is cancelled and dropped."""
    spec, work = Speculation(), Work()
    oldest, _ = spec.start(key(instruction="a"), work, ttl=30, capacity=2)
    spec.start(key(instruction="b"), work, ttl=30, capacity=2)
    spec.start(key(instruction="c"), work, ttl=30, capacity=2)
    await asyncio.sleep(0)  # let the cancellation land
    assert oldest.task.cancelled()
    assert [k.instruction for k in spec.keys()] == ["b", "c"]
    spec.clear()


async def test_reoffered_job_becomes_newest():
    """A deduplicated offer moves the job to the young end, so it is evicted last."""
    spec, work = Speculation(), Work()
    spec.start(key(instruction="a"), work, ttl=30, capacity=2)
    spec.start(key(instruction="b"), work, ttl=30, capacity=2)
    spec.start(key(instruction="a"), work, ttl=30, capacity=2)
    spec.start(key(instruction="c"), work, ttl=30, capacity=2)
    assert [k.instruction for k in spec.keys()] == ["a", "c"]
    spec.clear()


async def test_capacity_zero_starts_nothing():
    """`max_fixes = 0` means no speculation."""
    spec, work = Speculation(), Work()
    assert spec.start(key(), work, ttl=30, capacity=0) == (None, False)
    assert work.started == 0


async def test_take_returns_the_result_and_removes_the_job():
    """A taken job is the caller's: gone from the table, its result intact."""
    spec, work = Speculation(), Work()
    spec.start(key(), work, ttl=30, capacity=3)
    work.release.set()
    job = spec.take("file:///a.py", RANGE, "fix it")
    assert job is not None and await job.task == "result 1"
    assert spec.take("file:///a.py", RANGE, "fix it") is None and len(spec) == 0


async def test_take_prefers_the_newest_version():
    """Of jobs for the same fix at several versions, the newest is taken."""
    spec, work = Speculation(), Work()
    spec.start(key(3), work, ttl=30, capacity=3)
    spec.start(key(2), work, ttl=30, capacity=3)
    job = spec.take("file:///a.py", RANGE, "fix it")
    assert job is not None and job.key.version == 3
    spec.clear()


async def test_expired_job_is_not_taken():
    """Past its deadline a job is dropped on lookup, even before its timer fires."""
    clock = Clock()
    spec, work = Speculation(clock=clock), Work()
    job, _ = spec.start(key(), work, ttl=30, capacity=3)
    clock.now += 30
    assert spec.take("file:///a.py", RANGE, "fix it") is None
    await asyncio.sleep(0)
    assert job.task.cancelled() and len(spec) == 0


async def test_reoffer_extends_the_deadline():
    """Offering the fix again restarts its time to live."""
    clock = Clock()
    spec, work = Speculation(clock=clock), Work()
    spec.start(key(), work, ttl=30, capacity=3)
    clock.now += 20
    spec.start(key(), work, ttl=30, capacity=3)
    clock.now += 20
    assert spec.take("file:///a.py", RANGE, "fix it") is not None


async def test_timer_cancels_an_untaken_job():
    """The expiry timer cancels the job and reports it."""
    spec, work = Speculation(), Work()
    expired = asyncio.Event()
    job, _ = spec.start(key(), work, ttl=0.001, capacity=3, on_expire=lambda k: expired.set())
    await expired.wait()
    await asyncio.sleep(0)
    assert job.task.cancelled() and len(spec) == 0


async def test_taken_job_survives_its_deadline():
    """Once taken, a job is no longer cancelled on expiry."""
    spec, work = Speculation(), Work()
    spec.start(key(), work, ttl=0.001, capacity=3, on_expire=lambda k: pytest.fail("expired after take"))
    job = spec.take("file:///a.py", RANGE, "fix it")
    work.release.set()
    assert await job.task == "result 1"


async def test_discard_by_uri_and_predicate():
    """Closing a document drops its jobs; a predicate picks some of them."""
    spec, work = Speculation(), Work()
    spec.start(key(1), work, ttl=30, capacity=5)
    spec.start(key(2), work, ttl=30, capacity=5)
    spec.start(key(1, uri="file:///b.py"), work, ttl=30, capacity=5)
    assert spec.discard("file:///a.py", lambda k: k.version < 2) == 1
    assert spec.discard("file:///a.py") == 1
    assert [k.uri for k in spec.keys()] == ["file:///b.py"]
    spec.clear()


async def test_failed_job_is_taken_with_its_error():
    """A job that failed is still taken; the caller sees its exception."""
    spec = Speculation()

    async def boom():
        raise RuntimeError("no")

    spec.start(key(), boom, ttl=30, capacity=3)
    job = spec.take("file:///a.py", RANGE, "fix it")
    with pytest.raises(RuntimeError):
        await job.task
