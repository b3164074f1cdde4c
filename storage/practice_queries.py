"""Practice queries added for resuming, closing idle sessions and per-option feedback.

Kept apart from :mod:`storage.sessions` (the session life cycle and answers) so each stays
small: here are the reads a student's return needs (which free-practice sessions are still
active, and when each last saw an answer), the lazy close of the idle ones, and which heads the
knowledge base lists a tail under (to say what a wrong option really is).

Sessions on an assignment are never closed here: an assignment is meant to be left and taken up
again (its window, not idleness, ends it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlmodel import Session, col

from quizbot.domain import SessionStatus
from storage.engine import Database
from storage.models import KnowledgeBase, KnowledgePoint, QuizSession, Response
from storage.types import utcnow

__all__ = [
    "ActiveSession",
    "AssignmentSessionState",
    "active_sessions",
    "assignment_session_states",
    "close_idle_sessions",
    "tail_heads",
]

_BATCH = 500


class ActiveSession(NamedTuple):
    """A free-practice session still active, and when it last changed."""

    id: int
    started_at: datetime
    last_activity: datetime  # its newest answer, or its start when it has none
    n_answered: int


def _active(session: Session, respondent_id: int) -> list[ActiveSession]:
    last = func.max(col(Response.created_at))
    stmt = (
        select(
            col(QuizSession.id),
            col(QuizSession.started_at),
            last,
            func.count(col(Response.id)),
        )
        .outerjoin(Response, col(Response.quiz_session_id) == col(QuizSession.id))
        .where(
            col(QuizSession.respondent_id) == respondent_id,
            col(QuizSession.status) == SessionStatus.ACTIVE.value,
            col(QuizSession.assignment_id).is_(None),
        )
        .group_by(col(QuizSession.id), col(QuizSession.started_at))
        .order_by(col(QuizSession.id))
    )
    found = []
    for session_id, started_raw, newest_raw, count in session.execute(stmt).all():
        started = _aware(started_raw)
        newest = _aware(newest_raw) if newest_raw is not None else started
        found.append(ActiveSession(int(session_id), started, newest, int(count)))
    return found


def _aware(moment: datetime | str) -> datetime:
    """Aggregates skip the column type on SQLite: a naive value read back is UTC."""
    if isinstance(moment, str):  # SQLite's MAX() over the stored text
        moment = datetime.fromisoformat(moment)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class AssignmentSessionState(NamedTuple):
    """One of a respondent's assignment sessions, as the exam-sealing rule needs it."""

    id: int
    status: str
    config: dict[str, Any]
    abstained: bool  # some answer of it is "I do not know" (parsed answer ``idk``)


def assignment_session_states(db: Database, respondent_id: int) -> list[AssignmentSessionState]:
    """Every assignment session of the respondent (oldest first) with its status, config and
    whether it holds an "I do not know", in one query."""
    idk = (
        select(func.count(col(Response.id)))
        .where(
            col(Response.quiz_session_id) == col(QuizSession.id),
            col(Response.parsed_answer) == "idk",
        )
        .correlate(QuizSession)
        .scalar_subquery()
    )
    stmt = (
        select(col(QuizSession.id), col(QuizSession.status), col(QuizSession.config), idk)
        .where(
            col(QuizSession.respondent_id) == respondent_id,
            col(QuizSession.assignment_id).is_not(None),
        )
        .order_by(col(QuizSession.id))
    )
    return db.read(
        lambda s: [
            AssignmentSessionState(int(i), str(status), dict(config or {}), int(n) > 0)
            for i, status, config, n in s.execute(stmt).all()
        ]
    )


def active_sessions(db: Database, respondent_id: int) -> list[ActiveSession]:
    """A respondent's active free-practice sessions (no assignment), oldest first."""
    return db.read(lambda s: _active(s, respondent_id))


def close_idle_sessions(
    db: Database,
    respondent_id: int,
    idle_since: datetime,
    *,
    active: Sequence[ActiveSession] | None = None,
) -> list[int]:
    """Mark ``abandoned`` every active free-practice session of the respondent whose last
    activity is before ``idle_since``; ``finished_at`` becomes that last activity. One
    transaction; returns the ids closed (oldest first).

    The usual case, nothing idle, is one read: the write transaction (on SQLite the database's
    one write lock, which answers queue on) is taken only when there is something to close.
    """
    if active is None:
        active = db.read(lambda session: _active(session, respondent_id))
    if not any(f.last_activity < idle_since for f in active):
        return []

    def _do(session: Session) -> list[int]:
        closed: list[int] = []
        for found in _active(session, respondent_id):
            if found.last_activity >= idle_since:
                continue
            row = session.get(QuizSession, found.id)
            if row is None or row.status != SessionStatus.ACTIVE.value:
                continue
            row.status = SessionStatus.ABANDONED.value
            row.finished_at = min(found.last_activity, utcnow())
            session.add(row)
            closed.append(found.id)
        return closed

    return db.write(_do)


def tail_heads(
    db: Database, kb_name: str, relation: str, tails: Sequence[str]
) -> dict[str, list[str]]:
    """For each of ``tails``, the heads knowledge base ``kb_name`` lists it under ``relation``
    (in KB order; tails listed nowhere are left out)."""
    wanted = list(dict.fromkeys(tails))

    def _do(session: Session) -> dict[str, list[str]]:
        found: dict[str, list[str]] = defaultdict(list)
        for start in range(0, len(wanted), _BATCH):
            stmt = (
                select(col(KnowledgePoint.tail), col(KnowledgePoint.head))
                .join(KnowledgeBase, col(KnowledgeBase.id) == col(KnowledgePoint.kb_id))
                .where(
                    col(KnowledgeBase.name) == kb_name,
                    col(KnowledgePoint.relation) == relation,
                    col(KnowledgePoint.tail).in_(wanted[start : start + _BATCH]),
                )
                .order_by(col(KnowledgePoint.id))
            )
            for tail, head in session.execute(stmt).all():
                found[str(tail)].append(str(head))
        return dict(found)

    return db.read(_do)
