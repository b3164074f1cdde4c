"""The per-client rate limit: a burst, then a steady rate, each client on its own."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import col, func, select

from quizbot.config import load_settings
from quizbot.ratelimit import RateLimit, RateLimitedError
from quizbot.ui.context import UiContext
from storage import Database
from storage.models import Response


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


def test_practice_answers_beyond_the_rate_are_refused_in_the_chat_and_not_recorded(
    db: Database,
) -> None:
    from quizbot.ui import practice as ui

    ctx = UiContext(load_settings(answers_per_minute=2), db)
    out = ui.start(ctx, "Ada", "clinical-core", "all", "statement", 4.0, "", None)
    session_id, question, chat = out[-3], out[-2], out[-1]
    for _ in range(2):  # the burst: two answers at once are fine
        out = ui.submit(ctx, "true", session_id, question, chat)
        assert out[0]["error"] is None and out[0]["feedback"] is not None
        out = ui.show_next(ctx, session_id, out[-2], out[-1])
        question, chat = out[-2], out[-1]
    refused = ui.submit(ctx, "true", session_id, question, chat)
    assert "too many requests; try again in" in refused[0]["error"]
    assert "too many requests" in refused[1][-1]["content"]  # said in the chat
    assert refused[-2] == {"__type__": "update"}  # the question stays as it was
    stored = db.read(
        lambda s: s.execute(
            select(func.count()).where(col(Response.quiz_session_id) == session_id)
        ).scalar_one()
    )
    assert stored == 2  # nothing recorded for the refused answer
    # another session (another student) has its own allowance
    other = ui.start(ctx, "Bea", "clinical-core", "all", "statement", 2.0, "", None)
    answered = ui.submit(ctx, "true", other[-3], other[-2], other[-1])
    assert answered[0]["error"] is None
