"""Tables: everything quizbot logs, with the lineage to replay and audit it.

The flow they record: a knowledge base holds knowledge points (triplets); generation turns points
into items (text + answer key + how it was made); a respondent (a person or a model) answers items
either inside an evaluation run or inside a practice session, and each answer is one response row
with its raw text and how it was classed. Monitors run models every night; each night is claimed
once, and drift results and alerts hang off those nights.

Timestamps are timezone-aware UTC (:class:`~storage.types.UTCDateTime`). Enumerations are stored
as short strings guarded by CHECK constraints, so PostgreSQL and SQLite enforce the same values.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    Float,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    Text,
    Unicode,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from quizbot.domain import (
    MAX_FLAG_COMMENT,
    AssignmentMode,
    FlagDecision,
    FlagReason,
    FlagState,
    NightStatus,
    Outcome,
    OverrideKind,
    RespondentKind,
    Role,
    RunStatus,
    SessionStatus,
    Severity,
)
from storage.types import JSONType, UTCDateTime, utcnow

# SQLite auto-increments only a column declared exactly INTEGER PRIMARY KEY.
_BigId = BigInteger().with_variant(Integer(), "sqlite")

__all__ = [
    "Alert",
    "AssignmentItemRow",
    "AssignmentRow",
    "AuditLogRow",
    "DriftResult",
    "EvalRun",
    "Item",
    "ItemFlagRow",
    "ItemSetItemRow",
    "ItemSetRow",
    "KbOverrideRow",
    "KnowledgeBase",
    "KnowledgePoint",
    "ModelCallCache",
    "ModelSpendRow",
    "Monitor",
    "MonitorNight",
    "NightStatus",
    "Outcome",
    "PrototypeSetRow",
    "QuizSession",
    "RephraseCache",
    "Respondent",
    "RespondentKind",
    "Response",
    "RetiredItemRow",
    "ReviewCardRow",
    "ReviewSyncRow",
    "RunStatus",
    "SchedulerJob",
    "SessionStatus",
    "Severity",
    "UserRow",
    "UserSessionRow",
]


def _check_in(column: str, enum: type[StrEnum], name: str) -> CheckConstraint:
    values = ", ".join(f"'{member.value}'" for member in enum)
    return CheckConstraint(f"{column} IN ({values})", name=name)


def _created() -> Any:
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


# --------------------------------------------------------------------------------------------
# Knowledge


class KnowledgeBase(SQLModel, table=True):
    """A named, versioned set of knowledge points (built-in or imported)."""

    __tablename__ = "knowledge_base"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    version: str = Field(max_length=50)
    title: str = Field(default="", max_length=200)
    description: str = Field(default="", sa_type=Text)
    source: str = Field(max_length=50, description="builtin, medlama, triplets, ...")
    license: str = Field(default="", sa_type=Text, description="licence and acknowledgement text")
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = _created()
    updated_at: datetime = _created()


class KnowledgePoint(SQLModel, table=True):
    """One true triplet (head, relation, tail) of a knowledge base."""

    __tablename__ = "knowledge_point"
    __table_args__ = (
        UniqueConstraint("kb_id", "relation", "head", "tail", name="uq_knowledge_point_triplet"),
        Index("ix_knowledge_point_kb_relation", "kb_id", "relation"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kb_id: int = Field(foreign_key="knowledge_base.id", ondelete="CASCADE")
    relation: str = Field(max_length=100)
    head: str = Field(max_length=500)
    tail: str = Field(max_length=500)
    head_type: str = Field(default="", max_length=100)
    tail_type: str = Field(default="", max_length=100)
    head_ref: str | None = Field(default=None, max_length=100, description="e.g. a UMLS CUI")
    tail_ref: str | None = Field(default=None, max_length=100)
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = _created()


class Item(SQLModel, table=True):
    """A generated question with its answer key and full lineage.

    ``id`` is a versioned content hash (``i1:<sha256>``), so the same question generated twice is
    the same row. For a statement ``label`` is the truth value; for a multiple-choice question
    ``options`` and ``answer_keys`` hold the choices and the correct letters.
    """

    __tablename__ = "item"
    __table_args__ = (
        CheckConstraint("kind IN ('statement', 'choice', 'recall')", name="ck_item_kind"),
        CheckConstraint("polarity IN ('positive', 'negative')", name="ck_item_polarity"),
        Index("ix_item_kb_relation", "kb_id", "relation"),
    )

    id: str = Field(primary_key=True, max_length=80)
    kind: str = Field(max_length=20)
    kb_id: int = Field(foreign_key="knowledge_base.id", ondelete="CASCADE")
    knowledge_point_id: int | None = Field(
        default=None, foreign_key="knowledge_point.id", ondelete="SET NULL", index=True
    )
    relation: str = Field(max_length=100)
    head: str = Field(max_length=500)
    tail: str = Field(max_length=500)
    polarity: str = Field(default="positive", max_length=10)
    transform: str | None = Field(default=None, max_length=20)
    label: bool | None = None
    text: str = Field(sa_type=Text)
    prototype: str | None = Field(default=None, sa_type=Text)
    options: list[str] | None = Field(default=None, sa_type=JSONType)
    answer_keys: list[str] | None = Field(default=None, sa_type=JSONType)
    pair_key: str | None = Field(default=None, max_length=80, index=True)
    rephrase_model: str | None = Field(default=None, max_length=200)
    generator_version: str = Field(max_length=20)
    lineage: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = _created()


class PrototypeSetRow(SQLModel, table=True):
    """An imported prototype file (e.g. the PretexEval paper's), kept verbatim for re-use."""

    __tablename__ = "prototype_set"
    __table_args__ = (
        CheckConstraint("format IN ('pool', 'pretex')", name="ck_prototype_set_format"),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    format: str = Field(max_length=20)
    digest: str = Field(max_length=64)
    content: str = Field(sa_type=Text)
    source_path: str | None = Field(default=None, max_length=500)
    created_at: datetime = _created()


class RephraseCache(SQLModel, table=True):
    """A validated LLM rephrasing of a statement, reused instead of asking again."""

    __tablename__ = "rephrase_cache"
    __table_args__ = (
        UniqueConstraint("model", "statement_hash", name="uq_rephrase_cache_model_statement"),
    )

    id: int | None = Field(default=None, primary_key=True)
    model: str = Field(max_length=200)
    statement_hash: str = Field(max_length=64)
    statement: str = Field(sa_type=Text)
    text: str = Field(sa_type=Text)
    created_at: datetime = _created()


class ModelCallCache(SQLModel, table=True):
    """A model's answer to one exact prompt and settings, for interactive reuse only.

    Evaluation and monitoring runs never read it (a drift run served from cache would measure
    nothing); the app's "Ask a model" may, and marks such answers as cached.
    """

    __tablename__ = "model_call_cache"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=64, unique=True, description="sha256 of model + prompt + settings")
    model: str = Field(max_length=200)
    text: str = Field(sa_type=Text)
    provider_model: str = Field(max_length=200)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    created_at: datetime = _created()


# --------------------------------------------------------------------------------------------
# Respondents, runs, responses


class Respondent(SQLModel, table=True):
    """Anyone who answers: a person (pseudonym), a model (litellm string) or a baseline."""

    __tablename__ = "respondent"
    __table_args__ = (
        UniqueConstraint("kind", "name", name="uq_respondent_kind_name"),
        _check_in("kind", RespondentKind, "ck_respondent_kind"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20)
    name: str = Field(max_length=200)
    display_name: str = Field(default="", max_length=200)
    cohort: str | None = Field(default=None, max_length=100, index=True)
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = _created()


class EvalRun(SQLModel, table=True):
    """One model (or baseline) answering a set of items with fixed prompt settings."""

    __tablename__ = "eval_run"
    __table_args__ = (_check_in("status", RunStatus, "ck_eval_run_status"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str | None = Field(default=None, max_length=200)
    respondent_id: int = Field(foreign_key="respondent.id", ondelete="RESTRICT", index=True)
    model_requested: str = Field(max_length=200)
    model_reported: str | None = Field(default=None, max_length=200)
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    status: str = Field(default=RunStatus.PENDING.value, max_length=20)
    n_items: int = Field(default=0)
    error_text: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created()
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    assignment_id: int | None = Field(
        default=None, foreign_key="assignments.id", ondelete="SET NULL", index=True
    )
    # A repeat of this run (``quizbot eval --repeats N``): the group is the first run and every
    # run pointing at it (migration 0015).
    repeat_of: int | None = Field(
        default=None, foreign_key="eval_run.id", ondelete="CASCADE", index=True
    )


class Response(SQLModel, table=True):
    """One answer to one item, by a model inside a run or by a person inside a session.

    Exactly one of ``run_id`` and ``quiz_session_id`` is set, and an item is answered at most once
    per run and once per session. ``raw_text`` is what the respondent said, ``parsed_answer`` what
    it was read as, ``parse_reason`` why, and ``outcome`` how it was scored.
    """

    __tablename__ = "response"
    __table_args__ = (
        UniqueConstraint("run_id", "item_id", name="uq_response_run_item"),
        UniqueConstraint("quiz_session_id", "item_id", name="uq_response_session_item"),
        _check_in("outcome", Outcome, "ck_response_outcome"),
        CheckConstraint(
            "(run_id IS NULL) <> (quiz_session_id IS NULL)", name="ck_response_one_container"
        ),
        CheckConstraint(
            "answer_pass IS NULL OR answer_pass IN (1, 2)", name="ck_response_answer_pass"
        ),
        Index("ix_response_respondent_created", "respondent_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=_BigId)
    run_id: int | None = Field(default=None, foreign_key="eval_run.id", ondelete="CASCADE")
    quiz_session_id: int | None = Field(
        default=None, foreign_key="quiz_session.id", ondelete="CASCADE"
    )
    item_id: str = Field(foreign_key="item.id", ondelete="RESTRICT", max_length=80, index=True)
    respondent_id: int = Field(foreign_key="respondent.id", ondelete="RESTRICT")
    prompt: str | None = Field(default=None, sa_type=Text)
    raw_text: str | None = Field(default=None, sa_type=Text)
    parsed_answer: str | None = Field(default=None, max_length=50)
    parse_reason: str | None = Field(default=None, max_length=200)
    outcome: str = Field(max_length=20)
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    provider_model: str | None = Field(default=None, max_length=200)
    cached: bool = Field(default=False)
    error_text: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created()
    answer_pass: int | None = Field(
        default=None, sa_type=SmallInteger, description="1 or 2 on a two-pass assignment"
    )


# --------------------------------------------------------------------------------------------
# People practising


class QuizSession(SQLModel, table=True):
    """A person's practice session: what they chose and when they practised."""

    __tablename__ = "quiz_session"
    __table_args__ = (_check_in("status", SessionStatus, "ck_quiz_session_status"),)

    id: int | None = Field(default=None, primary_key=True)
    respondent_id: int = Field(foreign_key="respondent.id", ondelete="CASCADE", index=True)
    kb_name: str = Field(max_length=100)
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    status: str = Field(default=SessionStatus.ACTIVE.value, max_length=20)
    started_at: datetime = _created()
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    assignment_id: int | None = Field(
        default=None, foreign_key="assignments.id", ondelete="SET NULL", index=True
    )


# --------------------------------------------------------------------------------------------
# Monitoring


class Monitor(SQLModel, table=True):
    """A scheduled monitor as last loaded from the schedules file."""

    __tablename__ = "monitor"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    definition: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    source_file: str | None = Field(default=None, max_length=500)
    enabled: bool = Field(default=True)
    created_at: datetime = _created()
    updated_at: datetime = _created()


class MonitorNight(SQLModel, table=True):
    """One monitor x model x scheduled date; the unique row is the claim on that night's run."""

    __tablename__ = "monitor_night"
    __table_args__ = (
        UniqueConstraint("monitor_id", "model", "scheduled_date", name="uq_monitor_night"),
        _check_in("status", NightStatus, "ck_monitor_night_status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    monitor_id: int = Field(foreign_key="monitor.id", ondelete="CASCADE")
    model: str = Field(max_length=200)
    scheduled_date: date
    run_id: int | None = Field(default=None, foreign_key="eval_run.id", ondelete="SET NULL")
    status: str = Field(default=NightStatus.CLAIMED.value, max_length=20)
    claimed_by: str = Field(default="", max_length=200)
    provider_model: str | None = Field(default=None, max_length=200)
    summary: dict[str, Any] | None = Field(
        default=None, sa_type=JSONType, description="the night's metrics with intervals"
    )
    error_text: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created()
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DriftResult(SQLModel, table=True):
    """One statistic or test for one monitor night (e.g. anchor accuracy vs the previous night)."""

    __tablename__ = "drift_result"
    __table_args__ = (Index("ix_drift_result_night", "monitor_night_id", "scope", "metric"),)

    id: int | None = Field(default=None, primary_key=True)
    monitor_night_id: int = Field(foreign_key="monitor_night.id", ondelete="CASCADE")
    scope: str = Field(max_length=150, description="overall, anchor, rotating, relation:NAME")
    metric: str = Field(max_length=100)
    test: str | None = Field(default=None, max_length=100)
    value: float | None = None
    baseline_value: float | None = None
    effect: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    n: int | None = None
    compared_run_ids: list[int] = Field(default_factory=list, sa_type=JSONType)
    created_at: datetime = _created()


class Alert(SQLModel, table=True):
    """A drift finding worth telling someone about, and whether the webhook got it."""

    __tablename__ = "alert"
    __table_args__ = (_check_in("severity", Severity, "ck_alert_severity"),)

    id: int | None = Field(default=None, primary_key=True)
    monitor_night_id: int = Field(foreign_key="monitor_night.id", ondelete="CASCADE", index=True)
    drift_result_id: int | None = Field(
        default=None, foreign_key="drift_result.id", ondelete="SET NULL"
    )
    severity: str = Field(max_length=20)
    metric: str = Field(max_length=100)
    effect: float | None = None
    p_value: float | None = None
    message: str = Field(sa_type=Text)
    run_ids: list[int] = Field(default_factory=list, sa_type=JSONType)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    delivery_error: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created()


# --------------------------------------------------------------------------------------------
# Corrections without a release: flags, their review, KB overrides, retired items


class ItemFlagRow(SQLModel, table=True):
    """Someone flagged a question they had answered; a reviewer resolves or dismisses it."""

    __tablename__ = "item_flags"
    __table_args__ = (
        _check_in("reason", FlagReason, "ck_item_flags_reason"),
        _check_in("state", FlagState, "ck_item_flags_state"),
        CheckConstraint(
            "decision IS NULL OR decision IN ("
            + ", ".join(f"'{d.value}'" for d in FlagDecision)
            + ")",
            name="ck_item_flags_decision",
        ),
        Index("ix_item_flags_state_item", "state", "item_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    item_id: str = Field(foreign_key="item.id", ondelete="CASCADE", max_length=80, index=True)
    quiz_session_id: int | None = Field(
        default=None, foreign_key="quiz_session.id", ondelete="SET NULL"
    )
    reason: str = Field(max_length=20)
    comment: str = Field(default="", max_length=MAX_FLAG_COMMENT)
    created_at: datetime = _created()
    state: str = Field(default=FlagState.OPEN.value, max_length=20)
    decision: str | None = Field(default=None, max_length=20)
    decided_by: str | None = Field(default=None, max_length=200)
    decided_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class KbOverrideRow(SQLModel, table=True):
    """A correction of one triplet of a knowledge base, applied whenever the KB is loaded."""

    __tablename__ = "kb_overrides"
    __table_args__ = (
        UniqueConstraint(
            "kb_name", "head", "relation", "tail", "kind", name="uq_kb_overrides_triplet_kind"
        ),
        _check_in("kind", OverrideKind, "ck_kb_overrides_kind"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kb_name: str = Field(max_length=100)
    head: str = Field(max_length=500)
    relation: str = Field(max_length=100)
    tail: str = Field(max_length=500)
    kind: str = Field(max_length=30)
    note: str = Field(default="", sa_type=Text)
    source: str = Field(max_length=100, description="flag:<id>, review-csv or cli")
    created_by: str = Field(default="", max_length=200)
    created_at: datetime = _created()


class RetiredItemRow(SQLModel, table=True):
    """An item never to be asked again; its stored answers stay as they are."""

    __tablename__ = "retired_items"

    id: int | None = Field(default=None, primary_key=True)
    item_id: str = Field(foreign_key="item.id", ondelete="CASCADE", max_length=80, unique=True)
    reason: str = Field(default="", sa_type=Text)
    flag_id: int | None = Field(default=None, foreign_key="item_flags.id", ondelete="SET NULL")
    retired_at: datetime = _created()


# --------------------------------------------------------------------------------------------
# Assignments: one fixed item set for students and models


class AssignmentRow(SQLModel, table=True):
    """A named, fixed set of items (``assignment_items``) put to students and models alike."""

    __tablename__ = "assignments"
    __table_args__ = (_check_in("mode", AssignmentMode, "ck_assignments_mode"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    kb_name: str = Field(max_length=100)
    mode: str = Field(default=AssignmentMode.PRACTICE.value, max_length=20)
    cohort: str | None = Field(default=None, max_length=100)
    opens_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    closes_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    # An exam's items are drawn with this seed; it is read by nothing that shows or exports an
    # assignment (storage.assignments keeps it out of domain.Assignment).
    secret_seed: str | None = Field(default=None, max_length=100)
    created_at: datetime = _created()


class AssignmentItemRow(SQLModel, table=True):
    """One item of an assignment at its position; an item appears once per assignment."""

    __tablename__ = "assignment_items"
    __table_args__ = (
        UniqueConstraint("assignment_id", "item_id", name="uq_assignment_items_item"),
        UniqueConstraint("assignment_id", "position", name="uq_assignment_items_position"),
    )

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignments.id", ondelete="CASCADE")
    position: int
    item_id: str = Field(foreign_key="item.id", ondelete="RESTRICT", max_length=80, index=True)


class AssignmentRetiredItemRow(SQLModel, table=True):
    """An item left out of one assignment's scoring (its answers are kept and still shown).

    Unlike ``retired_items`` (never asked again anywhere) this concerns one assignment's results
    only: an instructor drops an item that does not work there (e.g. negative discrimination).
    """

    __tablename__ = "assignment_retired_items"
    __table_args__ = (
        UniqueConstraint("assignment_id", "item_id", name="uq_assignment_retired_item"),
    )

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignments.id", ondelete="CASCADE", index=True)
    item_id: str = Field(foreign_key="item.id", ondelete="CASCADE", max_length=80)
    reason: str = Field(default="", sa_type=Text)
    retired_by: str = Field(default="", max_length=200)
    retired_at: datetime = _created()


# --------------------------------------------------------------------------------------------
# Item sets (item banks from elsewhere)


class ItemSetRow(SQLModel, table=True):
    """A named set of imported items (MultifacetEval, MedQA, EBMQA-style files).

    Its items live in ``item`` under a knowledge base of their own (``kb_id``, source
    ``itemset``, no knowledge points), so runs, reports and assignments treat them like
    generated items; ``item_set_items`` keeps their order.
    """

    __tablename__ = "item_sets"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    format: str = Field(max_length=40)
    licence: str = Field(default="", sa_type=Text)
    source_file: str = Field(default="", max_length=255, description="file name, no folder")
    kb_id: int = Field(foreign_key="knowledge_base.id", ondelete="CASCADE")
    n_items: int = Field(default=0)
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    imported_at: datetime = _created()


class ItemSetItemRow(SQLModel, table=True):
    """One item of an item set at its position."""

    __tablename__ = "item_set_items"
    __table_args__ = (
        UniqueConstraint("item_set_id", "item_id", name="uq_item_set_items_item"),
        UniqueConstraint("item_set_id", "position", name="uq_item_set_items_position"),
    )

    id: int | None = Field(default=None, primary_key=True)
    item_set_id: int = Field(foreign_key="item_sets.id", ondelete="CASCADE")
    position: int
    item_id: str = Field(foreign_key="item.id", ondelete="RESTRICT", max_length=80, index=True)


# --------------------------------------------------------------------------------------------
# Scheduler


class SchedulerJob(SQLModel, table=True):
    """APScheduler 3's job store (one row per monitor's cron job), in the shape it expects.

    APScheduler reads and writes this table itself (``quizbot.monitoring.scheduler``); it is
    declared here so migrations, not the library, own the schema.
    """

    __tablename__ = "apscheduler_jobs"

    id: str = Field(sa_column=Column(Unicode(191), primary_key=True))
    next_run_time: float | None = Field(
        default=None, sa_column=Column(Float(25), index=True, nullable=True)
    )
    job_state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


# --------------------------------------------------------------------------------------------
# Spaced review: one FSRS card per student x knowledge point


class ReviewCardRow(SQLModel, table=True):
    """A student's spaced-review card for one knowledge point (scheduled by FSRS).

    ``card`` is FSRS's own dictionary (``fsrs.Card.to_dict()``); ``due`` repeats its due time as
    a column so "what is due" is an indexed query. ``relation``, ``head`` and ``tail`` name the
    fact so a review session can ask it again; ``last_response_id`` is the answer that last
    touched the card.
    """

    __tablename__ = "review_cards"
    __table_args__ = (
        UniqueConstraint("respondent_id", "fact", name="uq_review_cards_respondent_fact"),
        Index("ix_review_cards_respondent_due", "respondent_id", "due"),
    )

    id: int | None = Field(default=None, primary_key=True)
    respondent_id: int = Field(foreign_key="respondent.id", ondelete="CASCADE")
    fact: str = Field(max_length=80, description="knowledge point id, kp1:...")
    kb_name: str = Field(max_length=100)
    relation: str = Field(max_length=100)
    head: str = Field(max_length=500)
    tail: str = Field(max_length=500)
    card: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    due: datetime = Field(sa_type=UTCDateTime, nullable=False)
    last_review: datetime | None = Field(default=None, sa_type=UTCDateTime)
    reviews: int = Field(default=0)
    lapses: int = Field(default=0)
    last_response_id: int = Field(default=0, sa_type=_BigId)
    updated_at: datetime = _created()


class ReviewSyncRow(SQLModel, table=True):
    """How far a student's answers have been turned into review cards: every practice answer
    of theirs with an id up to ``last_response_id`` has been considered."""

    __tablename__ = "review_sync"

    respondent_id: int = Field(
        foreign_key="respondent.id", ondelete="CASCADE", primary_key=True, sa_type=Integer
    )
    last_response_id: int = Field(default=0, sa_type=_BigId)
    # Exam sessions still sealed when their answers were read (quizbot.practice.sealed): their
    # answers, up to the watermark too, wait here until the exam is complete.
    held_sessions: list[int] = Field(default_factory=list, sa_type=JSONType)
    updated_at: datetime = _created()


# Incidents: consecutive alerts of one monitor x model x metric, and what people did about them


class IncidentState(StrEnum):
    """Life cycle of an incident (``open`` and ``acknowledged`` are active, the others closed)."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"
    ACCEPTED = "accepted"  # the new level was accepted as the baseline


class IncidentKind(StrEnum):
    """Drift (a statistic moved) or operational (a night could not be run)."""

    DRIFT = "drift"
    OPERATIONAL = "operational"


class MonitorIncident(SQLModel, table=True):
    """One incident: the alerts of one monitor x model x metric on consecutive nights.

    ``evidence`` holds the alerting nights (date, severity, statistic, p-value, message);
    ``events`` every state change (opened, acknowledged, ...) with who, when and the webhook's
    answer; ``nights`` every completed night it lived through (migration 0019). An accepted
    incident's ``baseline_from`` restarts the drift comparison window of its monitor x model
    from that night on.
    """

    __tablename__ = "monitor_incident"
    __table_args__ = (
        _check_in("state", IncidentState, "ck_monitor_incident_state"),
        _check_in("kind", IncidentKind, "ck_monitor_incident_kind"),
        _check_in("severity", Severity, "ck_monitor_incident_severity"),
        Index("ix_monitor_incident_key", "monitor_id", "model", "metric", "state"),
    )

    id: int | None = Field(default=None, primary_key=True)
    monitor_id: int = Field(foreign_key="monitor.id", ondelete="CASCADE")
    model: str = Field(max_length=200)
    metric: str = Field(max_length=100, description="accuracy, provider_model, night_failed")
    kind: str = Field(max_length=20)
    state: str = Field(default=IncidentState.OPEN.value, max_length=20)
    severity: str = Field(max_length=20, description="the worst alert so far")
    opened_on: date = Field(description="the first alerting night")
    last_alert_on: date
    quiet_nights: int = Field(default=0, description="completed nights in range since")
    closed_on: date | None = Field(default=None, description="night or day it was closed")
    baseline_from: date | None = Field(default=None, description="accepted: window starts here")
    evidence: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONType)
    events: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONType)
    note: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created()
    updated_at: datetime = _created()
    # every completed night since it opened: its figure, alerts, flipped anchors, who was told
    nights: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONType)


# Accounts: logins, their sessions and the audit log


class UserRow(SQLModel, table=True):
    """An account of the app. The password is kept only as an argon2 hash."""

    __tablename__ = "users"
    __table_args__ = (_check_in("role", Role, "ck_users_role"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    role: str = Field(max_length=20)
    cohort: str | None = Field(default=None, max_length=100)
    password_hash: str = Field(max_length=255)
    must_change_password: bool = Field(default=False)
    disabled: bool = Field(default=False)
    failed_logins: int = Field(default=0)
    locked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created()
    password_changed_at: datetime = _created()
    last_login_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class UserSessionRow(SQLModel, table=True):
    """A logged-in browser: the SHA-256 of its cookie's random token (never the token itself)."""

    __tablename__ = "user_sessions"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", index=True)
    created_at: datetime = _created()
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    last_seen_at: datetime = _created()
    address: str | None = Field(default=None, max_length=100)


class LoginLockRow(SQLModel, table=True):
    """Wrong passwords for one account name from one client address, and its lock (migration
    0021): a lock holds that name from that address only, so a stranger elsewhere cannot lock
    the account for everyone. ``locks`` counts the locks in a row; each lasts twice the last."""

    __tablename__ = "login_locks"
    __table_args__ = (UniqueConstraint("name", "address", name="uq_login_locks_name_address"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, index=True)
    address: str = Field(max_length=100)
    failures: int = Field(default=0)
    locks: int = Field(default=0)
    locked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    updated_at: datetime = _created()


class AuditLogRow(SQLModel, table=True):
    """One audited event: logins (ok, failed, locked) and admin/instructor actions."""

    __tablename__ = "audit_log"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True)
    actor: str | None = Field(default=None, max_length=100)
    action: str = Field(max_length=50)
    target: str = Field(default="", max_length=200)
    ok: bool = Field(default=True)
    detail: str = Field(default="", sa_type=Text)
    address: str | None = Field(default=None, max_length=100)


class ReasonReview(SQLModel, table=True):
    """An admin's mark on the reason of one SDAK answer: sound or not (migration 0015).

    One mark per answer; marking again replaces it. The reason itself is read again from the
    answer's raw text, never copied here.
    """

    __tablename__ = "reason_reviews"

    id: int | None = Field(default=None, primary_key=True)
    response_id: int = Field(foreign_key="response.id", ondelete="CASCADE", unique=True)
    sound: bool
    reviewer: str = Field(max_length=200)
    reviewed_at: datetime = _created()


class ModelSpendRow(SQLModel, table=True):
    """The model calls one account has reserved on one UTC day (``quizbot.spend``)."""

    __tablename__ = "model_spend"
    __table_args__ = (
        UniqueConstraint("user_name", "day", name="uq_model_spend_user_day"),
        CheckConstraint("calls >= 0", name="ck_model_spend_calls"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_name: str = Field(max_length=100)
    day: date
    calls: int = Field(default=0)
    updated_at: datetime = _created()


class RecallSelfGrade(SQLModel, table=True):
    """A student's own mark on an unverified entry of their open recall answer (migration 0018).

    Kept apart from every scored figure: the scorer never reads it, so figures compared with
    models (Humans vs models, assignment results) are the same with or without it. One mark per
    answer and entry (``entry_key``: the entry folded as the scorer folds names); marking again
    replaces it.
    """

    __tablename__ = "recall_self_grades"
    __table_args__ = (
        UniqueConstraint("response_id", "entry_key", name="uq_recall_self_grade_entry"),
        CheckConstraint("verdict IN ('right', 'wrong')", name="ck_recall_self_grade_verdict"),
    )

    id: int | None = Field(default=None, primary_key=True)
    response_id: int = Field(foreign_key="response.id", ondelete="CASCADE", index=True)
    entry_key: str = Field(max_length=200)
    entry: str = Field(max_length=200)
    verdict: str = Field(max_length=10)
    graded_at: datetime = _created()


class RecallJudgement(SQLModel, table=True):
    """A judge model's verdict on one entry as an answer to one open recall question (0018).

    Keyed by the question (``item_id``), the entry (folded as the scorer folds names), the judge
    model and the version of the fixed prompt, so an entry is judged once per judge and prompt
    whoever wrote it; ``reply`` is the judge's raw text. ``verdict`` is ``correct``,
    ``incorrect`` or ``unclear`` (a reply that says neither: the entry stays unverified).
    """

    __tablename__ = "recall_judgements"
    __table_args__ = (
        UniqueConstraint(
            "item_id", "entry_key", "judge_model", "prompt_version", name="uq_recall_judgement"
        ),
        CheckConstraint(
            "verdict IN ('correct', 'incorrect', 'unclear')", name="ck_recall_judgement_verdict"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    item_id: str = Field(foreign_key="item.id", ondelete="CASCADE", max_length=80, index=True)
    entry_key: str = Field(max_length=200)
    entry: str = Field(max_length=200)
    judge_model: str = Field(max_length=200)
    prompt_version: str = Field(max_length=40)
    verdict: str = Field(max_length=10)
    reply: str = Field(default="", sa_type=Text)
    created_at: datetime = _created()


# --------------------------------------------------------------------------------------------
# State shared by the app's replicas (migration 0023)


class RateBucketRow(SQLModel, table=True):
    """One token bucket of a request-rate limit (login attempts per address and per name, answers
    per practice session), shared by every replica of the app (0023). ``key`` starts with the
    limit's name; ``tokens`` is what was left at ``updated_at`` (seconds since the epoch);
    ``allowed`` is whether the last request taken was let through. A row idle for longer than
    its limit takes to refill is swept (it holds nothing a missing row does not)."""

    __tablename__ = "rate_buckets"

    key: str = Field(primary_key=True, max_length=200)
    tokens: float
    updated_at: float = Field(index=True)
    allowed: bool = Field(default=True)


class GradioSessionRow(SQLModel, table=True):
    """Which account first used a Gradio session hash (0023): no other account may use it, on
    any replica. ``claimed_at`` is seconds since the epoch; old claims are swept."""

    __tablename__ = "gradio_sessions"

    session_hash: str = Field(primary_key=True, max_length=128)
    owner: str = Field(max_length=100)
    claimed_at: float = Field(index=True)


class UploadUsageRow(SQLModel, table=True):
    """One upload's size, counted against its account's hourly volume on every replica (0023);
    rows older than the hour are swept."""

    __tablename__ = "upload_usage"

    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(max_length=100, index=True)
    size: int = Field(sa_type=BigInteger)
    at: float


# --------------------------------------------------------------------------------------------
# A student's next practice session, planned ahead (migration 0024)


class PracticePlanRow(SQLModel, table=True):
    """The plan of a student's next free-practice session on one KB, made when their last one
    ended (:mod:`quizbot.practice.next_plan`), so the start that finds it still valid only
    records it. ``params`` is what the start must ask for (topics, format, length), ``basis``
    a digest of everything the plan was computed from (the KB, the retired items, the
    student's answers and exam sessions), ``config`` the session's config as a start computes
    it. One row per student and KB; a start takes (deletes) the row it uses."""

    __tablename__ = "practice_plans"

    respondent_id: int = Field(foreign_key="respondent.id", ondelete="CASCADE", primary_key=True)
    kb_name: str = Field(max_length=100, primary_key=True)
    params: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    basis: str = Field(max_length=64)
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = _created()
