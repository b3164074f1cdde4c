"""What planning a session and the spaced-review queue both need: the student's history fact by
fact, the per-KB cache of fact keys and statement plans, the statement and multiple-choice picks,
and recording a planned session.

:mod:`quizbot.practice.planning` (starting a session) and :mod:`quizbot.practice.review_queue`
(starting a review session) both import this module; it imports neither.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quizbot.domain import Outcome, Respondent
from quizbot.generate.choice import choice_questions
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import store_items
from quizbot.generate.statements import PointPlan, plan_for, statements
from quizbot.items import ChoiceItem, StatementItem
from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id
from quizbot.practice.sealed import sealed_in_history
from quizbot.practice.topics import (
    _relation_label,
    _relation_topic_label,
    _system_labels,
    _system_of,
)
from quizbot.practice.views import (
    _MISSED,
    _REVIEW_SEEDS,
    CANONICAL_SEED,
    VARIANTS_PER_FACT,
    Item,
    SessionView,
)
from storage import Database
from storage.sessions import (
    LoadedSession,
    SessionHistory,
    create_session,
    respondent_history,
    stored_item_ids,
)


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
    retired: set[str] = field(default_factory=set)  # items a reviewer retired: never asked


def _entries(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    items = config.get("items", [])
    return [dict(e) for e in items if isinstance(e, Mapping) and isinstance(e.get("id"), str)]


def _history(db: Database, respondent_id: int, kb_name: str) -> _History:
    """What the student has answered in ``kb_name``, fact by fact, leaving out exams that are
    still sealed (:mod:`quizbot.practice.sealed`): an open exam's misses are not reviewed, its
    facts not ranked by how they went, until its last answer."""
    return _history_of(respondent_history(db, respondent_id, kb_name=kb_name))


def _history_of(past_sessions: Sequence[SessionHistory]) -> _History:
    """:func:`_history` from the sessions of one KB as already read."""
    history = _History()
    sealed = sealed_in_history(past_sessions)
    for past in past_sessions:
        session_id = past.session.id or 0
        if session_id in sealed:
            continue
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
    return _kb_cache(kb).fact_key(t)


class _KbCache:
    """What planning derives from one knowledge base alone, computed once per process.

    A session start used to rebuild all of it: the negative-candidate pool behind every
    statement's false tail (about 20 ms for clinical-core), every candidate's point id (a
    sha256 each) and the candidate list. None of it depends on the student or the session's
    seed: the negative of a fact is drawn with :data:`CANONICAL_SEED` from the fact alone
    (:mod:`quizbot.generate.negatives`), so a plan cached per fact is the plan
    :func:`quizbot.generate.statements.plan_points` would make, whatever else is planned.
    """

    def __init__(self, kb: KnowledgeBaseData) -> None:
        self.kb = kb
        self._keys: dict[tuple[str, str, str], str] = {}
        self._digits: dict[tuple[str, str, str], bytes] = {}
        self._plans: dict[int, PointPlan] = {}  # by id() of a triplet of self.kb
        self._sampler: NegativeSampler | None = None
        self._candidates: tuple[Triplet, ...] | None = None
        self._own: set[int] = set()
        self._fingerprint: str | None = None
        self._lock = threading.Lock()  # the pool's caches are not safe to share unlocked

    def fact_key(self, t: Triplet) -> str:
        """The knowledge point id of ``t`` (:func:`quizbot.kb.model.point_id`), memoised."""
        triple = (t.relation, t.head, t.tail)
        key = self._keys.get(triple)
        if key is None:
            key = self._keys[triple] = point_id(self.kb.name, t.relation, t.head, t.tail)
        return key

    def point_digits(self, t: Triplet) -> bytes:
        """The 16 hex digits of :meth:`fact_key` as bytes, memoised: what a seeded order
        (:func:`quizbot.generate.points.stratified`) hashes, so a start hashes each candidate
        once (with its seed) instead of twice."""
        triple = (t.relation, t.head, t.tail)
        digits = self._digits.get(triple)
        if digits is None:
            digits = self._digits[triple] = self.fact_key(t)[4:].encode()
        return digits

    def fingerprint(self) -> str:
        """A digest of everything of the KB a session's plan may read (its facts, relations,
        reviewers' truths and falsehoods, lexicon, meta), computed once: two KBs with the
        same fingerprint plan the same sessions."""
        with self._lock:
            if self._fingerprint is None:
                kb, lex = self.kb, self.kb.lexicon
                parts = (
                    kb.name,
                    kb.version,
                    kb.source,
                    [
                        (
                            t.head,
                            t.relation,
                            t.tail,
                            t.head_ref,
                            t.tail_ref,
                            t.group,
                            sorted(t.meta.items()),
                        )
                        for t in kb.triplets
                    ],
                    sorted(
                        (r.name, r.label, r.head_type, r.tail_type) for r in kb.relations.values()
                    ),
                    sorted(kb.extra_truths),
                    sorted(kb.reviewed_false),
                    json.dumps(kb.meta, sort_keys=True, default=str),
                    [
                        sorted(m.items())
                        for m in (
                            lex.synonyms,
                            lex.parents,
                            lex.classes,
                            lex.components,
                            lex.head_groups,
                        )
                    ],
                    sorted(lex.generic),
                    type(kb.oracle).__qualname__,
                )
                self._fingerprint = hashlib.sha256(repr(parts).encode()).hexdigest()
            return self._fingerprint

    def candidates(self) -> tuple[Triplet, ...]:
        """:func:`quizbot.generate.points.candidate_points` of the KB."""
        if self._candidates is None:
            self._candidates = tuple(candidate_points(self.kb))
        return self._candidates

    def plans(self, facts: Sequence[Triplet]) -> list[PointPlan]:
        """``plan_points(kb, facts, CANONICAL_SEED)``, each of the KB's facts planned once."""
        with self._lock:
            if self._sampler is None:
                self._sampler = NegativeSampler(self.kb, CANONICAL_SEED)
                self._own = {id(t) for t in self.kb.triplets}  # alive as long as self.kb
            out: list[PointPlan] = []
            for fact in facts:
                plan = self._plans.get(id(fact))
                if plan is None or plan.fact is not fact:
                    plan = plan_for(self._sampler, fact)
                    if id(fact) in self._own:  # a triplet of self.kb: its id stays its own
                        self._plans[id(fact)] = plan
                out.append(plan)
            return out


_KB_CACHES: OrderedDict[tuple[object, ...], _KbCache] = OrderedDict()
# id(kb) -> (kb, its cache): the usual lookup, by the very object (held, so its id stays its own)
_BY_OBJECT: OrderedDict[int, tuple[KnowledgeBaseData, _KbCache]] = OrderedDict()
_KB_CACHES_LOCK = threading.Lock()
_MAX_KB_CACHES = 4
_MAX_KB_OBJECTS = 16


def _kb_cache(kb: KnowledgeBaseData) -> _KbCache:
    """The :class:`_KbCache` of ``kb``.

    Keyed by what planning depends on, by identity: the triplet objects themselves (in order),
    the truths and reviewed falsehoods that reviewers' overrides add, the oracle, lexicon,
    relations and meta. :func:`quizbot.kb.overrides.apply_overrides` returns a new object at
    every load of a KB with overrides, but made of the built-in's own triplet objects, so equal
    corrections share one entry; the built-ins are loaded once per process. A KB read from the
    database is made of new triplets at every load and gets a new entry (at most
    :data:`_MAX_KB_CACHES` are kept). Entries hold their KB, so the ids in a key stay its own.
    """
    with _KB_CACHES_LOCK:
        seen = _BY_OBJECT.get(id(kb))
        if seen is not None and seen[0] is kb:
            _BY_OBJECT.move_to_end(id(kb))
            return seen[1]
        key = (
            kb.name,
            kb.version,
            tuple(map(id, kb.triplets)),
            kb.extra_truths,
            kb.reviewed_false,
            id(kb.oracle),
            id(kb.lexicon),
            id(kb.relations),
            id(kb.meta),
        )
        entry = _KB_CACHES.get(key)
        if entry is None:
            entry = _KB_CACHES[key] = _KbCache(kb)
            while len(_KB_CACHES) > _MAX_KB_CACHES:
                _KB_CACHES.popitem(last=False)
        else:
            _KB_CACHES.move_to_end(key)
        _BY_OBJECT[id(kb)] = (kb, entry)
        while len(_BY_OBJECT) > _MAX_KB_OBJECTS:
            _BY_OBJECT.popitem(last=False)
        return entry


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
    facts: Iterable[Triplet],
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
    the items the student missed are never picked; retired items never are.
    """
    if n <= 0:
        return []
    chosen = list(itertools.islice(facts, math.ceil(n / VARIANTS_PER_FACT)))  # read no further
    if not chosen:
        return []
    protos = default_prototypes()
    n_facts = len(chosen)
    per_fact = min(cap, math.ceil(n / n_facts))
    by_fact: dict[str, list[StatementItem]] = defaultdict(list)
    for made in statements(kb, _kb_cache(kb).plans(chosen), protos):
        by_fact[made.fact_id].append(made)
    taken: set[str] = set(history.missed_items) if review else set()
    taken |= history.retired
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
    facts: Iterable[Triplet],
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
    wanted = None if review else 3 * n + 10  # some facts have too few safe distractors
    for fact in facts:
        firsts.setdefault((fact.head, fact.relation), fact)
        if wanted is not None and len(firsts) >= wanted:
            break  # the rest would never be asked: facts are read no further
    pending = list(firsts.values())
    found: dict[tuple[str, str], ChoiceItem] = {}
    for seed in (CANONICAL_SEED, *_REVIEW_SEEDS) if review else (CANONICAL_SEED,):
        if not pending:
            break
        for question in choice_questions(kb, pending, seed=seed):
            if question.id in history.retired:
                continue
            if not (review and question.id in history.missed_items):
                found.setdefault((question.head, question.relation), question)
        pending = [f for f in pending if (f.head, f.relation) not in found]
    planned = [_Planned(found[key], fact) for key, fact in firsts.items() if key in found]
    return planned[:n]


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
        assignment=config.get("assignment"),
        mode=config.get("mode"),
    )


def _session_config(
    kb_data: KnowledgeBaseData, planned: Sequence[_Planned], config: dict[str, Any]
) -> dict[str, Any]:
    """The config a session of ``planned`` is recorded with: ``config`` with the items (their
    facts, relations and systems) and the labels of their topics and relations."""
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
    return {
        **config,
        "items": entries,
        "labels": labels,
        "relation_labels": {
            r: _relation_label(kb_data, r) for r in sorted({p.fact.relation for p in planned})
        },
    }


def _store_planned_items(
    db: Database, kb_data: KnowledgeBaseData, kb_id: int, planned: Sequence[_Planned]
) -> None:
    """Store the planned items not stored yet (usually none: the canonical items are stored
    once and asked again)."""
    stored = stored_item_ids(db, [p.item.id for p in planned])
    new_items = [p.item for p in planned if p.item.id not in stored]
    if new_items:
        store_items(db, kb_data, kb_id, new_items)


def _record_plan(
    db: Database,
    kb_data: KnowledgeBaseData,
    kb_id: int,
    respondent: Respondent,
    planned: Sequence[_Planned],
    config: dict[str, Any],
) -> SessionView:
    """Store the planned items and record the session (``config`` gets the items and labels)."""
    return _view(_record_loaded(db, kb_data, kb_id, respondent, planned, config))


def _record_loaded(
    db: Database,
    kb_data: KnowledgeBaseData,
    kb_id: int,
    respondent: Respondent,
    planned: Sequence[_Planned],
    config: dict[str, Any],
) -> LoadedSession:
    """:func:`_record_plan`, returning the session as :func:`storage.sessions.load_session`
    would read it back (no answers yet)."""
    assert respondent.id is not None
    _store_planned_items(db, kb_data, kb_id, planned)
    full = _session_config(kb_data, planned, config)
    row = create_session(db, respondent_id=respondent.id, kb_name=kb_data.name, config=full)
    assert row.id is not None
    return LoadedSession(row, respondent, [])
