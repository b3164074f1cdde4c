"""Negative sampling: never a known-true tail, right type, other organ system, deterministic."""

from __future__ import annotations

from collections import defaultdict

from quizbot.generate.negatives import NegativeSampler
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet

REL = {"has_symptom": Relation("has_symptom", "has symptom", "disease", "symptom")}


def _kb(triplets: list[Triplet], oracle: object = None) -> KnowledgeBaseData:
    return KnowledgeBaseData("t", "1", "test", REL, tuple(triplets), oracle=oracle)  # type: ignore[arg-type]


def test_clinical_core_negatives_are_never_true_and_come_from_other_systems() -> None:
    kb = load_clinical_core()
    true_for: dict[str, set[str]] = defaultdict(set)
    tails_of: dict[str, set[str]] = defaultdict(set)
    systems_of_tail: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in kb.triplets:
        true_for[t.head].add(t.tail)
        tails_of[t.relation].add(t.tail)
        if t.group:
            systems_of_tail[(t.relation, t.tail)].add(t.group)
    sampler = NegativeSampler(kb, seed=7)
    other_system = total_grouped = 0
    for t in kb.triplets:
        negative = sampler.negative(t)
        assert negative is not None, t
        assert negative not in true_for[t.head], (t, negative)  # false under every relation
        assert negative in tails_of[t.relation]  # right type: a tail of the same relation
        if t.group:
            total_grouped += 1
            other_system += t.group not in systems_of_tail[(t.relation, negative)]
    assert other_system == total_grouped  # clinical-core always has an other-system candidate


def test_a_point_gets_the_same_negative_alone_or_among_others() -> None:
    kb = load_clinical_core()
    everything = NegativeSampler(kb, seed="s")
    some = kb.triplets[100:110]
    again = NegativeSampler(kb, seed="s")
    assert [everything.negative(t) for t in some] == [again.negative(t) for t in some]
    reseeded = NegativeSampler(kb, seed="other")
    assert [everything.negative(t) for t in kb.triplets[:50]] != [
        reseeded.negative(t) for t in kb.triplets[:50]
    ]


def test_the_oracle_vetoes_plausibly_true_tails() -> None:
    triplets = [Triplet("flu", "has_symptom", "fever")] + [
        Triplet(f"d{i}", "has_symptom", f"s{i}") for i in range(5)
    ]

    class BlockAllButS3:
        def plausibly_true(self, head: str, relation: str, tail: str) -> bool:
            return tail != "s3"

    sampler = NegativeSampler(_kb(triplets, BlockAllButS3()))
    assert sampler.negative(triplets[0]) == "s3"


def test_no_safe_tail_means_no_negative() -> None:
    triplets = [Triplet("flu", "has_symptom", "fever"), Triplet("flu", "has_symptom", "cough")]
    assert NegativeSampler(_kb(triplets)).negative(triplets[0]) is None


def test_same_group_tails_are_used_only_when_nothing_else_is_safe() -> None:
    triplets = [
        Triplet("asthma", "has_symptom", "wheeze", group="resp"),
        Triplet("copd", "has_symptom", "sputum", group="resp"),
    ]
    # Only a same-group tail exists: it is used rather than nothing.
    assert NegativeSampler(_kb(triplets)).negative(triplets[0]) == "sputum"
    triplets.append(Triplet("eczema", "has_symptom", "itch", group="skin"))
    for seed in range(20):
        assert NegativeSampler(_kb(triplets), seed).negative(triplets[0]) == "itch"
