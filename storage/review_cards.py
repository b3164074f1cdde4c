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
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import BindParameter, Select, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot.errors import NotFoundError
from storage.engine import Database
from storage.models import Item, KnowledgeBase, QuizSession, Response, ReviewCardRow, ReviewSyncRow
from storage.types import utcnow

__all__ = [
    "AnswerSource",
    "ItemFacts",
    "Pending",
    "ReviewCard",
    "count_due",
    "due_cards",
    "get_cards",
    "item_facts",
    "pending_answers",
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
    quiz_session_id: int = 0
    on_assignment: bool = False  # its session answers an assignment (it may be an exam)
    parsed_answer: str | None = None  # what it was read as (a recall answer's counts)


class Pending(NamedTuple):
    """What a sync has to consider: the watermark, the answers above it and those of the held
    sessions (oldest first), and the held sessions themselves."""

    watermark: int
    answers: list[AnswerSource]
    held: tuple[int, ...] = ()


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


def _answer_columns() -> tuple[Any, ...]:
    return (
        col(Response.id),
        col(Response.item_id),
        col(Response.outcome),
        col(Response.latency_ms),
        col(Response.created_at),
        col(QuizSession.kb_name),
        col(Response.quiz_session_id),
        col(QuizSession.assignment_id).is_not(None),
        col(Response.parsed_answer),
    )


def _source(row: Any) -> AnswerSource:
    return AnswerSource(
        response_id=int(row[0]),
        item_id=str(row[1]),
        outcome=str(row[2]),
        latency_ms=row[3],
        created_at=row[4],
        kb_name=str(row[5]),
        quiz_session_id=int(row[6] or 0),
        on_assignment=bool(row[7]),
        parsed_answer=row[8],
    )


@cache
def _pending_statements() -> tuple[Select[Any], Select[Any]]:
    """:func:`pending_answers`' two statements, built once with the respondent as a bound
    parameter: building them (and their cache keys) cost about as much as running them, on
    every answer."""
    respondent: BindParameter[int] = bindparam("respondent")
    sync_row = select(ReviewSyncRow).where(col(ReviewSyncRow.respondent_id) == respondent)
    mark = (
        select(col(ReviewSyncRow.last_response_id))
        .where(col(ReviewSyncRow.respondent_id) == respondent)
        .scalar_subquery()
    )
    held_of = (
        select(col(ReviewSyncRow.held_sessions))
        .where(col(ReviewSyncRow.respondent_id) == respondent)
        .scalar_subquery()
    )
    stmt = (
        select(*_answer_columns(), func.coalesce(mark, 0), held_of)
        .join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id))
        .where(
            col(Response.respondent_id) == respondent,
            col(Response.id) > func.coalesce(mark, 0),
        )
        .order_by(col(Response.id))
    )
    return stmt, sync_row


def pending_answers(db: Database, respondent_id: int) -> Pending:
    """The watermark, the student's practice answers above it (oldest first), and the held
    sessions with their answers (:attr:`ReviewSyncRow.held_sessions`).

    The usual case (nothing held) is one statement: the answer hook runs inside the answer's
    write transaction, where every statement counts.
    """
    stmt, sync_row = _pending_statements()
    who = {"respondent": respondent_id}

    def _do(session: Session) -> Pending:
        rows = session.execute(stmt, who).all()
        if rows:
            watermark, held_raw = int(rows[0][9]), rows[0][10]
        else:
            stored = session.execute(sync_row, who).scalars().first()
            watermark = stored.last_response_id if stored is not None else 0
            held_raw = stored.held_sessions if stored is not None else []
        held = tuple(sorted({int(i) for i in (held_raw or [])}))
        answers = [_source(row) for row in rows]
        if held:
            earlier = (
                select(*_answer_columns())
                .join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id))
                .where(
                    col(Response.respondent_id) == respondent_id,
                    col(Response.id) <= watermark,
                    col(Response.quiz_session_id).in_(held),
                )
                .order_by(col(Response.id))
            )
            answers = [_source(row) for row in session.execute(earlier).all()] + answers
        return Pending(watermark, answers, held)

    return db.read(_do)


class ItemFacts(NamedTuple):
    """What an answered item says about the facts it reviews: the columns of the item and its
    KB that :func:`quizbot.practice.review_queue.sync` needs, without the rest of the item."""

    id: str
    kind: str
    kb: str
    relation: str
    head: str
    tail: str
    lineage: dict[str, Any]


def item_facts(db: Database, ids: Sequence[str]) -> list[ItemFacts]:
    """:class:`ItemFacts` of stored items by id, in the order asked; :class:`NotFoundError` if
    any is missing (as :func:`storage.repo.get_items`).

    A returning student's first sync reads hundreds of items; rebuilding each whole item (text,
    options, prototype) was about half of that sync's time.
    """
    wanted = list(dict.fromkeys(ids))
    table = Item.__table__  # type: ignore[attr-defined]
    kbs = KnowledgeBase.__table__  # type: ignore[attr-defined]
    columns = (
        table.c.id,
        table.c.kind,
        kbs.c.name,
        table.c.relation,
        table.c.head,
        table.c.tail,
        table.c.lineage,
    )

    def _do(session: Session) -> dict[str, ItemFacts]:
        found: dict[str, ItemFacts] = {}
        for start in range(0, len(wanted), _BATCH):
            stmt = (
                select(*columns)
                .join(kbs, kbs.c.id == table.c.kb_id)
                .where(table.c.id.in_(wanted[start : start + _BATCH]))
            )
            for row in session.connection().execute(stmt):
                found[row[0]] = ItemFacts(*row)
        return found

    found = db.read(_do)
    missing = [i for i in wanted if i not in found]
    if missing:
        raise NotFoundError(f"{len(missing)} item(s) not in the database, e.g. {missing[0]}")
    return [found[i] for i in ids]


@cache
def _cards_statement() -> Select[Any]:
    """:func:`get_cards`' statement, built once (respondent and facts bound per call)."""
    return select(ReviewCardRow).where(
        col(ReviewCardRow.respondent_id) == bindparam("respondent"),
        col(ReviewCardRow.fact).in_(bindparam("facts", expanding=True)),
    )


def get_cards(db: Database, respondent_id: int, facts: Sequence[str]) -> dict[str, ReviewCard]:
    """The student's cards for ``facts`` (those that exist), by fact."""
    wanted = list(dict.fromkeys(facts))

    stmt = _cards_statement()

    def _do(session: Session) -> dict[str, ReviewCard]:
        found: dict[str, ReviewCard] = {}
        for start in range(0, len(wanted), _BATCH):
            chunk = {"respondent": respondent_id, "facts": wanted[start : start + _BATCH]}
            for row in session.execute(stmt, chunk).scalars():
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
    held: Sequence[int] = (),
) -> bool:
    """Write ``cards`` (insert or replace by fact), move the watermark and store the sessions
    still ``held``, in one transaction.

    Only if the stored watermark is still ``expected_watermark``; otherwise (another sync got
    there first) nothing is written and ``False`` is returned.
    """
    held_list = sorted({int(i) for i in held})

    def _do(session: Session) -> bool:
        # Move the watermark only from where this sync started: one UPDATE whose row count says
        # whether another sync got there first (the first sync of a student inserts the row).
        moved = session.execute(
            update(ReviewSyncRow)
            .where(
                col(ReviewSyncRow.respondent_id) == respondent_id,
                col(ReviewSyncRow.last_response_id) == expected_watermark,
            )
            .values(last_response_id=new_watermark, held_sessions=held_list, updated_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            if expected_watermark != 0 or session.get(ReviewSyncRow, respondent_id) is not None:
                return False
            session.execute(
                insert(ReviewSyncRow).values(
                    respondent_id=respondent_id,
                    last_response_id=new_watermark,
                    held_sessions=held_list,
                    updated_at=utcnow(),
                )
            )
        # Plain rows through SQLAlchemy's bulk INSERT / UPDATE (executemany), not one ORM object
        # per card: a returning student's first sync writes hundreds of cards, and building
        # each as a SQLModel instance cost about 1 ms of the write transaction per card.
        existing: dict[str, int] = {}
        facts = list(dict.fromkeys(c.fact for c in cards))
        for start in range(0, len(facts), _BATCH):
            stmt = select(col(ReviewCardRow.fact), col(ReviewCardRow.id)).where(
                col(ReviewCardRow.respondent_id) == respondent_id,
                col(ReviewCardRow.fact).in_(facts[start : start + _BATCH]),
            )
            existing.update({str(fact): int(row_id) for fact, row_id in session.execute(stmt)})
        stamp = utcnow()
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        for card in {c.fact: c for c in cards}.values():  # the last card of a fact wins
            values: dict[str, Any] = {
                "kb_name": card.kb_name,
                "relation": card.relation,
                "head": card.head,
                "tail": card.tail,
                "card": dict(card.card),
                "due": card.due,
                "last_review": card.last_review,
                "reviews": card.reviews,
                "lapses": card.lapses,
                "last_response_id": card.last_response_id,
                "updated_at": stamp,
            }
            row_id = existing.get(card.fact)
            if row_id is None:
                inserts.append({"respondent_id": respondent_id, "fact": card.fact, **values})
            else:
                updates.append({"id": row_id, **values})
        if inserts:  # the table's own INSERT: no ORM bulk machinery per row (a first sync
            # inserts hundreds), the same column types and so the same stored values
            session.execute(ReviewCardRow.__table__.insert(), inserts)  # type: ignore[attr-defined]
        if updates:
            session.execute(update(ReviewCardRow), updates)
        session.flush()
        return True

    try:
        return db.write(_do)
    except IntegrityError:  # a concurrent first sync inserted the same watermark or card row
        return False


def _of_kind(stmt: Any, kb_name: str | None, prefix: str | None, without: str | None) -> Any:
    """``stmt`` kept to the cards of ``kb_name`` whose fact starts with ``prefix`` and not with
    ``without`` (each when given)."""
    if kb_name is not None:
        stmt = stmt.where(col(ReviewCardRow.kb_name) == kb_name)
    if prefix is not None:
        stmt = stmt.where(col(ReviewCardRow.fact).startswith(prefix, autoescape=True))
    if without is not None:
        stmt = stmt.where(~col(ReviewCardRow.fact).startswith(without, autoescape=True))
    return stmt


def due_cards(
    db: Database,
    respondent_id: int,
    before: datetime,
    *,
    kb_name: str | None = None,
    prefix: str | None = None,
    without: str | None = None,
) -> list[ReviewCard]:
    """The student's cards due at or before ``before`` (in ``kb_name`` if given; of facts that
    start with ``prefix`` and not with ``without``, if given), most overdue first."""
    stmt = select(ReviewCardRow).where(
        col(ReviewCardRow.respondent_id) == respondent_id, col(ReviewCardRow.due) <= before
    )
    stmt = _of_kind(stmt, kb_name, prefix, without)
    stmt = stmt.order_by(col(ReviewCardRow.due), col(ReviewCardRow.fact))
    return db.read(lambda s: [_card(row) for row in s.execute(stmt).scalars()])


def count_due(
    db: Database,
    respondent_id: int,
    before: datetime,
    *,
    kb_name: str | None = None,
    prefix: str | None = None,
    without: str | None = None,
) -> int:
    """How many of the student's cards are due at or before ``before`` (filters as
    :func:`due_cards`)."""
    stmt = (
        select(func.count())
        .select_from(ReviewCardRow)
        .where(col(ReviewCardRow.respondent_id) == respondent_id, col(ReviewCardRow.due) <= before)
    )
    stmt = _of_kind(stmt, kb_name, prefix, without)
    return db.read(lambda s: int(s.execute(stmt).scalar_one()))
