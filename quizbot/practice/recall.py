"""Open recall practice: the student lists what they remember, scored by the models' scorer.

A recall session is an ordinary practice session (one ``quiz_session`` row, one ``response`` per
answer, raw text kept) whose ``config["format"]`` is ``"recall"`` and whose items are open recall
items (:class:`~quizbot.items.RecallItem`, one per disease x aspect, made by
:mod:`quizbot.generate.recall`). Nothing here scores on its own: every answer goes through
:func:`quizbot.evaluation.recall.score_recall`, the function model runs use, with the tiers stored
in the session's config (the app passes ``QUIZBOT_RECALL_TIERS``; the defaults otherwise).

Asking. :func:`start_recall_session` picks ``length`` (disease, aspect) questions of a KB (one
aspect, or all), those the student was never asked first, in an order drawn by the session's
seed. :func:`next_recall_question` gives the first one not answered yet: the question only, never
the gold list (:class:`~quizbot.practice.views.RecallQuestion`).

Answering. :func:`answer_recall` takes free text (a list with commas, bullets, "and",
numbering...). An empty answer, one longer than :data:`MAX_ANSWER_LENGTH`, or text with no list in
it is refused with an :class:`~quizbot.errors.InputError` and nothing is stored; "I don't know" is
an answer (abstained, F1 0). The answer is stored like every practice answer (outcome: ``correct``
for "basically correct", ``incorrect`` otherwise, ``abstained``; ``parsed_answer`` the scorer's
summary, ``parse_reason`` its reason, ``latency_ms`` from the question's ``shown_at``) in one
transaction with the "session finished" mark (:func:`storage.sessions.record_session_answer`). Only
then is the feedback made: which gold entities were recalled, by which of the student's entries
and by which rule (name, synonym, other wording, specimen word, narrower entity, drug class,
contained or shorter name: :func:`quizbot.evaluation.recall.how_recalled`), which were missed,
which entries were vague (broader than a gold entity), true but not in the list, known wrong or
unverified ("not in our list, check it": never called wrong), precision, recall, F1 and the
tier.

Self-grades. :func:`grade_recall_entry` lets the student mark an unverified entry of an answer
right or wrong once its feedback is shown. The mark is stored apart
(:mod:`storage.recall_grades`, table ``recall_self_grades``), shown with the feedback, and
read by nothing that scores: the session's figures, progress, Humans vs models and assignment
results are the same with or without it.

Assignments. An assignment made with ``--format recall`` holds recall items;
:func:`start_recall_assignment` starts (or resumes) a student's session on it, in an order of
their own, checking its window (:mod:`quizbot.practice.windows`). In exam mode the outcome and
lists are withheld until the last answer (``outcome == "withheld"``), and :func:`recall_summary`
then gives every answer's feedback. Two-pass recall assignments do not exist (refused when made).

Figures. :func:`recall_summary` (a session) and :func:`recall_progress` (all of a student's
recall answers, by aspect) rescore the stored raw text with the stored tiers: mean F1 with a 95%
Student-t interval (:func:`quizbot.analysis.recall.mean_interval`) and the share "basically
correct" with a Wilson interval. Recall answers are kept out of the recognition accuracy of
:func:`quizbot.practice.reports.progress`, which reports them apart (``Progress.recall``).

Review. Each answer reviews the question's own spaced-review card
(:func:`quizbot.practice.review_queue.recall_card_id`, rated by
:func:`~quizbot.practice.review_queue.recall_rating`); re-asking the questions due and those
with mistakes, and offering an active recall session again after a reload, live in
:mod:`quizbot.practice.recall_review`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from quizbot.analysis.metrics import Proportion
from quizbot.analysis.recall import mean_interval
from quizbot.domain import Assignment, Outcome, Respondent, RespondentKind, SessionStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.evaluation.recall import (
    DEFAULT_TIERS,
    RecallScore,
    Tiers,
    score_recall,
    verdict_key,
)
from quizbot.generate.recall import RecallPlan, aspects_of, plan_recall, recall_items
from quizbot.generate.service import load_any_items, store_items
from quizbot.items import RecallItem
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import DEFAULT_KB, get_kb
from quizbot.practice import review_queue
from quizbot.practice.facts import _entries, _view
from quizbot.practice.feedback import _locate, _question_id, _time_taken
from quizbot.practice.seats import Sitter, check_seat
from quizbot.practice.topics import _cohort, _display_name, _load_kb, _relation_topic_label
from quizbot.practice.views import (
    CONFIG_VERSION,
    IDLE_TIMEOUT,
    MAX_ANSWER_LENGTH,
    MAX_LENGTH,
    RECALL_FORMAT,
    MeanScore,
    RecallAspectScore,
    RecalledEntity,
    RecallEntryNote,
    RecallFeedback,
    RecallProgress,
    RecallQuestion,
    RecallSummary,
    SessionView,
    Topic,
)
from quizbot.practice.windows import check_window
from storage import Database
from storage.assignments import assignment_by_id, assignment_sessions, get_assignment
from storage.practice_queries import close_idle_sessions
from storage.recall_grades import put_self_grade, self_grades
from storage.repo import NewResponse, get_or_create_respondent
from storage.review import retired_item_ids
from storage.sessions import (
    AnswerRow,
    LoadedSession,
    create_session,
    load_session,
    record_session_answer,
    respondent_history,
    set_respondent_cohort,
)
from storage.types import utcnow

__all__ = [
    "DEFAULT_RECALL_LENGTH",
    "WITHHELD",
    "answer_recall",
    "aspect_relation",
    "grade_recall_entry",
    "is_recall_assignment",
    "is_recall_session",
    "next_recall_question",
    "question_of",
    "recall_aspects",
    "recall_progress",
    "recall_summary",
    "record_recall_session",
    "start_recall_assignment",
    "start_recall_session",
]

DEFAULT_RECALL_LENGTH = 5
WITHHELD = "withheld"
INSTRUCTIONS = (
    "List everything you remember, separated by commas or one per line (bullets and numbers "
    'are fine), or type "I don\'t know".'
)


def is_recall_session(config: Mapping[str, Any]) -> bool:
    """Whether a practice session's config asks open recall questions."""
    return config.get("format") == RECALL_FORMAT


def is_recall_assignment(assignment: Assignment) -> bool:
    """Whether an assignment holds open recall items (made with ``--format recall``)."""
    return assignment.config.get("format") == RECALL_FORMAT


def _fact(item: RecallItem) -> str:
    """What a recall question asks about: one disease x aspect (never a statement's fact id)."""
    return f"recall:{item.kb}\x1f{item.relation}\x1f{item.head}"


def _rank(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def _tiers(config: Mapping[str, Any]) -> Tiers:
    return Tiers.from_json(config.get("recall_tiers"))


# --------------------------------------------------------------------------------------------
# Starting


def recall_aspects(db: Database, kb: str = DEFAULT_KB) -> list[Topic]:
    """The aspects a student can practise recall on in ``kb``, with how many questions each has.

    ``key`` is ``relation:<relation>`` (what :func:`start_recall_session` takes as ``aspect``);
    ``n_facts`` is the number of (disease, aspect) questions.
    """
    data, _ = _load_kb(db, kb)
    counts: dict[str, int] = defaultdict(int)
    for aspect, _head, _gold in plan_recall(data).pairs:
        counts[aspect.relation] += 1
    return [
        Topic(
            key=f"relation:{a.relation}",
            kind="relation",
            name=a.relation,
            label=a.name[:1].upper() + a.name[1:],
            n_facts=counts[a.relation],
        )
        for a in aspects_of(data)
        if counts[a.relation]
    ]


def _asked_before(db: Database, respondent_id: int, kb_name: str) -> set[str]:
    """The recall questions (disease x aspect) the student has answered in ``kb_name``."""
    asked: set[str] = set()
    for past in respondent_history(db, respondent_id, kb_name=kb_name):
        if not is_recall_session(past.session.config):
            continue
        facts = {e["id"]: e.get("fact") for e in _entries(past.session.config)}
        asked.update(str(facts[a.item_id]) for a in past.answers if facts.get(a.item_id))
    return asked


def aspect_relation(data: KnowledgeBaseData, aspect: str | None) -> str | None:
    """The relation an aspect names (a key of :func:`recall_aspects`, a relation or an
    aspect's name), ``None`` for all aspects; :class:`InputError` for no aspect of ``data``."""
    if aspect is None or not aspect.strip() or aspect == "all":
        return None
    wanted = aspect.strip().removeprefix("relation:").casefold()
    found = [a for a in aspects_of(data) if wanted in (a.relation.casefold(), a.name.casefold())]
    if not found:
        known = ", ".join(a.name for a in aspects_of(data))
        raise InputError(
            f"{aspect!r} is no recall aspect of {data.name!r}",
            field="aspect",
            hint=f"one of: {known}" if known else "choose another knowledge base",
        )
    return found[0].relation


def question_of(key: str) -> tuple[str, str] | None:
    """(relation, disease) of a recall question's key in a session's config (``fact``, made by
    ``_fact``), ``None`` for any other key."""
    parts = key.split("\x1f")
    if len(parts) != 3 or not parts[0].startswith("recall:"):
        return None
    return parts[1], parts[2]


def _session_config(
    items: Sequence[RecallItem], *, labels: Mapping[str, str], tiers: Tiers, **extra: Any
) -> dict[str, Any]:
    return {
        "version": CONFIG_VERSION,
        "format": RECALL_FORMAT,
        "length": len(items),
        "review": False,
        "recall_tiers": tiers.as_json(),
        "items": [
            {
                "id": i.id,
                "fact": _fact(i),
                "relation": i.relation,
                "aspect": i.aspect,
                "system": None,
            }
            for i in items
        ],
        "labels": dict(labels),
        "notes": [],
        **extra,
    }


def start_recall_session(
    db: Database,
    *,
    student: str,
    kb: str = DEFAULT_KB,
    aspect: str | None = None,
    length: int = DEFAULT_RECALL_LENGTH,
    cohort: str | None = None,
    seed: str | None = None,
    tiers: Tiers = DEFAULT_TIERS,
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> SessionView:
    """Start a recall session of ``length`` questions on ``aspect`` (all aspects if None).

    ``aspect`` is a key of :func:`recall_aspects` (``relation:has_symptom``), a relation or an
    aspect's name ("symptoms"). Questions the student was never asked come first; items a
    reviewer retired are never asked. :class:`InputError` for an unknown KB or aspect, a length
    outside 1..100, an unusable pseudonym, or nothing to ask.
    """
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_LENGTH:
        raise InputError(
            f"a session has 1 to {MAX_LENGTH} questions, not {length!r}",
            field="length",
            hint="pick a number between 1 and 100",
        )
    if seed is not None and (not seed.strip() or len(seed) > 100):
        raise InputError("the seed must be non-empty text of at most 100 characters")
    display = _display_name(student)
    group = _cohort(cohort)
    data, kb_id = _load_kb(db, kb)
    relation = aspect_relation(data, aspect)
    respondent = get_or_create_respondent(
        db, RespondentKind.HUMAN, display.casefold(), display_name=display, cohort=group
    )
    assert respondent.id is not None
    if group is not None and respondent.cohort != group:
        set_respondent_cohort(db, respondent.id, group)
    close_idle_sessions(db, respondent.id, (now or utcnow()) - idle_timeout)
    session_seed = seed if seed is not None else secrets.token_hex(4)
    try:
        plan = plan_recall(data, relations=[relation] if relation else None)
    except InputError as exc:
        raise InputError(exc.message, field="kb", hint=exc.hint) from None
    asked = _asked_before(db, respondent.id, data.name)
    retired = retired_item_ids(db)

    def order(pair: Any) -> tuple[bool, bytes]:
        key = f"recall:{data.name}\x1f{pair[0].relation}\x1f{pair[1]}"
        return key in asked, _rank("recall-practice", session_seed, pair[0].relation, pair[1])

    ranked = sorted(plan.pairs, key=order)
    chosen: list[RecallItem] = []
    # Retired items are only known once made; make a few more than needed, a batch at a time.
    for start in range(0, len(ranked), length + 5):
        batch = RecallPlan(tuple(ranked[start : start + length + 5]))
        chosen += [i for i in recall_items(data, batch) if i.id not in retired]
        if len(chosen) >= length:
            break
    chosen = chosen[:length]
    if not chosen:
        raise InputError(
            f"no recall questions can be made from {data.name!r}",
            hint="choose another aspect or knowledge base",
        )
    notes = (
        [f"only {len(chosen)} recall question(s) could be made for this choice"]
        if len(chosen) < length
        else []
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
        cohort=group,
        notes=notes,
    )


def record_recall_session(
    db: Database,
    data: KnowledgeBaseData,
    kb_id: int,
    respondent: Respondent,
    chosen: Sequence[RecallItem],
    *,
    tiers: Tiers,
    relation: str | None,
    seed: str,
    cohort: str | None,
    notes: Sequence[str] = (),
    label: str | None = None,
    **extra: Any,
) -> SessionView:
    """Store the chosen recall items and record the student's free recall session asking them
    (``label``: the topic label after "Recall: ", else the aspect's or "All aspects")."""
    assert respondent.id is not None
    store_items(db, data, kb_id, list(chosen))
    labels = {f"relation:{i.relation}": _relation_topic_label(data, i.relation) for i in chosen}
    topic_label = label or (labels.get(f"relation:{relation}", relation) if relation else None)
    config = _session_config(
        chosen,
        labels=labels,
        tiers=tiers,
        kb_version=data.version,
        topic=f"relation:{relation}" if relation else None,
        topic_label=f"Recall: {topic_label or 'All aspects'}",
        seed=seed,
        cohort=cohort,
        **extra,
    )
    config["notes"] = list(notes)
    row = create_session(db, respondent_id=respondent.id, kb_name=data.name, config=config)
    assert row.id is not None
    return _view(LoadedSession(row, respondent, []))


def start_recall_assignment(
    db: Database,
    *,
    assignment: str,
    student: str,
    tiers: Tiers = DEFAULT_TIERS,
    cohort: str | None = None,
    sitter: Sitter | None = None,
) -> SessionView:
    """Start ``student``'s session on recall assignment ``assignment``, or resume theirs.

    As for other assignments: one session per student (an active one is resumed, a finished one
    returned as it is, only an abandoned one lets them start again), every item of the
    assignment in a per-student seeded order, the window checked.
    :class:`~quizbot.errors.NotFoundError` for an unknown assignment, :class:`InputError` for one
    that holds no recall items. ``cohort``, when known for sure (an account's), keeps the
    student to their cohort's assignments and those of no cohort, and ``sitter`` keeps an exam
    to its cohort's accounts, as :func:`quizbot.practice.assignments.start_assignment_session`
    does (:func:`quizbot.practice.seats.check_seat`).
    """
    display = _display_name(student)
    found = get_assignment(db, assignment)
    check_seat(found, sitter, cohort)
    if not is_recall_assignment(found):
        raise InputError(
            f"assignment {found.name!r} asks no open recall questions",
            hint="enter it in the practice chat (Assignment, then Start)",
        )
    respondent = get_or_create_respondent(
        db,
        RespondentKind.HUMAN,
        display.casefold(),
        display_name=display,
        cohort=_cohort(found.cohort),
    )
    check_window(found, "started")
    for earlier in reversed(assignment_sessions(db, found.id, respondent_id=respondent.id)):
        if earlier.status != SessionStatus.ABANDONED.value:
            return _view(load_session(db, earlier.id))
    items = [i for i in load_any_items(db, list(found.item_ids)) if isinstance(i, RecallItem)]
    seed = f"assignment\x1f{found.name}\x1f{respondent.name}"
    ordered = sorted(items, key=lambda i: _rank(seed, i.id))
    data, _ = get_kb(db, found.kb_name)
    labels = {f"relation:{i.relation}": _relation_topic_label(data, i.relation) for i in items}
    config = _session_config(
        ordered,
        labels=labels,
        tiers=tiers,
        kb_version=data.version,
        topic=None,
        topic_label=f"Assignment {found.name}",
        seed=seed,
        cohort=found.cohort,
        assignment=found.name,
        mode=found.mode,
        two_pass=False,
    )
    row = create_session(
        db,
        respondent_id=respondent.id,
        kb_name=found.kb_name,
        config=config,
        assignment_id=found.id,
    )
    assert row.id is not None
    return _view(load_session(db, row.id))


# --------------------------------------------------------------------------------------------
# Asking and answering


def _loaded_recall(db: Database, session_id: int) -> LoadedSession:
    loaded = load_session(db, session_id)
    if not is_recall_session(loaded.session.config):
        raise InputError(
            f"practice session {session_id} asks no open recall questions",
            hint="answer it in the practice chat",
        )
    return loaded


def _item(db: Database, item_id: str) -> RecallItem:
    found = load_any_items(db, [item_id])
    if not found or not isinstance(found[0], RecallItem):
        raise NotFoundError(f"item {item_id!r} is no open recall item")
    return found[0]


def next_recall_question(db: Database, session_id: int) -> RecallQuestion | None:
    """The first unanswered question of an active recall session, or ``None`` when none is left.

    :class:`NotFoundError` if the session does not exist; :class:`InputError` if it is no recall
    session.
    """
    loaded = _loaded_recall(db, session_id)
    row = loaded.session
    assert row.id is not None
    if row.status != SessionStatus.ACTIVE.value:
        return None
    entries = _entries(row.config)
    answered = loaded.answered
    for position, entry in enumerate(entries, start=1):
        if entry["id"] not in answered:
            item = _item(db, entry["id"])
            return RecallQuestion(
                session_id=row.id,
                id=_question_id(row.id, position),
                position=position,
                total=len(entries),
                aspect=item.aspect,
                disease=item.head,
                text=item.question,
                instructions=INSTRUCTIONS,
                shown_at=datetime.now(UTC),
            )
    return None


def _recalled(score: RecallScore) -> list[RecalledEntity]:
    """Each recalled gold entity with the first entry that recalled it and by which rule."""
    out: list[RecalledEntity] = []
    for gold in score.match.recalled:
        for entry in score.match.entries:
            if gold in entry.golds:
                out.append(RecalledEntity(gold, entry.text, entry.why))
                break
    return out


def _notes(score: RecallScore, grades: Mapping[str, str]) -> list[RecallEntryNote]:
    """The entries that name no gold entity, with what is known of them and the student's mark
    on the unverified ones."""
    return [
        RecallEntryNote(
            e.text,
            e.kind,
            e.why,
            grades.get(verdict_key(e.text)) if e.kind == "unverified" else None,
        )
        for e in score.match.entries
        if e.kind != "matched"
    ]


def _feedback(
    loaded: LoadedSession,
    position: int,
    item: RecallItem,
    text: str,
    score: RecallScore,
    *,
    answered: int,
    finished: bool,
    grades: Mapping[str, str] | None = None,
) -> RecallFeedback:
    row = loaded.session
    assert row.id is not None
    m = score.match
    return RecallFeedback(
        session_id=row.id,
        question_id=_question_id(row.id, position),
        position=position,
        total=len(_entries(row.config)),
        question=item.question,
        aspect=item.aspect,
        outcome=score.outcome.value,
        your_answer=text,
        read_as=list(score.answers),
        recalled=_recalled(score),
        missed=list(m.missed),
        vague=list(m.vague),
        wrong=list(m.wrong),
        precision=score.precision,
        recall=score.recall,
        f1=score.f1,
        tier=score.tier,
        tiers=_tiers(row.config).as_json(),
        answered=answered,
        finished=finished,
        true_unlisted=list(m.extra),
        unverified=list(m.unverified),
        notes=_notes(score, grades or {}),
    )


def _withheld(
    loaded: LoadedSession, position: int, item: RecallItem, text: str, answered: int
) -> RecallFeedback:
    row = loaded.session
    assert row.id is not None
    return RecallFeedback(
        session_id=row.id,
        question_id=_question_id(row.id, position),
        position=position,
        total=len(_entries(row.config)),
        question=item.question,
        aspect=item.aspect,
        outcome=WITHHELD,
        your_answer=text,
        read_as=[],
        recalled=[],
        missed=[],
        vague=[],
        wrong=[],
        precision=None,
        recall=None,
        f1=None,
        tier=None,
        tiers=_tiers(row.config).as_json(),
        answered=answered,
        finished=False,
    )


def answer_recall(
    db: Database,
    session_id: int,
    question_id: str,
    text: str,
    *,
    shown_at: datetime | None = None,
) -> RecallFeedback:
    """Score what the student typed with the models' scorer, store it, then give the feedback.

    ``question_id`` is the :attr:`RecallQuestion.id` (the item id is accepted too). Refusals
    store nothing: :class:`InputError` for an empty or too long answer, text with no list in
    it, a session no longer active or an assignment outside its window; :class:`DuplicateError`
    for a second answer to a question (the first stands); :class:`NotFoundError` for a question
    of another session. In an exam the feedback is withheld until the last answer.
    """
    loaded = _loaded_recall(db, session_id)
    row = loaded.session
    assert row.id is not None
    position, entry = _locate(loaded, question_id)
    if entry["id"] in loaded.answered:
        raise DuplicateError(
            f"question {position} was already answered; the first answer stands",
            hint="go on to the next question",
        )
    if row.status != SessionStatus.ACTIVE.value:
        raise InputError(
            f"practice session {session_id} is {row.status}; it takes no more answers",
            hint="start a new session",
        )
    if row.assignment_id is not None:
        check_window(assignment_by_id(db, row.assignment_id), "answered")
    typed = text if isinstance(text, str) else ""
    if not typed.strip():
        raise InputError(
            "the answer is empty",
            hint='list what you remember, separated by commas, or type "I don\'t know"',
        )
    if len(typed) > MAX_ANSWER_LENGTH:
        raise InputError(
            f"the answer is longer than {MAX_ANSWER_LENGTH} characters",
            hint="list short names only",
        )
    item = _item(db, entry["id"])
    score = score_recall(item, typed, tiers=_tiers(row.config))
    if score.outcome is Outcome.UNPARSED:
        shown = typed.strip() if len(typed.strip()) <= 40 else typed.strip()[:37] + "..."
        raise InputError(
            f"could not read a list in {shown!r}",
            hint='write names separated by commas (e.g. "fever, cough") or "I don\'t know"',
        )
    respondent_id = loaded.respondent.id
    assert respondent_id is not None
    recorded = record_session_answer(
        db,
        NewResponse(
            item_id=item.id,
            respondent_id=respondent_id,
            outcome=score.outcome,
            quiz_session_id=row.id,
            raw_text=typed,
            parsed_answer=score.summary,
            parse_reason=score.reason,
            latency_ms=_time_taken(shown_at, datetime.now(UTC)),
        ),
        n_items=len(_entries(row.config)),
    )
    # Spaced review: the question's card (an exam's waits until it is complete); logged on
    # failure, never raised (the answer is stored, the next sync catches up).
    review_queue.record(db, respondent_id, recorded.response_id, item)
    if row.config.get("mode") == "exam" and not recorded.finished:
        return _withheld(loaded, position, item, typed, recorded.n_answered)
    return _feedback(
        loaded,
        position,
        item,
        typed,
        score,
        answered=recorded.n_answered,
        finished=recorded.finished,
    )


def grade_recall_entry(
    db: Database, session_id: int, question_id: str, entry: str, verdict: str
) -> RecallFeedback:
    """The student marks an unverified entry of their answer right or wrong themselves.

    The mark is stored apart (``recall_self_grades``) and never changes a score: every figure,
    the student's own and those compared with models, is computed without it. Marking again
    replaces the mark. Returns the answer's feedback with the mark. :class:`InputError` when the
    question has no answer yet, its feedback is still withheld (an exam not finished), the
    entry is not an unverified entry of that answer, or the mark is not right or wrong.
    """
    loaded = _loaded_recall(db, session_id)
    row = loaded.session
    position, entry_row = _locate(loaded, question_id)
    answer = next((a for a in loaded.answers if a.item_id == entry_row["id"]), None)
    if answer is None:
        raise InputError(f"question {position} has no answer yet", hint="answer it first")
    if _exam_pending(row.config, row.status):
        raise InputError(
            "the feedback of this exam is withheld until its last answer",
            hint="mark your entries once the exam is finished",
        )
    item = _item(db, entry_row["id"])
    score = score_recall(item, answer.raw_text or "", tiers=_tiers(row.config))
    wanted = verdict_key(entry)
    found = next(
        (
            e
            for e in score.match.entries
            if e.kind == "unverified" and verdict_key(e.text) == wanted
        ),
        None,
    )
    if found is None:
        raise InputError(
            f"{entry!r} is no unverified entry of your answer to question {position}",
            field="entry",
            hint="only entries marked 'not in our list' can be marked by you",
        )
    put_self_grade(db, response_id=answer.id, entry=found.text, entry_key=wanted, verdict=verdict)
    grades = self_grades(db, [answer.id]).get(answer.id, {})
    return _feedback(
        loaded,
        position,
        item,
        answer.raw_text or "",
        score,
        answered=len(loaded.answers),
        finished=row.status == SessionStatus.FINISHED.value,
        grades=grades,
    )


# --------------------------------------------------------------------------------------------
# Figures


def _mean(values: Sequence[float]) -> MeanScore:
    found = mean_interval(values)
    interval = found["interval"] or [None, None]
    return MeanScore(found["mean"], interval[0], interval[1], int(found["n"]))


def _scores(scored: Sequence[tuple[RecallItem, RecallScore]]) -> RecallProgress:
    by_aspect: dict[str, list[RecallScore]] = defaultdict(list)
    for item, score in scored:
        by_aspect[item.aspect].append(score)

    def correct(scores: Sequence[RecallScore]) -> Proportion:
        return Proportion.of(sum(s.tier == "basically correct" for s in scores), len(scores))

    everything = [s for _, s in scored]
    return RecallProgress(
        n_answered=len(everything),
        f1=_mean([s.f1 for s in everything]),
        basically_correct=correct(everything),
        aspects=[
            RecallAspectScore(name, len(s), _mean([x.f1 for x in s]), correct(s))
            for name, s in sorted(by_aspect.items())
        ],
    )


def _rescored(
    db: Database, config: Mapping[str, Any], answers: Sequence[AnswerRow]
) -> list[tuple[RecallItem, RecallScore, AnswerRow]]:
    """Stored answers rescored from their raw text with the session's tiers (errors left out)."""
    kept = [a for a in answers if a.outcome != Outcome.ERROR.value]
    items = {
        i.id: i
        for i in load_any_items(db, list(dict.fromkeys(a.item_id for a in kept)))
        if isinstance(i, RecallItem)
    }
    tiers = _tiers(config)
    return [
        (items[a.item_id], score_recall(items[a.item_id], a.raw_text or "", tiers=tiers), a)
        for a in kept
        if a.item_id in items
    ]


def _exam_pending(loaded_config: Mapping[str, Any], status: str) -> bool:
    return loaded_config.get("mode") == "exam" and status != SessionStatus.FINISHED.value


def recall_summary(db: Database, session_id: int) -> RecallSummary:
    """A recall session's figures (answered questions only) and every answer's feedback.

    An exam that is not complete gives its count only: no scores, no answers (nothing is
    revealed before the end).
    """
    loaded = _loaded_recall(db, session_id)
    row = loaded.session
    entries = _entries(row.config)
    if _exam_pending(row.config, row.status):
        return RecallSummary(_view(loaded), len(entries), _scores([]), [])
    positions = {e["id"]: n for n, e in enumerate(entries, start=1)}
    rescored = _rescored(db, row.config, loaded.answers)
    finished = row.status == SessionStatus.FINISHED.value
    grades = self_grades(db, [a.id for a in loaded.answers])
    answers = [
        _feedback(
            loaded,
            positions.get(a.item_id, 0),
            item,
            a.raw_text or "",
            score,
            answered=len(loaded.answers),
            finished=finished,
            grades=grades.get(a.id),
        )
        for item, score, a in sorted(rescored, key=lambda x: positions.get(x[2].item_id, 0))
    ]
    return RecallSummary(
        _view(loaded), len(entries), _scores([(i, s) for i, s, _ in rescored]), answers
    )


def recall_progress(
    db: Database, respondent_id: int, *, kb: str | None = None
) -> RecallProgress | None:
    """All of a respondent's recall answers (in ``kb`` if given), by aspect; None if none.

    Answers of an exam not yet complete are left out (its scores are not shown before the end).
    """
    scored: list[tuple[RecallItem, RecallScore]] = []
    for past in respondent_history(db, respondent_id, kb_name=kb):
        config = past.session.config
        if not is_recall_session(config) or _exam_pending(config, past.session.status):
            continue
        scored += [(item, score) for item, score, _ in _rescored(db, config, past.answers)]
    return _scores(scored) if scored else None
