"""The per-client rate limit: a burst, then a steady rate, each client on its own."""

from __future__ import annotations

import threading

import pytest

from quizbot.ratelimit import RateLimit, RateLimitedError


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate_per_client() -> None:
    clock = Clock()
    limit = RateLimit(rate=2.0, burst=3, clock=clock)
    for _ in range(3):
        limit.check("10.0.0.1")
    with pytest.raises(RateLimitedError) as caught:
        limit.check("10.0.0.1")
    assert caught.value.retry_after == pytest.approx(0.5)
    assert "too many requests" in str(caught.value)
    limit.check("10.0.0.2")  # another client is not slowed down
    clock.now = 0.5  # one request earned back
    limit.check("10.0.0.1")
    with pytest.raises(RateLimitedError):
        limit.check("10.0.0.1")
    clock.now = 100.0  # never more than the burst saved up
    for _ in range(3):
        limit.check("10.0.0.1")
    with pytest.raises(RateLimitedError):
        limit.check("10.0.0.1")


def test_threads_never_get_more_than_the_burst() -> None:
    limit = RateLimit(rate=1e-6, burst=50, clock=Clock())
    allowed: list[int] = []

    def hammer() -> None:
        for _ in range(20):
            try:
                limit.check("same")
            except RateLimitedError:
                continue
            allowed.append(1)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(allowed) == 50


def test_memory_is_bounded_by_forgetting_idle_clients() -> None:
    clock = Clock()
    limit = RateLimit(rate=1.0, burst=1, clock=clock, max_clients=2)
    limit.check("a")
    limit.check("b")
    limit.check("c")  # "a" idle longest: forgotten, so it starts again with a full burst
    limit.check("a")
    with pytest.raises(RateLimitedError):
        limit.check("a")
