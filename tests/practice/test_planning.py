"""Which variants of a fact a student is asked: the rules, checked on the planner itself.

Two rules that once broke without any test noticing: the second variant of a fact comes from the
other side (the true triplet's statements vs its false counterpart's), and variants the student
has never been shown come first.
"""

from __future__ import annotations

import dataclasses

from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.statements import plan_points, statements
from quizbot.items import StatementItem
from quizbot.kb.clinical import load_clinical_core
from quizbot.practice.facts import _kb_cache, _pick_variants
from quizbot.practice.views import CANONICAL_SEED

KEYS = [f"student-{n}" for n in range(40)]


def _variants() -> list[StatementItem]:
    kb = load_clinical_core()
    fact = next(t for t in kb.triplets if t.relation == "has_symptom")
    made = list(statements(kb, plan_points(kb, [fact], "0"), default_prototypes()))
    assert len(made) == 16 and len({v.polarity for v in made}) == 2
    return made


def test_the_second_variant_comes_from_the_other_side() -> None:
    variants = _variants()
    for key in KEYS:
        first, second = _pick_variants(variants, 2, key, avoid=set(), seen=set())
        assert first.polarity != second.polarity, key


def test_within_a_side_a_new_transform_is_preferred() -> None:
    variants = _variants()
    for key in KEYS:
        picked = _pick_variants(variants, 4, key, avoid=set(), seen=set())
        assert len({(v.polarity, v.transform) for v in picked}) == 4
        assert len({v.transform for v in picked}) >= 2, key


def test_variants_never_shown_come_first() -> None:
    variants = _variants()
    by_side: dict[object, list[StatementItem]] = {}
    for v in variants:
        by_side.setdefault(v.polarity, []).append(v)
    for key in KEYS:
        # One unseen variant per side, with different transforms (the other-side and
        # new-transform rules then agree with this one); everything else was shown before.
        first, other = by_side.values()
        n = len(key) % len(first)
        fresh = {first[n].id, next(v.id for v in other if v.transform != first[n].transform)}
        seen = {v.id for v in variants} - fresh
        picked = _pick_variants(variants, 2, key, avoid=set(), seen=seen)
        assert {v.id for v in picked} == fresh, key


def test_avoided_variants_are_never_picked() -> None:
    variants = _variants()
    avoid = {v.id for v in variants[:12]}
    picked = _pick_variants(variants, 8, "k", avoid=avoid, seen=set())
    assert {v.id for v in picked} == {v.id for v in variants[12:]}


def test_the_kb_cache_plans_what_plan_points_plans_whatever_else_is_planned() -> None:
    kb = load_clinical_core()
    pool = [t for t in kb.triplets if default_prototypes().covers(t.relation)]
    subsets = [pool[:40], pool[25:65][::-1], pool[::97], pool[:40]]  # overlaps, reversed, again
    cache = _kb_cache(kb)
    for facts in subsets:
        assert cache.plans(facts) == plan_points(kb, facts, CANONICAL_SEED)
    assert _kb_cache(kb) is cache  # one entry per KB object for the life of the process


def test_a_kb_corrected_by_overrides_gets_its_own_cache() -> None:
    kb = load_clinical_core()
    fact = next(t for t in kb.triplets if t.relation == "has_symptom")
    plain = _kb_cache(kb).plans([fact])[0]
    assert plain.negative_tail is not None
    # A reviewer marks the drawn negative true: it may no longer be offered as false.
    marked = dataclasses.replace(
        kb, extra_truths=kb.extra_truths | {(fact.head, fact.relation, plain.negative_tail)}
    )
    corrected = _kb_cache(marked).plans([fact])[0]
    assert _kb_cache(marked) is not _kb_cache(kb)
    assert corrected == plan_points(marked, [fact], CANONICAL_SEED)[0]
    assert corrected.negative_tail != plain.negative_tail


def test_equal_corrections_of_a_kb_share_one_cache() -> None:
    kb = load_clinical_core()
    fact = next(t for t in kb.triplets if t.relation == "has_symptom")
    truth = (fact.head, fact.relation, "a tail reviewed true")
    # apply_overrides makes a new object at every load, from the same triplet objects
    first = dataclasses.replace(kb, extra_truths=kb.extra_truths | {truth})
    again = dataclasses.replace(kb, extra_truths=kb.extra_truths | {truth})
    assert first is not again
    assert _kb_cache(first) is _kb_cache(again)
    fewer = dataclasses.replace(kb, triplets=tuple(t for t in kb.triplets if t is not fact))
    assert _kb_cache(fewer) is not _kb_cache(kb)
    assert fact not in _kb_cache(fewer).candidates()
