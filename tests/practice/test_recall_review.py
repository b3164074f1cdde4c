"""Open recall questions come back: "Review my mistakes", spaced review (FSRS) and resume after a
reload, on both backends.

Every expected rating is decided here from the gold list read out of clinical-core's JSON and
the answer built from it (whole list, one left out, "I don't know"), with the documented tiers
(F1 0.25 / 0.7), never from the service; every expected due time comes from calling the
``fsrs`` package directly with the documented scheduler.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Card, Rating, Scheduler

from quizbot.domain import AssignmentMode
from quizbot.errors import InputError
from quizbot.evaluation.recall import counts_from_summary, score_recall
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.practice import review_queue
from quizbot.practice.recall_review import recall_mistakes
from quizbot.practice.service import (
    answer_recall,
    due_items,
    next_recall_question,
    recall_due_count,
    resumable_recall_session,
    resumable_session,
    start_recall_assignment,
    start_recall_due,
    start_recall_review,
    start_recall_session,
)
from storage import Database
from storage.review_cards import get_cards
from storage.sessions import load_session
from tests.practice.test_recall import gold_from_file, item_of

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
KB = "clinical-core"


def _due_after(rating: Rating, at: datetime) -> datetime:
    """The due time FSRS (default parameters, no learning steps, no fuzz) gives a new card."""
    scheduler = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card, _ = scheduler.review_card(Card(card_id=1, due=at), rating, review_datetime=at)
    return card.due


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[datetime], None]:
    """Set the time the answer hook reviews at (the app's clock, no sleeping)."""
    moment = [T0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])

    def set_to(at: datetime) -> None:
        moment[0] = at

    return set_to


def _f1(recalled: int, n_gold: int) -> float:
    recall = recalled / n_gold
    return 2 * recall / (1 + recall) if recalled else 0.0


def _by_hand(text_kind: str, n_gold: int) -> Rating:
    """The rating the documented rule gives: whole list Good; one left out Hard if still
    basically correct (F1 >= 0.7), else Again; "I don't know" Again."""
    if text_kind == "whole":
        return Rating.Good
    if text_kind == "one left out":
        return Rating.Hard if _f1(n_gold - 1, n_gold) >= 0.7 else Rating.Again
    return Rating.Again


def _respondent_id(db: Database, session_id: int) -> int:
    rid = load_session(db, session_id).respondent.id
    assert rid is not None
    return rid


def _answer_three(db: Database, student: str) -> tuple[int, list[tuple[str, str, Rating]]]:
    """A recall session of three symptom questions answered: the whole gold list, the list
    with its last entity left out, "I don't know". Returns the session and, per question,
    (relation, disease, the rating expected)."""
    view = start_recall_session(
        db, student=student, kb=KB, aspect="relation:has_symptom", length=3, seed="rv"
    )
    asked: list[tuple[str, str, Rating]] = []
    for position, kind in enumerate(("whole", "one left out", "idk"), start=1):
        question = next_recall_question(db, view.id)
        assert question is not None
        item = item_of(db, view.id, position)
        gold = gold_from_file(item.relation, item.head)
        assert len(gold) >= 2
        text = {"whole": ", ".join(gold), "one left out": ", ".join(gold[:-1])}.get(
            kind, "I don't know"
        )
        answer_recall(db, view.id, question.id, text)
        asked.append((item.relation, item.head, _by_hand(kind, len(gold))))
    return view.id, asked


def test_recall_answers_schedule_their_questions_as_fsrs_does(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    session_id, asked = _answer_three(db, "Rhea")
    rid = _respondent_id(db, session_id)
    ids = [review_queue.recall_card_id(KB, rel, head) for rel, head, _ in asked]
    cards = get_cards(db, rid, ids)
    assert set(cards) == set(ids)  # one card per question
    for card_id, (rel, head, rating) in zip(ids, asked, strict=True):
        card = cards[card_id]
        assert (card.relation, card.head, card.tail, card.reviews) == (rel, head, "", 1)
        assert card.due == _due_after(rating, T0)
    # The chat's queue and counts leave recall cards out: it cannot ask a list.
    far = T0 + timedelta(days=400)
    assert due_items(db, "Rhea", far) == []
    assert review_queue.count_due_now(db, "Rhea", far) == 0
    assert review_queue.due_counts(db, "Rhea", far).week == 0
    # The recall queue: nothing before the first due time, then each as it comes due.
    dues = sorted(_due_after(r, T0) for _, _, r in asked)
    assert recall_due_count(db, "Rhea", at=T0 + timedelta(hours=1)) == 0
    assert [recall_due_count(db, "Rhea", at=d) for d in dues] == [
        sum(x <= d for x in dues) for d in dues
    ]
    with pytest.raises(InputError, match="no recall question is due"):
        start_recall_due(db, student="Rhea", kb=KB, at=T0 + timedelta(hours=1))

    # The due session asks the due questions, most overdue first, and reschedules them.
    first_due = dues[0]
    due_now = [(rel, head) for rel, head, r in asked if _due_after(r, T0) <= first_due]
    clock(first_due)
    view = start_recall_due(db, student="Rhea", kb=KB, at=first_due)
    assert view.topic_label == "Recall: Due for review" and view.total == len(due_now)
    items = [item_of(db, view.id, p) for p in range(1, view.total + 1)]
    assert sorted((i.relation, i.head) for i in items) == sorted(due_now)
    question = next_recall_question(db, view.id)
    assert question is not None
    answer_recall(db, view.id, question.id, ", ".join(items[0].answers))
    card_id = review_queue.recall_card_id(KB, items[0].relation, items[0].head)
    after = get_cards(db, rid, [card_id])[card_id]
    assert after.reviews == 2 and after.due > first_due + timedelta(days=1)


def test_review_my_mistakes_re_asks_the_recall_questions_not_answered_perfectly(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    session_id, asked = _answer_three(db, "Milo")
    rid = _respondent_id(db, session_id)
    mistakes = [(rel, head) for rel, head, r in asked if r is not Rating.Good]
    assert len(mistakes) == 2  # one left out and "I don't know": both mistakes
    assert recall_mistakes(db, rid, KB) == list(reversed(mistakes))  # newest first
    view = start_recall_review(db, student="Milo", kb=KB, length=5, seed="m")
    assert view.topic_label == "Recall: Review my mistakes" and view.total == 2
    config = load_session(db, view.id).session.config
    assert config["review"] is True and config["format"] == "recall"
    items = [item_of(db, view.id, p) for p in (1, 2)]
    assert sorted((i.relation, i.head) for i in items) == sorted(mistakes)
    # The same questions as first asked (the KB is unchanged): the same items.
    first_ids = {e["id"] for e in load_session(db, session_id).session.config["items"]}
    assert {i.id for i in items} <= first_ids
    # Answered perfectly now, a question is no longer a mistake; still wrong, it stays.
    for position, item in enumerate(items, start=1):
        question = next_recall_question(db, view.id)
        assert question is not None and question.position == position
        text = ", ".join(item.answers) if position == 1 else "I don't know"
        answer_recall(db, view.id, question.id, text)
    assert recall_mistakes(db, rid, KB) == [(items[1].relation, items[1].head)]
    # On an aspect with no mistakes, and for a student never seen: a clear refusal.
    with pytest.raises(InputError, match="no recall mistakes"):
        start_recall_review(db, student="Milo", kb=KB, aspect="medications")
    with pytest.raises(InputError, match="no recall mistakes"):
        start_recall_review(db, student="Nobody Yet", kb=KB)


def test_a_basically_correct_answer_with_a_known_wrong_entry_is_hard() -> None:
    """The counts read back from the stored summary are the scorer's, and the rating follows."""
    assert counts_from_summary("recalled 3/4, wrong 1, unverified 2") == (3, 4, 1)
    assert counts_from_summary("idk") == (0, 0, 0)
    assert counts_from_summary("no list") is None
    rating = review_queue.recall_rating
    assert rating("correct", "recalled 4/4, wrong 0") is Rating.Good
    assert rating("correct", "recalled 4/4, wrong 1") is Rating.Hard
    assert rating("correct", "recalled 4/5, wrong 0, cos 0.9000") is Rating.Hard
    assert rating("incorrect", "recalled 1/5, wrong 0") is Rating.Again
    assert rating("abstained", "idk") is Rating.Again
    assert rating("error", None) is None


def test_counts_from_summary_read_what_the_scorer_stored(db: Database) -> None:
    view = start_recall_session(db, student="Cy", kb=KB, length=1, seed="c")
    item = item_of(db, view.id, 1)
    text = ", ".join([*item.answers[:-1], "purple toenails"])
    score = score_recall(item, text)
    assert counts_from_summary(score.summary) == (
        len(score.match.recalled),
        len(item.answers),
        len(score.match.wrong),
    )


def test_a_recall_exam_comes_due_only_once_complete(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    make_assignment(
        db,
        AssignmentRequest(
            name="recall-exam-due",
            kb=KB,
            points=2,
            seed="d",
            format="recall",
            mode=AssignmentMode.EXAM,
        ),
    )
    view = start_recall_assignment(db, assignment="recall-exam-due", student="Ezra")
    far = T0 + timedelta(days=30)
    first = next_recall_question(db, view.id)
    assert first is not None
    answer_recall(db, view.id, first.id, "I don't know")
    rid = _respondent_id(db, view.id)
    assert recall_due_count(db, "Ezra", at=far) == 0 and recall_mistakes(db, rid, KB) == []
    second = next_recall_question(db, view.id)
    assert second is not None
    answer_recall(db, view.id, second.id, "I don't know")
    assert recall_due_count(db, "Ezra", at=far) == 2 and len(recall_mistakes(db, rid, KB)) == 2


def test_an_active_recall_session_is_offered_again_after_a_reload(db: Database) -> None:
    view = start_recall_session(db, student="Rory", kb=KB, length=3, seed="r")
    first = next_recall_question(db, view.id)
    assert first is not None
    answer_recall(db, view.id, first.id, "I don't know")
    offered = resumable_recall_session(db, "rory")  # the same student, however spelled
    assert offered is not None and offered.id == view.id and offered.answered == 1
    assert resumable_session(db, "Rory") is None  # the chat offers its own sessions only
    again = next_recall_question(db, view.id)
    assert again is not None and again.position == 2
    assert resumable_recall_session(db, "Someone Else") is None
    assert resumable_recall_session(db, "") is None
    # Idle too long: closed, not offered.
    later = datetime.now(UTC) + timedelta(hours=13)
    assert resumable_recall_session(db, "Rory", now=later) is None
    assert load_session(db, view.id).session.status == "abandoned"
