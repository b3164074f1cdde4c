"""Which variants of a fact a student is asked: the rules, checked on the planner itself.

Two rules that once broke without any test noticing: the second variant of a fact comes from the
other side (the true triplet's statements vs its false counterpart's), and variants the student
has never been shown come first.
"""

from __future__ import annotations

from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.statements import plan_points, statements
from quizbot.items import StatementItem
from quizbot.kb.clinical import load_clinical_core
from quizbot.practice.planning import _pick_variants

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
