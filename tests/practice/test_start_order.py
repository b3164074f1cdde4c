"""A session start's seeded order of facts, computed only as far as the plan reads it (issue 32).

The order is the one it always was: relations round robin (:func:`stratified`), each round's
relations shuffled with the session's seed (:func:`_interleaved`), then never-answered facts
first, not mastered next, mastered last (a stable sort). A start used to compute all of it for
every one of clinical-core's ~4,900 facts to ask ten; it now reads a few rounds. These tests
compare the lazy order and the plans made from it with the eager ones, over the whole KB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from quizbot.generate.points import stratified, stratified_rounds
from quizbot.kb.model import KnowledgeBaseData, Triplet
from quizbot.kb.registry import load_builtin
from quizbot.practice import planning
from quizbot.practice.facts import _FactRecord, _History, _kb_cache
from quizbot.practice.planning import (
    _interleaved,
    _plan,
    _practice_order,
    _Replayable,
    start_session,
)
from storage import Database


@pytest.fixture(scope="module")
def kb() -> KnowledgeBaseData:
    return load_builtin("clinical-core")


def _tiers(kb: KnowledgeBaseData, every: int) -> tuple[_History, Callable[[Triplet], int]]:
    """A history answering every ``every``-th fact, a third of those mastered, and its tiers."""
    cache = _kb_cache(kb)
    history = _History()
    for k, t in enumerate(cache.candidates()):
        if k % every == 0:
            right = 2 if k % 3 == 0 else 1
            history.facts[cache.fact_key(t)] = _FactRecord(n_correct=right, n_answers=2)

    def tier(t: Triplet) -> int:
        record = history.facts.get(cache.fact_key(t))
        return 0 if record is None else (2 if record.mastered else 1)

    return history, tier


def _eager(kb: KnowledgeBaseData, pool: Any, seed: str, tier: Any) -> list[Triplet]:
    cache = _kb_cache(kb)
    key = f"practice\x1f{seed}"
    ordered = _interleaved(stratified(kb.name, pool, key, point_digits=cache.point_digits), seed)
    return sorted(ordered, key=tier)


def _lazy(kb: KnowledgeBaseData, pool: Any, seed: str, tier: Any) -> Iterator[Triplet]:
    cache = _kb_cache(kb)
    key = f"practice\x1f{seed}"
    rounds = stratified_rounds(kb.name, pool, key, point_digits=cache.point_digits)
    return _practice_order(rounds, seed, tier)


def test_the_rounds_joined_are_the_stratified_order(kb: KnowledgeBaseData) -> None:
    pool = list(_kb_cache(kb).candidates())
    for key in ("a", "practice\x1f0badcafe"):
        rounds = list(stratified_rounds(kb.name, pool, key))
        assert [t for r in rounds for t in r] == stratified(kb.name, pool, key)
        assert len(rounds[0]) == len({t.relation for t in pool})


@pytest.mark.parametrize("every", [1, 2, 7, 10**6])  # all answered ... none answered
def test_the_lazy_order_is_the_eager_one_over_the_whole_kb(
    kb: KnowledgeBaseData, every: int
) -> None:
    _, tier = _tiers(kb, every)
    pool = list(_kb_cache(kb).candidates())
    topic = [t for t in pool if t.group == "cardiovascular"]
    for seed in ("s1", "0badcafe", "zz"):
        assert list(_lazy(kb, pool, seed, tier)) == _eager(kb, pool, seed, tier)
        assert list(_lazy(kb, topic, seed, tier)) == _eager(kb, topic, seed, tier)


@pytest.mark.parametrize("fmt", ["statement", "choice", "mixed"])
def test_a_plan_from_the_lazy_order_is_the_plan_from_the_eager_one(
    kb: KnowledgeBaseData, fmt: str
) -> None:
    pool = list(_kb_cache(kb).candidates())
    for every, seed, length in ((3, "p1", 10), (1, "p2", 25), (10**6, "p3", 4)):
        history, tier = _tiers(kb, every)
        eager = _plan(
            kb, _eager(kb, pool, seed, tier), fmt, length, seed=seed, review=False,
            history=history,
        )  # fmt: skip
        lazy = _plan(
            kb, _Replayable(_lazy(kb, pool, seed, tier)), fmt, length, seed=seed, review=False,
            history=history,
        )  # fmt: skip
        assert [p.item.id for p in lazy] == [p.item.id for p in eager]
        assert len(lazy) == length


def test_a_start_reads_a_few_rounds_of_the_order(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten statements from ~4,900 facts: the order is read for a few dozen, not all of it."""
    read: list[int] = []
    original = planning._practice_order

    def counted(*args: Any) -> Iterator[Triplet]:
        for n, fact in enumerate(original(*args), 1):
            read.append(n)
            yield fact

    monkeypatch.setattr(planning, "_practice_order", counted)
    for fmt in ("statement", "choice", "mixed"):
        read.clear()
        view = start_session(db, student="lazy", format=fmt, length=10, seed=f"l-{fmt}")
        assert view.total == 10
        assert 10 <= len(read) <= 200, (fmt, len(read))
