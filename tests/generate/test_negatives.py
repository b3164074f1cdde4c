"""Negative sampling: never a known-true tail, right type, other organ system, deterministic."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from quizbot.generate.candidates import DIFFICULTIES, Candidate
from quizbot.generate.negatives import NegativeSampler
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

REL = {"has_symptom": Relation("has_symptom", "has symptom", "disease", "symptom")}


def _kb(triplets: list[Triplet], oracle: object = None) -> KnowledgeBaseData:
    return KnowledgeBaseData("t", "1", "test", REL, tuple(triplets), oracle=oracle)  # type: ignore[arg-type]


def _clinical_truths() -> tuple[
    dict[str, set[str]], dict[str, set[str]], dict[tuple[str, str], set[str]]
]:
    """What is true of each head (listed or extra), each relation's tails, each tail's systems.

    A tail's systems are every system of every disease it is listed for (a multi-system disease
    has several, from the lexicon).
    """
    kb = load_clinical_core()
    systems = Knowledge(kb).groups
    true_for: dict[str, set[str]] = defaultdict(set)
    tails_of: dict[str, set[str]] = defaultdict(set)
    systems_of_tail: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in kb.triplets:
        true_for[t.head].add(t.tail.casefold())
        tails_of[t.relation].add(t.tail)
        systems_of_tail[(t.relation, t.tail)] |= systems(t.head)
    for head, _relation, tail in kb.extra_truths:
        true_for[head].add(tail.casefold())
    return true_for, tails_of, systems_of_tail


def test_clinical_core_distant_negatives_are_never_true_and_come_from_other_systems() -> None:
    kb = load_clinical_core()
    true_for, tails_of, systems_of_tail = _clinical_truths()
    systems = Knowledge(kb).groups
    sampler = NegativeSampler(kb, seed=7, difficulty="distant")
    other_system = total_grouped = 0
    for t in kb.triplets:
        chosen = sampler.choose(t)
        assert chosen is not None, t
        assert chosen.tail.casefold() not in true_for[t.head], (t, chosen)  # false everywhere
        assert chosen.tail in tails_of[t.relation]  # right type: a tail of the same relation
        if t.group:
            away = not systems(t.head) & systems_of_tail[(t.relation, chosen.tail)]
            assert chosen.tier.startswith("other group") == away, (t, chosen)
            if t.relation != "typical_age_group":
                total_grouped += 1
                other_system += away
    # clinical-core almost always has an other-system candidate, even for multi-system diseases;
    # not for age groups, each listed for diseases of many systems (an organ system says nothing
    # about an age group, so none is "distant")
    assert other_system / total_grouped > 0.99, (other_system, total_grouped)


def test_clinical_core_plausible_negatives_say_where_they_come_from() -> None:
    kb = load_clinical_core()
    true_for, _tails_of, systems_of_tail = _clinical_truths()
    knowledge = Knowledge(kb)
    sampler = NegativeSampler(kb, seed=7)  # plausible is the default
    for t in kb.triplets:
        chosen = sampler.choose(t)
        assert chosen is not None, t
        assert chosen.tail.casefold() not in true_for[t.head], (t, chosen)
        if t.group:
            groups = knowledge.groups(t.head)
            within = bool(groups & systems_of_tail[(t.relation, chosen.tail)])
            assert chosen.tier.startswith("same group") == within, (t, chosen)
            reviewed = (t.head, t.relation, chosen.tail) in kb.reviewed_false
            assert chosen.tier.endswith(", reviewed") == reviewed, (t, chosen)


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


def test_difficulty_orders_same_and_other_group_tails() -> None:
    triplets = [
        Triplet("asthma", "has_symptom", "wheeze", group="resp"),
        Triplet("copd", "has_symptom", "sputum", group="resp"),
    ]
    # Only a same-group tail exists: it is used rather than nothing, whatever the difficulty.
    assert NegativeSampler(_kb(triplets), difficulty="distant").negative(triplets[0]) == "sputum"
    triplets.append(Triplet("eczema", "has_symptom", "itch", group="skin"))
    reviewed = frozenset({("asthma", "has_symptom", "sputum")})
    for seed in range(20):
        # unreviewed, a same-group tail comes after the other groups' at either difficulty
        for difficulty in DIFFICULTIES:
            chosen = NegativeSampler(_kb(triplets), seed, difficulty=difficulty).choose(triplets[0])
            assert chosen == Candidate("itch", "other group")
        # reviewed false by a clinician, it comes first when plausible options are wanted
        kb = replace(_kb(triplets), reviewed_false=reviewed)
        plausible = NegativeSampler(kb, seed).choose(triplets[0])
        distant = NegativeSampler(kb, seed, difficulty="distant").choose(triplets[0])
        assert plausible == Candidate("sputum", "same group, reviewed")
        assert distant == Candidate("itch", "other group")


def test_close_neighbours_and_common_tails_come_last() -> None:
    triplets = [
        # asthma and copd share the specific "wheeze": copd's "sputum" may be true of asthma.
        Triplet("asthma", "has_symptom", "wheeze", group="resp"),
        Triplet("copd", "has_symptom", "wheeze", group="resp"),
        Triplet("copd", "has_symptom", "sputum", group="resp"),
        Triplet("bronchiectasis", "has_symptom", "clubbing", group="resp"),
        # "fever" is listed for six heads: a common tail.
        *(Triplet(f"infection {i}", "has_symptom", "fever", group="resp") for i in range(6)),
    ]
    for seed in range(20):
        chosen = NegativeSampler(_kb(triplets), seed).choose(triplets[0])
        assert chosen == Candidate("clubbing", "same group"), seed
    # a reviewed risky tail is trusted: the review outranks the suspicion
    kb = replace(_kb(triplets), reviewed_false=frozenset({("asthma", "has_symptom", "sputum")}))
    assert NegativeSampler(kb).choose(triplets[0]) == Candidate("sputum", "same group, reviewed")
    # Without the safe one, the risky ones are used, and labelled so.
    risky = [t for t in triplets if t.tail != "clubbing"]
    chosen = NegativeSampler(_kb(risky)).choose(risky[0])
    assert chosen is not None
    assert chosen.tail in {"sputum", "fever"}
    assert chosen.tier == "same group, close neighbour or common"


def test_lexicon_classes_keep_a_same_class_drug_from_being_a_negative() -> None:
    rel = {"treated_with_drug": Relation("treated_with_drug", "treated", "disease", "drug")}
    triplets = [
        Triplet("hypertension", "treated_with_drug", "ramipril", group="cv"),
        Triplet("heart failure", "treated_with_drug", "lisinopril", group="cv"),
        Triplet("angina", "treated_with_drug", "glyceryl trinitrate", group="cv"),
    ]
    lexicon = Lexicon(classes={"ramipril": ("ACE inhibitor",), "lisinopril": ("ACE inhibitor",)})
    kb = KnowledgeBaseData("t", "1", "test", rel, tuple(triplets), lexicon=lexicon)
    for seed in range(20):
        assert NegativeSampler(kb, seed).negative(triplets[0]) == "glyceryl trinitrate"
    bare = KnowledgeBaseData("t", "1", "test", rel, tuple(triplets))
    assert "lisinopril" in {NegativeSampler(bare, seed).negative(triplets[0]) for seed in range(20)}
