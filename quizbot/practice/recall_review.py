"""Open recall questions again: the student's mistakes, the questions due for spaced review, and
the active recall session offered again after a page reload.

What is re-asked. A recall question is one disease x aspect, a whole list. Its missed gold
entities and its wrong entries are reviewed by asking the same question again (rebuilt from the
knowledge base as it is now), in the Recall section: the student lists the missed names again
among the rest, which is the skill recall practises, and the feedback names again what is still
missed. A statement about one missed entity would test recognition instead, and a wrong entry
has no true fact to make a statement of.

- "Review my mistakes" (:func:`start_recall_review`): every question whose latest answer (an
  exam's only once complete) was not perfect: partially correct, completely wrong, "I don't
  know", or basically correct with a gold entity missed or an entry known wrong. The rule is
  :func:`quizbot.practice.review_queue.recall_rating` not giving ``Good``; a question answered
  perfectly since is no longer a mistake.
- Spaced review (:func:`start_recall_due`, :func:`recall_due_count`): each recall answer reviews
  the question's own FSRS card (:func:`quizbot.practice.review_queue.recall_card_id`); the
  questions whose card is due are asked, most overdue first.
- Resume (:func:`resumable_recall_session`): a reload loses the section's state, not the session;
  the student's newest active free recall session is offered again (the chat's
  :func:`quizbot.practice.resume.resumable_session` offers the others).

Every session made here is an ordinary recall session (:mod:`quizbot.practice.recall`), answered
and scored the same way; its config says ``review`` (mistakes) or ``review_due`` (due).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from fsrs import Rating

from quizbot.domain import RespondentKind
from quizbot.errors import InputError
from quizbot.evaluation.recall import DEFAULT_TIERS, Tiers
from quizbot.generate.recall import RecallPlan, plan_recall, recall_items
from quizbot.items import RecallItem
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice import review_queue
from quizbot.practice.facts import _entries, _view
from quizbot.practice.recall import (
    DEFAULT_RECALL_LENGTH,
    aspect_relation,
    is_recall_session,
    question_of,
    record_recall_session,
)
from quizbot.practice.review_queue import RECALL_CARD_PREFIX, recall_rating, sync
from quizbot.practice.sealed import sealed_in_history
from quizbot.practice.topics import _display_name, _load_kb, normalise_student
from quizbot.practice.views import IDLE_TIMEOUT, MAX_LENGTH, SessionView
from storage import Database
from storage.practice_queries import active_sessions, close_idle_sessions
from storage.review import retired_item_ids
from storage.review_cards import count_due, due_cards
from storage.sessions import find_respondent, load_session, respondent_history
from storage.types import utcnow

__all__ = [
    "recall_due_count",
    "recall_mistakes",
    "resumable_recall_session",
    "start_recall_due",
    "start_recall_review",
]

Pair = tuple[str, str]  # (relation, disease): one recall question


def _respondent_id(db: Database, student: str) -> int | None:
    try:
        name = normalise_student(student)
    except InputError:
        return None
    found = find_respondent(db, RespondentKind.HUMAN, name)
    return found.id if found is not None else None


def recall_mistakes(db: Database, respondent_id: int, kb_name: str) -> list[Pair]:
    """The recall questions of ``kb_name`` whose latest answer was not perfect (see the module
    docstring), the most recently answered first. Answers of exams still sealed are left out."""
    history = respondent_history(db, respondent_id, kb_name=kb_name)
    sealed = sealed_in_history(history)
    latest: dict[Pair, tuple[int, bool]] = {}  # question -> (answer id, a mistake)
    for past in history:
        config = past.session.config
        if not is_recall_session(config) or past.session.id in sealed:
            continue
        keys = {e["id"]: e.get("fact") for e in _entries(config)}
        for answer in past.answers:
            pair = question_of(str(keys.get(answer.item_id) or ""))
            rating = recall_rating(answer.outcome, answer.parsed_answer)
            if pair is None or rating is None:
                continue
            if pair not in latest or latest[pair][0] < answer.id:
                latest[pair] = (answer.id, rating is not Rating.Good)
    newest_first = sorted(latest.items(), key=lambda kv: -kv[1][0])
    return [pair for pair, (_id, mistake) in newest_first if mistake]


def _items_for(db: Database, data: KnowledgeBaseData, pairs: Sequence[Pair]) -> list[RecallItem]:
    """The recall items of ``pairs`` as the KB makes them now, in that order (questions the KB
    no longer asks and items a reviewer retired left out)."""
    if not pairs:
        return []
    wanted = set(pairs)
    plan = plan_recall(data, relations=sorted({r for r, _ in pairs}))
    chosen = RecallPlan(tuple(p for p in plan.pairs if (p[0].relation, p[1]) in wanted))
    retired = retired_item_ids(db)
    made = {(i.relation, i.head): i for i in recall_items(data, chosen) if i.id not in retired}
    return [made[p] for p in pairs if p in made]


def _rank(seed: str, pair: Pair) -> bytes:
    return hashlib.sha256("\x1f".join(("recall-review", seed, *pair)).encode()).digest()


def _check_length(length: int) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_LENGTH:
        raise InputError(
            f"a session has 1 to {MAX_LENGTH} questions, not {length!r}",
            field="length",
            hint="pick a number between 1 and 100",
        )


def start_recall_review(
    db: Database,
    *,
    student: str,
    kb: str = DEFAULT_KB,
    aspect: str | None = None,
    length: int = DEFAULT_RECALL_LENGTH,
    seed: str | None = None,
    tiers: Tiers = DEFAULT_TIERS,
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> SessionView:
    """ "Review my mistakes" for open recall: a session asking again up to ``length`` of the
    student's recall questions with mistakes (:func:`recall_mistakes`, on ``aspect`` if given),
    in an order drawn by the session's seed. :class:`InputError` when there is none, or for an
    unknown KB or aspect or a bad length."""
    _check_length(length)
    display = _display_name(student)
    data, kb_id = _load_kb(db, kb)
    relation = aspect_relation(data, aspect)
    respondent = find_respondent(db, RespondentKind.HUMAN, display.casefold())
    pairs: list[Pair] = []
    if respondent is not None and respondent.id is not None:
        close_idle_sessions(db, respondent.id, (now or utcnow()) - idle_timeout)
        pairs = [
            p
            for p in recall_mistakes(db, respondent.id, data.name)
            if relation is None or p[0] == relation
        ]
    session_seed = seed if seed is not None else secrets.token_hex(4)
    pairs = sorted(pairs, key=lambda p: _rank(session_seed, p))
    chosen = _items_for(db, data, pairs)[:length]
    if respondent is None or not chosen:
        raise InputError(
            "there are no recall mistakes to review" + (" on this aspect" if relation else ""),
            hint="answer recall questions first, or choose another aspect",
        )
    return record_recall_session(
        db,
        data,
        kb_id,
        respondent,
        chosen,
        tiers=tiers,
        relation=relation,
        seed=session_seed,
        cohort=respondent.cohort,
        label="Review my mistakes",
        review=True,
    )


def _due_cards(db: Database, respondent_id: int, kb_name: str, at: datetime) -> list[Pair]:
    cards = due_cards(db, respondent_id, at, kb_name=kb_name, prefix=RECALL_CARD_PREFIX)
    return [(c.relation, c.head) for c in cards]


def recall_due_count(
    db: Database, student: str, *, kb: str | None = None, at: datetime | None = None
) -> int:
    """How many of the student's recall questions (in ``kb`` if given) are due for spaced
    review at ``at`` (default :func:`~quizbot.practice.review_queue.now`); 0 for an unknown
    student. Their cards are brought up to date first."""
    respondent_id = _respondent_id(db, student)
    if respondent_id is None:
        return 0
    sync(db, respondent_id)
    return count_due(
        db, respondent_id, at or review_queue.now(), kb_name=kb, prefix=RECALL_CARD_PREFIX
    )


def start_recall_due(
    db: Database,
    *,
    student: str,
    kb: str = DEFAULT_KB,
    length: int = DEFAULT_RECALL_LENGTH,
    tiers: Tiers = DEFAULT_TIERS,
    at: datetime | None = None,
) -> SessionView:
    """A session asking the student's recall questions due at ``at`` (most overdue first, at
    most ``length``). :class:`InputError` when none is due (or none can be asked any more)."""
    _check_length(length)
    display = _display_name(student)
    data, kb_id = _load_kb(db, kb)
    respondent = find_respondent(db, RespondentKind.HUMAN, display.casefold())
    moment = at or review_queue.now()
    pairs: list[Pair] = []
    if respondent is not None and respondent.id is not None:
        sync(db, respondent.id)
        pairs = _due_cards(db, respondent.id, data.name, moment)
    if respondent is None or not pairs:
        raise InputError(
            "no recall question is due for review yet",
            hint="recall questions come due again days after you answer them",
        )
    chosen = _items_for(db, data, pairs)[:length]
    if not chosen:
        raise InputError(
            f"the {len(pairs)} recall question(s) due can no longer be asked "
            "(changed knowledge base)",
            hint="practise other questions",
        )
    return record_recall_session(
        db,
        data,
        kb_id,
        respondent,
        chosen,
        tiers=tiers,
        relation=None,
        seed=f"due\x1f{moment.date().isoformat()}",
        cohort=respondent.cohort,
        label="Due for review",
        review_due=True,
    )


def resumable_recall_session(
    db: Database,
    student: str,
    *,
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> SessionView | None:
    """The student's newest active free recall session, to offer it again after a reload, or
    ``None`` (also for an unknown or unusable pseudonym). Idle sessions are closed first."""
    respondent_id = _respondent_id(db, student)
    if respondent_id is None:
        return None
    close_idle_sessions(db, respondent_id, (now or utcnow()) - idle_timeout)
    for newest in reversed(active_sessions(db, respondent_id)):
        loaded = load_session(db, newest.id)
        if is_recall_session(loaded.session.config):
            return _view(loaded)
    return None
