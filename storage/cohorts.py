"""Queries behind the humans-vs-models comparison (quizbot/analysis/comparison.py).

People answer items in practice sessions (``response.quiz_session_id`` set, respondent kind
``human``, group in ``respondent.cohort``); models answer them in evaluation runs
(``response.run_id`` set). These functions read both sides without the ORM overhead of whole
rows: the comparison needs who answered what, how it was classed and when, not the prompts.

Every function runs one read transaction and returns plain values. Long lists of item ids are
sent in batches of :data:`BATCH` so neither backend meets its bound-parameter limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import or_, select
from sqlmodel import Session, col

from quizbot import domain
from storage.engine import Database
from storage.models import (
    EvalRun,
    Item,
    KnowledgeBase,
    Outcome,
    QuizSession,
    Respondent,
    RespondentKind,
    Response,
    RunStatus,
)
from storage.records import record_columns

__all__ = [
    "BATCH",
    "HumanAnswer",
    "completed_runs",
    "human_answers",
    "human_cohorts",
    "models_with_completed_runs",
    "scored_item_ids",
]

BATCH = 500


class HumanAnswer(NamedTuple):
    """One answer a person gave in a practice session."""

    response_id: int
    respondent_id: int
    respondent: str  # the respondent's unique name (a pseudonym)
    cohort: str | None
    quiz_session_id: int
    item_id: str
    outcome: str
    parsed_answer: str | None
    created_at: datetime
    raw_text: str | None = None  # what the person typed (open recall answers are rescored from it)


def human_cohorts(db: Database) -> list[str]:
    """Distinct cohorts of human respondents, sorted (respondents without one are left out)."""
    stmt = (
        select(col(Respondent.cohort))
        .where(
            col(Respondent.kind) == RespondentKind.HUMAN.value,
            col(Respondent.cohort).is_not(None),
        )
        .distinct()
    )
    return sorted(str(c) for c in db.read(lambda s: list(s.execute(stmt).scalars())))


def models_with_completed_runs(db: Database) -> list[str]:
    """Distinct ``model_requested`` of runs whose status is ``completed``, sorted."""
    stmt = (
        select(col(EvalRun.model_requested))
        .where(col(EvalRun.status) == RunStatus.COMPLETED.value)
        .distinct()
    )
    return sorted(str(m) for m in db.read(lambda s: list(s.execute(stmt).scalars())))


def human_answers(
    db: Database,
    *,
    item_ids: Sequence[str] | None = None,
    kb: str | None = None,
    cohort: str | None = None,
    since: datetime | None = None,
    before: datetime | None = None,
    assignment_id: int | None = None,
) -> list[HumanAnswer]:
    """Answers given by people in practice sessions, oldest first (ties by response id).

    Filters, all optional and combined: only ``item_ids``; only items of knowledge base ``kb``;
    only respondents of ``cohort``; answers stored at or after ``since`` and strictly before
    ``before`` (timezone-aware datetimes); only sessions on ``assignment_id``. Every outcome is
    returned, errors included; the forced guesses of a two-pass assignment's second pass
    (``answer_pass`` 2) never are: they are not answers given freely.
    """
    columns = (
        col(Response.id),
        col(Response.respondent_id),
        col(Respondent.name),
        col(Respondent.cohort),
        col(Response.quiz_session_id),
        col(Response.item_id),
        col(Response.outcome),
        col(Response.parsed_answer),
        col(Response.created_at),
        col(Response.raw_text),
    )
    base = (
        select(*columns)
        .join(Respondent, col(Respondent.id) == col(Response.respondent_id))
        .where(
            col(Response.quiz_session_id).is_not(None),
            col(Respondent.kind) == RespondentKind.HUMAN.value,
            or_(col(Response.answer_pass).is_(None), col(Response.answer_pass) != 2),
        )
    )
    if kb is not None:
        base = (
            base.join(Item, col(Item.id) == col(Response.item_id))
            .join(KnowledgeBase, col(KnowledgeBase.id) == col(Item.kb_id))
            .where(col(KnowledgeBase.name) == kb)
        )
    if cohort is not None:
        base = base.where(col(Respondent.cohort) == cohort)
    if assignment_id is not None:
        base = base.join(QuizSession, col(QuizSession.id) == col(Response.quiz_session_id)).where(
            col(QuizSession.assignment_id) == assignment_id
        )
    if since is not None:
        base = base.where(col(Response.created_at) >= since)
    if before is not None:
        base = base.where(col(Response.created_at) < before)

    wanted = None if item_ids is None else list(dict.fromkeys(item_ids))

    def _do(session: Session) -> list[HumanAnswer]:
        if wanted is None:
            statements: list[Any] = [base]
        else:
            statements = [
                base.where(col(Response.item_id).in_(wanted[start : start + BATCH]))
                for start in range(0, len(wanted), BATCH)
            ]
        found: list[HumanAnswer] = []
        for stmt in statements:
            found.extend(HumanAnswer(*row) for row in session.execute(stmt).all())
        return found

    answers = db.read(_do)
    answers.sort(key=lambda a: (a.created_at, a.response_id))
    return answers


def completed_runs(db: Database, model: str) -> list[domain.Run]:
    """Completed runs of ``model`` (as requested), most recently finished first.

    Runs are ordered by finish time (creation time when a run has none), then by id.
    """
    stmt = select(*record_columns(domain.Run, EvalRun)).where(
        col(EvalRun.model_requested) == model,
        col(EvalRun.status) == RunStatus.COMPLETED.value,
    )
    runs = db.read(lambda s: [domain.Run(*row) for row in s.execute(stmt).all()])
    runs.sort(key=lambda r: (r.finished_at or r.created_at, r.id), reverse=True)
    return runs


def scored_item_ids(db: Database, run_id: int) -> set[str]:
    """Items a run has a scored answer to: any outcome except ``error`` (a failed call)."""
    stmt = select(col(Response.item_id)).where(
        col(Response.run_id) == run_id, col(Response.outcome) != Outcome.ERROR.value
    )
    return db.read(lambda s: set(s.execute(stmt).scalars()))
