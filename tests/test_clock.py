"""quizbot's one clock (:mod:`quizbot.clock`): moving it moves every time-dependent rule at once.

Both backends. Nothing here passes ``now=`` to the code under test and nothing sleeps: the only
thing that changes between the two looks is the clock itself (:func:`quizbot.clock.frozen`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizbot import accounts, clock, spend
from quizbot.config import load_settings
from quizbot.domain import Assignment, Role
from quizbot.errors import ConfigError, InputError
from quizbot.practice import review_queue
from quizbot.practice.service import (
    IDLE_TIMEOUT,
    answer,
    next_question,
    resumable_session,
    start_session,
)
from quizbot.practice.windows import check_window
from quizbot.ratelimit import RateLimitedError
from quizbot.ui.context import UiContext
from storage import Database
from storage.sessions import load_session

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=1, hours=2)  # past the idle timeout, the window, the UTC day
PASSWORD = "a long enough password 1"


@dataclass
class Hands:
    """The time the test sets, read by the one clock at every call."""

    at: datetime = T0

    def __call__(self) -> datetime:
        return self.at


def _window() -> Assignment:
    closes = T0 + timedelta(hours=3)
    return Assignment(1, "week-1", "clinical-core", "practice", None, None, closes, {}, T0)


def test_moving_the_one_clock_moves_every_time_rule_together(db: Database) -> None:
    assert IDLE_TIMEOUT < LATER - T0
    hands = Hands()
    settings = load_settings(max_model_calls_per_day=2, login_per_minute_user=2)
    ctx = UiContext(settings, db)
    with clock.frozen(hands):
        # At T0: a student answers two questions without knowing them ("idk": due again the
        # next day), logs in, spends the day's model calls and uses the login attempts.
        accounts.create_user(db, "ins", "instructor", PASSWORD)
        view = start_session(db, student="Dee", length=5, seed="clock")
        for _ in range(2):
            question = next_question(db, view.id)
            assert question is not None
            answer(db, view.id, question.id, "idk")
        token = accounts.login(db, "ins", PASSWORD).token
        assert token is not None
        spend.reserve(db, settings, "ins", Role.INSTRUCTOR, 2, batch=False)
        ctx.check_login_rate("10.0.0.1", "ins")
        ctx.check_login_rate("10.0.0.1", "ins")

        assert load_session(db, view.id).answers[-1].created_at == T0  # storage's stamps too
        assert resumable_session(db, "Dee") is not None  # the session is not idle yet
        assert accounts.session_account(db, token) is not None  # nor the login session
        check_window(_window(), "answered")  # the assignment is open
        assert review_queue.count_due_now(db, "Dee") == 0  # nothing due before tomorrow
        with pytest.raises(spend.SpendLimitError):  # the day's calls are spent
            spend.reserve(db, settings, "ins", Role.INSTRUCTOR, 1, batch=False)
        with pytest.raises(RateLimitedError):  # and the login attempts
            ctx.check_login_rate("10.0.0.1", "ins")

        hands.at = LATER  # the one move

        assert resumable_session(db, "Dee") is None  # idle past the timeout: closed
        assert load_session(db, view.id).session.status == "abandoned"
        assert accounts.session_account(db, token) is None  # the login session too
        with pytest.raises(InputError, match="closed"):
            check_window(_window(), "answered")
        assert review_queue.count_due_now(db, "Dee") == 2  # both facts are due now
        assert spend.today(settings) == LATER.date()
        spend.reserve(db, settings, "ins", Role.INSTRUCTOR, 2, batch=False)  # a new day
        ctx.check_login_rate("10.0.0.1", "ins")  # the bucket has refilled
    assert clock.now() > LATER  # the real clock is back after the block


def test_the_clock_file_sets_now_and_a_frozen_time_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "clock"
    path.write_text("2026-05-01T10:00:00+02:00\n", encoding="utf-8")
    monkeypatch.setenv("QUIZBOT_CLOCK_FILE", str(path))
    assert clock.now() == datetime(2026, 5, 1, 8, 0, tzinfo=UTC)
    assert clock.timestamp() == datetime(2026, 5, 1, 8, 0, tzinfo=UTC).timestamp()
    with clock.frozen(T0):
        assert clock.now() == T0
        with clock.frozen(LATER):
            assert clock.now() == LATER
        assert clock.now() == T0
    path.write_text("2026-05-01T10:00:00\n", encoding="utf-8")  # no zone: UTC
    assert clock.now() == datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    path.write_text("next tuesday", encoding="utf-8")
    with pytest.raises(ConfigError, match="QUIZBOT_CLOCK_FILE"):
        clock.now()
    with pytest.raises(ValueError, match="time zone"), clock.frozen(datetime(2026, 5, 1)):
        pass  # a naive time is refused
