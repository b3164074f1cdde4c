"""Repository functions for spaced review: the queries behind :mod:`quizbot.practice.review_queue`.

A student's review cards (:class:`~storage.models.ReviewCardRow`, one per knowledge point) and
how far their answers have been turned into cards (:class:`~storage.models.ReviewSyncRow`, a
watermark on response ids). Scheduling itself (FSRS) lives above storage; these functions take
and return plain values (:class:`ReviewCard`, :class:`AnswerSource`), never table rows.

Writing is one transaction that checks the watermark it was computed from
(:func:`save_cards`): when two syncs for the same student race, the second finds the watermark
moved and writes nothing, so an answer is never applied to a card twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from storage.engine import Database
from storage.models import QuizSession, Response, ReviewCardRow, ReviewSyncRow
from storage.types import utcnow

__all__ = [
    "AnswerSource",
    "ReviewCard",
    "answers_after",
    "count_due",
    "due_cards",
    "get_cards",
    "review_watermark",
    "save_cards",
]

_BATCH = 500  # ids per IN (...) clause


@dataclass(frozen=True)
class ReviewCard:
    """One student's card for one knowledge point, as stored."""

    respondent_id: int
    fact: str
    kb_name: str
    relation: str
    head: str
    tail: str
    card: dict[str, Any]
    due: datetime
    last_review: datetime | None
    reviews: int
    lapses: int
    last_response_id: int


class AnswerSource(NamedTuple):
    """A student's practice answer, as the review cards need it."""

    response_id: int
    item_id: str
    outcome: str
    latency_ms: float | None
    created_at: datetime
    kb_name: str


def _card(row: ReviewCardRow) -> ReviewCard:
    return ReviewCard(
        respondent_id=row.respondent_id,
        fact=row.fact,
        kb_name=row.kb_name,
        relation=row.relation,
        head=row.head,
        tail=row.tail,
        card=dict(row.card),
        due=row.due,
        last_review=row.last_review,
        reviews=row.reviews,
        lapses=row.lapses,
        last_response_id=row.last_response_id,
    )


def review_watermark(db: Database, respondent_id: int) -> int:
    """The id of the last answer of the student already turned into cards (0: none yet)."""
    stmt = select(col(ReviewSyncRow.last_response_id)).where(
        col(ReviewSyncRow.respondent_id) == respondent_id
    )
    return db.read(lambda s: int(s.execute(stmt).scalar_one_or_none() or 0))


def answers_after(db: Database, respondent_id: int, after_id: int) -> list[AnswerSource]:
    """The student's practice-session answers with an id above ``after_id``, oldest first."""
    stmt = (
        select(
            col(Response.id),
            col(Response.item_id),
            col(Response.outcome),
            col(Response.latency_ms),
            col(Response.created_at),
            col(QuizSession.kb_name),
        )
        .join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id))
        .where(col(Response.respondent_id) == respondent_id, col(Response.id) > after_id)
        .order_by(col(Response.id))
    )
    return db.read(lambda s: [AnswerSource(*row) for row in s.execute(stmt).all()])


def get_cards(db: Database, respondent_id: int, facts: Sequence[str]) -> dict[str, ReviewCard]:
    """The student's cards for ``facts`` (those that exist), by fact."""
    wanted = list(dict.fromkeys(facts))

    def _do(session: Session) -> dict[str, ReviewCard]:
        found: dict[str, ReviewCard] = {}
        for start in range(0, len(wanted), _BATCH):
            stmt = select(ReviewCardRow).where(
                col(ReviewCardRow.respondent_id) == respondent_id,
                col(ReviewCardRow.fact).in_(wanted[start : start + _BATCH]),
            )
            for row in session.execute(stmt).scalars():
                found[row.fact] = _card(row)
        return found

    return db.read(_do)


def save_cards(
    db: Database,
    respondent_id: int,
    cards: Sequence[ReviewCard],
    *,
    expected_watermark: int,
    new_watermark: int,
) -> bool:
    """Write ``cards`` (insert or replace by fact) and move the watermark, in one transaction.

    Only if the stored watermark is still ``expected_watermark``; otherwise (another sync got
    there first) nothing is written and ``False`` is returned.
    """

    def _do(session: Session) -> bool:
        sync = session.execute(
            select(ReviewSyncRow)
            .where(col(ReviewSyncRow.respondent_id) == respondent_id)
            .with_for_update()
        ).scalar_one_or_none()
        current = sync.last_response_id if sync is not None else 0
        if current != expected_watermark:
            return False
        if sync is None:
            sync = ReviewSyncRow(respondent_id=respondent_id)
        sync.last_response_id = new_watermark
        sync.updated_at = utcnow()
        session.add(sync)
        existing = {
            row.fact: row
            for row in session.execute(
                select(ReviewCardRow).where(
                    col(ReviewCardRow.respondent_id) == respondent_id,
                    col(ReviewCardRow.fact).in_([c.fact for c in cards]),
                )
            ).scalars()
        }
        for card in cards:
            row = existing.get(card.fact) or ReviewCardRow(
                respondent_id=respondent_id,
                fact=card.fact,
                kb_name=card.kb_name,
                relation=card.relation,
                head=card.head,
                tail=card.tail,
                due=card.due,
            )
            row.kb_name, row.relation = card.kb_name, card.relation
            row.head, row.tail = card.head, card.tail
            row.card, row.due, row.last_review = dict(card.card), card.due, card.last_review
            row.reviews, row.lapses = card.reviews, card.lapses
            row.last_response_id, row.updated_at = card.last_response_id, utcnow()
            session.add(row)
        session.flush()
        return True

    try:
        return db.write(_do)
    except IntegrityError:  # a concurrent first sync inserted the same watermark or card row
        return False


def due_cards(
    db: Database, respondent_id: int, before: datetime, *, kb_name: str | None = None
) -> list[ReviewCard]:
    """The student's cards due at or before ``before`` (in ``kb_name`` if given), most overdue
    first."""
    stmt = select(ReviewCardRow).where(
        col(ReviewCardRow.respondent_id) == respondent_id, col(ReviewCardRow.due) <= before
    )
    if kb_name is not None:
        stmt = stmt.where(col(ReviewCardRow.kb_name) == kb_name)
    stmt = stmt.order_by(col(ReviewCardRow.due), col(ReviewCardRow.fact))
    return db.read(lambda s: [_card(row) for row in s.execute(stmt).scalars()])


def count_due(
    db: Database, respondent_id: int, before: datetime, *, kb_name: str | None = None
) -> int:
    """How many of the student's cards are due at or before ``before``."""
    stmt = (
        select(func.count())
        .select_from(ReviewCardRow)
        .where(col(ReviewCardRow.respondent_id) == respondent_id, col(ReviewCardRow.due) <= before)
    )
    if kb_name is not None:
        stmt = stmt.where(col(ReviewCardRow.kb_name) == kb_name)
    return db.read(lambda s: int(s.execute(stmt).scalar_one()))
