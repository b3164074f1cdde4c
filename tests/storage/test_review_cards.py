"""Review cards: a write computed from a stale watermark stores nothing; due queries order and
filter by the indexed due time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from quizbot.domain import RespondentKind
from storage import Database
from storage.repo import get_or_create_respondent
from storage.review_cards import (
    ReviewCard,
    count_due,
    due_cards,
    get_cards,
    review_watermark,
    save_cards,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _card(respondent_id: int, fact: str, due: datetime, kb: str = "clinical-core") -> ReviewCard:
    return ReviewCard(
        respondent_id=respondent_id,
        fact=fact,
        kb_name=kb,
        relation="has_symptom",
        head="h",
        tail="t",
        card={"card_id": 1, "state": 2, "due": due.isoformat()},
        due=due,
        last_review=T0,
        reviews=1,
        lapses=0,
        last_response_id=5,
    )


def test_a_stale_watermark_writes_nothing(db: Database) -> None:
    rid = get_or_create_respondent(db, RespondentKind.HUMAN, "ana").id
    assert rid is not None
    first = _card(rid, "kp1:a", T0 + timedelta(days=1))
    assert save_cards(db, rid, [first], expected_watermark=0, new_watermark=5)
    assert review_watermark(db, rid) == 5
    late = _card(rid, "kp1:b", T0)
    assert not save_cards(db, rid, [late], expected_watermark=0, new_watermark=9)
    assert review_watermark(db, rid) == 5
    assert get_cards(db, rid, ["kp1:a", "kp1:b"]) == {"kp1:a": first}
    moved = _card(rid, "kp1:a", T0 + timedelta(days=4))
    assert save_cards(db, rid, [moved], expected_watermark=5, new_watermark=7)
    assert get_cards(db, rid, ["kp1:a"]) == {"kp1:a": moved}


def test_due_cards_are_the_ones_due_most_overdue_first(db: Database) -> None:
    rid = get_or_create_respondent(db, RespondentKind.HUMAN, "bo").id
    other = get_or_create_respondent(db, RespondentKind.HUMAN, "cy").id
    assert rid is not None and other is not None
    cards = [
        _card(rid, "kp1:late", T0 + timedelta(days=3)),
        _card(rid, "kp1:soon", T0 + timedelta(hours=1)),
        _card(rid, "kp1:now", T0),
        _card(rid, "kp1:hpo", T0, kb="hpo"),
    ]
    assert save_cards(db, rid, cards, expected_watermark=0, new_watermark=1)
    assert save_cards(db, other, [_card(other, "kp1:x", T0)], expected_watermark=0, new_watermark=1)
    at = T0 + timedelta(hours=2)
    due = due_cards(db, rid, at, kb_name="clinical-core")
    assert [c.fact for c in due] == ["kp1:now", "kp1:soon"]
    assert count_due(db, rid, at, kb_name="clinical-core") == 2
    assert count_due(db, rid, at) == 3
    assert count_due(db, rid, T0 - timedelta(seconds=1)) == 0


def test_a_students_cards_are_theirs_alone_and_read_past_one_batch(db: Database) -> None:
    ana = get_or_create_respondent(db, RespondentKind.HUMAN, "dee").id
    bo = get_or_create_respondent(db, RespondentKind.HUMAN, "eli").id
    assert ana is not None and bo is not None
    # 600 facts: more than one IN (...) batch of 500.
    facts = [f"kp{k}:t" for k in range(600)]
    mine = [_card(ana, fact, T0 + timedelta(days=1 + k % 7)) for k, fact in enumerate(facts)]
    theirs = _card(bo, facts[0], T0 + timedelta(days=30))  # the same fact, another student
    assert save_cards(db, ana, mine, expected_watermark=0, new_watermark=5)
    assert save_cards(db, bo, [theirs], expected_watermark=0, new_watermark=5)
    read = get_cards(db, ana, [*facts, "kp-none:t"])
    assert read == {card.fact: card for card in mine}  # none of bo's, nothing for a missing fact
    assert get_cards(db, bo, facts) == {facts[0]: theirs}
