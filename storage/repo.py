"""Repository functions: the only way the rest of quizbot reads and writes the database.

Each function takes a :class:`~storage.engine.Database`, runs one transaction, and returns plain
objects detached from any session. Constraint violations come back as quizbot errors a user can
read (:class:`~quizbot.errors.DuplicateError`, :class:`~quizbot.errors.NotFoundError`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import func, inspect, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col

from quizbot.errors import DuplicateError, InputError, NotFoundError, QuizbotError
from storage.engine import Database
from storage.models import (
    EvalRun,
    Item,
    KnowledgeBase,
    KnowledgePoint,
    Outcome,
    Respondent,
    RespondentKind,
    Response,
    RunStatus,
)
from storage.types import utcnow

__all__ = [
    "NewResponse",
    "answered_item_ids",
    "count_responses",
    "create_knowledge_base",
    "create_run",
    "get_knowledge_base",
    "get_or_create_respondent",
    "get_run",
    "list_responses",
    "record_response",
    "record_responses",
    "save_items",
    "save_knowledge_points",
    "table_counts",
    "update_run",
]


@dataclass(frozen=True)
class NewResponse:
    """One answer to store. Exactly one of ``run_id`` and ``quiz_session_id`` must be set."""

    item_id: str
    respondent_id: int
    outcome: Outcome
    run_id: int | None = None
    quiz_session_id: int | None = None
    prompt: str | None = None
    raw_text: str | None = None
    parsed_answer: str | None = None
    parse_reason: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    provider_model: str | None = None
    cached: bool = False
    error_text: str | None = None
    created_at: datetime | None = None

    def row(self) -> dict[str, Any]:
        """The values as a row for the ``response`` table."""
        if (self.run_id is None) == (self.quiz_session_id is None):
            raise InputError("a response belongs to exactly one run or one practice session")
        # Shallow on purpose: dataclasses.asdict deep-copies, which costs on the hot path.
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["outcome"] = Outcome(self.outcome).value
        values["created_at"] = self.created_at or utcnow()
        return values


def _integrity(exc: IntegrityError, what: str) -> QuizbotError:
    message = str(exc.orig).lower()
    if "unique" in message or "duplicate key" in message:
        return DuplicateError(f"{what} already exists")
    if "foreign key" in message:
        return NotFoundError(f"{what} refers to a record that does not exist")
    return InputError(f"{what} breaks a database rule: {str(exc.orig).splitlines()[0]}")


def _insert_ignore(session: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> int:
    """Insert rows, skipping those that collide with a unique key; return how many were new."""
    if not rows:
        return 0
    table = model.__table__  # type: ignore[attr-defined]
    maker: Callable[..., Any] = (
        pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    )
    total = 0
    # Keep each statement well under both backends' bound-parameter limits.
    per_row = len(rows[0])
    chunk = max(1, 30_000 // max(per_row, 1))
    for start in range(0, len(rows), chunk):
        # RETURNING yields only the rows actually inserted, on both backends (rowcount does not).
        stmt = (
            maker(table)
            .values(rows[start : start + chunk])
            .on_conflict_do_nothing()
            .returning(*table.primary_key.columns)
        )
        total += len(session.execute(stmt).all())
    return total


# --------------------------------------------------------------------------------------------
# Knowledge bases, points, items


def create_knowledge_base(
    db: Database,
    name: str,
    *,
    version: str,
    source: str,
    title: str = "",
    description: str = "",
    license: str = "",
    meta: dict[str, Any] | None = None,
) -> KnowledgeBase:
    """Create a knowledge base; :class:`DuplicateError` if the name is taken."""
    kb = KnowledgeBase(
        name=name,
        version=version,
        source=source,
        title=title,
        description=description,
        license=license,
        meta=meta or {},
    )

    def _do(session: Session) -> KnowledgeBase:
        session.add(kb)
        session.flush()
        return kb

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"knowledge base {name!r}") from None


def get_knowledge_base(db: Database, name: str) -> KnowledgeBase:
    """The knowledge base called ``name``; :class:`NotFoundError` if there is none."""
    kb: KnowledgeBase | None = db.read(
        lambda s: (
            s.execute(select(KnowledgeBase).where(col(KnowledgeBase.name) == name))
            .scalars()
            .first()
        )
    )
    if kb is None:
        raise NotFoundError(
            f"no knowledge base named {name!r}", hint="`quizbot kb list` shows the ones there are"
        )
    return kb


def save_knowledge_points(db: Database, points: Iterable[KnowledgePoint]) -> int:
    """Store knowledge points; ones already present (same kb, relation, head, tail) are skipped.

    Returns how many were new.
    """
    rows = [p.model_dump(exclude={"id"}) for p in points]
    try:
        return db.write(lambda s: _insert_ignore(s, KnowledgePoint, rows))
    except IntegrityError as exc:
        raise _integrity(exc, "a knowledge point") from None


def save_items(db: Database, items: Iterable[Item]) -> int:
    """Store generated items; an item already stored (same content-hash id) is kept as it is.

    Returns how many were new.
    """
    rows = [item.model_dump() for item in items]
    try:
        return db.write(lambda s: _insert_ignore(s, Item, rows))
    except IntegrityError as exc:
        raise _integrity(exc, "an item") from None


# --------------------------------------------------------------------------------------------
# Respondents and runs


def get_or_create_respondent(
    db: Database,
    kind: RespondentKind,
    name: str,
    *,
    display_name: str = "",
    cohort: str | None = None,
) -> Respondent:
    """The respondent ``(kind, name)``, created on first use; safe under concurrent callers."""
    row: dict[str, Any] = {
        "kind": RespondentKind(kind).value,
        "name": name,
        "display_name": display_name or name,
        "cohort": cohort,
        "meta": {},
        "created_at": utcnow(),
    }

    def _do(session: Session) -> Respondent:
        _insert_ignore(session, Respondent, [row])
        found: Respondent = session.execute(
            select(Respondent).where(
                col(Respondent.kind) == row["kind"], col(Respondent.name) == name
            )
        ).scalar_one()
        return found

    return db.write(_do)


def create_run(
    db: Database,
    *,
    respondent_id: int,
    model_requested: str,
    config: dict[str, Any] | None = None,
    n_items: int = 0,
    name: str | None = None,
) -> EvalRun:
    """Create an evaluation run in status ``pending``."""
    run = EvalRun(
        respondent_id=respondent_id,
        model_requested=model_requested,
        config=config or {},
        n_items=n_items,
        name=name,
    )

    def _do(session: Session) -> EvalRun:
        session.add(run)
        session.flush()
        return run

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"run for {model_requested!r}") from None


def get_run(db: Database, run_id: int) -> EvalRun:
    """The run with this id; :class:`NotFoundError` if there is none."""
    run = db.read(lambda s: s.get(EvalRun, run_id))
    if run is None:
        raise NotFoundError(f"no run with id {run_id}", hint="`quizbot runs list` shows the runs")
    return run


def update_run(
    db: Database,
    run_id: int,
    *,
    status: RunStatus | None = None,
    model_reported: str | None = None,
    error_text: str | None = None,
) -> EvalRun:
    """Move a run along its life cycle; start and finish times are set from the status."""

    def _do(session: Session) -> EvalRun:
        run = session.get(EvalRun, run_id)
        if run is None:
            raise NotFoundError(f"no run with id {run_id}")
        if status is not None:
            run.status = RunStatus(status).value
            if status is RunStatus.RUNNING and run.started_at is None:
                run.started_at = utcnow()
            if status in {RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.INTERRUPTED}:
                run.finished_at = utcnow()
        if model_reported is not None:
            run.model_reported = model_reported
        if error_text is not None:
            run.error_text = error_text
        session.add(run)
        session.flush()
        return run

    return db.write(_do)


# --------------------------------------------------------------------------------------------
# Responses


def record_response(db: Database, response: NewResponse) -> int:
    """Store one answer durably and return its id.

    When this returns, the row is committed. Answering the same item twice in one run or session
    raises :class:`DuplicateError`.
    """
    return record_responses(db, [response])[0]


def record_responses(db: Database, responses: Sequence[NewResponse]) -> list[int]:
    """Store a batch of answers in one transaction (all or none); return their ids in order."""
    if not responses:
        return []
    rows = [r.row() for r in responses]

    def _do(session: Session) -> list[int]:
        stmt = Response.__table__.insert().returning(  # type: ignore[attr-defined]
            Response.__table__.c.id,  # type: ignore[attr-defined]
            sort_by_parameter_order=True,
        )
        return list(session.execute(stmt, rows).scalars())

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "an answer to this item in this run or session") from None


def answered_item_ids(db: Database, run_id: int) -> set[str]:
    """Items of a run that already have a stored response (what a resume must skip)."""
    return db.read(
        lambda s: set(
            s.execute(select(col(Response.item_id)).where(col(Response.run_id) == run_id)).scalars()
        )
    )


def count_responses(db: Database, *, run_id: int | None = None) -> int:
    """How many responses are stored, in one run or in all."""
    stmt = select(func.count()).select_from(Response)
    if run_id is not None:
        stmt = stmt.where(col(Response.run_id) == run_id)
    return int(db.read(lambda s: s.execute(stmt).scalar_one()))


def list_responses(db: Database, *, run_id: int) -> list[Response]:
    """Every response of a run, oldest first."""
    return db.read(
        lambda s: list(
            s.execute(
                select(Response).where(col(Response.run_id) == run_id).order_by(col(Response.id))
            ).scalars()
        )
    )


# --------------------------------------------------------------------------------------------
# Whole-database facts


def table_counts(db: Database) -> dict[str, int]:
    """Row counts for every quizbot table present in the database, by table name."""

    def _do(session: Session) -> dict[str, int]:
        present = set(inspect(session.connection()).get_table_names())
        counts: dict[str, int] = {}
        for table in SQLModel.metadata.sorted_tables:
            if table.name in present:
                n = session.execute(select(func.count()).select_from(table)).scalar_one()
                counts[table.name] = int(n)
        return dict(sorted(counts.items()))

    return db.read(_do)
