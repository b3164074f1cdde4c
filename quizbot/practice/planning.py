"""Planning a practice session: which facts and which variants to ask, and :func:`start_session`
(review mode included). The student's history and the picks it shares with the spaced-review
queue live in :mod:`quizbot.practice.facts`."""

from __future__ import annotations

import itertools
import random
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from quizbot.domain import RespondentKind
from quizbot.errors import InputError
from quizbot.generate.points import stratified, stratified_rounds
from quizbot.generate.prototypes import default_prototypes
from quizbot.kb.model import KnowledgeBaseData, Triplet
from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice.facts import (
    _choice_items,
    _FactRecord,
    _History,
    _history_of,
    _kb_cache,
    _Planned,
    _record_loaded,
    _statement_items,
    _view,
)
from quizbot.practice.feedback import first_question
from quizbot.practice.review_queue import catch_up
from quizbot.practice.stored_plans import code_digest, plan_params, use_stored_plan
from quizbot.practice.topics import (
    _cohort,
    _display_name,
    _load_kb,
    _resolve_topic,
    _topic_keys,
    _validate,
)
from quizbot.practice.views import (
    CONFIG_VERSION,
    IDLE_TIMEOUT,
    REVIEW_VARIANTS_PER_FACT,
    VARIANTS_PER_FACT,
    Format,
    Item,
    Question,
    SessionView,
    Topic,
)
from storage import Database
from storage.practice_plans import start_probe
from storage.practice_queries import close_idle_sessions
from storage.repo import get_or_create_respondent
from storage.sessions import LoadedSession, respondent_history, set_respondent_cohort
from storage.types import utcnow


def prepare(kb: KnowledgeBaseData) -> int:
    """Compute now what every session start on ``kb`` would otherwise compute the first time:
    the candidate facts, their point ids and each fact's plan (negative tail, sides), the KB's
    fingerprint (:meth:`quizbot.practice.facts._KbCache.fingerprint`) and a statement
    session's generation code path. Returns how many facts were planned.

    ``quizbot serve`` calls it for the default KB before taking requests: the first starts of a
    fresh server (a replica that has just come up, every student of a class at once) otherwise
    each paid about 0.3 s of CPU for it, and the threads serving them all waited on the plans'
    lock. Safe to call again (a no-op once done) and from several threads.
    """
    cache = _kb_cache(kb)
    cache.fingerprint()  # what a stored plan's basis is checked with (next_plan)
    code_digest()  # and the planning code's (read once a process)
    pool = cache.candidates()
    for t in pool:
        cache.point_digits(t)
    cache.plans(pool)
    facts = _one_per_point(pool)[:VARIANTS_PER_FACT]
    _statement_items(
        kb, facts, 1, seed="prepare", cap=VARIANTS_PER_FACT, history=_History(), review=False
    )
    return len(pool)


def _mix(statements: Sequence[_Planned], choices: Sequence[_Planned], seed: str) -> list[_Planned]:
    """A mixed session's questions: each position drawn at random (seeded by the session's
    seed) to be a statement or a choice question, with exactly as many of each as given.

    Strict alternation was itself a clue (issue 29): after a true/false question the next one
    was always multiple choice. Each kind keeps its own order (the topics' interleaving).
    """
    total = len(statements) + len(choices)
    rng = random.Random(f"mix\x1f{seed}")
    at_choice = set(rng.sample(range(total), len(choices)))
    said, chosen = iter(statements), iter(choices)
    return [next(chosen) if i in at_choice else next(said) for i in range(total)]


def _interleaved(facts: Sequence[Triplet], seed: str) -> list[Triplet]:
    """``facts`` with its topics (relations, what :func:`stratified` groups by) in a seeded
    order of their own, round by round.

    :func:`stratified` deals one fact per relation per round, always in alphabetical order, so
    every session asked its topics in the same sequence (issue 29). Here each round's relations
    are shuffled with the session's seed (a resume reads the stored items, so it keeps the
    order), never putting a round's first topic right after the previous round's last. Within
    a relation the facts keep their order.
    """
    queues: dict[str, list[Triplet]] = {}
    for fact in facts:
        queues.setdefault(fact.relation, []).append(fact)
    rng = random.Random(f"topics\x1f{seed}")
    out: list[Triplet] = []
    depth = max((len(q) for q in queues.values()), default=0)
    for i in range(depth):
        round_ = [q[i] for q in queues.values() if i < len(q)]
        rng.shuffle(round_)
        if len(round_) > 1 and out and round_[0].relation == out[-1].relation:
            round_[0], round_[1] = round_[1], round_[0]
        out.extend(round_)
    return out


def _one_per_point(facts: Iterable[Triplet]) -> list[Triplet]:
    """The first fact of each (head, relation), in order.

    The feedback on a statement names the true fact and lists what the knowledge base has for
    its head and relation, so it reveals every fact of that pair (and that a substituted tail is
    false): a second statement on the pair, whichever tail it names, would be asked after its
    answer was shown. Multiple choice already asks once per pair.
    """
    return list(_first_per_point(facts))


def _first_per_point(facts: Iterable[Triplet]) -> Iterator[Triplet]:
    """:func:`_one_per_point`, as far as it is read."""
    seen: set[tuple[str, str]] = set()
    for fact in facts:
        if (fact.head, fact.relation) not in seen:
            seen.add((fact.head, fact.relation))
            yield fact


T = TypeVar("T")


class _Replayable(Generic[T]):
    """An iterable computed only as far as it is read, and read again from its start as often
    as wanted (a session's plan reads the facts' order once per kind of question)."""

    def __init__(self, source: Iterable[T]) -> None:
        self._source = iter(source)
        self._read: list[T] = []

    def __iter__(self) -> Iterator[T]:
        for i in itertools.count():
            if i == len(self._read):
                try:
                    self._read.append(next(self._source))
                except StopIteration:
                    return
            yield self._read[i]


def _practice_order(
    rounds: Iterable[Sequence[Triplet]], seed: str, tier: Callable[[Triplet], int]
) -> Iterator[Triplet]:
    """``sorted(_interleaved(<the rounds joined>, seed), key=tier)``, produced only as far as
    it is read: the facts of tier 0 as they come, the others kept until the rounds run out.

    :func:`_interleaved` shuffles each round with one random stream, so the rounds taken in
    order give the same shuffles; a stable sort by tier is each tier's facts in that order,
    one tier after the other. A start reads the first few rounds of a KB's thousands of facts
    (tests/practice/test_start_order.py checks it is the same order).
    """
    rng = random.Random(f"topics\x1f{seed}")
    later: list[list[Triplet]] = [[], []]
    last: str | None = None
    for each in rounds:
        round_ = list(each)
        rng.shuffle(round_)
        if len(round_) > 1 and last is not None and round_[0].relation == last:
            round_[0], round_[1] = round_[1], round_[0]
        if round_:
            last = round_[-1].relation
        for fact in round_:
            rank = tier(fact)
            if rank == 0:
                yield fact
            else:
                later[rank - 1].append(fact)
    for kept in later:
        yield from kept


def _plan(
    kb: KnowledgeBaseData,
    facts: Iterable[Triplet],
    format: str,
    length: int,
    *,
    seed: str,
    review: bool,
    history: _History,
) -> list[_Planned]:
    """The session's questions from ``facts`` in order, each read only as far as needed (it
    may be read more than once: a list, or a :class:`_Replayable`)."""
    protos = default_prototypes()
    covered: dict[str, bool] = {}

    def coverable(fact: Triplet) -> bool:
        known = covered.get(fact.relation)
        if known is None:
            known = covered[fact.relation] = protos.covers(fact.relation)
        return known

    stateable = _Replayable(_first_per_point(f for f in facts if coverable(f)))
    cap = REVIEW_VARIANTS_PER_FACT if review else VARIANTS_PER_FACT
    if format == "statement":
        return _statement_items(
            kb, stateable, length, seed=seed, cap=cap, history=history, review=review
        )
    n_choice = length if format == "choice" else length // 2
    chosen = _choice_items(kb, facts, n_choice, review=review, history=history)
    if format == "choice":
        return chosen
    taken = {(p.fact.head, p.fact.relation) for p in chosen}
    rest = (f for f in stateable if (f.head, f.relation) not in taken)
    said = _statement_items(
        kb, rest, length - len(chosen), seed=seed, cap=cap, history=history, review=review
    )
    return _mix(said, chosen, seed)


def _candidates(kb: KnowledgeBaseData, chosen: Sequence[Topic]) -> list[Triplet]:
    """The KB's candidate facts in any of the ``chosen`` topics (none chosen: all of them)."""
    pool = list(_kb_cache(kb).candidates())
    if not chosen:
        return pool
    keys = {t.key for t in chosen}
    return [t for t in pool if keys.intersection(_topic_keys(t))]


def _chosen_topics(kb: KnowledgeBaseData, topic: str | None, topics: Sequence[str]) -> list[Topic]:
    """The topics a session draws from: ``topic`` and every one of ``topics``, each resolved
    (:class:`InputError` for an unknown one), without repeats."""
    found: dict[str, Topic] = {}
    for name in ([topic] if topic is not None else []) + list(topics):
        resolved = _resolve_topic(kb, name)
        found.setdefault(resolved.key, resolved)
    return list(found.values())


def _label(chosen: Sequence[Topic]) -> str | None:
    """What a session on the ``chosen`` topics is called (``None``: all topics)."""
    if len(chosen) == 1:
        return chosen[0].label
    return "Topics: " + ", ".join(t.label for t in chosen) if chosen else None


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
    topics: Sequence[str] = (),
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> SessionView:
    """Start a practice session: choose facts, generate and store the items, record the session.

    ``topic`` is a key from :func:`topics` (``relation:has_symptom``, ``system:cardiovascular``)
    or a topic's name or label; ``topics``, several of them (a session on the student's weakest
    topics draws from all of them, interleaved). ``review=True`` re-asks facts the student
    missed before, each in a variant they did not miss. The student's sessions idle for
    ``idle_timeout`` are closed first (:mod:`quizbot.practice.resume`; ``now`` is for tests).
    Raises :class:`InputError` for an unknown KB or topic, a length outside 1..100, an unusable
    pseudonym, or nothing left to ask.
    """
    loaded, _ = _start(
        db,
        student=student,
        kb=kb,
        topic=topic,
        format=format,
        length=length,
        cohort=cohort,
        seed=seed,
        review=review,
        topics=topics,
        idle_timeout=idle_timeout,
        now=now,
    )
    return _view(loaded)


def start_session_and_ask(
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
    topics: Sequence[str] = (),
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> tuple[SessionView, Question | None]:
    """:func:`start_session` and the session's first question (what
    :func:`quizbot.practice.feedback.next_question` would read back), built from the session
    just recorded: no second read of it."""
    loaded, first = _start(
        db,
        student=student,
        kb=kb,
        topic=topic,
        format=format,
        length=length,
        cohort=cohort,
        seed=seed,
        review=review,
        topics=topics,
        idle_timeout=idle_timeout,
        now=now,
    )
    return _view(loaded), first_question(db, loaded, first)


def _start(
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
    topics: Sequence[str] = (),
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> tuple[LoadedSession, Item | None]:
    """What :func:`start_session` does: the session recorded, as read back, and its first
    item when planned now (``None``: taken from a stored plan, not in memory)."""
    _validate(length, format, seed)
    display = _display_name(student)
    key_name = display.casefold()
    group = _cohort(cohort)
    kb_data, kb_id = _load_kb(db, kb)
    chosen = _chosen_topics(kb_data, topic, topics)
    probe = start_probe(db, key_name, kb_data.name)
    respondent = probe.respondent  # a read, usually enough
    if respondent is None:
        respondent = get_or_create_respondent(
            db, RespondentKind.HUMAN, key_name, display_name=display, cohort=group
        )
    assert respondent.id is not None
    if group is not None and respondent.cohort != group:
        set_respondent_cohort(db, respondent.id, group)
    close_idle_sessions(
        db,
        respondent.id,
        (now or utcnow()) - idle_timeout,
        active=probe.active if probe.respondent is not None else [],
    )
    # A returning student's spaced-review cards are built from their history here, before
    # their first answer, not inside it (where it held the answer's write transaction).
    catch_up(db, respondent.id)
    params = plan_params(kb_data.name, chosen, format, length)
    if not review and probe.mark is not None and probe.plan is not None:
        ahead = use_stored_plan(db, kb_data, respondent, probe, params, seed=seed, cohort=group)
        if ahead is not None:
            return ahead, None
    history = _history_of(respondent_history(db, respondent.id, kb_name=kb_data.name))
    history.retired = probe.retired
    session_seed = seed if seed is not None else secrets.token_hex(4)
    planned, config = _plan_session(
        kb_data,
        chosen,
        format=format,
        length=length,
        seed=session_seed,
        review=review,
        history=history,
        cohort=group,
    )
    loaded = _record_loaded(db, kb_data, kb_id, respondent, planned, config)
    return loaded, planned[0].item


def _plan_session(
    kb_data: KnowledgeBaseData,
    chosen: Sequence[Topic],
    *,
    format: str,
    length: int,
    seed: str,
    review: bool,
    history: _History,
    cohort: str | None,
) -> tuple[list[_Planned], dict[str, Any]]:
    """A session's questions and its config (without the items), from the student's
    ``history`` alone: what a start records, and what :mod:`quizbot.practice.next_plan` stores
    ahead of it. :class:`InputError` when nothing can be asked."""
    session_seed = seed
    chosen_topic = chosen[0] if len(chosen) == 1 else None
    label = _label(chosen)
    cache = _kb_cache(kb_data)
    pool = _candidates(kb_data, chosen)
    notes: list[str] = []
    facts: Iterable[Triplet]
    if review:
        due = [t for t in pool if history.facts.get(cache.fact_key(t), _FactRecord()).needs_review]
        facts = _interleaved(
            stratified(
                kb_data.name, due, f"review\x1f{session_seed}", point_digits=cache.point_digits
            ),
            session_seed,
        )
        if not facts:
            raise InputError(
                "there are no mistakes to review" + (f" in {label}" if label else ""),
                hint="practise without review first, or choose another topic",
            )
    else:

        def tier(t: Triplet) -> int:
            record = history.facts.get(cache.fact_key(t))
            return 0 if record is None else (2 if record.mastered else 1)

        # Never answered first, then not mastered, then mastered, each in the seeded order:
        # computed only as far as the plan reads it (a few rounds of thousands of facts).
        rounds = stratified_rounds(
            kb_data.name, pool, f"practice\x1f{session_seed}", point_digits=cache.point_digits
        )
        facts = _Replayable(_practice_order(rounds, session_seed, tier))
    planned = _plan(
        kb_data, facts, format, length, seed=session_seed, review=review, history=history
    )
    if not planned:
        raise InputError(
            f"no {format} questions can be made" + (f" for {label}" if label else ""),
            hint="choose another topic or format",
        )
    if len(planned) < length:
        notes.append(
            f"{len(planned)} question(s) to review"
            if review
            else f"only {len(planned)} question(s) could be made for this choice"
        )
    config: dict[str, Any] = {
        "version": CONFIG_VERSION,
        "kb_version": kb_data.version,
        "format": format,
        "length": length,
        "topic": chosen_topic.key if chosen_topic else None,
        "topic_label": label or "All topics",
        "seed": session_seed,
        "review": review,
        "cohort": cohort,
        "notes": notes,
    }
    if len(chosen) > 1:
        config["topics"] = [t.key for t in chosen]
    return planned, config


# --------------------------------------------------------------------------------------------
# Asking and answering
