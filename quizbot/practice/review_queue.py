"""Spaced review: a "due for review" queue per student, scheduled by FSRS (the ``fsrs`` package).

Design
    Cards. One FSRS card per student x knowledge point (a KB triplet, ``kp1:...``), stored by
    :mod:`storage.review_cards` as FSRS's own dictionary plus its due time. A true/false
    statement reviews the fact it is about (a negative statement: the true fact it was made
    from). A multiple-choice question reviews every fact it keys (each right option's point):
    answering it is recalling all of them.

    Open recall. A recall question (one disease x aspect, a whole list) has a card of its own,
    :func:`recall_card_id` (``rq1:...``; ``tail`` empty): what comes due is the question, asked
    again in the Recall section (:mod:`quizbot.practice.recall_review`), so the student lists
    the missed entries again among the rest instead of recognising one of them in a statement
    (and a wrong entry has no true fact to make a statement of). Its rating
    (:func:`recall_rating`): partially correct, completely wrong or "I don't know" ->
    ``Again``; basically correct but a gold entity missed or an entry known wrong -> ``Hard``;
    the whole list and nothing wrong -> ``Good``. The statement and choice queue
    (:func:`due_items`, the chat's review sessions, the due counts) leaves these cards out.

    Ratings (:func:`rating_for`). Wrong -> ``Again``; "I don't know" -> ``Again``; correct ->
    ``Good``. ``Easy`` only for a correct answer given within :data:`FAST_MS` *when the answer
    time is recorded*; students' answer times are not recorded today, so a correct answer is
    ``Good``. ``Hard`` is never given: a right/wrong answer says nothing about effort.

    One review per fact per day. Only an answer to a fact whose card was last reviewed on an
    earlier UTC date (or never) counts as a review; later answers that day are ignored. So the
    eight variants of a fact, or an exam asking several of them before any feedback, review it
    once: the first answer, given before any feedback on that fact that day, is the one that
    counts. Matching that rule, the scheduler has no minute-scale (re)learning steps: every
    interval is a whole number of days, a wrong answer making the fact due the next day.
    Fuzzing is off so the same answers always give the same schedule.

    When. The answer hook (:func:`record`, called once from
    :func:`quizbot.practice.feedback.answer`) reviews the answer at :func:`now`, quizbot's one
    clock (:mod:`quizbot.clock`: the real clock, or the time written in ``QUIZBOT_CLOCK_FILE``;
    tests and demos move time without sleeping).
    Answers stored before a student's cards existed are turned into cards lazily, at their
    stored time, the first time the queue is read or an answer recorded (:func:`sync`: the
    backfill and the hook are one code path, driven by a per-student watermark on answer ids).

    Exams. An exam not yet complete reaches nothing of its student's spaced review, not even the
    due count (:mod:`quizbot.practice.sealed`): its answers wait with the watermark (its
    sessions in ``review_sync.held_sessions``) and are reviewed at the time the exam is
    complete, when its feedback is shown.

    The queue. :func:`due_items` lists the facts due at a time, each with the question a review
    session would ask (a statement variant the student has not missed, preferably one never
    shown; a multiple-choice question for a relation no statement can be made of);
    :func:`start_review_session` starts an ordinary practice session asking exactly those.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State

from quizbot import clock
from quizbot.domain import Outcome, RespondentKind
from quizbot.errors import InputError, redact
from quizbot.evaluation.recall import counts_from_summary
from quizbot.generate.prototypes import default_prototypes
from quizbot.items import ChoiceItem, RecallItem, StatementItem
from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id
from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice.facts import (
    _choice_items,
    _fact_key,
    _history,
    _Planned,
    _record_plan,
    _statement_items,
)
from quizbot.practice.sealed import sealed_of
from quizbot.practice.topics import _load_kb, normalise_student
from quizbot.practice.views import (
    CONFIG_VERSION,
    MAX_LENGTH,
    REVIEW_VARIANTS_PER_FACT,
    SessionView,
)
from storage import Database
from storage.review import retired_item_ids
from storage.review_cards import (
    ItemFacts,
    ReviewCard,
    count_due,
    due_cards,
    get_cards,
    item_facts,
    pending_answers,
    save_cards,
)
from storage.sessions import find_respondent

__all__ = [
    "FAST_MS",
    "RECALL_CARD_PREFIX",
    "DueCounts",
    "DueFact",
    "catch_up",
    "count_due_now",
    "count_due_synced",
    "due_counts",
    "due_items",
    "now",
    "rating_for",
    "recall_card_id",
    "recall_rating",
    "record",
    "scheduler",
    "start_review_session",
    "sync",
]

log = logging.getLogger(__name__)

FAST_MS = 5_000.0  # a correct answer this quick is Easy (only when the answer time is recorded)
RECALL_CARD_PREFIX = "rq1:"  # the card of an open recall question (a knowledge point's: kp1:)
_SYNC_ATTEMPTS = 3


def scheduler() -> Scheduler:
    """The FSRS scheduler every card uses: default parameters and 90% desired retention, no
    (re)learning steps (whole days, see the module docstring), no fuzz."""
    return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


@functools.cache
def _shared_scheduler() -> Scheduler:
    """One :func:`scheduler` per process: building one validates its parameters (about 20 us),
    and a returning student's backfill reviews hundreds of answers. ``review_card`` copies the
    card it is given and keeps no state, so sharing it across threads is safe."""
    return scheduler()


def rating_for(outcome: str, latency_ms: float | None = None) -> Rating | None:
    """The FSRS rating of an answer's outcome; ``None`` for one that is not a review (unread)."""
    if outcome in (Outcome.INCORRECT.value, Outcome.ABSTAINED.value):
        return Rating.Again
    if outcome == Outcome.CORRECT.value:
        if latency_ms is not None and latency_ms <= FAST_MS:
            return Rating.Easy
        return Rating.Good
    return None


def recall_card_id(kb: str, relation: str, head: str) -> str:
    """The card id of the open recall question on ``head``'s ``relation`` list in ``kb`` (fits
    the 80-character ``review_cards.fact`` whatever the disease's name)."""
    digest = hashlib.sha256("\x1f".join((kb, relation, head)).encode()).hexdigest()
    return f"{RECALL_CARD_PREFIX}{digest[:32]}"


def recall_rating(outcome: str, summary: str | None) -> Rating | None:
    """The FSRS rating of an open recall answer (see the module docstring): its stored outcome,
    and for a basically correct one the counts of its stored summary (``Hard`` when a gold
    entity was missed or an entry was known wrong)."""
    if outcome != Outcome.CORRECT.value:
        return rating_for(outcome)
    counts = counts_from_summary(summary)
    if counts is not None and (counts[0] < counts[1] or counts[2] > 0):
        return Rating.Hard
    return Rating.Good


def now() -> datetime:
    """The time the review queue takes as now: quizbot's one clock (:func:`quizbot.clock.now`:
    the real clock, or ``QUIZBOT_CLOCK_FILE``'s time)."""
    return clock.now()


# --------------------------------------------------------------------------------------------
# Turning answers into reviews


@dataclass(frozen=True)
class _FactRef:
    fact: str
    kb: str
    relation: str
    head: str
    tail: str


def _recall_ref(kb: str, relation: str, head: str) -> _FactRef:
    return _FactRef(recall_card_id(kb, relation, head), kb, relation, head, "")


def _facts_of(item: StatementItem | ChoiceItem | RecallItem) -> list[_FactRef]:
    """The cards an answer to ``item`` reviews (see the module docstring)."""
    if isinstance(item, RecallItem):
        return [_recall_ref(item.kb, item.relation, item.head)]
    if isinstance(item, StatementItem):
        tail = item.positive_tail or item.tail
        return [_FactRef(item.fact_id, item.kb, item.relation, item.head, tail)]
    if item.subtype == "frequency":
        tails = [str(item.meta.get("tail", ""))]
    else:
        tails = [str(t) for t in item.meta.get("correct_tails", [])]
    refs = [
        _FactRef(
            point_id(item.kb, item.relation, item.head, t), item.kb, item.relation, item.head, t
        )
        for t in tails
        if t
    ]
    known = set(item.knowledge_point_ids)
    return [r for r in refs if r.fact in known]


def _facts_of_stored(row: ItemFacts) -> list[_FactRef]:
    """:func:`_facts_of` of a stored item, read from its columns alone (no item rebuilt);
    equal to ``_facts_of(item_from_row(...))`` (tested)."""
    lineage = row.lineage or {}
    if row.kind == "recall":
        return [_recall_ref(row.kb, row.relation, row.head)]
    if row.kind == "statement":
        tail = lineage.get("positive_tail") or row.tail
        return [
            _FactRef(
                point_id(row.kb, row.relation, row.head, tail), row.kb, row.relation, row.head, tail
            )
        ]
    if row.kind != "choice":
        return []
    meta = lineage.get("meta", {})
    if lineage.get("subtype", "semantic") == "frequency":
        tails = [str(meta.get("tail", ""))]
    else:
        tails = [str(t) for t in meta.get("correct_tails", [])]
    known = set(lineage.get("knowledge_point_ids", ()))
    refs = (
        _FactRef(point_id(row.kb, row.relation, row.head, t), row.kb, row.relation, row.head, t)
        for t in tails
        if t
    )
    return [r for r in refs if r.fact in known]


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _review(
    card: ReviewCard | None,
    ref: _FactRef,
    respondent_id: int,
    rating: Rating | None,
    at: datetime,
    response_id: int,
) -> ReviewCard | None:
    """``card`` after one answer at ``at`` (the one-review-per-day rule applied)."""
    counts = rating is not None and (
        card is None or card.last_review is None or at.date() > _utc(card.last_review).date()
    )
    if not counts or rating is None:
        if card is None:
            return None
        return replace(card, last_response_id=response_id)
    before = (
        Card.from_dict(card.card)  # type: ignore[arg-type]
        if card is not None
        else Card(card_id=response_id, due=at)
    )
    after, _log = _shared_scheduler().review_card(before, rating, review_datetime=at)
    reviews = card.reviews if card is not None else 0
    lapses = card.lapses if card is not None else 0
    return ReviewCard(
        respondent_id=respondent_id,
        fact=ref.fact,
        kb_name=ref.kb,
        relation=ref.relation,
        head=ref.head,
        tail=ref.tail,
        card=dict(after.to_dict()),
        due=after.due,
        last_review=after.last_review,
        reviews=reviews + 1,
        lapses=lapses + (1 if rating is Rating.Again and reviews > 0 else 0),
        last_response_id=response_id,
    )


def sync(
    db: Database,
    respondent_id: int,
    *,
    at: Mapping[int, datetime] | None = None,
    known: Sequence[StatementItem | ChoiceItem | RecallItem] = (),
) -> int:
    """Turn the student's answers not yet seen into reviews; return how many reviews counted.

    Answers are taken in the order they were stored, each at ``at[response_id]`` if given, else
    at its stored time. Answers of an exam still sealed (:mod:`quizbot.practice.sealed`) are
    not reviewed: their sessions are kept with the watermark and their answers are reviewed,
    at the time of that sync, by the first sync that finds the exam complete. ``known``: items
    the caller already holds (the answer hook's), not read again. Safe to call any time and
    from several places at once: the write checks the watermark it started from
    (:func:`storage.review_cards.save_cards`) and a losing call starts over from the new one.
    """
    when = dict(at or {})
    held_items = {i.id: i for i in known}
    for _attempt in range(_SYNC_ATTEMPTS):
        pending = pending_answers(db, respondent_id)
        mark, answers = pending.watermark, pending.answers
        if not answers:
            return 0
        sealed = (
            sealed_of(db, respondent_id)
            if pending.held or any(a.on_assignment for a in answers)
            else set()
        )
        # An exam's answers wait while it is sealed; once it is complete they are reviewed
        # now, when its feedback is shown (the answers above the watermark at their own time).
        released_at = _utc(now())
        timed = sorted(
            (
                (
                    _utc(
                        released_at
                        if a.response_id <= mark
                        else when.get(a.response_id, a.created_at)
                    ),
                    a,
                )
                for a in answers
                if a.quiz_session_id not in sealed
            ),
            key=lambda pair: (pair[0], pair[1].response_id),
        )
        still_held = {a.quiz_session_id for a in answers if a.quiz_session_id in sealed}
        still_held |= set(pending.held) & sealed
        newest = max(mark, *(a.response_id for a in answers))
        if not timed and newest == mark and still_held == set(pending.held):
            return 0  # only answers of exams still sealed: nothing to write
        wanted = [i for i in dict.fromkeys(a.item_id for _, a in timed) if i not in held_items]
        refs = {i.id: _facts_of(i) for i in held_items.values()}
        if wanted:  # only the columns that name the facts, not the whole items
            refs.update({row.id: _facts_of_stored(row) for row in item_facts(db, wanted)})
        cards = get_cards(db, respondent_id, [r.fact for rs in refs.values() for r in rs])
        changed: dict[str, ReviewCard] = {}
        n_reviews = 0
        for moment, a in timed:
            found = refs.get(a.item_id, [])
            recall = any(r.fact.startswith(RECALL_CARD_PREFIX) for r in found)
            rating = (
                recall_rating(a.outcome, a.parsed_answer)
                if recall
                else rating_for(a.outcome, a.latency_ms)
            )
            for ref in found:
                old = changed.get(ref.fact, cards.get(ref.fact))
                new = _review(old, ref, respondent_id, rating, moment, a.response_id)
                if new is not None:
                    n_reviews += new.reviews - (old.reviews if old is not None else 0)
                    changed[ref.fact] = new
        if save_cards(
            db,
            respondent_id,
            list(changed.values()),
            expected_watermark=mark,
            new_watermark=newest,
            held=sorted(still_held),
        ):
            return n_reviews
    return 0


def record(
    db: Database,
    respondent_id: int,
    response_id: int,
    item: StatementItem | ChoiceItem | RecallItem | None = None,
) -> None:
    """The answer hook: review the answer just stored (at :func:`now`), with any earlier ones
    not yet seen (``item``: the item answered, so it is not read again).

    A returning student's history is turned into cards when their session starts
    (:func:`catch_up`), so here there is normally just this one answer to review. The answer
    itself is already stored, so a failure here is logged, never raised: the next sync (the
    next answer, or reading the queue) catches up.
    """
    try:
        sync(db, respondent_id, at={response_id: now()}, known=() if item is None else (item,))
    except Exception as exc:  # the answer is stored; scheduling must not undo it
        log.warning(
            "review cards of respondent %s not updated: %s",
            respondent_id,
            redact(f"{type(exc).__name__}: {exc}"),
        )


def catch_up(db: Database, respondent_id: int) -> None:
    """Bring the student's cards up to date with every answer stored (:func:`sync`), logging
    rather than raising a failure (the next sync catches up).

    Called when a session starts (:func:`quizbot.practice.planning.start_session`), outside any
    write transaction but its own short one: a returning student's whole history is turned into
    cards there, so the answer hook (:func:`record`), which runs inside the answer's
    transaction, finds only the answer just stored to review.
    """
    try:
        sync(db, respondent_id)
    except Exception as exc:  # a session start must not fail on its review cards
        log.warning(
            "review cards of respondent %s not brought up to date: %s",
            respondent_id,
            redact(f"{type(exc).__name__}: {exc}"),
        )


# --------------------------------------------------------------------------------------------
# The queue


@dataclass(frozen=True)
class DueFact:
    """A fact due for review and the question a review session asks about it (``item_id`` and
    ``question`` are ``None`` when no question can be made of it any more)."""

    fact: str
    kb: str
    relation: str
    head: str
    tail: str
    due: datetime
    last_review: datetime | None
    state: str  # FSRS's: learning, review, relearning
    reviews: int
    lapses: int
    item_id: str | None
    question: str | None

    def as_json(self) -> dict[str, Any]:
        """Plain JSON types (datetimes as ISO 8601)."""
        data = asdict(self)
        data["due"] = self.due.isoformat()
        data["last_review"] = self.last_review.isoformat() if self.last_review else None
        return data


@dataclass(frozen=True)
class DueCounts:
    """How many facts are due today (overdue included: due before the next UTC midnight) and
    within the next seven days (today's included)."""

    today: int
    week: int


def _student_id(db: Database, student: str) -> int | None:
    respondent = find_respondent(db, RespondentKind.HUMAN, normalise_student(student))
    return respondent.id if respondent is not None else None


def _end_of_day(moment: datetime) -> datetime:
    start = _utc(moment).replace(hour=0, minute=0, second=0, microsecond=0)
    return start + timedelta(days=1) - timedelta(microseconds=1)


def count_due_now(
    db: Database, student: str, at: datetime | None = None, kb: str | None = None
) -> int:
    """How many facts are due for the student at ``at`` (default :func:`now`), building their
    cards first if needed; 0 for a student never seen."""
    respondent_id = _student_id(db, student)
    if respondent_id is None:
        return 0
    sync(db, respondent_id)
    return count_due(db, respondent_id, _utc(at or now()), kb_name=kb, without=RECALL_CARD_PREFIX)


def count_due_synced(db: Database, respondent_id: int, kb: str | None = None) -> int:
    """:func:`count_due_now` for a student whose cards were just brought up to date (the answer
    hook, :func:`record`, ran in the same unit of work): one query, no sync, no name lookup."""
    return count_due(db, respondent_id, _utc(now()), kb_name=kb, without=RECALL_CARD_PREFIX)


def due_counts(
    db: Database, student: str, at: datetime | None = None, kb: str | None = None
) -> DueCounts:
    """Facts due today and this week for the student (see :class:`DueCounts`)."""
    respondent_id = _student_id(db, student)
    if respondent_id is None:
        return DueCounts(0, 0)
    sync(db, respondent_id)
    moment = _utc(at or now())
    return DueCounts(
        today=count_due(
            db, respondent_id, _end_of_day(moment), kb_name=kb, without=RECALL_CARD_PREFIX
        ),
        week=count_due(
            db, respondent_id, moment + timedelta(days=7), kb_name=kb, without=RECALL_CARD_PREFIX
        ),
    )


def _plan_due(
    db: Database,
    respondent_id: int,
    kb_data: KnowledgeBaseData,
    cards: Sequence[ReviewCard],
    seed: str,
) -> dict[str, _Planned]:
    """The question to ask about each due card's fact, by fact (facts no longer in the KB and
    facts with no question left are missing)."""
    wanted = {c.fact for c in cards}
    by_key: dict[str, Triplet] = {}
    for triplets in kb_data.by_relation({c.relation for c in cards}).values():
        for t in triplets:
            key = _fact_key(kb_data, t)
            if key in wanted:
                by_key.setdefault(key, t)
    facts = [by_key[c.fact] for c in cards if c.fact in by_key]
    history = _history(db, respondent_id, kb_data.name)
    history.retired = retired_item_ids(db)
    protos = default_prototypes()
    stateable = [f for f in facts if protos.covers(f.relation)]
    planned = _statement_items(
        kb_data,
        stateable,
        len(stateable),
        seed=seed,
        cap=REVIEW_VARIANTS_PER_FACT,
        history=history,
        review=True,
    )
    rest = [f for f in facts if not protos.covers(f.relation)]
    planned += _choice_items(kb_data, rest, len(rest), review=True, history=history)
    found: dict[str, _Planned] = {}
    for p in planned:
        found.setdefault(_fact_key(kb_data, p.fact), p)
    return found


def _due(
    db: Database, student: str, at: datetime | None, kb: str, limit: int
) -> tuple[int, KnowledgeBaseData, int, list[ReviewCard], dict[str, _Planned], str]:
    if not 1 <= limit <= MAX_LENGTH:
        raise InputError(f"the length must be between 1 and {MAX_LENGTH}", field="length")
    kb_data, kb_id = _load_kb(db, kb)
    moment = _utc(at or now())
    respondent_id = _student_id(db, student)
    if respondent_id is None:
        return 0, kb_data, kb_id, [], {}, ""
    sync(db, respondent_id)
    # Recall questions are asked in the Recall section (quizbot.practice.recall_review).
    cards = due_cards(db, respondent_id, moment, kb_name=kb_data.name, without=RECALL_CARD_PREFIX)
    cards = cards[:limit]
    seed = f"due\x1f{moment.date().isoformat()}"
    return (
        respondent_id,
        kb_data,
        kb_id,
        cards,
        _plan_due(db, respondent_id, kb_data, cards, seed),
        seed,
    )


def due_items(
    db: Database,
    student: str,
    at: datetime | None = None,
    *,
    kb: str = DEFAULT_KB,
    limit: int = MAX_LENGTH,
) -> list[DueFact]:
    """The student's facts in ``kb`` due at ``at`` (default :func:`now`), most overdue first, at
    most ``limit``, each with the question a review session would ask about it.

    Builds the student's cards from their stored answers first if needed (the backfill). An
    unknown student has nothing due; an unknown KB is an :class:`InputError`.
    """
    _rid, _kb_data, _kb_id, cards, planned, _seed = _due(db, student, at, kb, limit)
    out: list[DueFact] = []
    for c in cards:
        p = planned.get(c.fact)
        state = State(int(c.card.get("state", State.Review.value))).name.lower()
        out.append(
            DueFact(
                fact=c.fact,
                kb=c.kb_name,
                relation=c.relation,
                head=c.head,
                tail=c.tail,
                due=c.due,
                last_review=c.last_review,
                state=state,
                reviews=c.reviews,
                lapses=c.lapses,
                item_id=p.item.id if p else None,
                question=p.item.text if p else None,
            )
        )
    return out


def start_review_session(
    db: Database,
    *,
    student: str,
    kb: str = DEFAULT_KB,
    at: datetime | None = None,
    length: int = 10,
) -> SessionView:
    """Start a practice session asking the student's facts due at ``at`` (most overdue first, at
    most ``length``), each with the question :func:`due_items` names for it.

    :class:`InputError` when nothing is due (or nothing due can be asked any more).
    """
    respondent_id, kb_data, kb_id, cards, planned, seed = _due(db, student, at, kb, length)
    if not cards:
        raise InputError(
            "nothing is due for review yet",
            hint="practise first; facts come due for review days after you answer them",
        )
    chosen = [planned[c.fact] for c in cards if c.fact in planned]
    if not chosen:
        raise InputError(
            f"the {len(cards)} fact(s) due can no longer be asked (changed knowledge base)",
            hint="practise other facts",
        )
    respondent = find_respondent(db, RespondentKind.HUMAN, normalise_student(student))
    assert respondent is not None and respondent.id == respondent_id
    notes = []
    if len(chosen) < len(cards):
        notes.append(f"{len(cards) - len(chosen)} fact(s) due can no longer be asked")
    config: dict[str, Any] = {
        "version": CONFIG_VERSION,
        "kb_version": kb_data.version,
        "format": "statement"
        if all(isinstance(p.item, StatementItem) for p in chosen)
        else "mixed",
        "length": length,
        "topic": None,
        "topic_label": "Due for review",
        "seed": seed,
        "review": False,
        "review_due": True,
        "cohort": respondent.cohort,
        "notes": notes,
    }
    return _record_plan(db, kb_data, kb_id, respondent, chosen, config)
