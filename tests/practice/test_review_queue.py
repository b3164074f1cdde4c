"""Spaced review: answers at controlled times schedule their facts exactly as FSRS does.

Every expected due date is computed here by calling the ``fsrs`` package directly with the
documented scheduler (default parameters, no learning steps, no fuzz), never written out.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler

from quizbot.errors import ConfigError, InputError
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.practice import review_queue
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.facts import _entries
from quizbot.practice.service import answer, answer_and_next, next_question, start_session
from quizbot.practice.views import SessionView
from storage import Database
from storage.review_cards import AnswerSource, Pending, get_cards, pending_answers
from storage.sessions import load_session

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _fsrs() -> Scheduler:
    return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def _due_after(*steps: tuple[Rating, datetime]) -> datetime:
    """The due time FSRS gives a new card after these reviews."""
    card = Card(card_id=1, due=steps[0][1])
    for rating, at in steps:
        card, _ = _fsrs().review_card(card, rating, review_datetime=at)
    return card.due


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[datetime], None]:
    """Set the time the answer hook reviews at (the app's clock, no sleeping)."""
    moment = [T0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])

    def set_to(at: datetime) -> None:
        moment[0] = at

    return set_to


def _key(item: StatementItem | ChoiceItem, right: bool) -> str:
    if isinstance(item, ChoiceItem):
        if right:
            return ",".join(item.answer_keys)
        letters = "ABCDEFGHIJ"[: len(item.options) - 1]  # the last option is "I do not know"
        return next(w for w in letters if w not in item.answer_keys)
    return "true" if item.label == right else "false"


def _items(db: Database, view: SessionView) -> list[StatementItem | ChoiceItem]:
    entries = _entries(load_session(db, view.id).session.config)
    return load_items(db, [e["id"] for e in entries])


def _answer_all(db: Database, view: SessionView, rights: list[bool]) -> list[str]:
    """Answer every question (right or wrong as told); the facts asked, in order."""
    facts = []
    for position, (item, right) in enumerate(zip(_items(db, view), rights, strict=True), 1):
        answer(db, view.id, f"s{view.id}q{position}", _key(item, right))
        assert isinstance(item, StatementItem)
        facts.append(item.fact_id)
    return facts


def _respondent(db: Database, view: SessionView) -> int:
    rid = load_session(db, view.id).respondent.id
    assert rid is not None
    return rid


def test_answers_schedule_their_facts_as_fsrs_does(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    view = start_session(db, student="Ana", length=2, seed="s1")
    right, wrong = _answer_all(db, view, [True, False])
    cards = get_cards(db, _respondent(db, view), [right, wrong])
    assert cards[right].due == _due_after((Rating.Good, T0))
    assert cards[wrong].due == _due_after((Rating.Again, T0))
    # A wrong answer makes the fact due soon: within a day, before the fact answered right.
    assert T0 < cards[wrong].due <= T0 + timedelta(days=1) < cards[right].due
    assert cards[right].reviews == cards[wrong].reviews == 1

    assert review_queue.due_items(db, "ana", T0 + timedelta(hours=12)) == []
    soon = review_queue.due_items(db, "ana", cards[wrong].due)
    assert [d.fact for d in soon] == [wrong]
    later = review_queue.due_items(db, "ana", cards[right].due)
    assert [d.fact for d in later] == [wrong, right]  # most overdue first
    assert all(d.item_id and d.question for d in later)


def test_a_review_session_asks_the_due_facts_and_reschedules_them(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    view = start_session(db, student="Bo", length=3, seed="s2")
    facts = _answer_all(db, view, [False, True, False])
    rid = _respondent(db, view)
    t1 = get_cards(db, rid, facts)[facts[0]].due
    clock(t1)
    due = review_queue.due_items(db, "bo", t1)
    assert sorted(d.fact for d in due) == sorted([facts[0], facts[2]])
    review = review_queue.start_review_session(db, student="bo", at=t1)
    asked = _items(db, review)
    assert [i.id for i in asked] == [d.item_id for d in due]
    assert {i.fact_id for i in asked if isinstance(i, StatementItem)} == {facts[0], facts[2]}
    missed = {i.id for i in _items(db, view)}
    assert not missed & {i.id for i in asked}  # never the very variant missed before

    _answer_all(db, review, [True, False])
    cards = get_cards(db, rid, facts)
    first, second = (asked[0].fact_id, asked[1].fact_id)  # type: ignore[union-attr]
    assert cards[first].due == _due_after((Rating.Again, T0), (Rating.Good, t1))
    assert cards[second].due == _due_after((Rating.Again, T0), (Rating.Again, t1))
    assert cards[second].lapses == 1 and cards[second].reviews == 2
    assert cards[facts[1]].due == _due_after((Rating.Good, T0))  # not asked: unchanged
    assert review_queue.due_items(db, "bo", t1) == []


def test_only_the_first_answer_of_a_day_reviews_a_fact(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    view = start_session(db, student="Cy", length=1, seed="s3")
    (fact,) = _answer_all(db, view, [False])
    rid = _respondent(db, view)
    clock(T0 + timedelta(hours=3))
    again = start_session(db, student="cy", length=1, seed="s3b", review=True)
    assert _answer_all(db, again, [True]) == [fact]  # asked again, right, the same day
    card = get_cards(db, rid, [fact])[fact]
    assert card.reviews == 1 and card.due == _due_after((Rating.Again, T0))
    tomorrow = T0 + timedelta(days=1, hours=1)
    clock(tomorrow)
    third = review_queue.start_review_session(db, student="cy", at=tomorrow)  # still due
    _answer_all(db, third, [True])
    card = get_cards(db, rid, [fact])[fact]
    assert card.reviews == 2
    assert card.due == _due_after((Rating.Again, T0), (Rating.Good, tomorrow))


def test_existing_answers_build_cards_when_the_queue_is_first_read(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:  # answers stored before spaced review existed
        patch.setattr(review_queue, "record", lambda *args: None)
        view = start_session(db, student="Dee", length=2, seed="s4")
        facts = _answer_all(db, view, [True, False])
    rid = _respondent(db, view)
    assert get_cards(db, rid, facts) == {}
    stored = {a.item_id: a.created_at for a in load_session(db, view.id).answers}
    at = [stored[i.id] for i in _items(db, view)]
    far = at[0] + timedelta(days=400)
    assert [d.fact for d in review_queue.due_items(db, "dee", far)] == [facts[1], facts[0]]
    cards = get_cards(db, rid, facts)
    assert cards[facts[0]].due == _due_after((Rating.Good, at[0]))
    assert cards[facts[1]].due == _due_after((Rating.Again, at[1]))
    review_queue.due_items(db, "dee", far)  # a second read applies nothing twice
    assert get_cards(db, rid, facts) == cards


def test_a_session_start_builds_the_history_so_an_answer_reviews_only_itself(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:  # a returning student: answers without cards
        patch.setattr(review_queue, "record", lambda *args, **kwargs: None)
        old = start_session(db, student="Hal", length=3, seed="s8")
        history = _answer_all(db, old, [True, False, True])
    rid = _respondent(db, old)
    assert get_cards(db, rid, history) == {}
    stored = {a.item_id: a.created_at for a in load_session(db, old.id).answers}
    at = [stored[i.id] for i in _items(db, old)]

    seen: list[list[AnswerSource]] = []  # what every sync found to review, call by call

    def spy(db_: Database, respondent_id: int) -> Pending:
        found = pending_answers(db_, respondent_id)
        seen.append(found[1])
        return found

    monkeypatch.setattr(review_queue, "pending_answers", spy)
    view = start_session(db, student="hal", length=2, seed="s9")
    assert [len(s) for s in seen] == [3]  # the start turned the whole history into cards
    built = get_cards(db, rid, history)
    ratings = [Rating.Good, Rating.Again, Rating.Good]
    for fact, when, rating in zip(history, at, ratings, strict=True):
        assert built[fact].due == _due_after((rating, when))

    later = max(at) + timedelta(days=3)
    monkeypatch.setattr(review_queue, "now", lambda: later)
    seen.clear()
    question = next_question(db, view.id)
    assert question is not None
    (item,) = load_items(db, [_entries(load_session(db, view.id).session.config)[0]["id"]])
    assert isinstance(item, StatementItem)
    answer_and_next(db, view.id, question.id, _key(item, False))
    (during,) = seen  # the answer path read just its own answer: no backfill
    assert [a.item_id for a in during] == [item.id]
    cards = get_cards(db, rid, [*history, item.fact_id])
    steps = {f: [(r, w)] for f, w, r in zip(history, at, ratings, strict=True)}
    steps.setdefault(item.fact_id, []).append((Rating.Again, later))
    # The same cards as when the answer hook backfilled everything: FSRS over the stored
    # answers at their stored times, then this answer at the app's clock.
    assert {f: c.due for f, c in cards.items()} == {f: _due_after(*s) for f, s in steps.items()}
    assert cards[item.fact_id].last_response_id == max(c.last_response_id for c in cards.values())


def test_an_assignment_start_builds_the_history_too(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A returning student's first assignment answer must not pay for their whole history
    either: the assignment's start builds the cards, as a practice start does."""
    with monkeypatch.context() as patch:  # a returning student: answers without cards
        patch.setattr(review_queue, "record", lambda *args, **kwargs: None)
        old = start_session(db, student="Ivy", length=3, seed="s8")
        history = _answer_all(db, old, [True, True, False])
    rid = _respondent(db, old)
    assert get_cards(db, rid, history) == {}
    make_assignment(db, AssignmentRequest(name="wk", kb="clinical-core", points=2, seed="5"))
    seen: list[int] = []

    def spy(db_: Database, respondent_id: int) -> Pending:
        found = pending_answers(db_, respondent_id)
        seen.append(len(found[1]))
        return found

    monkeypatch.setattr(review_queue, "pending_answers", spy)
    view = start_assignment_session(db, assignment="wk", student="ivy")
    assert seen == [3]  # the start turned the three stored answers into cards
    assert set(get_cards(db, rid, history)) == set(history)
    seen.clear()
    question = next_question(db, view.id)
    assert question is not None
    (item,) = load_items(db, [_entries(load_session(db, view.id).session.config)[0]["id"]])
    answer_and_next(db, view.id, question.id, _key(item, True))
    assert seen == [1]  # the answer reviewed only itself


def test_a_choice_answer_reviews_every_fact_it_keys(
    db: Database, clock: Callable[[datetime], None]
) -> None:
    view = start_session(db, student="Eli", length=1, format="choice", seed="s5")
    (item,) = _items(db, view)
    assert isinstance(item, ChoiceItem)
    answer(db, view.id, f"s{view.id}q1", _key(item, True))
    cards = get_cards(db, _respondent(db, view), list(item.knowledge_point_ids))
    assert set(cards) == set(item.knowledge_point_ids)
    assert {c.due for c in cards.values()} == {_due_after((Rating.Good, T0))}


def test_due_counts_today_and_this_week(db: Database, clock: Callable[[datetime], None]) -> None:
    view = start_session(db, student="Fay", length=2, seed="s6")
    right, wrong = _answer_all(db, view, [True, False])
    cards = get_cards(db, _respondent(db, view), [right, wrong])
    assert review_queue.due_counts(db, "fay", T0) == review_queue.DueCounts(today=0, week=2)
    day = cards[wrong].due
    assert review_queue.due_counts(db, "fay", day) == review_queue.DueCounts(today=1, week=2)
    assert review_queue.count_due_now(db, "fay", day) == 1
    assert review_queue.count_due_now(db, "nobody", day) == 0
    assert review_queue.due_items(db, "nobody", day) == []


def test_nothing_due_is_a_clear_error(db: Database, clock: Callable[[datetime], None]) -> None:
    view = start_session(db, student="Gus", length=1, seed="s7")
    _answer_all(db, view, [True])
    with pytest.raises(InputError, match="nothing is due for review"):
        review_queue.start_review_session(db, student="gus", at=T0)


def test_ratings_follow_the_documented_mapping() -> None:
    assert review_queue.rating_for("incorrect") is Rating.Again
    assert review_queue.rating_for("abstained") is Rating.Again  # "I don't know"
    assert review_queue.rating_for("correct") is Rating.Good  # no answer time recorded
    assert review_queue.rating_for("correct", review_queue.FAST_MS) is Rating.Easy
    assert review_queue.rating_for("correct", review_queue.FAST_MS + 1) is Rating.Good
    assert review_queue.rating_for("unparsed") is None


def test_the_clock_file_sets_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "clock"
    path.write_text("2026-05-01T10:00:00+02:00\n")
    monkeypatch.setenv("QUIZBOT_CLOCK_FILE", str(path))
    assert review_queue.now() == datetime(2026, 5, 1, 8, 0, tzinfo=UTC)
    path.write_text("next tuesday")
    with pytest.raises(ConfigError, match="QUIZBOT_CLOCK_FILE"):
        review_queue.now()
