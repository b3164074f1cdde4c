"""Candidate tails (quizbot/generate/candidates.py): never the head itself; the reviewed
same-group tier drawn from the head's own organ system first."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from quizbot.generate.candidates import CandidatePool
from quizbot.generate.choice import choice_questions
from quizbot.generate.negatives import NegativeSampler
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

COMPLICATION = "has_complication"
REL = {
    COMPLICATION: Relation(COMPLICATION, "has complication", "disease", "disease"),
    "has_symptom": Relation("has_symptom", "has symptom", "disease", "symptom"),
}


def _kb(
    triplets: list[Triplet],
    *,
    lexicon: Lexicon | None = None,
    reviewed: set[tuple[str, str, str]] | None = None,
) -> KnowledgeBaseData:
    return KnowledgeBaseData(
        "t",
        "1",
        "test",
        REL,
        tuple(triplets),
        lexicon=lexicon if lexicon is not None else Lexicon(),
        reviewed_false=frozenset(reviewed or ()),
    )


# --- the head itself ---------------------------------------------------------------------------


def test_the_head_or_a_synonym_is_never_a_candidate_even_reviewed_false() -> None:
    triplets = [
        Triplet("heart attack", COMPLICATION, "heart failure", group="cardio"),
        Triplet("diabetes", COMPLICATION, "myocardial infarction", group="endo"),
        Triplet("diabetes", COMPLICATION, "Heart Attack", group="endo"),
        Triplet("diabetes", COMPLICATION, "retinopathy", group="endo"),
        Triplet("gout", "has_symptom", "heart attack", group="rheum"),  # another relation
        Triplet("gout", "has_symptom", "joint pain", group="rheum"),
        Triplet("asthma", COMPLICATION, "pneumothorax", group="resp"),
    ]
    lexicon = Lexicon(synonyms={"heart attack": ("myocardial infarction",)})
    # Even a clinician's "false" verdict on "X has complication X" does not make it an option.
    reviewed = {("heart attack", COMPLICATION, "myocardial infarction")}
    kb = _kb(triplets, lexicon=lexicon, reviewed=reviewed)
    pool = CandidatePool(kb)
    for relation in REL:
        for seed in range(20):
            tails = [c.tail for c in pool.ranked("heart attack", relation, str(seed).encode())]
            assert tails, relation
            assert not {"heart attack", "Heart Attack", "myocardial infarction"} & set(tails)
    # the same tails are fine for another head
    offered = {c.tail for c in pool.ranked("asthma", COMPLICATION, b"0")}
    assert {"Heart Attack", "myocardial infarction"} <= offered


def _without_self_truths(kb: KnowledgeBaseData) -> KnowledgeBaseData:
    """clinical-core without the stopgap rows that record "X has complication X" as unsure (r6):
    the generator must not rely on them to keep a disease from being its own complication."""
    knowledge = Knowledge(kb)
    kept = frozenset(t for t in kb.extra_truths if not knowledge.same(t[0], t[2]))
    assert len(kept) < len(kb.extra_truths)  # the stopgap is there to take out
    return replace(kb, extra_truths=kept)


def test_clinical_core_never_offers_a_disease_as_its_own_complication() -> None:
    kb = _without_self_truths(load_clinical_core())
    knowledge = Knowledge(kb)
    pool = CandidatePool(kb, knowledge)
    # Every (head, relation) whose relation lists the head, or a synonym of it, as some tail.
    keys_of: dict[str, set[str]] = defaultdict(set)
    for t in kb.triplets:
        keys_of[t.relation].add(knowledge.key(t.tail))
    exposed = {
        (t.head, t.relation) for t in kb.triplets if knowledge.key(t.head) in keys_of[t.relation]
    }
    # Without the filter these would be offered: the head is "safe" by every other rule.
    assert sum(knowledge.safe(h, r, h) for h, r in exposed) >= 15
    for head, relation in exposed:
        for candidate in pool.ranked(head, relation, b"self"):
            assert not knowledge.same(candidate.tail, head), (head, relation, candidate)
    # ... and so no negative or distractor of the whole KB is its head (seed 11).
    sampler = NegativeSampler(kb, 11, pool=pool)
    for t in kb.triplets:
        chosen = sampler.choose(t)
        assert chosen is None or not knowledge.same(chosen.tail, t.head), (t, chosen)
    for item in choice_questions(kb, kb.triplets, seed=11):
        for tail in item.meta["distractors"]:
            assert not knowledge.same(tail, item.head), (item.head, item.relation, tail)


# --- the head's own organ system first ----------------------------------------------------------


def _multi_system_kb() -> KnowledgeBaseData:
    """Alzheimer's disease (neuro; the lexicon adds obstetrics, as for a multi-system disease):
    one reviewed-false complication listed by a neurological disease, five by obstetric ones, and
    an unreviewed neurological one."""
    triplets = [
        Triplet("alzheimer's disease", COMPLICATION, "aspiration pneumonia", group="neuro"),
        Triplet("stroke", COMPLICATION, "seizures", group="neuro"),
        Triplet("epilepsy", COMPLICATION, "status epilepticus", group="neuro"),
        *(
            Triplet(f"obstetric disease {i}", COMPLICATION, tail, group="obstetric")
            for i, tail in enumerate(
                ["eclampsia", "placental abruption", "preterm birth", "stillbirth", "sepsis"]
            )
        ),
    ]
    reviewed = {
        ("alzheimer's disease", COMPLICATION, tail)
        for tail in ["seizures", "eclampsia", "placental abruption", "preterm birth", "stillbirth"]
    }
    lexicon = Lexicon(head_groups={"alzheimer's disease": ("neuro", "obstetric")})
    return _kb(triplets, lexicon=lexicon, reviewed=reviewed)


def test_reviewed_same_group_tails_of_the_heads_own_system_come_first() -> None:
    kb = _multi_system_kb()
    pool = CandidatePool(kb)
    assert pool.own_groups("alzheimer's disease") == {"neuro"}
    firsts = set()
    for seed in range(30):
        ranked = list(pool.ranked("alzheimer's disease", COMPLICATION, str(seed).encode()))
        tails = [c.tail for c in ranked]
        # own system first, then the rest of the reviewed tier, then the unreviewed tails
        assert tails[0] == "seizures", seed
        obstetric = {"eclampsia", "placental abruption", "preterm birth", "stillbirth"}
        assert set(tails[1:5]) == obstetric
        assert {c.tier for c in ranked[:5]} == {"same group, reviewed"}
        assert "status epilepticus" in tails[5:]
        assert not any(c.tier.endswith("reviewed") for c in ranked[5:])
        # deterministic by seed
        again = list(pool.ranked("alzheimer's disease", COMPLICATION, str(seed).encode()))
        assert again == ranked
        firsts.add(tails[1])
    assert len(firsts) > 1  # the rest of the tier is still drawn at random


def test_negatives_and_distractors_prefer_the_own_system() -> None:
    kb = _multi_system_kb()
    fact = kb.triplets[0]
    for seed in range(30):
        assert NegativeSampler(kb, seed).negative(fact) == "seizures"
        (item,) = choice_questions(kb, [fact], seed=seed, subtypes=("semantic",))
        assert item.meta["distractors"][0] == "seizures"
        assert set(item.meta["distractor_tiers"]) == {"same group, reviewed"}


def test_clinical_core_negatives_come_from_the_own_system_when_a_reviewed_one_is_left() -> None:
    """Whenever a reviewed-false candidate listed by a disease of the head's own system is safe
    (and not the replaced tail), the seed-11 negative is one of those."""
    kb = load_clinical_core()
    knowledge = Knowledge(kb)
    pool = CandidatePool(kb, knowledge)
    reviewed: dict[tuple[str, str], set[str]] = defaultdict(set)
    for head, relation, tail in kb.reviewed_false:
        reviewed[(head, relation)].add(tail)
    sampler = NegativeSampler(kb, 11, pool=pool)
    checked = 0
    for t in kb.triplets:
        own = pool.own_groups(t.head)
        available = {
            tail
            for tail in reviewed[(t.head, t.relation)]
            if pool.listed_by_group(t.relation, own, tail)
            and knowledge.safe(t.head, t.relation, tail)
            and not knowledge.same(tail, t.tail)
            and not knowledge.same(tail, t.head)
        }
        if available:
            chosen = sampler.choose(t)
            assert chosen is not None and chosen.tail in available, (t, chosen)
            checked += 1
    assert checked > 0.9 * len(kb.triplets)
