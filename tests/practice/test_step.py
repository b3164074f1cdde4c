"""answer_and_next: an answer and what follows it in one transaction, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

import quizbot.practice.step as step_module
from quizbot.errors import DuplicateError
from quizbot.practice.service import answer_and_next, next_question, start_session
from storage import Database
from storage.sessions import load_session
from tests.practice.test_service import session_rows, truth


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
