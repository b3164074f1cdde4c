"""Point selection and rotating subsets: deterministic, stratified, anchors fixed."""

from __future__ import annotations

from collections import Counter
from datetime import date

import pytest

from quizbot.generate.points import candidate_points, select, stratified
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet


def test_anchors_are_shared_and_the_rotation_changes_by_date() -> None:
    kb = load_clinical_core()
    nights = [select(kb, date(2026, 11, d), size=25, anchor_size=6) for d in (1, 2, 3)]
    assert all(n.anchors == nights[0].anchors for n in nights)
    assert len(nights[0].anchors) == 6 and len(nights[0].rotating) == 19
    for night in nights:
        assert not set(night.anchors) & set(night.rotating)
    assert nights[0].rotating != nights[1].rotating != nights[2].rotating
    assert select(kb, date(2026, 11, 2), 25, 6) == nights[1]  # same inputs, same subset
    assert select(kb, "2026-11-02", 25, 6) == nights[1]  # a date or its ISO string


def test_selection_is_stratified_by_relation() -> None:
    kb = load_clinical_core()
    subset = select(kb, 42, size=50, anchor_size=10)
    counts = Counter(t.relation for t in subset.points)
    assert set(counts) == set(kb.relations)
    assert max(counts.values()) - min(counts.values()) <= 2
    only = select(kb, 42, size=10, anchor_size=0, relations=["prevents"])
    assert {t.relation for t in only.points} == {"prevents"}


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="anchor_size"):
        select(load_clinical_core(), 1, size=3, anchor_size=5)


def test_only_primary_gold_tails_are_points() -> None:
    rel = {"r": Relation("r", "r", "a", "b")}
    kb = KnowledgeBaseData(
        "k", "1", "test", rel,
        (
            Triplet("h", "r", "first", meta={"primary": True}),
            Triplet("h", "r", "second", meta={"primary": False}),
            Triplet("g", "r", "only"),
        ),
    )  # fmt: skip
    assert [t.tail for t in candidate_points(kb)] == ["first", "only"]


def test_stratified_order_depends_only_on_the_key() -> None:
    kb = load_clinical_core()
    pool = list(kb.triplets)
    assert stratified(kb.name, pool, "a") == stratified(kb.name, list(reversed(pool)), "a")
    assert stratified(kb.name, pool, "a") != stratified(kb.name, pool, "b")


def test_the_prefix_hashing_ranker_is_the_point_id_rank() -> None:
    from quizbot.generate.points import _rank, _ranker

    kb = load_clinical_core()
    for key in ("seed\x1f0", "anchor\x1fhas_symptom", ""):
        rank = _ranker(key, kb.name)
        assert all(rank(t) == _rank(key, t, kb.name) for t in kb.triplets[:500])


@pytest.mark.parametrize("limit", [0, 1, 7, 30, 500, 5000])
def test_a_limited_order_is_the_head_of_the_full_one(limit: int) -> None:
    kb = load_clinical_core()
    pool = candidate_points(kb)
    full = stratified(kb.name, pool, "seed\x1f3")
    assert stratified(kb.name, pool, "seed\x1f3", limit=limit) == full[:limit]


def test_an_order_from_known_point_ids_is_the_same_order() -> None:
    """Planning passes the point ids it has cached (``point_digits``); the order must not move."""
    from quizbot.kb.model import point_id

    kb = load_clinical_core()
    pool = candidate_points(kb)

    def digits(t: Triplet) -> bytes:
        return point_id(kb.name, t.relation, t.head, t.tail)[4:].encode()

    for key in ("practice\x1fa1", "review\x1f0f3c"):
        assert stratified(kb.name, pool, key, point_digits=digits) == stratified(kb.name, pool, key)
