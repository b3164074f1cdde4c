"""The truth check: names, synonyms, hierarchy, drug classes, products, generic names, extras."""

from __future__ import annotations

import pytest

from quizbot.kb.knowledge import Knowledge, entity_key
from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

RELATIONS = {
    r: Relation(r, r, "disease", "thing")
    for r in ("has_symptom", "affects_site", "treated_with_drug", "treated_with_procedure")
}


def _knowledge(
    triplets: list[Triplet],
    lexicon: Lexicon | None = None,
    extra: frozenset[tuple[str, str, str]] = frozenset(),
) -> Knowledge:
    kb = KnowledgeBaseData(
        "t",
        "1",
        "test",
        RELATIONS,
        tuple(triplets),
        lexicon=lexicon or Lexicon(),
        extra_truths=extra,
    )
    return Knowledge(kb)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The Kidneys", "kidney"),
        ("Crohn's disease", "crohns disease"),
        ("beta-blocker", "Beta blockers"),
        ("an ulcer", "ulcers"),
    ],
)
def test_entity_keys_fold_case_articles_separators_and_plurals(a: str, b: str) -> None:
    assert entity_key(a) == entity_key(b)


@pytest.mark.parametrize(("a", "b"), [("abscess", "absces"), ("stenosis", "stenosi")])
def test_entity_keys_keep_an_s_that_is_no_plural(a: str, b: str) -> None:
    assert entity_key(a) != entity_key(b)


def test_a_synonym_of_a_true_tail_is_listed() -> None:
    k = _knowledge(
        [Triplet("urolithiasis", "has_symptom", "inability to lie still")],
        Lexicon(synonyms={"inability to lie still": ("restlessness",)}),
    )
    assert k.conflict("urolithiasis", "has_symptom", "Restlessness") == "listed"
    assert k.conflict("urolithiasis", "has_symptom", "haematuria") is None


def test_synonym_groups_chain_into_one_entity() -> None:
    k = _knowledge([], Lexicon(synonyms={"a": ("b",), "c": ("b",), "d": ("e",)}))
    assert k.same("a", "c")
    assert not k.same("a", "d")


def test_parts_and_wholes_of_a_true_site_are_unsafe_siblings_are_not() -> None:
    lexicon = Lexicon(
        parents={
            "glomeruli": ("kidneys",),
            "renal pelvis": ("kidneys",),
            "kidneys": ("urinary tract",),
        }
    )
    k = _knowledge([Triplet("lupus nephritis", "affects_site", "glomeruli")], lexicon)
    assert (
        k.conflict("lupus nephritis", "affects_site", "kidneys") == "whole or class of a true tail"
    )
    assert k.conflict("lupus nephritis", "affects_site", "urinary tract") == (
        "whole or class of a true tail"
    )
    assert k.conflict("lupus nephritis", "affects_site", "renal pelvis") is None
    k = _knowledge([Triplet("SLE", "affects_site", "kidneys")], lexicon)
    assert k.conflict("SLE", "affects_site", "glomeruli") == "part or kind of a true tail"


def test_a_drug_of_the_same_class_as_a_true_drug_is_unsafe() -> None:
    lexicon = Lexicon(
        classes={
            "ramipril": ("ACE inhibitor",),
            "lisinopril": ("ACE inhibitor",),
            "metformin": ("biguanide",),
        }
    )
    k = _knowledge([Triplet("hypertension", "treated_with_drug", "ramipril")], lexicon)
    assert k.conflict("hypertension", "treated_with_drug", "lisinopril") == "same drug class"
    assert k.conflict("hypertension", "treated_with_drug", "ACE inhibitors") == (
        "whole or class of a true tail"
    )
    assert k.conflict("hypertension", "treated_with_drug", "metformin") is None


def test_combination_products_and_their_ingredients_are_unsafe_both_ways() -> None:
    lexicon = Lexicon(components={"co-amoxiclav": ("amoxicillin", "clavulanic acid")})
    k = _knowledge([Triplet("otitis media", "treated_with_drug", "amoxicillin")], lexicon)
    assert k.conflict("otitis media", "treated_with_drug", "co-amoxiclav") == (
        "part or kind of a true tail"
    )
    k = _knowledge([Triplet("bite wound", "treated_with_drug", "co-amoxiclav")], lexicon)
    assert k.conflict("bite wound", "treated_with_drug", "amoxicillin") == (
        "whole or class of a true tail"
    )


def test_generic_names_and_extra_truths_are_never_safe() -> None:
    k = _knowledge(
        [Triplet("prostate cancer", "treated_with_drug", "bicalutamide")],
        Lexicon(generic=frozenset({"surgical excision"})),
        extra=frozenset({("prostate cancer", "treated_with_drug", "denosumab")}),
    )
    assert k.conflict("anything", "treated_with_procedure", "Surgical excision") == "generic"
    assert k.conflict("prostate cancer", "treated_with_drug", "denosumab") == "listed"


def test_truth_under_another_relation_counts() -> None:
    k = _knowledge([Triplet("gout", "affects_site", "first metatarsophalangeal joint")])
    assert k.conflict("gout", "has_symptom", "First metatarsophalangeal joints") == "listed"


def test_groups_include_the_lexicons_extra_systems() -> None:
    k = _knowledge(
        [Triplet("SLE", "has_symptom", "malar rash", group="rheum")],
        Lexicon(head_groups={"SLE": ("renal", "skin")}),
    )
    assert k.groups("SLE") == {"rheum", "renal", "skin"}


def test_the_oracle_vetoes() -> None:
    class NoToFingers:
        def plausibly_true(self, head: str, relation: str, tail: str) -> bool:
            return tail == "fingers"

    kb = KnowledgeBaseData("t", "1", "test", RELATIONS, (), oracle=NoToFingers())
    assert Knowledge(kb).conflict("x", "affects_site", "fingers") == "oracle"
