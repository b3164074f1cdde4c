"""Shared vocabulary of quizbot: the enumerations and records every layer speaks, no database.

The flow KB -> points -> items -> responses -> scores -> metrics -> drift names its states and
outcomes here, so the parser, the metrics and the drift tests can be imported without SQLAlchemy,
and ``storage/`` stores exactly these values (its CHECK constraints are built from them).

The records (:class:`Run`, :class:`Respondent`, ...) are what ``storage/`` hands across its
boundary instead of its table rows: plain frozen values with the columns' names and types, and an
``id`` that is always set. Nothing above storage receives, builds or mutates a row; to change a
record use :func:`dataclasses.replace` (it changes the copy, never the database).

Standard library only: this is the bottom layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

__all__ = [
    "MAX_FLAG_COMMENT",
    "MAX_TOKENS",
    "RECALL_MAX_TOKENS",
    "SDAK_MAX_TOKENS",
    "Alert",
    "Assignment",
    "AssignmentMode",
    "AuditEntry",
    "CachedCall",
    "FlagDecision",
    "FlagReason",
    "FlagState",
    "ItemFlag",
    "KbOverride",
    "KnowledgeBaseInfo",
    "Monitor",
    "NightRecord",
    "NightStatus",
    "Outcome",
    "OverrideKind",
    "PracticeSessionRecord",
    "ReasonReview",
    "Respondent",
    "RespondentKind",
    "ResponseRecord",
    "RetiredItem",
    "Role",
    "Run",
    "RunStatus",
    "SessionStatus",
    "Severity",
    "StoredPrototypeSet",
    "UserAccount",
]


class Outcome(StrEnum):
    """How an answer was scored. Abstention is an outcome, not a missing row."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    ABSTAINED = "abstained"
    UNPARSED = "unparsed"
    ERROR = "error"


class RespondentKind(StrEnum):
    """Who answered: a person, a model behind a provider, or a built-in baseline."""

    HUMAN = "human"
    MODEL = "model"
    BASELINE = "baseline"


class RunStatus(StrEnum):
    """Life cycle of an evaluation run; ``interrupted`` runs can be resumed."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class SessionStatus(StrEnum):
    """Life cycle of a person's practice session."""

    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class NightStatus(StrEnum):
    """Life cycle of one monitor x model x night; the row is the claim that prevents double runs."""

    CLAIMED = "claimed"
    COMPLETED = "completed"
    FAILED = "failed"


class Severity(StrEnum):
    """How loudly an alert should be raised."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class Role(StrEnum):
    """What an account may do: practise (student), also run models and read their cohorts'
    results (instructor), also administer (admin)."""

    STUDENT = "student"
    INSTRUCTOR = "instructor"
    ADMIN = "admin"


class AssignmentMode(StrEnum):
    """How students meet an assignment: an exam (no feedback until the end) or practice."""

    EXAM = "exam"
    PRACTICE = "practice"


MAX_FLAG_COMMENT = 1000  # characters of a flag's free comment
# How long a model's reply may be unless the caller says (quizbot.evaluation.service.reply_tokens)
MAX_TOKENS = 16  # a verdict, a letter or "I do not know"
SDAK_MAX_TOKENS = 160  # the SDAK question: a verdict and a reason
RECALL_MAX_TOKENS = 256  # an open recall question: a list


class FlagReason(StrEnum):
    """Why someone flagged a question they had just answered."""

    WRONG_KEY = "wrong_key"  # the answer key is wrong
    AMBIGUOUS = "ambiguous"  # the question can be read more than one way
    OTHER = "other"


class FlagState(StrEnum):
    """Life cycle of a flag: open until someone decides about its item."""

    OPEN = "open"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


class FlagDecision(StrEnum):
    """What a reviewer decided about a flagged item (``quizbot kb decide --action``)."""

    RETIRE = "retire"  # never ask the item again
    TRUE = "true"  # the triplet offered as false is true: never use it as a negative
    FALSE = "false"  # the fact the KB lists is wrong: remove it
    DISMISS = "dismiss"  # nothing wrong


class OverrideKind(StrEnum):
    """A correction of a knowledge base made without a release (``kb_overrides``)."""

    TRUE_NOT_NEGATIVE = "true_not_negative"  # true: never a negative or a distractor
    FALSE_REMOVE = "false_remove"  # the listed fact is wrong: drop it from the KB
    REVIEWED_FALSE = "reviewed_false"  # a clinician found it false: a preferred negative


# --------------------------------------------------------------------------------------------
# Records: what storage returns (one per table callers read), detached from any database session.


@dataclass(frozen=True, slots=True)
class KnowledgeBaseInfo:
    """A stored knowledge base's header (its points are read separately)."""

    id: int
    name: str
    version: str
    title: str
    description: str
    source: str
    license: str
    meta: dict[str, Any]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class StoredPrototypeSet:
    """An imported prototype file, kept verbatim (``format`` is ``pool`` or ``pretex``)."""

    id: int
    name: str
    format: str
    digest: str
    content: str
    source_path: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CachedCall:
    """A model's cached answer to one exact prompt and settings (interactive reuse only)."""

    id: int
    key: str
    model: str
    text: str
    provider_model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Respondent:
    """Anyone who answers: a person (pseudonym), a model or a baseline (``kind``)."""

    id: int
    kind: str
    name: str
    display_name: str
    cohort: str | None
    meta: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Run:
    """An evaluation run: one model (or baseline) answering items with fixed settings."""

    id: int
    name: str | None
    respondent_id: int
    model_requested: str
    model_reported: str | None
    config: dict[str, Any]
    status: str
    n_items: int
    error_text: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    assignment_id: int | None = None  # the run was made for this assignment
    repeat_of: int | None = None  # the first run of its repeat group (``--repeats``)


@dataclass(frozen=True, slots=True)
class ResponseRecord:
    """One stored answer, in a run (``run_id``) or in a practice session (``quiz_session_id``)."""

    id: int
    run_id: int | None
    quiz_session_id: int | None
    item_id: str
    respondent_id: int
    prompt: str | None
    raw_text: str | None
    parsed_answer: str | None
    parse_reason: str | None
    outcome: str
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    provider_model: str | None
    cached: bool
    error_text: str | None
    created_at: datetime
    answer_pass: int | None = None  # 1 or 2 on a two-pass assignment, else None


@dataclass(frozen=True, slots=True)
class PracticeSessionRecord:
    """A person's practice session: who, which KB, the chosen settings (``config``), status."""

    id: int
    respondent_id: int
    kb_name: str
    config: dict[str, Any]
    status: str
    started_at: datetime
    finished_at: datetime | None
    assignment_id: int | None = None  # the session answers this assignment


@dataclass(frozen=True, slots=True)
class Monitor:
    """A scheduled monitor as last loaded from the schedules file."""

    id: int
    name: str
    definition: dict[str, Any]
    source_file: str | None
    enabled: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class NightRecord:
    """One monitor x model x scheduled date as stored: the claim, its run, status and summary.

    (Not :class:`quizbot.monitoring.drift.Night`, which is a night's scored answers.)
    """

    id: int
    monitor_id: int
    model: str
    scheduled_date: date
    run_id: int | None
    status: str
    claimed_by: str
    provider_model: str | None
    summary: dict[str, Any] | None
    error_text: str | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class Alert:
    """A drift finding worth telling someone about, and whether the webhook got it."""

    id: int
    monitor_night_id: int
    drift_result_id: int | None
    severity: str
    metric: str
    effect: float | None
    p_value: float | None
    message: str
    run_ids: list[int]
    delivered_at: datetime | None
    delivery_error: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ReasonReview:
    """An admin's mark on the reason of one SDAK answer (``response_id``): sound or not."""

    id: int
    response_id: int
    sound: bool
    reviewer: str
    reviewed_at: datetime


@dataclass(frozen=True, slots=True)
class ItemFlag:
    """Someone's flag on a question they answered, and what was decided about it."""

    id: int
    item_id: str
    quiz_session_id: int | None
    reason: str
    comment: str
    created_at: datetime
    state: str
    decision: str | None
    decided_by: str | None
    decided_at: datetime | None


@dataclass(frozen=True, slots=True)
class KbOverride:
    """A correction of one triplet of a knowledge base (``kind``: an :class:`OverrideKind`)."""

    id: int
    kb_name: str
    head: str
    relation: str
    tail: str
    kind: str
    note: str
    source: str
    created_by: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RetiredItem:
    """An item never to be asked again (practice, monitors); its past answers are kept."""

    id: int
    item_id: str
    reason: str
    flag_id: int | None
    retired_at: datetime


@dataclass(frozen=True, slots=True)
class AssignmentRetiredItem:
    """An item left out of one assignment's scoring; its answers are kept."""

    id: int
    assignment_id: int
    item_id: str
    reason: str
    retired_by: str
    retired_at: datetime


@dataclass(frozen=True, slots=True)
class Assignment:
    """A fixed set of items put to students and models alike (``item_ids`` in order).

    ``config`` holds how the items were made: points, seed, format, relations, all_variants
    (or ``items_file`` when they were read from a file).
    """

    id: int
    name: str
    kb_name: str
    mode: str
    cohort: str | None
    opens_at: datetime | None
    closes_at: datetime | None
    config: dict[str, Any]
    created_at: datetime
    item_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UserAccount:
    """A login of the app (never its password hash, which stays in storage)."""

    id: int
    name: str
    role: str
    cohort: str | None
    disabled: bool
    must_change_password: bool
    failed_logins: int
    locked_until: datetime | None
    created_at: datetime
    last_login_at: datetime | None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the audit log: who did what to what, when, from where, and whether it worked."""

    id: int
    at: datetime
    actor: str | None
    action: str
    target: str
    ok: bool
    detail: str
    address: str | None
