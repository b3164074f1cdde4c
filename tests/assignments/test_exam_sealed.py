"""Nothing of an unfinished exam reaches its student until its last answer (issue 25, N1).

The attack: during an exam, "My progress" (per session) showed the exam's accuracy after each
answer, which on true/false items is the key, and "Review my mistakes" reviewed the facts missed
in the exam with the right answer and the explanation. Spaced review and its due count leaked
the same. Each test answers part of an exam (some right, some wrong, known from the items'
labels) and checks every side door before and after the last answer.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from quizbot.domain import AssignmentMode
from quizbot.errors import InputError
from quizbot.generate.assignments import AssignmentRequest, assignment_items, make_assignment
from quizbot.items import StatementItem
from quizbot.practice import review_queue
from quizbot.practice.assignments import second_pass_session, start_assignment_session
from quizbot.practice.reports import progress, summary
from quizbot.practice.service import answer, end_session, next_question, start_session
from storage import Database
from storage.review_cards import get_cards
from storage.sessions import load_session

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[datetime], None]:
    """The time spaced review takes as now (no sleeping)."""
    moment = [T0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])

    def set_to(at: datetime) -> None:
        moment[0] = at

    return set_to


def _exam(db: Database, name: str = "final", **options: object) -> dict[str, StatementItem]:
    base: dict[str, object] = {
        "name": name,
        "kb": "clinical-core",
        "points": 6,
        "mode": AssignmentMode.EXAM,
    }
    make_assignment(db, AssignmentRequest(**{**base, **options}))  # type: ignore[arg-type]
    items = {}
    for item in assignment_items(db, name)[1]:
        assert isinstance(item, StatementItem)
        items[item.id] = item
    return items


def _order(db: Database, session_id: int) -> list[str]:
    return [e["id"] for e in load_session(db, session_id).session.config["items"]]


def _answer(
    db: Database, session_id: int, items: dict[str, StatementItem], rights: list[bool | None]
) -> list[str]:
    """Answer the next questions right (True), wrong (False) or "I don't know" (None); returns
    the facts missed."""
    missed = []
    order = _order(db, session_id)
    for right in rights:
        question = next_question(db, session_id)
        assert question is not None
        item = items[order[question.position - 1]]
        said_true = item.label == right
        text = "idk" if right is None else ("true" if said_true else "false")
        answer(db, session_id, question.id, text)
        if right is not True:
            missed.append(item.fact_id)
    return missed


def test_an_open_exam_shows_in_no_progress_review_or_due_count(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    items = _exam(db)
    view = start_assignment_session(db, assignment="final", student="Eve")
    n = view.total
    assert n >= 4
    missed = _answer(db, view.id, items, [False, True, False])  # three answers, two wrong

    shown = progress(db, "eve", by="session")
    assert shown.total_answered == 0 and shown.accuracy.n == 0
    assert shown.timeline == [] and shown.topics == []
    (listed,) = shown.sessions
    assert listed.sealed and listed.answered == 3 and listed.accuracy.n == 0
    with pytest.raises(InputError, match="no mistakes to review"):
        start_session(db, student="eve", review=True)
    with pytest.raises(InputError, match="not complete"):
        summary(db, view.id)
    clock(T0 + timedelta(days=2))  # the missed facts would be due by now
    assert review_queue.due_counts(db, "eve") == review_queue.DueCounts(0, 0)
    assert review_queue.due_items(db, "eve") == []
    rid = load_session(db, view.id).respondent.id
    assert rid is not None
    assert get_cards(db, rid, missed) == {}

    # the last answer opens it all: progress, review of mistakes, spaced review
    _answer(db, view.id, items, [True] * (n - 3))
    shown = progress(db, "eve", by="session")
    assert shown.total_answered == n and shown.accuracy.k == n - 2
    (listed,) = shown.sessions
    assert not listed.sealed and listed.accuracy.k == n - 2
    assert set(get_cards(db, rid, missed)) == set(missed)
    assert {d.fact for d in review_queue.due_items(db, "eve", T0 + timedelta(days=4))} >= set(
        missed
    )
    review = start_session(db, student="eve", review=True, length=5)
    assert review.total >= 1


def test_practice_during_an_exam_still_counts_and_the_exam_waits(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    items = _exam(db)
    view = start_assignment_session(db, assignment="final", student="Fin")
    exam_missed = _answer(db, view.id, items, [False])
    practice = start_session(db, student="fin", length=2, seed="p1")
    for position in (1, 2):
        answer(db, practice.id, f"s{practice.id}q{position}", "idk")  # both missed
    shown = progress(db, "fin", by="session")
    assert shown.total_answered == 2  # the practice answers, not the exam's
    rid = load_session(db, view.id).respondent.id
    assert rid is not None
    assert get_cards(db, rid, exam_missed) == {}
    practised = {e["fact"] for e in load_session(db, practice.id).session.config["items"]}
    review = start_session(db, student="fin", review=True)
    asked = {e["fact"] for e in load_session(db, review.id).session.config["items"]}
    assert asked and not asked & (set(exam_missed) - practised)


def test_an_exam_ended_early_stays_sealed(db: Database, clock: Callable[[datetime], None]) -> None:
    items = _exam(db)
    view = start_assignment_session(db, assignment="final", student="Gus")
    _answer(db, view.id, items, [False, False])
    end_session(db, view.id)  # "End session": the student may start the exam afresh
    shown = progress(db, "gus")
    assert shown.total_answered == 0 and shown.sessions[0].sealed
    with pytest.raises(InputError, match="no mistakes to review"):
        start_session(db, student="gus", review=True)
    clock(T0 + timedelta(days=3))
    assert review_queue.due_counts(db, "gus").week == 0


def test_a_two_pass_exam_stays_sealed_until_the_second_pass_is_done(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    items = _exam(db, two_pass=True)
    view = start_assignment_session(db, assignment="final", student="Hal")
    n = view.total
    _answer(db, view.id, items, [None, *([True] * (n - 1))])  # pass 1 done, one abstained
    with pytest.raises(InputError, match="not complete"):
        summary(db, view.id)  # its summary would name the key of the question asked again
    shown = progress(db, "hal")
    assert shown.total_answered == 0 and shown.sessions[0].sealed
    with pytest.raises(InputError, match="no mistakes to review"):
        start_session(db, student="hal", review=True)
    clock(T0 + timedelta(days=2))
    assert review_queue.due_counts(db, "hal").today == 0
    second = second_pass_session(db, view.id)
    assert second is not None and second.total == 1
    _answer(db, second.id, items, [False])
    shown = progress(db, "hal")
    assert shown.total_answered == n + 1 and not any(s.sealed for s in shown.sessions)
    assert summary(db, view.id).n_answered == n
    assert review_queue.due_counts(db, "hal", T0 + timedelta(days=4)).today >= 1
