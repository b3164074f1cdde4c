"""Students on an assignment, through the service: its exact items, a spread order of their own,
exam mode withholding every key until the end, and resuming instead of starting again."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import pytest

from quizbot.domain import AssignmentMode
from quizbot.errors import InputError
from quizbot.generate.assignments import (
    AssignmentRequest,
    assignment_items,
    fact_key,
    make_assignment,
)
from quizbot.practice.assignments import exam_review, spread_order, start_assignment_session
from quizbot.practice.feedback import WITHHELD
from quizbot.practice.service import answer, next_question, summary
from storage import Database
from storage.sessions import load_session


def _make(db: Database, mode: AssignmentMode) -> None:
    make_assignment(
        db,
        AssignmentRequest(
            name="wk", kb="clinical-core", points=3, seed="5", all_variants=True, mode=mode
        ),
    )


def _order(db: Database, session_id: int) -> list[str]:
    return [e["id"] for e in load_session(db, session_id).session.config["items"]]


def test_each_student_gets_exactly_the_items_in_a_spread_order_of_their_own(db: Database) -> None:
    _make(db, AssignmentMode.PRACTICE)
    assignment, items = assignment_items(db, "wk")
    facts = {i.id: fact_key(i) for i in items}
    ann = start_assignment_session(db, assignment="wk", student="Ann")
    bob = start_assignment_session(db, assignment="wk", student="Bob")
    ann_order, bob_order = _order(db, ann.id), _order(db, bob.id)
    assert sorted(ann_order) == sorted(bob_order) == sorted(assignment.item_ids)
    assert ann_order != bob_order != list(assignment.item_ids)
    for order in (ann_order, bob_order):  # 3 facts x 16 variants: never two neighbours alike
        assert all(facts[a] != facts[b] for a, b in pairwise(order))
    # Resuming: the same session and order again, for the same (normalised) student.
    again = start_assignment_session(db, assignment="wk", student="  ann ")
    assert again.id == ann.id and _order(db, again.id) == ann_order


def test_spread_order_separates_a_fact_whenever_the_mix_allows() -> None:
    @dataclass(frozen=True)
    class Fake:
        id: str
        fact: str

    items = [Fake(f"a{n}", "a") for n in range(3)] + [Fake(f"b{n}", "b") for n in range(2)]
    order = spread_order(items, "s", key=lambda i: i.fact)
    assert [i.fact for i in order] == ["a", "b", "a", "b", "a"]


def test_exam_mode_reveals_nothing_until_everything_is_answered(db: Database) -> None:
    _make(db, AssignmentMode.EXAM)
    view = start_assignment_session(db, assignment="wk", student="Cy")
    total = view.total
    with pytest.raises(InputError):
        exam_review(db, view.id)
    with pytest.raises(InputError):
        summary(db, view.id)
    seen = 0
    while (question := next_question(db, view.id)) is not None:
        feedback = answer(db, view.id, question.id, "true")
        seen += 1
        if seen < total:
            assert feedback.outcome == WITHHELD
            assert feedback.correct_answer == "" and feedback.explanation.fact == ""
            assert not feedback.finished
            with pytest.raises(InputError):  # even with a single question left unanswered
                exam_review(db, view.id)
        else:
            assert feedback.finished and feedback.outcome in {"correct", "incorrect"}
    review = exam_review(db, view.id)
    assert len(review) == total
    assert all(r.correct_answer in {"True", "False"} and r.explanation.fact for r in review)
    assert sum(r.outcome == "correct" for r in review) == summary(db, view.id).accuracy.k


def test_practice_mode_gives_feedback_after_each_answer(db: Database) -> None:
    _make(db, AssignmentMode.PRACTICE)
    view = start_assignment_session(db, assignment="wk", student="Di")
    question = next_question(db, view.id)
    assert question is not None
    feedback = answer(db, view.id, question.id, "true")
    assert feedback.outcome in {"correct", "incorrect"} and feedback.correct_answer
