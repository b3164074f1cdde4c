"""What the app's replicas share through the database: rate limits, Gradio session owners and
upload volumes. Each "replica" here is its own :class:`Database` (its own connection pool) on the
same database, as two ``quizbot serve`` processes are."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from quizbot import clock
from quizbot.config import load_settings
from quizbot.ratelimit import RateLimitedError
from quizbot.ui.context import SharedRateLimit, UiContext
from quizbot.ui.gate import SessionOwners, UploadBudget
from storage import Database


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def other(db: Database) -> Iterator[Database]:
    """A second replica's connection pool on the same database."""
    second = Database(db.url)
    yield second
    second.dispose()


def test_a_bucket_is_shared_by_replicas_and_refills_at_its_rate(
    db: Database, other: Database
) -> None:
    clock = Clock()
    one = SharedRateLimit(db, "t", rate=2.0, burst=3, clock=clock)
    two = SharedRateLimit(other, "t", rate=2.0, burst=3, clock=clock)
    one.check("10.0.0.1")
    two.check("10.0.0.1")
    one.check("10.0.0.1")
    for limit in (one, two):  # the burst is used up, whichever replica is asked
        with pytest.raises(RateLimitedError) as caught:
            limit.check("10.0.0.1")
        assert caught.value.retry_after == pytest.approx(0.5)
    two.check("10.0.0.2")  # another client has its own bucket
    clock.now += 0.5  # one request earned back
    two.check("10.0.0.1")
    with pytest.raises(RateLimitedError):
        one.check("10.0.0.1")
    clock.now += 100  # never more than the burst saved up
    for _ in range(3):
        one.check("10.0.0.1")
    with pytest.raises(RateLimitedError):
        two.check("10.0.0.1")


def test_parallel_requests_on_two_replicas_never_get_more_than_the_burst(
    db: Database, other: Database
) -> None:
    clock = Clock()
    limits = [SharedRateLimit(d, "p", rate=1e-6, burst=10, clock=clock) for d in (db, other)]
    allowed: list[int] = []

    def hammer(limit: SharedRateLimit) -> None:
        for _ in range(8):
            try:
                limit.check("same")
            except RateLimitedError:
                continue
            allowed.append(1)

    threads = [threading.Thread(target=hammer, args=(limits[i % 2],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(allowed) == 10


def test_full_buckets_are_swept(db: Database) -> None:
    clock = Clock()
    limit = SharedRateLimit(db, "s", rate=1.0, burst=2, clock=clock)
    limit.check("a")
    keep = SharedRateLimit(db, "other", rate=1.0, burst=2, clock=clock)
    keep.check("a")

    def keys() -> set[str]:
        rows = db.read(lambda s: s.execute(text("SELECT key FROM rate_buckets")).all())
        return {str(r[0]) for r in rows}

    assert keys() == {"s:a", "other:a"}
    clock.now += limit.SWEEP_EVERY_S + 5  # long enough to be full again: the row holds nothing
    limit.check("b")  # sweeps its own limit's full buckets (not another limit's)
    assert keys() == {"s:b", "other:a"}


def test_login_and_answer_limits_hold_across_replicas(db: Database, other: Database) -> None:
    with clock.frozen(clock.now()):  # the one clock stands still: no bucket refills mid-test
        _login_and_answer_limits(db, other)


def _login_and_answer_limits(db: Database, other: Database) -> None:
    settings = load_settings(login_per_minute_user=3, login_per_minute_address=100,
                             answers_per_minute=2)  # fmt: skip
    a, b = UiContext(settings, db), UiContext(settings, other)
    a.check_login_rate("10.1.0.1", "Kim")
    b.check_login_rate("10.1.0.1", "kim")  # names are folded
    a.check_login_rate("10.1.0.1", "KIM")
    with pytest.raises(RateLimitedError):
        b.check_login_rate("10.1.0.1", "kim")
    a.check_login_rate("10.1.0.2", "kim")  # from elsewhere: its own bucket
    if db.backend == "sqlite":  # one process serves: answers are limited in memory, no write
        a.check_answer_rate(7)
        a.check_answer_rate(7)
        with pytest.raises(RateLimitedError):
            a.check_answer_rate(7)
        rows = db.read(lambda s: s.execute(text("SELECT key FROM rate_buckets")).all())
        assert not [r for r in rows if str(r[0]).startswith("answers:")]
        return
    a.check_answer_rate(7)
    b.check_answer_rate(7)
    with pytest.raises(RateLimitedError):
        a.check_answer_rate(7)
    b.check_answer_rate(8)


def test_a_session_hash_belongs_to_its_first_account_on_every_replica(
    db: Database, other: Database
) -> None:
    one, two = SessionOwners(db), SessionOwners(other)
    assert one.claim("hash-1", "ann")
    assert two.known("hash-1", "bob") is None  # new to this replica: it asks the database
    assert not two.claim("hash-1", "bob")
    assert two.claim("hash-1", "ann")
    assert two.known("hash-1", "bob") is False  # remembered since
    assert two.claim("hash-2", "bob") and not one.claim("hash-2", "ann")


def test_an_account_s_hourly_upload_volume_is_counted_on_every_replica(
    db: Database, other: Database
) -> None:
    one, two = UploadBudget(db, 1000), UploadBudget(other, 1000)
    assert one.take("ann", 600, now=100.0) is None
    wait = two.take("ann", 600, now=200.0)
    assert wait == pytest.approx(3600 - 100)  # until the first upload leaves the hour
    assert two.take("bob", 600, now=200.0) is None  # another account
    assert two.take("ann", 400, now=300.0) is None  # exactly the volume
    assert one.take("ann", 600, now=100.0 + 3600.0) is None  # the first one aged out
