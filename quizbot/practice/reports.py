"""After a session: the summary set against models on the same items, and a student's progress."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from quizbot.analysis.metrics import (
    MIN_SHARED_FOR_MCNEMAR,
    Proportion,
    Scored,
    compare_runs,
    compute_metrics,
)
from quizbot.domain import Outcome, RespondentKind
from quizbot.errors import InputError, NotFoundError
from quizbot.generate.service import load_items
from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice.facts import (
    _entries,
    _history,
    _kb_cache,
    _view,
)
from quizbot.practice.feedback import (
    _key_words,
    _question_id,
    _words,
)
from quizbot.practice.recall import is_recall_session, recall_progress
from quizbot.practice.resume import close_idle
from quizbot.practice.review_queue import _end_of_day, _utc, now, sync
from quizbot.practice.sealed import is_sealed, sealed_in_history
from quizbot.practice.topics import (
    _display_name,
    _load_kb,
    _topic_keys,
    _topic_label,
    _topics,
    normalise_student,
)
from quizbot.practice.views import (
    IDLE_TIMEOUT,
    WEAKEST_COUNT,
    WEAKEST_MIN_N,
    AnswerRecord,
    Coverage,
    Item,
    ModelResult,
    Progress,
    ProgressPoint,
    SessionInfo,
    Summary,
    TopicCoverage,
    TopicProgress,
    TopicScore,
)
from storage import Database
from storage.review_cards import due_cards
from storage.sessions import (
    AnswerRow,
    find_respondent,
    load_session,
    model_answers,
    respondent_history,
)


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
    if is_recall_session(row.config):
        raise InputError(
            f"practice session {session_id} asks open recall questions",
            hint="its results come from recall_summary (quizbot.practice.recall)",
        )
    if row.config.get("mode") == "exam" and (
        len(loaded.answered) < len(_entries(row.config)) or is_sealed(db, row.respondent_id, row.id)
    ):
        raise InputError(
            "the exam is not complete; its results are shown once every question is answered",
            hint="answer the remaining questions first (and the second pass, if there is one)",
        )
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


def _period(moment: datetime, session_id: int, by: str) -> str:
    """The period an answer counts in: its UTC day, the Monday of its ISO week (both ISO dates,
    so they sort as text) or its session's id."""
    if by == "session":
        return str(session_id)
    day = _utc(moment).date()
    if by == "week":
        day -= timedelta(days=day.weekday())
    return day.isoformat()


def progress(
    db: Database,
    student: str,
    *,
    kb: str | None = None,
    by: Literal["day", "week", "session"] = "day",
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> Progress:
    """A student's accuracy over time: overall and per topic, per UTC day, per week (named by
    its Monday, ISO weeks) or per session.

    Counts every answered question of every session (only in ``kb`` if given), except open
    recall answers: their sessions are listed (accuracy: the share "basically correct") and
    their figures are ``recall`` (:func:`quizbot.practice.recall.recall_progress`); and except
    exams not yet complete (:mod:`quizbot.practice.sealed`): listed with how many questions
    were answered, ``sealed`` and no accuracy, counted nowhere until their last answer.
    Sessions idle for ``idle_timeout`` are closed before they are listed (``now`` is for
    tests). Raises :class:`NotFoundError` when the pseudonym has never practised.
    """
    if by not in ("day", "week", "session"):
        raise InputError(f"progress is by 'day', 'week' or 'session', not {by!r}", field="by")
    key_name = normalise_student(student)
    respondent = find_respondent(db, RespondentKind.HUMAN, key_name)
    if respondent is None or respondent.id is None:
        raise NotFoundError(
            f"no practice sessions for {_display_name(student)!r} yet",
            hint="check the spelling of the pseudonym, or start a practice session",
        )
    close_idle(db, respondent.id, idle_timeout=idle_timeout, now=now)
    overall: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_topic: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0])
    )
    topic_labels: dict[tuple[str, str], str] = {}
    sessions: list[SessionInfo] = []
    total = correct_total = 0
    history = respondent_history(db, respondent.id, kb_name=kb)
    sealed = sealed_in_history(history)
    for past in history:
        row, config = past.session, past.session.config
        assert row.id is not None
        by_item = {e["id"]: e for e in _entries(config)}
        labels: Mapping[str, str] = config.get("labels", {})
        n_correct = 0
        recall = is_recall_session(config)  # scored apart: recall_progress below
        held = row.id in sealed  # an exam not complete: listed, nothing of it counted
        for a in [] if recall or held else past.answers:
            entry = by_item.get(a.item_id, {})
            correct = a.outcome == Outcome.CORRECT.value
            n_correct += correct
            period = _period(a.created_at, row.id, by)
            overall[period][0] += correct
            overall[period][1] += 1
            keys = [f"relation:{entry.get('relation')}"] if entry.get("relation") else []
            if entry.get("system"):
                keys.append(f"system:{entry['system']}")
            for key in keys:
                topic_labels[(row.kb_name, key)] = labels.get(key, key.split(":", 1)[1])
                per_topic[(row.kb_name, key)][period][0] += correct
                per_topic[(row.kb_name, key)][period][1] += 1
        if recall and not held:  # listed; its share "basically correct" is its accuracy
            n_correct = sum(a.outcome == Outcome.CORRECT.value for a in past.answers)
        elif not held:
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
                accuracy=Proportion.of(0, 0)
                if held
                else Proportion.of(n_correct, len(past.answers)),
                sealed=held,
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
        recall=recall_progress(db, respondent.id, kb=kb),
    )


# --------------------------------------------------------------------------------------------
# Coverage


def _weakest_first(rows: Iterable[TopicCoverage]) -> list[TopicCoverage]:
    """Topics answered, lowest accuracy first (more answers first on a tie); then the topics
    never answered, by label."""

    def key(t: TopicCoverage) -> tuple[bool, float, int, str]:
        value = t.accuracy.value
        return (value is None, value or 0.0, -t.accuracy.n, t.label.casefold())

    return sorted(rows, key=key)


def coverage(
    db: Database, student: str, *, kb: str = DEFAULT_KB, at: datetime | None = None
) -> Coverage:
    """How much of ``kb`` the student has seen, per organ system and per relation: the facts
    answered at least once (or reviewed by an answer: a multiple-choice question reviews every
    right option's fact) out of the facts practice can ask, the accuracy of the answers on
    them, and how many are due for spaced review today and within seven days of ``at``
    (default: :func:`quizbot.practice.review_queue.now`).

    Organ systems and relations are separate lists (every fact is in one relation and at most
    one system), each weakest first. Answers in exams still sealed count nowhere yet, as in
    :func:`progress`. Raises :class:`NotFoundError` when the pseudonym has never practised and
    :class:`InputError` for an unknown knowledge base.
    """
    respondent = find_respondent(db, RespondentKind.HUMAN, normalise_student(student))
    if respondent is None or respondent.id is None:
        raise NotFoundError(
            f"no practice sessions for {_display_name(student)!r} yet",
            hint="check the spelling of the pseudonym, or start a practice session",
        )
    kb_data, _ = _load_kb(db, kb)
    cache = _kb_cache(kb_data)
    keys_of = {cache.fact_key(t): _topic_keys(t) for t in cache.candidates()}
    history = _history(db, respondent.id, kb_data.name)
    sync(db, respondent.id)
    moment = _utc(at or now())
    # Every card of the KB (a century on: all of them), so a fact a multiple-choice question
    # reviewed without being its own fact (another right option) counts as seen too.
    cards = due_cards(db, respondent.id, moment + timedelta(days=36500), kb_name=kb_data.name)
    carded = {c.fact for c in cards}
    due_week = {c.fact for c in cards if c.due <= moment + timedelta(days=7)}
    due_today = {c.fact for c in cards if c.due <= _end_of_day(moment)}
    # per topic key: seen, due today, due this week, right, answered
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    total = [0, 0, 0]
    for fact, topic_keys in keys_of.items():
        record = history.facts.get(fact)
        figures = (
            int(fact in carded or (record is not None and record.n_answers > 0)),
            int(fact in due_today),
            int(fact in due_week),
            record.n_correct if record else 0,
            record.n_answers if record else 0,
        )
        if not any(figures):  # most facts of a big KB: nothing to add
            continue
        total = [a + b for a, b in zip(total, figures[:3], strict=True)]
        for key in topic_keys:
            counts[key] = [a + b for a, b in zip(counts[key], figures, strict=True)]
    rows = [
        TopicCoverage(
            key=t.key,
            kind=t.kind,
            label=t.label,
            n_facts=t.n_facts,
            seen=counts[t.key][0],
            due_now=counts[t.key][1],
            due_week=counts[t.key][2],
            accuracy=Proportion.of(counts[t.key][3], counts[t.key][4]),
        )
        for t in _topics(kb_data)
    ]
    return Coverage(
        student=respondent.display_name or respondent.name,
        kb=kb_data.name,
        n_facts=len(keys_of),
        seen=total[0],
        due_now=total[1],
        due_week=total[2],
        systems=_weakest_first(r for r in rows if r.kind == "system"),
        relations=_weakest_first(r for r in rows if r.kind == "relation"),
    )
