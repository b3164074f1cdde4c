"""Practice sessions for people: the whole service a chat UI calls, with no logic left to the UI.

A student picks a knowledge base, optionally a topic (a relation, or an organ system for
clinical-core) and a format, and answers a short series of questions one at a time; after each
answer they get the right answer and why; at the end a summary, and over time their progress.

Design
    Identity. A student is a :class:`~storage.models.Respondent` of kind ``human`` named by a
    pseudonym. The pseudonym is normalised (NFKC, surrounding and repeated inner whitespace
    collapsed, case folded), so "Ada  L" and "ada l" are the same student; the first spelling
    seen is kept as the display name. At most 100 characters, no control characters.

    Items are the canonical ones. Negative tails (statements) and option sets (multiple choice)
    are drawn with the same seed as ``quizbot generate`` / ``quizbot eval --kb`` by default
    (:data:`CANONICAL_SEED`), so a student answers the very items models are evaluated on, and
    :func:`summary` can set the student against the models item by item. The session's own
    seed only chooses *which* facts and *which* variants are asked: the same seed gives the same
    session, a new seed a different one (a random seed is drawn and stored when none is given).

    Topics. A relation, or an organ system: the group of the fact's head (clinical-core's
    diseases), so preventive agents appear under "Prevention" only (see :func:`_system_of`).

    Choosing facts. Candidate facts are the KB's knowledge points (within the topic, and for
    statements only relations the prototype pool covers), in a seeded order stratified by
    relation (:func:`quizbot.generate.points.stratified`). Facts the student has never answered
    come first, then facts answered but not mastered, and facts already mastered (every answer
    to them correct) last, so they are asked again only when nothing else is left.

    Variants. Each fact yields 16 true/false statements (8 transforms of the fact and 8 of its
    generated false counterpart). A statement session asks about ``ceil(length / 2)`` facts, two
    variants each where the length allows: the first variant drawn by seed among all 16, the
    second from the other side (fact vs counterfactual) with another transform. First variants of
    every fact come first, then the second ones, so the two variants of a fact are far apart.
    Drawing the first side at random matters: were the fact side always asked first, "affirmative
    sentences in the first half are true" would be a pattern to exploit. Multiple-choice sessions
    ask one question per (head, relation); ``mixed`` alternates the two, never asking a choice
    question and statements about the same head and relation in one session.

    Review mode ("review my mistakes"). A fact needs review when the student missed it (answered
    wrongly or "I don't know") and has not answered it correctly in a later session. Each such
    fact is asked again in a variant the student did not miss: another statement variant
    (preferably one never shown to them) or another multiple-choice item of the same point (other
    options, drawn with another seed). At most two variants per fact.

    The answer key stays on the server. :class:`Question` carries an opaque question id
    (``s<session>q<position>``), the text, the options and a topic label; never the label,
    polarity, transform, lineage or the item's content hash (the hash covers the label, so with
    the public KB it could be tested against both answers). :func:`answer` accepts the question id
    (or the item id), parses what was typed with :func:`quizbot.evaluation.parse.parse_human`, and
    refuses
    input it cannot read with an :class:`~quizbot.errors.InputError` naming what to type, storing
    nothing. A second answer to the same question is refused (:class:`DuplicateError`); the first
    stands. The answer and the "session finished" mark are written in one transaction
    (:func:`storage.sessions.record_session_answer`).

    Numbers. Accuracy is correct / answered questions ("I don't know" counts as answered
    wrongly in accuracy, as not answered in the answer rate), from
    :func:`quizbot.analysis.metrics.compute_metrics`; every proportion carries a Wilson 95%
    interval.
    Joint accuracy per fact: the share of facts (all of whose questions in the session were
    answered) with every question right. Models are compared on the items both answered, using
    each model's newest stored answer per item from evaluation runs.

Every dataclass returned has ``as_json()`` giving plain JSON types (datetimes as ISO 8601).
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any, Literal

from quizbot.analysis.metrics import (
    MIN_SHARED_FOR_MCNEMAR,
    Proportion,
    Scored,
    compare_runs,
    compute_metrics,
)
from quizbot.domain import Outcome, RespondentKind, SessionStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.evaluation.parse import Parsed, parse_human, score
from quizbot.generate.choice import choice_questions
from quizbot.generate.points import candidate_points, stratified
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import load_items, store_items
from quizbot.generate.statements import plan_points, statements
from quizbot.generate.transforms import Polarity, Transform, describe
from quizbot.items import ChoiceItem, StatementItem
from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id
from quizbot.kb.registry import DEFAULT_KB, get_kb
from storage import Database
from storage.repo import NewResponse, get_or_create_respondent
from storage.sessions import (
    AnswerRow,
    LoadedSession,
    create_session,
    find_respondent,
    load_session,
    model_answers,
    point_tails,
    record_session_answer,
    respondent_history,
    set_respondent_cohort,
    set_session_status,
)

__all__ = [
    "CANONICAL_SEED",
    "MAX_LENGTH",
    "MAX_NAME_LENGTH",
    "AnswerRecord",
    "Explanation",
    "Feedback",
    "Format",
    "ModelResult",
    "Option",
    "Progress",
    "ProgressPoint",
    "Question",
    "SessionInfo",
    "SessionView",
    "Summary",
    "Topic",
    "TopicProgress",
    "TopicScore",
    "answer",
    "end_session",
    "next_question",
    "normalise_student",
    "progress",
    "session_view",
    "start_session",
    "summary",
    "topics",
]

Format = Literal["statement", "choice", "mixed"]
Item = StatementItem | ChoiceItem

CANONICAL_SEED = "0"  # negatives and options as `quizbot generate` / `eval --kb` make them
MAX_LENGTH = 100
MAX_NAME_LENGTH = 100
MAX_ANSWER_LENGTH = 2000
VARIANTS_PER_FACT = 2
REVIEW_VARIANTS_PER_FACT = 2
WEAKEST_MIN_N = 2  # a topic needs this many answers to be called weak
WEAKEST_COUNT = 3
CONFIG_VERSION = 1
_REVIEW_SEEDS = ("review-1", "review-2", "review-3", "review-4")
_FORMATS: tuple[str, ...] = ("statement", "choice", "mixed")
_MISSED = frozenset({Outcome.INCORRECT.value, Outcome.ABSTAINED.value})
_LETTERS = "ABCDEFGHIJ"
_QUESTION_ID = re.compile(r"s(\d+)q(\d+)")
_IDK_WORDS = "I don't know"
_MAX_TAILS_SHOWN = 12

# Topic names for the relations of the built-in KBs; others use the KB's relation label.
_RELATION_TOPICS: Mapping[str, str] = {
    "has_symptom": "Symptoms and signs",
    "affects_site": "Sites affected",
    "treated_with_drug": "Drug treatment",
    "treated_with_procedure": "Procedures",
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
    text: str  # all of the above in words


@dataclass(frozen=True)
class Feedback(_Json):
    """How an answer was scored, the right answer and the explanation."""

    session_id: int
    question_id: str
    position: int
    total: int
    outcome: str  # "correct", "incorrect" or "abstained"
    your_answer: str
    correct_answer: str
    explanation: Explanation
    answered: int
    finished: bool


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


@dataclass(frozen=True)
class Progress(_Json):
    """A student's results over time."""

    student: str
    by: str  # "day" or "session"
    total_answered: int
    accuracy: Proportion
    timeline: list[ProgressPoint]
    topics: list[TopicProgress]
    sessions: list[SessionInfo]


# --------------------------------------------------------------------------------------------
# Identity and validation


def normalise_student(name: str) -> str:
    """The key a pseudonym is stored under (see the module docstring); InputError if unusable."""
    if not isinstance(name, str):
        raise InputError("the pseudonym must be text", field="student")
    shown = _display_name(name)
    return shown.casefold()


def _display_name(name: str) -> str:
    shown = " ".join(unicodedata.normalize("NFKC", name).split())
    if not shown:
        raise InputError(
            "enter a pseudonym or code name", field="student", hint="e.g. your student code"
        )
    if len(shown) > MAX_NAME_LENGTH:
        raise InputError(
            f"the pseudonym is {len(shown)} characters long; at most {MAX_NAME_LENGTH} fit",
            field="student",
            hint="choose a shorter pseudonym",
        )
    if any(unicodedata.category(c).startswith("C") for c in shown):
        raise InputError(
            "the pseudonym contains control characters",
            field="student",
            hint="use letters, digits and punctuation",
        )
    return shown


def _cohort(cohort: str | None) -> str | None:
    if cohort is None:
        return None
    cleaned = " ".join(unicodedata.normalize("NFKC", cohort).split())
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InputError(f"the cohort name is longer than {MAX_NAME_LENGTH} characters")
    return cleaned or None


def _validate(length: int, format: str, seed: str | None) -> None:
    if isinstance(length, bool) or not isinstance(length, int):
        raise InputError("the number of questions must be a whole number", field="length")
    if not 1 <= length <= MAX_LENGTH:
        raise InputError(
            f"a session has 1 to {MAX_LENGTH} questions, not {length}",
            field="length",
            hint="pick a number between 1 and 100",
        )
    if format not in _FORMATS:
        raise InputError(
            f"unknown question format {format!r}",
            field="format",
            hint=f"one of: {', '.join(_FORMATS)}",
        )
    if seed is not None and (not seed.strip() or len(seed) > MAX_NAME_LENGTH):
        raise InputError("the seed must be non-empty text of at most 100 characters")


def _load_kb(db: Database, kb_name: str) -> tuple[KnowledgeBaseData, int]:
    try:
        return get_kb(db, kb_name)
    except NotFoundError as exc:
        raise InputError(exc.message, field="kb", hint=exc.hint) from None


# --------------------------------------------------------------------------------------------
# Topics


def _system_of(t: Triplet) -> str | None:
    """The organ system a fact is filed under: its head's group, never its tail's.

    clinical-core also tags ``prevents`` facts with the system of the prevented disease (the
    tail). Those stay out of system topics: a generated negative swaps the tail for a disease
    of (usually) another system, so in a "Respiratory" session a vaccine statement about a
    non-respiratory disease would give its answer away.
    """
    return t.group


def _system_labels(kb: KnowledgeBaseData) -> dict[str, str]:
    systems = kb.meta.get("systems")
    if isinstance(systems, Mapping):
        return {str(k): str(v) for k, v in systems.items()}
    return {}


def _relation_topic_label(kb: KnowledgeBaseData, relation: str) -> str:
    if relation in _RELATION_TOPICS:
        return _RELATION_TOPICS[relation]
    known = kb.relations.get(relation)
    label = known.label if known else relation.replace("_", " ")
    return label[:1].upper() + label[1:]


def _relation_label(kb: KnowledgeBaseData, relation: str) -> str:
    known = kb.relations.get(relation)
    return known.label if known else relation.replace("_", " ")


def _topic_keys(t: Triplet) -> list[str]:
    keys = [f"relation:{t.relation}"]
    system = _system_of(t)
    if system is not None:
        keys.append(f"system:{system}")
    return keys


def _topics(kb: KnowledgeBaseData) -> list[Topic]:
    counts: dict[str, int] = defaultdict(int)
    for t in candidate_points(kb):
        for key in _topic_keys(t):
            counts[key] += 1
    systems = _system_labels(kb)
    relations: list[Topic] = []
    groups: list[Topic] = []
    for key, n in counts.items():
        kind, name = key.split(":", 1)
        if kind == "relation":
            relations.append(Topic(key, kind, name, _relation_topic_label(kb, name), n))
        else:
            groups.append(Topic(key, kind, name, systems.get(name, name), n))
    order = list(kb.relations)
    relations.sort(key=lambda t: (order.index(t.name) if t.name in order else len(order), t.name))
    groups.sort(key=lambda t: t.label.casefold())
    return relations + groups


def topics(db: Database, kb_name: str = DEFAULT_KB) -> list[Topic]:
    """What a student can choose to practise in ``kb_name``: its relations, then organ systems.

    Raises :class:`InputError` for an unknown knowledge base.
    """
    kb, _ = _load_kb(db, kb_name)
    return _topics(kb)


def _resolve_topic(kb: KnowledgeBaseData, topic: str) -> Topic:
    available = _topics(kb)
    wanted = " ".join(topic.split()).casefold()
    exact = [t for t in available if t.key.casefold() == wanted]
    loose = [t for t in available if wanted in {t.name.casefold(), t.label.casefold()}]
    found = exact or loose
    if len(found) == 1:
        return found[0]
    shown = ", ".join(t.key for t in available[:20])
    more = f" (and {len(available) - 20} more)" if len(available) > 20 else ""
    what = "is ambiguous" if found else "is not a topic"
    raise InputError(
        f"{topic!r} {what} of knowledge base {kb.name!r}",
        field="topic",
        hint=f"choose one of: {shown}{more}",
    )


def _topic_label(labels: Mapping[str, str], entry: Mapping[str, Any]) -> str:
    relation = labels.get(f"relation:{entry.get('relation')}", str(entry.get("relation", "")))
    system = entry.get("system")
    if system:
        return f"{labels.get(f'system:{system}', str(system))} · {relation}"
    return relation


# --------------------------------------------------------------------------------------------
# What the student has done before


@dataclass
class _FactRecord:
    n_correct: int = 0
    n_answers: int = 0
    last_miss: int = -1  # session id
    last_correct: int = -1

    @property
    def mastered(self) -> bool:
        return self.n_answers > 0 and self.n_correct == self.n_answers

    @property
    def needs_review(self) -> bool:
        return self.last_miss >= 0 and self.last_correct <= self.last_miss


@dataclass
class _History:
    facts: dict[str, _FactRecord] = field(default_factory=dict)
    answered_items: set[str] = field(default_factory=set)
    missed_items: set[str] = field(default_factory=set)


def _entries(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    items = config.get("items", [])
    return [dict(e) for e in items if isinstance(e, Mapping) and isinstance(e.get("id"), str)]


def _history(db: Database, respondent_id: int, kb_name: str) -> _History:
    history = _History()
    for past in respondent_history(db, respondent_id, kb_name=kb_name):
        session_id = past.session.id or 0
        by_item = {e["id"]: e for e in _entries(past.session.config)}
        for a in past.answers:
            entry = by_item.get(a.item_id)
            if entry is None or not isinstance(entry.get("fact"), str):
                continue
            record = history.facts.setdefault(entry["fact"], _FactRecord())
            record.n_answers += 1
            history.answered_items.add(a.item_id)
            if a.outcome == Outcome.CORRECT.value:
                record.n_correct += 1
                record.last_correct = max(record.last_correct, session_id)
            elif a.outcome in _MISSED:
                history.missed_items.add(a.item_id)
                record.last_miss = max(record.last_miss, session_id)
    return history


# --------------------------------------------------------------------------------------------
# Building a session


def _rank(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def _fact_key(kb: KnowledgeBaseData, t: Triplet) -> str:
    return point_id(kb.name, t.relation, t.head, t.tail)


@dataclass(frozen=True)
class _Planned:
    item: Item
    fact: Triplet


def _pick_variants(
    variants: Sequence[StatementItem], k: int, key: str, avoid: set[str], seen: set[str]
) -> list[StatementItem]:
    """Up to ``k`` variants: a seeded first one, then the other side and other transforms."""
    usable = sorted(
        (v for v in variants if v.id not in avoid),
        key=lambda v: (v.id in seen, _rank(key, v.id)),
    )
    picked: list[StatementItem] = []
    while usable and len(picked) < k:
        sides = {p.polarity for p in picked}
        transforms = {p.transform for p in picked}
        best = min(
            range(len(usable)),
            key=lambda i: (usable[i].polarity in sides, usable[i].transform in transforms, i),
        )
        picked.append(usable.pop(best))
    return picked


def _statement_items(
    kb: KnowledgeBaseData,
    facts: Sequence[Triplet],
    n: int,
    *,
    seed: str,
    cap: int,
    history: _History,
    review: bool,
) -> list[_Planned]:
    """``n`` statements about ``facts`` (in order), variants round robin across facts.

    Two facts can share a negative statement (same head, relation and substituted tail), so
    every pick is kept out of the later ones: an item appears once per session. In review mode
    the items the student missed are never picked.
    """
    if n <= 0 or not facts:
        return []
    protos = default_prototypes()
    n_facts = min(len(facts), math.ceil(n / VARIANTS_PER_FACT))
    chosen = list(facts[:n_facts])
    per_fact = min(cap, math.ceil(n / n_facts))
    by_fact: dict[str, list[StatementItem]] = defaultdict(list)
    for made in statements(kb, plan_points(kb, chosen, CANONICAL_SEED), protos):
        by_fact[made.fact_id].append(made)
    taken: set[str] = set(history.missed_items) if review else set()
    rounds: list[list[StatementItem]] = []
    for fact in chosen:
        key = _fact_key(kb, fact)
        picks = _pick_variants(
            by_fact[key], per_fact, f"{seed}\x1f{key}", taken, history.answered_items
        )
        taken.update(p.id for p in picks)
        rounds.append(picks)
    planned: list[_Planned] = []
    for depth in range(per_fact):
        for fact, picks in zip(chosen, rounds, strict=True):
            if depth < len(picks) and len(planned) < n:
                planned.append(_Planned(picks[depth], fact))
    return planned


def _choice_items(
    kb: KnowledgeBaseData,
    facts: Sequence[Triplet],
    n: int,
    *,
    review: bool,
    history: _History,
) -> list[_Planned]:
    """Up to ``n`` multiple-choice questions, one per (head, relation), in the order of facts.

    In review mode a question the student missed is replaced by the same point's question drawn
    with another seed (other distractors, other order).
    """
    if n <= 0:
        return []
    firsts: dict[tuple[str, str], Triplet] = {}
    for fact in facts:
        firsts.setdefault((fact.head, fact.relation), fact)
    pending = list(firsts.values())
    if not review:
        pending = pending[: 3 * n + 10]  # some facts have too few safe distractors
    found: dict[tuple[str, str], ChoiceItem] = {}
    for seed in (CANONICAL_SEED, *_REVIEW_SEEDS) if review else (CANONICAL_SEED,):
        if not pending:
            break
        for question in choice_questions(kb, pending, seed=seed):
            if not (review and question.id in history.missed_items):
                found.setdefault((question.head, question.relation), question)
        pending = [f for f in pending if (f.head, f.relation) not in found]
    planned = [_Planned(found[key], fact) for key, fact in firsts.items() if key in found]
    return planned[:n]


def _interleave(a: Sequence[_Planned], b: Sequence[_Planned]) -> list[_Planned]:
    out: list[_Planned] = []
    for i in range(max(len(a), len(b))):
        out.extend(x[i] for x in (a, b) if i < len(x))
    return out


def _plan(
    kb: KnowledgeBaseData,
    facts: Sequence[Triplet],
    format: str,
    length: int,
    *,
    seed: str,
    review: bool,
    history: _History,
) -> list[_Planned]:
    protos = default_prototypes()
    stateable = [f for f in facts if protos.covers(f.relation)]
    cap = REVIEW_VARIANTS_PER_FACT if review else 16
    if format == "statement":
        return _statement_items(
            kb, stateable, length, seed=seed, cap=cap, history=history, review=review
        )
    n_choice = length if format == "choice" else length // 2
    chosen = _choice_items(kb, facts, n_choice, review=review, history=history)
    if format == "choice":
        return chosen
    taken = {(p.fact.head, p.fact.relation) for p in chosen}
    rest = [f for f in stateable if (f.head, f.relation) not in taken]
    said = _statement_items(
        kb, rest, length - len(chosen), seed=seed, cap=cap, history=history, review=review
    )
    return _interleave(said, chosen)


def _candidates(kb: KnowledgeBaseData, topic: Topic | None) -> list[Triplet]:
    pool = candidate_points(kb)
    if topic is None:
        return pool
    return [t for t in pool if topic.key in _topic_keys(t)]


def start_session(
    db: Database,
    *,
    student: str,
    kb: str = DEFAULT_KB,
    topic: str | None = None,
    format: Format = "statement",
    length: int = 10,
    cohort: str | None = None,
    seed: str | None = None,
    review: bool = False,
) -> SessionView:
    """Start a practice session: choose facts, generate and store the items, record the session.

    ``topic`` is a key from :func:`topics` (``relation:has_symptom``, ``system:cardiovascular``)
    or a topic's name or label. ``review=True`` re-asks facts the student missed before, each in
    a variant they did not miss. Raises :class:`InputError` for an unknown KB or topic, a length
    outside 1..100, an unusable pseudonym, or nothing left to ask.
    """
    _validate(length, format, seed)
    display = _display_name(student)
    key_name = display.casefold()
    group = _cohort(cohort)
    kb_data, kb_id = _load_kb(db, kb)
    chosen_topic = _resolve_topic(kb_data, topic) if topic is not None else None
    respondent = get_or_create_respondent(
        db, RespondentKind.HUMAN, key_name, display_name=display, cohort=group
    )
    assert respondent.id is not None
    if group is not None and respondent.cohort != group:
        set_respondent_cohort(db, respondent.id, group)
    session_seed = seed if seed is not None else secrets.token_hex(4)
    history = _history(db, respondent.id, kb_data.name)
    pool = _candidates(kb_data, chosen_topic)
    notes: list[str] = []
    if review:
        due = [
            t for t in pool if history.facts.get(_fact_key(kb_data, t), _FactRecord()).needs_review
        ]
        facts = stratified(kb_data.name, due, f"review\x1f{session_seed}")
        if not facts:
            raise InputError(
                "there are no mistakes to review"
                + (f" in {chosen_topic.label}" if chosen_topic else ""),
                hint="practise without review first, or choose another topic",
            )
    else:
        ordered = stratified(kb_data.name, pool, f"practice\x1f{session_seed}")

        def tier(t: Triplet) -> int:
            record = history.facts.get(_fact_key(kb_data, t))
            return 0 if record is None else (2 if record.mastered else 1)

        facts = sorted(ordered, key=tier)
    planned = _plan(
        kb_data, facts, format, length, seed=session_seed, review=review, history=history
    )
    if not planned:
        raise InputError(
            f"no {format} questions can be made"
            + (f" for {chosen_topic.label}" if chosen_topic else ""),
            hint="choose another topic or format",
        )
    if len(planned) < length:
        notes.append(
            f"{len(planned)} question(s) to review"
            if review
            else f"only {len(planned)} question(s) could be made for this choice"
        )
    store_items(db, kb_data, kb_id, [p.item for p in planned])
    labels: dict[str, str] = {}
    systems = _system_labels(kb_data)
    entries: list[dict[str, Any]] = []
    for p in planned:
        system = _system_of(p.fact)
        labels[f"relation:{p.fact.relation}"] = _relation_topic_label(kb_data, p.fact.relation)
        if system is not None:
            labels[f"system:{system}"] = systems.get(system, system)
        entries.append(
            {
                "id": p.item.id,
                "fact": _fact_key(kb_data, p.fact),
                "relation": p.fact.relation,
                "system": system,
            }
        )
    config: dict[str, Any] = {
        "version": CONFIG_VERSION,
        "kb_version": kb_data.version,
        "format": format,
        "length": length,
        "topic": chosen_topic.key if chosen_topic else None,
        "topic_label": chosen_topic.label if chosen_topic else "All topics",
        "seed": session_seed,
        "review": review,
        "cohort": group,
        "items": entries,
        "labels": labels,
        "relation_labels": {
            r: _relation_label(kb_data, r) for r in sorted({p.fact.relation for p in planned})
        },
        "notes": notes,
    }
    row = create_session(db, respondent_id=respondent.id, kb_name=kb_data.name, config=config)
    assert row.id is not None
    return _view(LoadedSession(row, respondent, []))


# --------------------------------------------------------------------------------------------
# Asking and answering


def _view(loaded: LoadedSession) -> SessionView:
    row, config = loaded.session, loaded.session.config
    assert row.id is not None
    return SessionView(
        id=row.id,
        student=loaded.respondent.display_name or loaded.respondent.name,
        kb=row.kb_name,
        topic=config.get("topic"),
        topic_label=str(config.get("topic_label", "All topics")),
        format=str(config.get("format", "statement")),
        review=bool(config.get("review", False)),
        seed=str(config.get("seed", "")),
        total=len(_entries(config)),
        answered=len(loaded.answers),
        status=row.status,
        started_at=row.started_at,
        finished_at=row.finished_at,
        notes=[str(n) for n in config.get("notes", [])],
    )


def session_view(db: Database, session_id: int) -> SessionView:
    """A session's current state (to resume it); :class:`NotFoundError` if there is none."""
    return _view(load_session(db, session_id))


def end_session(db: Database, session_id: int) -> SessionView:
    """Stop a session early: it becomes ``abandoned`` and takes no more answers.

    A finished session stays finished; ending it is a no-op.
    """
    loaded = load_session(db, session_id)
    if loaded.session.status == SessionStatus.ACTIVE.value:
        set_session_status(db, session_id, SessionStatus.ABANDONED)
        loaded = load_session(db, session_id)
    return _view(loaded)


def _question_id(session_id: int, position: int) -> str:
    return f"s{session_id}q{position}"


def _instructions(item: Item) -> tuple[str, list[str]]:
    if isinstance(item, ChoiceItem):
        letters = _LETTERS[: len(item.options)]
        return (
            "Type the letter of your answer (several letters if more than one is right, "
            "e.g. A,C), or choose the last option if you do not know.",
            list(letters),
        )
    return (
        'Is this statement true or false? Type true or false (or t/f, yes/no), or "I don\'t know".',
        ["True", "False", _IDK_WORDS],
    )


def _question(loaded: LoadedSession, position: int, item: Item) -> Question:
    row = loaded.session
    assert row.id is not None
    entries = _entries(row.config)
    labels = row.config.get("labels", {})
    instructions, replies = _instructions(item)
    if isinstance(item, ChoiceItem):
        text = item.question
        options: list[Option] | None = [Option(_LETTERS[i], o) for i, o in enumerate(item.options)]
    else:
        text, options = item.text, None
    return Question(
        session_id=row.id,
        id=_question_id(row.id, position),
        position=position,
        total=len(entries),
        kind=item.kind,
        text=text,
        options=options,
        topic=_topic_label(labels, entries[position - 1]),
        instructions=instructions,
        quick_replies=replies,
    )


def next_question(db: Database, session_id: int) -> Question | None:
    """The first unanswered question of an active session, or ``None`` when there is none left.

    :class:`NotFoundError` if the session does not exist.
    """
    loaded = load_session(db, session_id)
    if loaded.session.status != SessionStatus.ACTIVE.value:
        return None
    answered = loaded.answered
    for position, entry in enumerate(_entries(loaded.session.config), start=1):
        if entry["id"] not in answered:
            item = load_items(db, [entry["id"]])[0]
            return _question(loaded, position, item)
    return None


def _locate(loaded: LoadedSession, question_id: str) -> tuple[int, dict[str, Any]]:
    """(position, entry) of a question id or item id within the session."""
    row = loaded.session
    entries = _entries(row.config)
    match = _QUESTION_ID.fullmatch(question_id.strip())
    if match is not None:
        session_part, position = int(match.group(1)), int(match.group(2))
        if session_part == row.id and 1 <= position <= len(entries):
            return position, entries[position - 1]
    else:
        for position, entry in enumerate(entries, start=1):
            if entry["id"] == question_id:
                return position, entry
    raise NotFoundError(
        f"question {question_id!r} is not part of practice session {row.id}",
        hint="answer the question next_question returned for this session",
    )


def _words(item: Item, parsed_answer: str | None) -> str:
    """An answer ("true", "A,C", None for "I don't know") in words."""
    if parsed_answer is None or parsed_answer == "idk":
        return _IDK_WORDS
    if isinstance(item, ChoiceItem):
        shown = []
        for letter in parsed_answer.split(","):
            index = _LETTERS.find(letter.strip().upper())
            text = item.options[index] if 0 <= index < len(item.options) else "?"
            shown.append(f"{letter.strip().upper()}. {text}")
        return "; ".join(shown)
    return parsed_answer.capitalize()


def _key_words(item: Item) -> str:
    if isinstance(item, ChoiceItem):
        return _words(item, ",".join(item.answer_keys))
    return "True" if item.label else "False"


def _sentence(relation: str, head: str, tail: str, label: str) -> str:
    protos = default_prototypes()
    if protos.covers(relation):
        return protos.render(relation, Transform.NONE, head, tail)
    return f"{head[:1].upper()}{head[1:]} {label} {tail}."


def _tails_text(tails: Sequence[str]) -> str:
    shown = ", ".join(tails[:_MAX_TAILS_SHOWN])
    if len(tails) > _MAX_TAILS_SHOWN:
        shown += f" and {len(tails) - _MAX_TAILS_SHOWN} more"
    return shown or "nothing"


def _explain(db: Database, loaded: LoadedSession, item: Item) -> Explanation:
    row = loaded.session
    label = str(row.config.get("relation_labels", {}).get(item.relation, item.relation))
    tails = point_tails(db, row.kb_name, item.relation, item.head)
    listed = f"The knowledge base lists for {item.head} ({label}): {_tails_text(tails)}."
    if isinstance(item, ChoiceItem):
        correct = [str(t) for t in item.meta.get("correct_tails", [])]
        tail = correct[0] if correct else (tails[0] if tails else "")
        if item.subtype == "frequency":
            band = str(item.meta.get("band", _key_words(item)))
            tail = str(item.meta.get("tail", tail))
            fact = f"{tail[:1].upper()}{tail[1:]} in {item.head}: {band}."
            text = f"The right answer is {_key_words(item)}. {fact}"
        else:
            fact = _sentence(item.relation, item.head, tail, label)
            text = (
                f"The right answer is {_key_words(item)}. {listed} "
                "The other options are not listed for it."
            )
        return Explanation(fact, item.head, label, tail, None, False, None, tails, text)
    negative = item.polarity is Polarity.NEGATIVE
    true_tail = item.positive_tail if negative and item.positive_tail else item.tail
    fact = _sentence(item.relation, item.head, true_tail, label)
    how = describe(item.transform)
    negated = item.transform.negated
    verdict = "true" if item.label else "false"
    if item.transform is Transform.NONE:
        wording = "It states this directly."
    elif negated:
        wording = f"It is worded as a negation ({how})."
    else:
        wording = f"It is reworded by {how}, which keeps the meaning."
    if not negative:
        effect = "so it denies a true fact" if negated else "so it affirms a true fact"
        core = f"The fact: {fact} {wording[:-1]}, {effect}."
    else:
        claim = _sentence(item.relation, item.head, item.tail, label)
        effect = "so it denies a false claim" if negated else "so it affirms a false claim"
        core = (
            f"It is about the claim: {claim} That claim is false: '{item.tail}' stands where the "
            f"knowledge base has '{true_tail}' (the fact: {fact}) {listed} '{item.tail}' is not "
            f"among them. {wording[:-1]}, {effect}."
        )
    text = f"The statement is {verdict}. {core}"
    return Explanation(
        fact=fact,
        head=item.head,
        relation=label,
        tail=true_tail,
        transform=how,
        negative=negative,
        substituted_tail=item.tail if negative else None,
        true_tails=tails,
        text=text,
    )


def _unreadable(item: Item, text: str, parsed: Parsed) -> InputError:
    if isinstance(item, ChoiceItem):
        hint = (
            f"type one or more of the letters {', '.join(_LETTERS[: len(item.options)])} "
            '(e.g. A or A,C), or "I don\'t know"'
        )
    else:
        hint = 'type true or false (t/f, yes/no), or "I don\'t know"'
    shown = text.strip()
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return InputError(f"could not read {shown!r} as an answer ({parsed.reason})", hint=hint)


def answer(db: Database, session_id: int, item_id: str, text: str) -> Feedback:
    """Score what the student typed (or the button they pressed) and store it.

    ``item_id`` is the :attr:`Question.id` (the item's id is accepted too). Input that cannot be
    read raises :class:`InputError` and stores nothing; a question of another session raises
    :class:`NotFoundError`; a second answer to a question raises :class:`DuplicateError` and
    changes nothing; a session that is no longer active raises :class:`InputError`. The session
    is marked finished with its last answer.
    """
    loaded = load_session(db, session_id)
    row = loaded.session
    assert row.id is not None
    position, entry = _locate(loaded, item_id)
    if entry["id"] in loaded.answered:
        raise DuplicateError(
            f"question {position} was already answered; the first answer stands",
            hint="go on to the next question",
        )
    if row.status != SessionStatus.ACTIVE.value:
        raise InputError(
            f"practice session {session_id} is {row.status}; it takes no more answers",
            hint="see its summary, or start a new session",
        )
    item = load_items(db, [entry["id"]])[0]
    if not isinstance(text, str) or not text.strip():
        raise _unreadable(item, "", Parsed(None, False, "empty"))
    if len(text) > MAX_ANSWER_LENGTH:
        raise InputError(
            f"the answer is longer than {MAX_ANSWER_LENGTH} characters",
            hint="type just the answer",
        )
    parsed = parse_human(text, item)
    outcome = score(item, parsed)
    if outcome is Outcome.UNPARSED:
        raise _unreadable(item, text, parsed)
    stored_answer = "idk" if parsed.abstained else parsed.answer
    respondent_id = loaded.respondent.id
    assert respondent_id is not None
    recorded = record_session_answer(
        db,
        NewResponse(
            item_id=item.id,
            respondent_id=respondent_id,
            outcome=outcome,
            quiz_session_id=row.id,
            raw_text=text,
            parsed_answer=stored_answer,
            parse_reason=parsed.reason,
        ),
        n_items=len(_entries(row.config)),
    )
    return Feedback(
        session_id=row.id,
        question_id=_question_id(row.id, position),
        position=position,
        total=len(_entries(row.config)),
        outcome=outcome.value,
        your_answer=_words(item, stored_answer),
        correct_answer=_key_words(item),
        explanation=_explain(db, loaded, item),
        answered=recorded.n_answered,
        finished=recorded.finished,
    )


# --------------------------------------------------------------------------------------------
# Summary


def _scored(item: Item, outcome: str, parsed_answer: str | None) -> Scored:
    answer_value = None if parsed_answer == "idk" else parsed_answer
    return Scored.from_item(item, Outcome(outcome), answer_value)


def _topic_scores(
    answers: Iterable[tuple[Mapping[str, Any], bool]], labels: Mapping[str, str]
) -> list[TopicScore]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for entry, correct in answers:
        keys = [f"relation:{entry.get('relation')}"]
        if entry.get("system"):
            keys.append(f"system:{entry['system']}")
        for key in keys:
            counts[key][0] += int(correct)
            counts[key][1] += 1
    scores = [
        TopicScore(
            key, key.split(":", 1)[0], labels.get(key, key.split(":", 1)[1]), Proportion.of(k, n)
        )
        for key, (k, n) in counts.items()
    ]
    return sorted(scores, key=lambda s: (s.kind != "relation", s.label.casefold()))


def _weakest(scores: Sequence[TopicScore]) -> list[TopicScore]:
    weak = [
        s
        for s in scores
        if s.accuracy.n >= WEAKEST_MIN_N and s.accuracy.value is not None and s.accuracy.value < 1
    ]
    weak.sort(key=lambda s: (s.accuracy.value, -s.accuracy.n, s.label.casefold()))
    return weak[:WEAKEST_COUNT]


def _model_results(
    db: Database,
    items: Mapping[str, Item],
    student: Mapping[str, AnswerRow],
    models: Sequence[str],
) -> list[ModelResult]:
    stored = model_answers(db, list(student), list(models) if models else None)
    newest: dict[str, dict[str, tuple[str, str | None]]] = defaultdict(dict)
    for a in stored:  # oldest first: the newest answer per (model, item) wins
        newest[a.model][a.item_id] = (a.outcome, a.parsed_answer)
    names = list(dict.fromkeys(models)) if models else sorted(newest)
    results: list[ModelResult] = []
    for name in names:
        theirs = newest.get(name, {})
        shared = [i for i in student if i in theirs]
        model_records = [_scored(items[i], *theirs[i]) for i in shared]
        student_records = [
            _scored(items[i], student[i].outcome, student[i].parsed_answer) for i in shared
        ]
        comparison = None
        if len(shared) >= MIN_SHARED_FOR_MCNEMAR:
            comparison = compare_runs(student_records, model_records).as_json()
        results.append(
            ModelResult(
                model=name,
                n_shared=len(shared),
                model_accuracy=Proportion.of(sum(r.correct for r in model_records), len(shared)),
                student_accuracy=Proportion.of(
                    sum(r.correct for r in student_records), len(shared)
                ),
                comparison=comparison,
            )
        )
    return results


def summary(db: Database, session_id: int, models: Sequence[str] = ()) -> Summary:
    """A session's results, finished or not (only answered questions count).

    ``models``: model strings to set against the student on the same items (their newest stored
    answers from evaluation runs); empty means every model with answers to these items. A
    named model with no such answers is listed with ``n_shared`` 0.
    """
    loaded = load_session(db, session_id)
    row = loaded.session
    assert row.id is not None
    entries = _entries(row.config)
    labels: Mapping[str, str] = row.config.get("labels", {})
    items = {item.id: item for item in load_items(db, [e["id"] for e in entries])}
    answered = loaded.answered
    records: list[Scored] = []
    answer_records: list[AnswerRecord] = []
    by_fact: dict[str, list[bool | None]] = defaultdict(list)
    topic_answers: list[tuple[Mapping[str, Any], bool]] = []
    for position, entry in enumerate(entries, start=1):
        a = answered.get(entry["id"])
        item = items[entry["id"]]
        by_fact[str(entry.get("fact"))].append(
            None if a is None else a.outcome == Outcome.CORRECT.value
        )
        if a is None:
            continue
        scored = _scored(item, a.outcome, a.parsed_answer)
        records.append(scored)
        topic_answers.append((entry, scored.correct))
        answer_records.append(
            AnswerRecord(
                position=position,
                question_id=_question_id(row.id, position),
                kind=item.kind,
                text=item.text,
                topic=_topic_label(labels, entry),
                outcome=a.outcome,
                your_answer=_words(item, a.parsed_answer),
                correct_answer=_key_words(item),
            )
        )
    report = compute_metrics(records)
    complete = [marks for marks in by_fact.values() if None not in marks]
    joint = Proportion.of(sum(all(marks) for marks in complete), len(complete))
    scores = _topic_scores(topic_answers, labels)
    return Summary(
        session=_view(loaded),
        n_items=len(entries),
        n_answered=len(records),
        accuracy=report.average_accuracy,
        answer_rate=report.answer_rate,
        accuracy_answered=report.accuracy_answered,
        joint_accuracy=joint,
        topics=scores,
        weakest_topics=_weakest(scores),
        models=_model_results(db, items, answered, models),
        answers=answer_records,
    )


# --------------------------------------------------------------------------------------------
# Progress


def progress(
    db: Database, student: str, *, kb: str | None = None, by: Literal["day", "session"] = "day"
) -> Progress:
    """A student's accuracy over time: overall and per topic, per UTC day or per session.

    Counts every answered question of every session (only in ``kb`` if given). Raises
    :class:`NotFoundError` when the pseudonym has never practised.
    """
    if by not in ("day", "session"):
        raise InputError(f"progress is by 'day' or 'session', not {by!r}", field="by")
    key_name = normalise_student(student)
    respondent = find_respondent(db, RespondentKind.HUMAN, key_name)
    if respondent is None or respondent.id is None:
        raise NotFoundError(
            f"no practice sessions for {_display_name(student)!r} yet",
            hint="check the spelling of the pseudonym, or start a practice session",
        )
    overall: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_topic: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0])
    )
    topic_labels: dict[tuple[str, str], str] = {}
    sessions: list[SessionInfo] = []
    total = correct_total = 0
    for past in respondent_history(db, respondent.id, kb_name=kb):
        row, config = past.session, past.session.config
        assert row.id is not None
        by_item = {e["id"]: e for e in _entries(config)}
        labels: Mapping[str, str] = config.get("labels", {})
        n_correct = 0
        for a in past.answers:
            entry = by_item.get(a.item_id, {})
            correct = a.outcome == Outcome.CORRECT.value
            n_correct += correct
            period = a.created_at.date().isoformat() if by == "day" else str(row.id)
            overall[period][0] += correct
            overall[period][1] += 1
            keys = [f"relation:{entry.get('relation')}"] if entry.get("relation") else []
            if entry.get("system"):
                keys.append(f"system:{entry['system']}")
            for key in keys:
                topic_labels[(row.kb_name, key)] = labels.get(key, key.split(":", 1)[1])
                per_topic[(row.kb_name, key)][period][0] += correct
                per_topic[(row.kb_name, key)][period][1] += 1
        total += len(past.answers)
        correct_total += n_correct
        sessions.append(
            SessionInfo(
                id=row.id,
                kb=row.kb_name,
                topic_label=str(config.get("topic_label", "All topics")),
                format=str(config.get("format", "statement")),
                review=bool(config.get("review", False)),
                status=row.status,
                started_at=row.started_at,
                finished_at=row.finished_at,
                total=len(by_item),
                answered=len(past.answers),
                accuracy=Proportion.of(n_correct, len(past.answers)),
            )
        )

    def timeline(counts: Mapping[str, list[int]]) -> list[ProgressPoint]:
        order = sorted(counts, key=lambda p: (len(p), p))  # session ids numerically, days by date
        return [ProgressPoint(p, Proportion.of(*counts[p])) for p in order]

    topic_list = [
        TopicProgress(
            kb=kb_name,
            key=key,
            kind=key.split(":", 1)[0],
            label=topic_labels[(kb_name, key)],
            overall=Proportion.of(
                sum(k for k, _ in counts.values()), sum(n for _, n in counts.values())
            ),
            points=timeline(counts),
        )
        for (kb_name, key), counts in per_topic.items()
    ]
    topic_list.sort(key=lambda t: (t.kb, t.kind != "relation", t.label.casefold()))
    return Progress(
        student=respondent.display_name or respondent.name,
        by=by,
        total_answered=total,
        accuracy=Proportion.of(correct_total, total),
        timeline=timeline(overall),
        topics=topic_list,
        sessions=sessions,
    )
