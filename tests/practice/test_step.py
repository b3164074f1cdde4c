"""answer_and_next: an answer and what follows it in one transaction, on both backends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event

import quizbot.practice.step as step_module
from quizbot.domain import AssignmentMode
from quizbot.errors import DuplicateError
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.practice import review_queue
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.feedback import answer_loaded
from quizbot.practice.service import answer_and_next, next_question, start_session
from storage import Database
from storage.sessions import load_session
from tests.practice.test_service import session_rows, truth

# Statements of a middle answer with its next question, as SQLAlchemy runs them: 17 on SQLite,
# 16 on PostgreSQL (23 and 22 while the session was loaded again after the answer was stored,
# 19 and 18 while storing the answer took a savepoint of its own).
MAX_STATEMENTS_PER_ANSWER = 17


def _commits(db: Database) -> list[int]:
    commits = [0]

    @event.listens_for(db.engine, "commit")
    def _on_commit(_conn: Any) -> None:
        commits[0] += 1

    return commits


def test_a_whole_session_one_commit_per_answer(db: Database) -> None:
    view = start_session(db, student="uma", length=4, seed="u1")
    rows = session_rows(db, view.id)
    question = next_question(db, view.id)
    commits = _commits(db)
    n = 0
    while question is not None:
        row = rows[question.position - 1]
        # Answer right on even positions, wrong on odd ones (the key comes from the KB file).
        right = truth(row) == (question.position % 2 == 0)
        before = commits[0]
        step = answer_and_next(db, view.id, question.id, "true" if right else "false")
        assert commits[0] - before == 1
        n += 1
        assert step.feedback.position == question.position
        assert step.feedback.outcome == ("correct" if question.position % 2 == 0 else "incorrect")
        assert step.feedback.answered == n
        assert step.view.answered == n
        # The next question is exactly what a separate read gives now.
        fresh = next_question(db, view.id)
        assert (step.question is None) == (fresh is None)
        if fresh is not None and step.question is not None:
            assert (step.question.id, step.question.text) == (fresh.id, fresh.text)
        question = step.question
    assert n == 4
    assert step.feedback.finished and step.view.status == "finished"
    assert step.second is None
    assert len(load_session(db, view.id).answers) == 4


def test_a_failure_after_the_answer_was_stored_leaves_nothing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = start_session(db, student="vic", length=2, seed="v1")
    question = next_question(db, view.id)
    assert question is not None

    def broken(*_args: Any) -> None:
        raise RuntimeError("reading the next question failed")

    monkeypatch.setattr(step_module, "first_unanswered", broken)
    with pytest.raises(RuntimeError):
        answer_and_next(db, view.id, question.id, "true")
    assert load_session(db, view.id).answers == []  # rolled back with the rest
    monkeypatch.undo()
    step = answer_and_next(db, view.id, question.id, "true")  # and it can be answered now
    assert step.feedback.answered == 1
    with pytest.raises(DuplicateError):
        answer_and_next(db, view.id, question.id, "false")
    assert len(load_session(db, view.id).answers) == 1


def test_the_due_count_comes_with_the_answer_in_its_one_commit(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``due_for``: the Practice tab's due panel counted in the answer's own transaction, equal
    to a separate read after it (a missed fact due two days on counts; the answer just given is
    reviewed first); another student's name, or none, counts nothing."""
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    moment = [t0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])
    view = start_session(db, student="Wes", length=3, seed="w1")
    rows = session_rows(db, view.id)
    question = next_question(db, view.id)
    assert question is not None
    first = answer_and_next(
        db, view.id, question.id, _wrong(rows, question), due_for=("wes", "clinical-core")
    )
    assert first.due == 0 == review_queue.count_due_now(db, "wes", kb="clinical-core")
    moment[0] = t0 + timedelta(days=2)  # the miss is due now
    question = first.question
    assert question is not None
    commits = _commits(db)
    second = answer_and_next(
        db, view.id, question.id, _wrong(rows, question), due_for=(" WES ", "clinical-core")
    )
    assert commits[0] == 1
    assert second.due == 1 == review_queue.count_due_now(db, "wes", kb="clinical-core")
    question = second.question
    assert question is not None
    other = answer_and_next(
        db, view.id, question.id, _wrong(rows, question), due_for=("someone else", "clinical-core")
    )
    assert other.due is None and other.feedback.finished
    assert review_queue.count_due_now(db, "wes", kb="another-kb") == 0


def test_an_exam_still_sealed_is_left_out_of_the_due_count_its_answers_return(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exam's misses are not due while it runs (issue 25's sealing), in the count that
    comes with each answer too; its last answer releases them, counted as a separate read."""
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    moment = [t0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])
    request = AssignmentRequest(
        name="final", kb="clinical-core", points=3, seed="7", mode=AssignmentMode.EXAM
    )
    make_assignment(db, request)
    view = start_assignment_session(db, assignment="final", student="xia")
    rows = session_rows(db, view.id)
    question = next_question(db, view.id)
    who = ("xia", "clinical-core")
    while question is not None:
        step = answer_and_next(db, view.id, question.id, _wrong(rows, question), due_for=who)
        assert step.due == review_queue.count_due_now(db, "xia", kb="clinical-core")
        if not step.feedback.finished:
            assert step.due == 0  # the misses of two days ago are not due: sealed
        moment[0] += timedelta(days=2)
        question = step.question
    assert step.feedback.finished


def _wrong(rows: Any, question: Any) -> str:
    """The wrong answer to a statement of the session (its key from the KB file)."""
    return "false" if truth(rows[question.position - 1]) else "true"


@contextmanager
def _statements(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", count)


def test_the_session_after_an_answer_is_what_a_fresh_load_gives(db: Database) -> None:
    # answer_and_next builds the next screen from the session as the answer left it (read
    # under the session's lock while the answer was stored), not from a second load: it must
    # be exactly what a load gives, the last answer's "finished" included
    view = start_session(db, student="wes", length=3, seed="w1")
    question = next_question(db, view.id)
    answers = iter(["true", "I don't know", "false"])
    while question is not None:
        feedback, after = answer_loaded(db, view.id, question.id, next(answers))
        assert after == load_session(db, view.id)
        assert feedback.answered == len(after.answers)
        question = next_question(db, view.id)
    assert after.session.status == "finished" and after.session.finished_at is not None


def test_an_answer_and_its_next_question_are_a_fixed_number_of_statements(db: Database) -> None:
    # each statement is a round trip to PostgreSQL for the thread that waits for it
    # (docs/performance.md, Part 13); none may be added per answer already given
    view = start_session(db, student="xia", length=6, seed="x1")
    question = next_question(db, view.id)
    counts = []
    while question is not None:
        with _statements(db) as seen:
            step = answer_and_next(db, view.id, question.id, "true")
        counts.append(len(seen))
        question = step.question
    assert len(counts) == 6
    middle = counts[1:-1]  # the first answer and the last (it finishes the session) aside
    assert len(set(middle)) == 1, counts  # the same for the 2nd answer as for the 5th
    assert middle[0] <= MAX_STATEMENTS_PER_ANSWER, counts


def test_an_answer_takes_one_savepoint_the_review_hooks(db: Database) -> None:
    # the review hook's failure is caught (the answer stands without its card), so it keeps
    # its savepoint; storing the answer has none: its failure ends the unit
    view = start_session(db, student="yan", length=3, seed="y1")
    question = next_question(db, view.id)
    assert question is not None
    with _statements(db) as seen:
        answer_and_next(db, view.id, question.id, "true")
    taken = [s for s in seen if s.upper().startswith("SAVEPOINT")]
    assert len(taken) == 1, taken
