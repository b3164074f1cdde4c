"""Coming back to practice (issue 13): the active session offered again, idle ones closed.

Both backends. Time is moved by passing ``now`` (the answers' own stored times are the
reference, read back from the database), never by sleeping.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from quizbot.domain import AssignmentMode
from quizbot.errors import InputError
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import (
    IDLE_TIMEOUT,
    answer,
    end_session,
    next_question,
    progress,
    resumable_session,
    start_session,
)
from storage import Database
from storage.sessions import load_session


def _answer_two(db: Database, session_id: int) -> None:
    for _ in range(2):
        question = next_question(db, session_id)
        assert question is not None
        answer(db, session_id, question.id, "idk")


def test_the_active_session_is_offered_again_with_its_progress(db: Database) -> None:
    view = start_session(db, student="Ada L", length=5, seed="r1")
    _answer_two(db, view.id)
    offered = resumable_session(db, "  ada   l ")  # the same student, spelled loosely
    assert offered is not None
    assert (offered.id, offered.answered, offered.total, offered.status) == (
        view.id,
        2,
        5,
        "active",
    )
    question = next_question(db, view.id)
    assert question is not None and question.position == 3  # it goes on where it left
    # Other students, unusable names and ended sessions have nothing to resume.
    assert resumable_session(db, "Bob") is None
    assert resumable_session(db, "") is None
    end_session(db, view.id)
    assert resumable_session(db, "Ada L") is None


def test_the_newest_of_several_active_sessions_is_offered(db: Database) -> None:
    older = start_session(db, student="Cy", length=3, seed="a")
    newer = start_session(db, student="Cy", length=3, seed="b")
    offered = resumable_session(db, "Cy")
    assert offered is not None and offered.id == newer.id != older.id


def test_a_session_idle_past_the_timeout_is_closed_when_looked_at(db: Database) -> None:
    view = start_session(db, student="Dee", length=5, seed="r2")
    _answer_two(db, view.id)
    last = load_session(db, view.id).answers[-1].created_at
    just_before = last + IDLE_TIMEOUT - timedelta(minutes=1)
    assert resumable_session(db, "Dee", now=just_before) is not None
    assert load_session(db, view.id).session.status == "active"

    assert resumable_session(db, "Dee", now=last + IDLE_TIMEOUT + timedelta(minutes=1)) is None
    closed = load_session(db, view.id).session
    assert closed.status == "abandoned"
    assert closed.finished_at == last  # closed as of its last answer, not of the look
    # A closed session takes no more answers.
    with pytest.raises(InputError, match="abandoned"):
        answer(db, view.id, f"s{view.id}q3", "true")
    assert len(load_session(db, view.id).answers) == 2


def test_the_timeout_counts_from_the_start_when_nothing_was_answered(db: Database) -> None:
    view = start_session(db, student="Eve", length=3, seed="r3")
    started = load_session(db, view.id).session.started_at
    short = timedelta(hours=1)
    assert resumable_session(db, "Eve", idle_timeout=short, now=started + short / 2) is not None
    assert resumable_session(db, "Eve", idle_timeout=short, now=started + 2 * short) is None
    assert load_session(db, view.id).session.status == "abandoned"


def test_starting_and_listing_close_idle_sessions_too(db: Database) -> None:
    first = start_session(db, student="Fay", length=3, seed="r4")
    started = load_session(db, first.id).session.started_at
    later = started + IDLE_TIMEOUT + timedelta(hours=1)
    second = start_session(db, student="Fay", length=3, seed="r5", now=later)
    assert load_session(db, first.id).session.status == "abandoned"
    assert load_session(db, second.id).session.status == "active"

    shown = progress(db, "Fay", idle_timeout=timedelta(hours=1), now=later + timedelta(hours=2))
    assert {s.id: s.status for s in shown.sessions} == {
        first.id: "abandoned",
        second.id: "abandoned",
    }


def test_assignment_sessions_are_never_closed_for_idleness(db: Database) -> None:
    make_assignment(
        db,
        AssignmentRequest(
            name="wk", kb="clinical-core", points=2, seed="5", mode=AssignmentMode.EXAM
        ),
    )
    view = start_assignment_session(db, assignment="wk", student="Gil")
    started = load_session(db, view.id).session.started_at
    far = started + 100 * IDLE_TIMEOUT
    assert resumable_session(db, "Gil", now=far) is None  # assignments resume by their name
    start_session(db, student="Gil", length=2, seed="r6", now=far)
    assert load_session(db, view.id).session.status == "active"
