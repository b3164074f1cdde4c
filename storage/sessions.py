"""Repository functions for practice sessions: the queries behind :mod:`quizbot.practice.service`.

A practice session is one :class:`~storage.models.QuizSession` row (who, which KB, the chosen
settings and the ordered item ids in ``config``, a status) plus one
:class:`~storage.models.Response` per answered item (``quiz_session_id`` set, ``run_id`` NULL).
Like :mod:`storage.repo`, every function runs one transaction and returns plain values: the
records of :mod:`quizbot.domain` (:class:`~quizbot.domain.PracticeSessionRecord`,
:class:`~quizbot.domain.Respondent`) and the small tuples defined here, never table rows.

Answering is the one write that needs care. :func:`record_session_answer` does everything in one
transaction: it locks the session row (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite writers
are already serialised by ``BEGIN IMMEDIATE``), refuses an answer to a session that is not active
or to an item already answered, inserts the response, and marks the session finished when that
was its last unanswered item. So two answers arriving together for the last two items cannot
both miss the "finished" step, and a refused answer leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot import domain
from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage.engine import Database
from storage.models import (
    EvalRun,
    Item,
    KnowledgeBase,
    KnowledgePoint,
    Outcome,
    QuizSession,
    Respondent,
    RespondentKind,
    Response,
    SessionStatus,
)
from storage.records import to_record, to_record_or_none
from storage.repo import NewResponse, _integrity
from storage.types import utcnow

__all__ = [
    "AnswerRow",
    "LoadedSession",
    "ModelAnswer",
    "RecordedAnswer",
    "SessionHistory",
    "abandon_if_active",
    "create_session",
    "find_respondent",
    "load_session",
    "model_answers",
    "point_tails",
    "record_session_answer",
    "respondent_history",
    "session_respondent",
    "set_respondent_cohort",
    "set_session_status",
    "stored_item_ids",
]

_BATCH = 500  # ids per IN (...) clause


class AnswerRow(NamedTuple):
    """One stored answer of a practice session, without the ORM object."""

    id: int
    quiz_session_id: int
    item_id: str
    outcome: str
    raw_text: str | None
    parsed_answer: str | None
    parse_reason: str | None
    created_at: datetime


_ANSWER_COLUMNS = (
    col(Response.id),
    col(Response.quiz_session_id),
    col(Response.item_id),
    col(Response.outcome),
    col(Response.raw_text),
    col(Response.parsed_answer),
    col(Response.parse_reason),
    col(Response.created_at),
)


# Statements run on every answer, built once with bound parameters: building one (and its cache
# key) cost about as much as running it on SQLite (0.2-0.4 ms each, bench notes in
# docs/performance.md).
_ANSWERS_OF_SESSIONS = (
    select(*_ANSWER_COLUMNS)
    .where(col(Response.quiz_session_id).in_(bindparam("sessions", expanding=True)))
    .order_by(col(Response.id))
)
_SESSION_LOCKED = (
    select(QuizSession).where(col(QuizSession.id) == bindparam("session")).with_for_update()
)
# the stored answer's columns as the database gives them back (what _ANSWERS_OF_SESSIONS reads)
_RESPONSES = Response.__table__  # type: ignore[attr-defined]
_INSERT_ANSWER = _RESPONSES.insert().returning(*_ANSWER_COLUMNS)


def _answers(session: Session, session_ids: Sequence[int]) -> list[AnswerRow]:
    rows: list[AnswerRow] = []
    for start in range(0, len(session_ids), _BATCH):
        chunk = {"sessions": list(session_ids[start : start + _BATCH])}
        rows.extend(AnswerRow(*row) for row in session.execute(_ANSWERS_OF_SESSIONS, chunk).all())
    rows.sort(key=lambda r: r.id)
    return rows


# --------------------------------------------------------------------------------------------
# Respondents


def find_respondent(db: Database, kind: RespondentKind, name: str) -> domain.Respondent | None:
    """The respondent ``(kind, name)`` if it exists; never creates one."""
    stmt = select(Respondent).where(
        col(Respondent.kind) == RespondentKind(kind).value, col(Respondent.name) == name
    )
    return db.read(
        lambda s: to_record_or_none(domain.Respondent, s.execute(stmt).scalars().first())
    )


def set_respondent_cohort(
    db: Database, respondent_id: int, cohort: str | None
) -> domain.Respondent:
    """Record the cohort a respondent belongs to now (``None`` clears it)."""

    def _do(session: Session) -> domain.Respondent:
        row = session.get(Respondent, respondent_id)
        if row is None:
            raise NotFoundError(f"no respondent with id {respondent_id}")
        row.cohort = cohort
        session.add(row)
        session.flush()
        return to_record(domain.Respondent, row)

    return db.write(_do)


# --------------------------------------------------------------------------------------------
# Sessions


def create_session(
    db: Database,
    *,
    respondent_id: int,
    kb_name: str,
    config: dict[str, Any],
    assignment_id: int | None = None,
) -> domain.PracticeSessionRecord:
    """Create an active practice session (on ``assignment_id`` when given);
    :class:`NotFoundError` for an unknown respondent or assignment."""
    row = QuizSession(
        respondent_id=respondent_id, kb_name=kb_name, config=config, assignment_id=assignment_id
    )

    def _do(session: Session) -> domain.PracticeSessionRecord:
        session.add(row)
        session.flush()
        return to_record(domain.PracticeSessionRecord, row)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"practice session for respondent {respondent_id}") from None


@dataclass(frozen=True)
class LoadedSession:
    """A session, who it belongs to, and its answers so far (oldest first), read together."""

    session: domain.PracticeSessionRecord
    respondent: domain.Respondent
    answers: list[AnswerRow]

    @property
    def answered(self) -> dict[str, AnswerRow]:
        """Answers by item id."""
        return {a.item_id: a for a in self.answers}


def _not_found(session_id: int) -> NotFoundError:
    return NotFoundError(
        f"no practice session with id {session_id}",
        hint="start a new session; a session id comes from start_session",
    )


def session_respondent(db: Database, session_id: int) -> domain.Respondent | None:
    """Who a session belongs to (one read, no answers); ``None`` if there is no such session."""

    def _do(session: Session) -> domain.Respondent | None:
        row = session.get(QuizSession, session_id)
        if row is None:
            return None
        return to_record_or_none(domain.Respondent, session.get(Respondent, row.respondent_id))

    return db.read(_do)


def load_session(db: Database, session_id: int) -> LoadedSession:
    """A session with its respondent and answers; :class:`NotFoundError` if there is none."""

    def _do(session: Session) -> LoadedSession | None:
        row = session.get(QuizSession, session_id)
        if row is None:
            return None
        respondent = session.get(Respondent, row.respondent_id)
        assert respondent is not None  # foreign key
        return LoadedSession(
            to_record(domain.PracticeSessionRecord, row),
            to_record(domain.Respondent, respondent),
            _answers(session, [session_id]),
        )

    loaded = db.read(_do)
    if loaded is None:
        raise _not_found(session_id)
    return loaded


@dataclass(frozen=True)
class RecordedAnswer:
    """What storing an answer did, and the session as it stands after it (read under the
    session's lock in the same transaction, so a caller needs no second load)."""

    response_id: int
    n_answered: int
    finished: bool
    session: domain.PracticeSessionRecord
    answers: tuple[AnswerRow, ...]  # the session's answers after this one, oldest first


def record_session_answer(db: Database, response: NewResponse, *, n_items: int) -> RecordedAnswer:
    """Store a person's answer in its session; finish the session after its last item.

    One transaction, with the session row locked. Refusals, checked in this order, write
    nothing: :class:`NotFoundError` if the session does not exist, :class:`InputError` if the
    respondent is not its owner, :class:`DuplicateError` if the item was answered already (the
    first answer stands), :class:`InputError` if the session is no longer active. ``n_items``
    is how many items the session asks; when the stored answers reach it the session becomes
    ``finished`` with ``finished_at`` set.
    """
    if response.quiz_session_id is None or response.run_id is not None:
        raise InputError("a practice answer belongs to one practice session and no run")
    session_id = response.quiz_session_id
    values = response.row()

    def _do(session: Session) -> RecordedAnswer:
        row = session.execute(_SESSION_LOCKED, {"session": session_id}).scalar_one_or_none()
        if row is None:
            raise _not_found(session_id)
        if row.respondent_id != response.respondent_id:
            raise InputError(f"practice session {session_id} belongs to another student")
        # the session's answers, read under its lock: the duplicate check, the count and
        # the session after this answer all come from them (one statement, not three)
        earlier = _answers(session, [session_id])
        if any(a.item_id == response.item_id for a in earlier):
            raise DuplicateError(
                "this question was already answered in this session; the first answer stands",
                hint="go on to the next question",
            )
        if row.status != SessionStatus.ACTIVE.value:
            raise InputError(
                f"practice session {session_id} is {row.status}; it takes no more answers",
                hint="start a new session",
            )
        stored = AnswerRow(*session.execute(_INSERT_ANSWER, values).one())
        answers = (*earlier, stored)
        finished = len(answers) >= n_items
        if finished:
            row.status = SessionStatus.FINISHED.value
            row.finished_at = utcnow()
            session.add(row)
            session.flush()
        return RecordedAnswer(
            stored.id,
            len(answers),
            finished,
            to_record(domain.PracticeSessionRecord, row),
            answers,
        )

    try:
        # No savepoint of its own inside a unit (answer_and_next): nothing there catches its
        # failure, which rolls the whole unit back (docs/performance.md, Part 16).
        return db.write(_do, savepoint=False)
    except IntegrityError as exc:  # a concurrent duplicate that got past the check above
        raise _integrity(exc, "an answer to this item in this session") from None


def set_session_status(
    db: Database, session_id: int, status: SessionStatus
) -> domain.PracticeSessionRecord:
    """Move a session to ``status``; ``finished_at`` is set when it leaves ``active``."""

    def _do(session: Session) -> domain.PracticeSessionRecord:
        row = session.get(QuizSession, session_id)
        if row is None:
            raise _not_found(session_id)
        row.status = SessionStatus(status).value
        if status is not SessionStatus.ACTIVE and row.finished_at is None:
            row.finished_at = utcnow()
        session.add(row)
        session.flush()
        return to_record(domain.PracticeSessionRecord, row)

    return db.write(_do)


def abandon_if_active(db: Database, session_id: int) -> bool:
    """Mark session ``session_id`` ``abandoned`` if it is still active (``finished_at`` now),
    as :func:`set_session_status` would; a finished, abandoned or missing session is left as
    it is. One UPDATE, reading nothing: what a tab does with the session it leaves behind when
    another starts. Returns whether the session was active."""
    stmt = (
        update(QuizSession)
        .where(
            col(QuizSession.id) == session_id,
            col(QuizSession.status) == SessionStatus.ACTIVE.value,
        )
        .values(
            status=SessionStatus.ABANDONED.value,
            finished_at=func.coalesce(col(QuizSession.finished_at), utcnow()),
        )
        .execution_options(synchronize_session=False)
    )
    return bool(db.write(lambda session: getattr(session.execute(stmt), "rowcount", 0)))


@dataclass(frozen=True)
class SessionHistory:
    """One of a respondent's sessions with its answers (oldest first)."""

    session: domain.PracticeSessionRecord
    answers: list[AnswerRow]


def stored_item_ids(db: Database, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are stored items (one read: a session start writes only the new ones)."""
    wanted = list(dict.fromkeys(ids))

    def _do(session: Session) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(wanted), _BATCH):
            chunk = wanted[start : start + _BATCH]
            found.update(
                session.execute(select(col(Item.id)).where(col(Item.id).in_(chunk))).scalars()
            )
        return found

    return db.read(_do)


def respondent_history(
    db: Database, respondent_id: int, *, kb_name: str | None = None
) -> list[SessionHistory]:
    """Every practice session of a respondent (only in ``kb_name`` if given), oldest first."""

    return db.read(lambda session: _history_rows(session, respondent_id, kb_name))


def _history_rows(
    session: Session, respondent_id: int, kb_name: str | None
) -> list[SessionHistory]:
    """:func:`respondent_history` inside a transaction already open."""
    stmt = select(QuizSession).where(col(QuizSession.respondent_id) == respondent_id)
    if kb_name is not None:
        stmt = stmt.where(col(QuizSession.kb_name) == kb_name)
    rows = [
        to_record(domain.PracticeSessionRecord, row)
        for row in session.execute(stmt.order_by(col(QuizSession.id))).scalars()
    ]
    by_session: dict[int, list[AnswerRow]] = {row.id: [] for row in rows}
    for answer in _answers(session, list(by_session)):
        by_session[answer.quiz_session_id].append(answer)
    return [SessionHistory(row, by_session[row.id]) for row in rows]


# --------------------------------------------------------------------------------------------
# Models and the knowledge base, as a session needs them


class ModelAnswer(NamedTuple):
    """A model's (or baseline's) stored answer to an item, from an evaluation run."""

    model: str
    run_id: int
    item_id: str
    outcome: str
    parsed_answer: str | None
    created_at: datetime


def model_answers(
    db: Database, item_ids: Sequence[str], models: Sequence[str] | None = None
) -> list[ModelAnswer]:
    """Answers from evaluation runs to any of ``item_ids`` (only ``models`` if given).

    Calls that failed (outcome ``error``) are left out: the question never reached the model.
    Oldest first, so a caller keeping the last answer per (model, item) keeps the newest.
    """
    wanted = list(dict.fromkeys(item_ids))
    model_list = list(dict.fromkeys(models)) if models is not None else None

    def _do(session: Session) -> list[ModelAnswer]:
        found: list[ModelAnswer] = []
        if model_list is not None and not model_list:
            return found
        for start in range(0, len(wanted), _BATCH):
            stmt = (
                select(
                    col(EvalRun.model_requested),
                    col(Response.run_id),
                    col(Response.item_id),
                    col(Response.outcome),
                    col(Response.parsed_answer),
                    col(Response.created_at),
                )
                .join(EvalRun, col(EvalRun.id) == col(Response.run_id))
                .where(
                    col(Response.item_id).in_(wanted[start : start + _BATCH]),
                    col(Response.outcome) != Outcome.ERROR.value,
                )
            )
            if model_list is not None:
                stmt = stmt.where(col(EvalRun.model_requested).in_(model_list))
            found.extend(ModelAnswer(*row) for row in session.execute(stmt).all())
        found.sort(key=lambda a: (a.created_at, a.run_id))
        return found

    return db.read(_do)


def point_tails(db: Database, kb_name: str, relation: str, head: str) -> list[str]:
    """The tails a knowledge base lists for ``head`` under ``relation``, in KB order."""
    stmt = (
        select(col(KnowledgePoint.tail))
        .join(KnowledgeBase, col(KnowledgeBase.id) == col(KnowledgePoint.kb_id))
        .where(
            col(KnowledgeBase.name) == kb_name,
            col(KnowledgePoint.relation) == relation,
            col(KnowledgePoint.head) == head,
        )
        .order_by(col(KnowledgePoint.id))
    )
    return db.read(lambda s: [str(t) for t in s.execute(stmt).scalars()])
