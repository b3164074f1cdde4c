"""Repository functions for assignments: one fixed item set for students and models.

An assignment is created once with its items in order (:func:`create_assignment`, one
transaction: the row and every ``assignment_items`` row, or nothing). Runs and practice sessions
made for it carry its id (``assignment_id``), so its results read only those
(:func:`assignment_runs`, :func:`assignment_sessions`). Like :mod:`storage.repo`, every function
takes plain values and returns frozen records of :mod:`quizbot.domain`, never table rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot import domain
from quizbot.domain import AssignmentMode, RunStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.names import check_name
from storage.engine import Database
from storage.models import (
    AssignmentItemRow,
    AssignmentRow,
    EvalRun,
    Item,
    QuizSession,
    Respondent,
    Response,
)
from storage.records import record_columns
from storage.repo import _integrity

__all__ = [
    "SessionAnswer",
    "assignment_answers",
    "assignment_by_id",
    "assignment_runs",
    "assignment_sessions",
    "create_assignment",
    "find_assignment",
    "get_assignment",
    "latest_runs",
    "list_assignments",
    "second_pass_runs",
    "secret_seed",
]

MAX_NAME = 100


def _with_items(session: Session, row: AssignmentRow) -> domain.Assignment:
    ids = session.execute(
        select(col(AssignmentItemRow.item_id))
        .where(col(AssignmentItemRow.assignment_id) == row.id)
        .order_by(col(AssignmentItemRow.position))
    ).scalars()
    return domain.Assignment(
        id=row.id or 0,
        name=row.name,
        kb_name=row.kb_name,
        mode=row.mode,
        cohort=row.cohort,
        opens_at=row.opens_at,
        closes_at=row.closes_at,
        config=dict(row.config),
        created_at=row.created_at,
        item_ids=tuple(ids),
    )


def secret_seed(db: Database, assignment_id: int) -> str | None:
    """The secret seed assignment ``assignment_id`` was drawn with (None: none, or its seed is
    the public ``config["seed"]``). For the operator's own checks; never shown to anyone."""
    stmt = select(col(AssignmentRow.secret_seed)).where(col(AssignmentRow.id) == assignment_id)
    return db.read(lambda s: s.execute(stmt).scalar_one_or_none())


def _check_name(name: str) -> str:
    return check_name(name, field="name", max_length=MAX_NAME)


def create_assignment(
    db: Database,
    *,
    name: str,
    kb_name: str,
    item_ids: Sequence[str],
    mode: AssignmentMode | str = AssignmentMode.PRACTICE,
    cohort: str | None = None,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
    config: dict[str, Any] | None = None,
    secret_seed: str | None = None,
) -> domain.Assignment:
    """Record assignment ``name`` with ``item_ids`` (stored items) in this order, all or nothing.

    ``secret_seed``: the seed an exam's items were drawn with, stored in its own column and
    never part of the :class:`~quizbot.domain.Assignment` returned by any function here (so
    nothing that shows or exports an assignment can carry it); :func:`secret_seed` reads it.

    Raises :class:`DuplicateError` when the name is taken, :class:`InputError` for an empty
    or repeated item list or an unknown mode, :class:`NotFoundError` for an unknown item.
    """
    clean = _check_name(name)
    if cohort is not None:
        cohort = check_name(cohort, field="cohort", max_length=MAX_NAME)
    try:
        chosen = AssignmentMode(mode)
    except ValueError:
        raise InputError(f"unknown mode {mode!r}", field="mode", hint="exam or practice") from None
    ids = list(item_ids)
    if not ids:
        raise InputError("an assignment needs at least one item", field="items")
    if len(set(ids)) != len(ids):
        raise InputError("an item appears twice", field="items")

    def _do(session: Session) -> domain.Assignment:
        if session.execute(
            select(col(AssignmentRow.id)).where(col(AssignmentRow.name) == clean)
        ).first():
            raise DuplicateError(f"assignment {clean!r} already exists", hint="choose another name")
        known: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            known.update(
                session.execute(select(col(Item.id)).where(col(Item.id).in_(chunk))).scalars()
            )
        missing = [i for i in ids if i not in known]
        if missing:
            raise NotFoundError(f"no item {missing[0]!r} ({len(missing)} unknown)")
        row = AssignmentRow(
            name=clean,
            kb_name=kb_name,
            mode=chosen.value,
            cohort=cohort,
            opens_at=opens_at,
            closes_at=closes_at,
            config=dict(config or {}),
            secret_seed=secret_seed,
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        session.add_all(
            AssignmentItemRow(assignment_id=row.id, position=i, item_id=item_id)
            for i, item_id in enumerate(ids, start=1)
        )
        session.flush()
        return _with_items(session, row)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"assignment {clean!r}") from None


def find_assignment(db: Database, name: str) -> domain.Assignment | None:
    """Assignment ``name`` with its items, or ``None``."""

    def _do(session: Session) -> domain.Assignment | None:
        row = session.execute(
            select(AssignmentRow).where(col(AssignmentRow.name) == name.strip())
        ).scalar_one_or_none()
        return None if row is None else _with_items(session, row)

    return db.read(_do)


def assignment_by_id(db: Database, assignment_id: int) -> domain.Assignment:
    """Assignment ``assignment_id`` with its items; :class:`NotFoundError` if there is none."""

    def _do(session: Session) -> domain.Assignment | None:
        row = session.get(AssignmentRow, assignment_id)
        return None if row is None else _with_items(session, row)

    found = db.read(_do)
    if found is None:
        raise NotFoundError(f"no assignment with id {assignment_id}")
    return found


def get_assignment(db: Database, name: str) -> domain.Assignment:
    """Assignment ``name`` with its items; :class:`NotFoundError` naming the fix if none."""
    found = find_assignment(db, name)
    if found is None:
        raise NotFoundError(f"no assignment {name!r}", hint="see `quizbot assignment list`")
    return found


def list_assignments(db: Database) -> list[domain.Assignment]:
    """Every assignment with its items, oldest first."""

    def _do(session: Session) -> list[domain.Assignment]:
        rows = session.execute(select(AssignmentRow).order_by(col(AssignmentRow.id))).scalars()
        return [_with_items(session, row) for row in rows]

    return db.read(_do)


def assignment_runs(db: Database, assignment_id: int) -> list[domain.Run]:
    """Runs made for the assignment, oldest first (every status)."""
    stmt = (
        select(*record_columns(domain.Run, EvalRun))
        .where(col(EvalRun.assignment_id) == assignment_id)
        .order_by(col(EvalRun.id))
    )
    return db.read(lambda s: [domain.Run(*row) for row in s.execute(stmt).all()])


def latest_runs(db: Database, assignment_id: int) -> list[domain.Run]:
    """Per model, the run made for the assignment that finished last and did not fail.

    Only completed and interrupted runs count (pending/running ones have no finish yet), so a
    run still under way or a failed run never replaces a finished one. The second pass of a
    two-pass assignment (a run whose config says ``"pass": 2``) is never one of them: it belongs
    to its first-pass run (:func:`second_pass_runs`).
    """
    best: dict[str, domain.Run] = {}
    for run in assignment_runs(db, assignment_id):
        if run.status not in (RunStatus.COMPLETED.value, RunStatus.INTERRUPTED.value):
            continue
        if run.config.get("pass") == 2:
            continue
        key = (run.finished_at or run.created_at, run.id)
        held = best.get(run.model_requested)
        if held is None or key > (held.finished_at or held.created_at, held.id):
            best[run.model_requested] = run
    return sorted(best.values(), key=lambda r: r.model_requested)


def second_pass_runs(db: Database, assignment_id: int) -> dict[int, domain.Run]:
    """Per first-pass run id, the newest second-pass run made from it that did not fail."""
    found: dict[int, domain.Run] = {}
    for run in assignment_runs(db, assignment_id):
        first = run.config.get("first_run")
        if run.config.get("pass") != 2 or not isinstance(first, int):
            continue
        if run.status not in (RunStatus.COMPLETED.value, RunStatus.INTERRUPTED.value):
            continue
        found[first] = run  # oldest first, so the newest stays
    return found


def assignment_sessions(
    db: Database, assignment_id: int, *, respondent_id: int | None = None
) -> list[domain.PracticeSessionRecord]:
    """Practice sessions on the assignment (one respondent's when given), oldest first."""
    stmt = select(*record_columns(domain.PracticeSessionRecord, QuizSession)).where(
        col(QuizSession.assignment_id) == assignment_id
    )
    if respondent_id is not None:
        stmt = stmt.where(col(QuizSession.respondent_id) == respondent_id)
    stmt = stmt.order_by(col(QuizSession.id))
    return db.read(lambda s: [domain.PracticeSessionRecord(*row) for row in s.execute(stmt).all()])


class SessionAnswer(NamedTuple):
    """One stored answer given in a session on an assignment, with who gave it."""

    response: domain.ResponseRecord
    respondent: str  # the respondent's unique name (a pseudonym)


def assignment_answers(db: Database, assignment_id: int) -> list[SessionAnswer]:
    """Every answer given in sessions on the assignment, whole, oldest first (ties by id).

    Unlike :func:`storage.cohorts.human_answers` this keeps every stored column (raw text,
    parse reason, latency), because it is what ``quizbot answers`` shows; errors are included.
    """
    stmt = (
        select(*record_columns(domain.ResponseRecord, Response), col(Respondent.name))
        .join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id))
        .join(Respondent, col(Respondent.id) == col(Response.respondent_id))
        .where(col(QuizSession.assignment_id) == assignment_id)
        .order_by(col(Response.created_at), col(Response.id))
    )

    def _do(session: Session) -> list[SessionAnswer]:
        return [
            SessionAnswer(domain.ResponseRecord(*row[:-1]), str(row[-1]))
            for row in session.execute(stmt).all()
        ]

    return db.read(_do)
