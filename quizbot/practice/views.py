"""What the practice services return: small frozen records, JSON-ready (``as_json``), and the
settings every part of practice shares."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, datetime, timedelta
from enum import Enum
from typing import Any, Literal

from quizbot.analysis.metrics import (
    Proportion,
)
from quizbot.config import DEFAULT_PRACTICE_IDLE_HOURS
from quizbot.domain import Outcome
from quizbot.items import ChoiceItem, StatementItem

Format = Literal["statement", "choice", "mixed"]
Item = StatementItem | ChoiceItem

CANONICAL_SEED = "0"  # negatives and options as `quizbot generate` / `eval --kb` make them
MAX_LENGTH = 100
MAX_NAME_LENGTH = 100
MAX_ANSWER_LENGTH = 2000
# A session shows the answer after each question: a fact is asked once, never after its reveal.
VARIANTS_PER_FACT = 1
REVIEW_VARIANTS_PER_FACT = 1
# An active free-practice session with no answer for this long is closed when next looked at
# (the app passes QUIZBOT_PRACTICE_IDLE_HOURS).
IDLE_TIMEOUT = timedelta(hours=DEFAULT_PRACTICE_IDLE_HOURS)
WEAKEST_MIN_N = 2  # a topic needs this many answers to be called weak
WEAKEST_COUNT = 3
CONFIG_VERSION = 1
_REVIEW_SEEDS = ("review-1", "review-2", "review-3", "review-4")
_FORMATS: tuple[str, ...] = ("statement", "choice", "mixed")
_MISSED = frozenset({Outcome.INCORRECT.value, Outcome.ABSTAINED.value})
_LETTERS = "ABCDEFGHIJ"
_QUESTION_ID = re.compile(r"s(\d+)q(\d+)")
_IDK_WORDS = "I don't know"

# Topic names for the relations of the built-in KBs; others use the KB's relation label.
_RELATION_TOPICS: Mapping[str, str] = {
    "has_symptom": "Symptoms and signs",
    "affects_site": "Sites affected",
    "treated_with_drug": "Drug treatment",
    "treated_with_procedure": "Procedures",
    "has_complication": "Complications",
    "investigated_with": "Investigations",
    "typical_age_group": "Age at presentation",
    "treated_with_drug_class": "Drug classes",
    "prevents": "Prevention",
    "has_phenotype": "Phenotypes",
    "associated_gene": "Genes",
    "has_inheritance": "Inheritance",
}


# --------------------------------------------------------------------------------------------
# JSON


def _plain(value: Any) -> Any:
    """``value`` as plain JSON types: dataclasses as dicts, datetimes as ISO 8601 strings."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class _Json:
    """Mixin: ``as_json()`` for the frozen dataclasses the service returns."""

    def as_json(self) -> dict[str, Any]:
        """This object as a dict of plain JSON types."""
        out = _plain(self)
        assert isinstance(out, dict)
        return out


# --------------------------------------------------------------------------------------------
# Public views


@dataclass(frozen=True)
class Topic(_Json):
    """Something a student can choose to practise: a relation or an organ system."""

    key: str  # "relation:has_symptom" or "system:cardiovascular"
    kind: str  # "relation" or "system"
    name: str
    label: str
    n_facts: int


@dataclass(frozen=True)
class SessionView(_Json):
    """A practice session as the student sees it (no items, no answers)."""

    id: int
    student: str
    kb: str
    topic: str | None
    topic_label: str
    format: str
    review: bool
    seed: str
    total: int
    answered: int
    status: str
    started_at: datetime
    finished_at: datetime | None
    notes: list[str] = field(default_factory=list)
    assignment: str | None = None  # the assignment's name when the session is one
    mode: str | None = None  # an assignment's: "exam" (no feedback until the end) or "practice"


@dataclass(frozen=True)
class Option(_Json):
    """One option of a multiple-choice question."""

    letter: str
    text: str


@dataclass(frozen=True)
class Question(_Json):
    """The next question, as safe to send to a browser: no answer key and no lineage."""

    session_id: int
    id: str  # opaque: pass it back to :func:`answer`
    position: int  # 1-based
    total: int
    kind: str  # "statement" or "choice"
    text: str  # the statement, or the question without its options
    options: list[Option] | None
    topic: str
    instructions: str
    quick_replies: list[str]
    # When the server put the question out; handed back to :func:`answer`, which stores the
    # time taken (``latency_ms``) from it.
    shown_at: datetime | None = None
    # Whether "I don't know" is among the answers (an assignment's protocol may leave it out).
    idk: bool = True


@dataclass(frozen=True)
class OptionNote(_Json):
    """One option of a multiple-choice question after the answer: right or not, and why."""

    letter: str
    text: str
    correct: bool
    note: str  # what the knowledge base says about this option ("" when it knows nothing)


@dataclass(frozen=True)
class Explanation(_Json):
    """Why the answer is what it is, from the item's lineage."""

    fact: str  # the underlying KB fact as a sentence
    head: str
    relation: str  # the relation's label, e.g. "has symptom"
    tail: str  # the true tail of that fact
    transform: str | None  # e.g. "inversion + double negation"; None for multiple choice
    negative: bool  # the statement was about a substituted, false tail
    substituted_tail: str | None
    true_tails: list[str]  # every tail the KB lists for this head and relation
    text: str  # the verdict and the reason in plain words
    why: str = ""  # the reason alone, without the verdict (the fact; what is true instead)
    options: list[OptionNote] = field(default_factory=list)  # multiple choice: every option


@dataclass(frozen=True)
class Feedback(_Json):
    """How an answer was scored, the right answer and the explanation."""

    session_id: int
    question_id: str
    position: int
    total: int
    outcome: str  # "correct", "incorrect" or "abstained"; "withheld" in an unfinished exam
    your_answer: str
    correct_answer: str
    explanation: Explanation
    answered: int
    finished: bool
    # The question as it was asked (text, options, topic): set in an exam's review
    # (:func:`quizbot.practice.assignments.exam_review`), where each card shows it whole.
    question: Question | None = None


@dataclass(frozen=True)
class TopicScore(_Json):
    """Accuracy on one topic within a session."""

    key: str
    kind: str
    label: str
    accuracy: Proportion


@dataclass(frozen=True)
class ModelResult(_Json):
    """A model on the items this student answered and the model answered too."""

    model: str
    n_shared: int
    model_accuracy: Proportion
    student_accuracy: Proportion  # the student on the same shared items
    comparison: dict[str, Any] | None  # McNemar (difference = model − student), enough items


@dataclass(frozen=True)
class AnswerRecord(_Json):
    """One answered question in a summary (the key may be shown once answered)."""

    position: int
    question_id: str
    kind: str
    text: str
    topic: str
    outcome: str
    your_answer: str
    correct_answer: str


@dataclass(frozen=True)
class Summary(_Json):
    """A session's results."""

    session: SessionView
    n_items: int
    n_answered: int
    accuracy: Proportion  # correct / answered
    answer_rate: Proportion  # not "I don't know" / answered
    accuracy_answered: Proportion  # correct / answered other than "I don't know"
    joint_accuracy: Proportion  # facts with every question right / facts fully answered
    topics: list[TopicScore]
    weakest_topics: list[TopicScore]
    models: list[ModelResult]
    answers: list[AnswerRecord]


@dataclass(frozen=True)
class ProgressPoint(_Json):
    """Accuracy in one period (a UTC day, or one session)."""

    period: str
    accuracy: Proportion


@dataclass(frozen=True)
class TopicProgress(_Json):
    """A topic's accuracy overall and per period."""

    kb: str
    key: str
    kind: str
    label: str
    overall: Proportion
    points: list[ProgressPoint]


@dataclass(frozen=True)
class SessionInfo(_Json):
    """One session in a student's history."""

    id: int
    kb: str
    topic_label: str
    format: str
    review: bool
    status: str
    started_at: datetime
    finished_at: datetime | None
    total: int
    answered: int
    accuracy: Proportion
    sealed: bool = False  # an exam not complete yet: no accuracy, counted nowhere


@dataclass(frozen=True)
class TopicCoverage(_Json):
    """How much of one topic a student has seen, how it went, and how much of it is due."""

    key: str  # "relation:has_symptom" or "system:cardiovascular"
    kind: str  # "relation" or "system"
    label: str
    n_facts: int  # the topic's facts practice can ask (its knowledge points)
    seen: int  # of them, answered at least once (exams still sealed left out)
    due_now: int  # of them, due for spaced review today (overdue included)
    due_week: int  # of them, due within the next seven days (today's included)
    accuracy: Proportion  # every answer on the topic's facts

    @property
    def share_seen(self) -> float:
        """``seen / n_facts`` (0 for a topic without facts)."""
        return self.seen / self.n_facts if self.n_facts else 0.0


@dataclass(frozen=True)
class Coverage(_Json):
    """A student's coverage of a knowledge base: overall, per organ system and per relation
    (separate views: a fact counts in one of each), each list weakest first."""

    student: str
    kb: str
    n_facts: int
    seen: int
    due_now: int
    due_week: int
    systems: list[TopicCoverage]
    relations: list[TopicCoverage]

    def weakest(self, kind: str) -> list[TopicCoverage]:
        """The weakest topics of one view (``kind`` "system" or "relation"): at most
        :data:`WEAKEST_COUNT`, each with :data:`WEAKEST_MIN_N` answers or more and not all
        right, lowest accuracy first (the order of the lists)."""
        rows = self.systems if kind == "system" else self.relations
        return [
            t
            for t in rows
            if t.accuracy.n >= WEAKEST_MIN_N
            and t.accuracy.value is not None
            and t.accuracy.value < 1
        ][:WEAKEST_COUNT]


@dataclass(frozen=True)
class Progress(_Json):
    """A student's results over time."""

    student: str
    by: str  # "day", "week" or "session"
    total_answered: int
    accuracy: Proportion
    timeline: list[ProgressPoint]
    topics: list[TopicProgress]
    sessions: list[SessionInfo]
    # Open recall answers, scored apart (not in the accuracy above); None when there are none.
    recall: RecallProgress | None = None


# --------------------------------------------------------------------------------------------
# Identity and validation


# --------------------------------------------------------------------------------------------
# Open recall practice (quizbot.practice.recall)

RECALL_FORMAT = "recall"  # a session's config["format"] when it asks open recall questions


@dataclass(frozen=True)
class RecallQuestion(_Json):
    """An open recall question as safe to send to a browser: no gold list, no lineage."""

    session_id: int
    id: str  # opaque: pass it back to :func:`quizbot.practice.recall.answer_recall`
    position: int  # 1-based
    total: int
    aspect: str  # e.g. "symptoms"
    disease: str
    text: str
    instructions: str
    shown_at: datetime | None = None  # when the server put it out (the time taken is stored)


@dataclass(frozen=True)
class RecalledEntity(_Json):
    """A gold entity the student recalled, what they wrote for it and which rule matched.

    ``how``: ``name`` (its name), ``synonym`` (another name of it), ``narrower`` (a part or
    kind of it), ``contains`` (its name inside what was written); see
    :func:`quizbot.evaluation.recall.how_recalled`.
    """

    gold: str
    answer: str
    how: str


@dataclass(frozen=True)
class RecallEntryNote(_Json):
    """One entry the student listed that names no gold entity, and what is known of it.

    ``kind``: ``extra_truth`` (true, but not in the list: ``why`` says how the KB knows),
    ``known_wrong`` (``why`` says what contradicts it) or ``unverified`` (nothing known: "not in
    our list, check it"); ``self_grade`` is the student's own mark on an unverified entry
    (``right`` or ``wrong``), stored apart and never counted in any score.
    """

    entry: str
    kind: str
    why: str = ""
    self_grade: str | None = None


@dataclass(frozen=True)
class RecallFeedback(_Json):
    """A recall answer scored by the models' scorer: recalled, missed, true but not in the list,
    unverified and wrong entries, F1 and tier.

    ``wrong`` lists the entries known wrong (the KB contradicts them), ``true_unlisted`` the true
    ones the gold list lacks, ``unverified`` those nothing is known of (never called wrong);
    ``notes`` has each of those with its reason and the student's own mark. In an exam before
    the last answer ``outcome`` is ``"withheld"`` and every list is empty.
    """

    session_id: int
    question_id: str
    position: int
    total: int
    question: str
    aspect: str
    outcome: str  # "correct" (basically correct), "incorrect", "abstained" or "withheld"
    your_answer: str  # the raw text, as typed
    read_as: list[str]  # the entities read out of it
    recalled: list[RecalledEntity]
    missed: list[str]
    vague: list[str]  # broader than a gold entity: not wrong, recalls nothing
    wrong: list[str]  # known wrong
    precision: float | None
    recall: float | None
    f1: float | None
    tier: str | None
    tiers: dict[str, Any]  # the metric and thresholds the tier was graded by
    answered: int
    finished: bool
    true_unlisted: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    notes: list[RecallEntryNote] = field(default_factory=list)


@dataclass(frozen=True)
class MeanScore(_Json):
    """A mean score with its 95% Student-t interval (None below two values)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class RecallAspectScore(_Json):
    """One aspect's recall answers: how many, mean F1, share basically correct."""

    aspect: str
    n: int
    f1: MeanScore
    basically_correct: Proportion


@dataclass(frozen=True)
class RecallProgress(_Json):
    """A student's open recall answers (their own figures, apart from the recognition accuracy)."""

    n_answered: int
    f1: MeanScore
    basically_correct: Proportion
    aspects: list[RecallAspectScore]


@dataclass(frozen=True)
class RecallSummary(_Json):
    """A recall session's results: mean F1 overall and per aspect, and every answer scored.

    ``answers`` is empty for an exam that is not complete (nothing is revealed before the end).
    """

    session: SessionView
    n_items: int
    scores: RecallProgress
    answers: list[RecallFeedback]
