"""The stored plan of a student's next practice session (migration 0024), and the reads a
session start makes, folded into one transaction.

A start used to read the respondent, their active sessions (to close the idle ones), the retired
items and their history, each in a transaction of its own. :func:`start_probe` reads the first
three with the student's stored plan and the *mark* of their history (how many answers, the
newest answer's id, their exam sessions' states) in one; a start that must plan then reads the
history alone. :func:`plan_inputs` reads the mark, the retired items and the whole history in
one, for a plan made ahead. The mark is always read before the history: an answer stored in
between makes the mark older than the history, so a plan made from them never matches a later
start's mark (it is planned again), while the reverse would let a plan miss an answer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from quizbot import domain
from storage.engine import Database
from storage.models import (
    PracticePlanRow,
    QuizSession,
    Respondent,
    RespondentKind,
    Response,
    RetiredItemRow,
)
from storage.practice_queries import ActiveSession, _active
from storage.records import to_record, to_record_or_none
from storage.repo import _insert
from storage.sessions import SessionHistory, _history_rows
from storage.types import utcnow

__all__ = [
    "HistoryMark",
    "PlanInputs",
    "PlanKey",
    "StartProbe",
    "StoredPlan",
    "create_session_from_plan",
    "delete_plan",
    "plan_inputs",
    "plan_keys",
    "plan_mark",
    "start_probe",
    "store_plan",
]


class HistoryMark(NamedTuple):
    """What changes whenever anything a plan reads of a student's history in a KB changes: the
    number of their answers there, the newest one's id, and a digest of their assignment
    sessions' ids and statuses (an exam's sealing)."""

    n_answers: int
    last_answer: int
    exams: str


class PlanKey(NamedTuple):
    """A stored plan without its session config: whose, on which KB, what it asks for and
    the basis it was made on (:func:`plan_keys`)."""

    respondent_id: int
    kb_name: str
    params: Any
    basis: str


class StoredPlan(NamedTuple):
    """A stored plan: what it was asked for, what it was computed from, the session config."""

    params: Any
    basis: str
    config: Any


@dataclass(frozen=True)
class StartProbe:
    """What a free-practice start reads before it plans, in one transaction."""

    respondent: domain.Respondent | None
    active: list[ActiveSession]
    plan: StoredPlan | None
    mark: HistoryMark | None
    retired: set[str]


@dataclass(frozen=True)
class PlanInputs:
    """What planning reads of the database: the mark, the retired items, the history."""

    mark: HistoryMark
    retired: set[str]
    history: list[SessionHistory]


def _mark(session: Session, respondent_id: int, kb_name: str) -> HistoryMark:
    joined = (
        select(func.count(col(Response.id)), func.max(col(Response.id)))
        .select_from(Response)
        .join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id))
        .where(
            col(QuizSession.respondent_id) == respondent_id,
            col(QuizSession.kb_name) == kb_name,
        )
    )
    n_answers, last = session.execute(joined).one()
    exams = session.execute(
        select(col(QuizSession.id), col(QuizSession.status))
        .where(
            col(QuizSession.respondent_id) == respondent_id,
            col(QuizSession.kb_name) == kb_name,
            col(QuizSession.assignment_id).is_not(None),
        )
        .order_by(col(QuizSession.id))
    ).all()
    digest = hashlib.sha256(repr([tuple(e) for e in exams]).encode()).hexdigest()[:32]
    return HistoryMark(int(n_answers or 0), int(last or 0), digest)


def _retired(session: Session) -> set[str]:
    return set(session.execute(select(col(RetiredItemRow.item_id))).scalars())


def start_probe(db: Database, name: str, kb_name: str) -> StartProbe:
    """The human respondent ``name`` (normalised), their active free-practice sessions, their
    stored plan on ``kb_name`` and (only when there is one) their history's mark there, and
    the retired items: one read transaction (an unknown student: only the retired items)."""

    def _do(session: Session) -> StartProbe:
        found = (
            session.execute(
                select(Respondent).where(
                    col(Respondent.kind) == RespondentKind.HUMAN.value,
                    col(Respondent.name) == name,
                )
            )
            .scalars()
            .first()
        )
        respondent = to_record_or_none(domain.Respondent, found)
        if respondent is None or respondent.id is None:
            return StartProbe(respondent, [], None, None, _retired(session))
        row = session.get(PracticePlanRow, (respondent.id, kb_name))
        plan = None if row is None else StoredPlan(row.params, row.basis, row.config)
        mark = None if plan is None else _mark(session, respondent.id, kb_name)
        return StartProbe(
            respondent, _active(session, respondent.id), plan, mark, _retired(session)
        )

    return db.read(_do)


def plan_inputs(db: Database, respondent_id: int, kb_name: str) -> PlanInputs:
    """The mark of the respondent's history in ``kb_name``, the retired items and that history
    (:func:`storage.sessions.respondent_history`), in one read transaction, the mark first."""

    def _do(session: Session) -> PlanInputs:
        mark = _mark(session, respondent_id, kb_name)
        retired = _retired(session)
        return PlanInputs(mark, retired, _history_rows(session, respondent_id, kb_name))

    return db.read(_do)


def plan_mark(
    db: Database, respondent_id: int, kb_name: str
) -> tuple[HistoryMark, set[str], str | None]:
    """The mark of the respondent's history in ``kb_name``, the retired items and the basis of
    their stored plan as it is now (None: taken or gone), without the history itself: whether
    a stored plan is still fresh, in a few small queries."""

    def _do(session: Session) -> tuple[HistoryMark, set[str], str | None]:
        row = session.get(PracticePlanRow, (respondent_id, kb_name))
        stored = None if row is None else row.basis
        return _mark(session, respondent_id, kb_name), _retired(session), stored

    return db.read(_do)


def plan_keys(db: Database) -> list[PlanKey]:
    """Every stored plan, by student and KB, without its session config (one read)."""

    def _do(session: Session) -> list[PlanKey]:
        rows = session.execute(
            select(
                col(PracticePlanRow.respondent_id),
                col(PracticePlanRow.kb_name),
                col(PracticePlanRow.params),
                col(PracticePlanRow.basis),
            ).order_by(col(PracticePlanRow.respondent_id), col(PracticePlanRow.kb_name))
        ).all()
        return [PlanKey(int(r[0]), str(r[1]), r[2], str(r[3])) for r in rows]

    return db.read(_do)


def store_plan(
    db: Database,
    respondent_id: int,
    kb_name: str,
    *,
    params: dict[str, Any],
    basis: str,
    config: dict[str, Any],
) -> None:
    """Store (or replace) the respondent's next plan on ``kb_name``.

    One upsert, so two replicas storing the same student's plan at once (each renewing it after
    a release) both succeed, the later replacing the earlier; a delete and an insert failed
    there on PostgreSQL (the second delete found the row already gone, then its insert met the
    row the first had inserted).
    """
    row = {
        "respondent_id": respondent_id,
        "kb_name": kb_name,
        "params": params,
        "basis": basis,
        "config": config,
        "created_at": utcnow(),
    }

    def _do(session: Session) -> None:
        stmt = _insert(session, PracticePlanRow.__table__)  # type: ignore[attr-defined]
        session.execute(
            stmt.on_conflict_do_update(
                index_elements=["respondent_id", "kb_name"],
                set_={
                    name: getattr(stmt.excluded, name)
                    for name in ("params", "basis", "config", "created_at")
                },
            ),
            row,
        )

    db.write(_do)


def _delete(respondent_id: int, kb_name: str) -> Any:
    return delete(PracticePlanRow).where(
        col(PracticePlanRow.respondent_id) == respondent_id,
        col(PracticePlanRow.kb_name) == kb_name,
    )


def delete_plan(
    db: Database, respondent_id: int, kb_name: str, *, basis: str | None = None
) -> bool:
    """Forget the respondent's stored plan on ``kb_name`` (if any; with ``basis``, only while
    its basis is still that one: a plan stored again since is kept); whether one was."""
    stmt = _delete(respondent_id, kb_name)
    if basis is not None:
        stmt = stmt.where(col(PracticePlanRow.basis) == basis)
    return bool(db.write(lambda s: getattr(s.execute(stmt), "rowcount", 0)))


def create_session_from_plan(
    db: Database, respondent_id: int, kb_name: str, basis: str, config: dict[str, Any]
) -> domain.PracticeSessionRecord | None:
    """Take the stored plan (delete it, if its basis is still ``basis``) and create the active
    session with ``config``, in one write transaction; ``None`` (nothing written) when the
    plan is no longer there: another start took it, or a newer plan replaced it."""

    def _do(session: Session) -> domain.PracticeSessionRecord | None:
        taken = session.execute(
            _delete(respondent_id, kb_name).where(col(PracticePlanRow.basis) == basis)
        )
        if not getattr(taken, "rowcount", 0):
            return None
        row = QuizSession(respondent_id=respondent_id, kb_name=kb_name, config=config)
        session.add(row)
        session.flush()
        return to_record(domain.PracticeSessionRecord, row)

    return db.write(_do)
