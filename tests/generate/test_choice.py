"""Multiple-choice generation: safety of distractors, answer keys, wording, bands, determinism."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from quizbot.generate.choice import (
    CHOICE_MAX_CORRECT,
    CHOICE_OPTIONS,
    FREQUENCY_BANDS,
    I_DO_NOT_KNOW,
    MIN_PATIENTS,
    SKIP_DISTRACTORS,
    SKIP_PLAUSIBLE,
    SKIP_STEM,
    choice_questions,
    enough_patients,
    frequency_band,
    question_text,
    stem_names,
)
from quizbot.generate.points import candidate_points, select, stratified
from quizbot.items import ChoiceItem, item_from_json
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet, point_id

LETTERS = "ABCDEFGHIJ"

RELATIONS = {
    r.name: r
    for r in (
        Relation("has_symptom", "has symptom", "disease", "symptom"),
        Relation("affects_site", "affects site", "disease", "anatomical site"),
        Relation("treated_with_drug", "treated with drug", "disease", "drug"),
        Relation("prevents", "prevents", "preventive agent", "disease"),
        Relation("may_be_caused_by", "may be caused by", "disease", "agent"),
        Relation("has_phenotype", "has phenotype", "disease", "phenotype"),
    )
}

# Two organ systems; every symptom and drug belongs to one system only.
DISEASES: dict[str, tuple[str, list[str], list[str]]] = {
    "stable angina": (
        "cardiovascular",
        ["exertional chest pain", "pain relieved by rest"],
        ["glyceryl trinitrate", "atenolol"],
    ),
    "heart failure": (
        "cardiovascular",
        ["ankle oedema", "orthopnoea", "paroxysmal nocturnal dyspnoea"],
        ["furosemide", "ramipril"],
    ),
    "atrial fibrillation": (
        "cardiovascular",
        ["palpitations", "irregularly irregular pulse"],
        ["bisoprolol", "apixaban"],
    ),
    "asthma": (
        "respiratory",
        ["expiratory wheeze", "diurnal variation in peak flow"],
        ["salbutamol", "beclometasone"],
    ),
    "community-acquired pneumonia": (
        "respiratory",
        ["productive cough", "pleuritic chest pain", "bronchial breathing"],
        ["amoxicillin", "clarithromycin"],
    ),
    "pneumothorax": (
        "respiratory",
        ["sudden unilateral chest pain", "hyper-resonant percussion note"],
        ["chest drain insertion"],
    ),
}


def _kb(triplets: Iterable[Triplet], oracle: Any = None, name: str = "mini") -> KnowledgeBaseData:
    return KnowledgeBaseData(
        name=name,
        version="1",
        source="test",
        relations=RELATIONS,
        triplets=tuple(triplets),
        oracle=oracle,
    )


def mini_kb(extra: Sequence[Triplet] = (), oracle: Any = None) -> KnowledgeBaseData:
    """The hand-made two-system KB (plus ``extra`` triplets)."""
    triplets = [
        Triplet(disease, relation, tail, group=system)
        for disease, (system, symptoms, drugs) in DISEASES.items()
        for relation, tails in (("has_symptom", symptoms), ("treated_with_drug", drugs))
        for tail in tails
    ]
    return _kb([*triplets, *extra], oracle)


def truth(kb: KnowledgeBaseData) -> tuple[dict[tuple[str, str], set[str]], dict[str, set[str]]]:
    """From the KB's triplets: (head, relation) -> tails, and head -> any-relation tails."""
    by_pair: dict[tuple[str, str], set[str]] = defaultdict(set)
    by_head: dict[str, set[str]] = defaultdict(set)
    for t in kb.triplets:
        by_pair[(t.head, t.relation)].add(t.tail)
        by_head[t.head].add(t.tail.casefold())
    return by_pair, by_head


def split(item: ChoiceItem) -> tuple[list[str], list[str]]:
    """(correct options, other content options) of a question, by its answer keys."""
    content = item.options[:-1]
    correct = [content[LETTERS.index(k)] for k in item.answer_keys]
    others = [o for o in content if o not in correct]
    return correct, others


def assert_safe(
    kb: KnowledgeBaseData, items: Sequence[ChoiceItem], n_options: int | None = 4
) -> None:
    """Every semantic property checkable from the KB's triplets alone."""
    by_pair, by_head = truth(kb)
    relation_tails: dict[str, set[str]] = defaultdict(set)
    for t in kb.triplets:
        relation_tails[t.relation].add(t.tail)
    for item in items:
        assert item.options[-1] == I_DO_NOT_KNOW
        assert I_DO_NOT_KNOW not in item.options[:-1]
        if n_options is None:  # the default: 5 or 6 options, 1 to 4 of them right
            assert len(item.options) - 1 in CHOICE_OPTIONS
            assert 1 <= len(item.answer_keys) <= CHOICE_MAX_CORRECT
        else:
            assert len(item.options) == n_options + 1
        assert len({o.casefold() for o in item.options}) == len(item.options)
        assert list(item.answer_keys) == sorted(item.answer_keys)
        assert item.answer_keys
        correct, others = split(item)
        assert set(correct) <= by_pair[(item.head, item.relation)]
        assert item.meta["correct_tails"][0] in correct
        assert sorted(item.meta["correct_tails"]) == sorted(correct)
        assert sorted(item.meta["distractors"]) == sorted(others)
        for distractor in others:
            assert distractor.casefold() not in by_head[item.head], (item.head, distractor)
            assert distractor in relation_tails[item.relation]  # same relation, same type
        # the asked fact's point first, like meta["correct_tails"]
        assert item.knowledge_point_ids == tuple(
            point_id(kb.name, item.relation, item.head, c) for c in item.meta["correct_tails"]
        )


def semantic(items: Iterable[ChoiceItem]) -> list[ChoiceItem]:
    return [i for i in items if i.subtype == "semantic"]


def facts_of(kb: KnowledgeBaseData, relation: str | None = None) -> list[Triplet]:
    return [t for t in kb.triplets if relation is None or t.relation == relation]


# --- semantic questions -----------------------------------------------------------------------


def test_mini_kb_questions_are_safe_and_end_with_i_do_not_know() -> None:
    kb = mini_kb()
    for seed in range(10):
        items = choice_questions(kb, facts_of(kb), seed=seed, n_options=4)
        # one question per (head, relation): 6 diseases x 2 relations
        assert len(items) == 12
        assert_safe(kb, items)


def test_one_question_per_head_and_relation_in_fact_order() -> None:
    kb = mini_kb()
    facts = [
        Triplet("asthma", "treated_with_drug", "beclometasone", group="respiratory"),
        Triplet("heart failure", "has_symptom", "orthopnoea", group="cardiovascular"),
        Triplet("asthma", "treated_with_drug", "salbutamol", group="respiratory"),
        Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory"),
    ]
    items = choice_questions(kb, facts, n_options=4)
    assert [(i.head, i.relation) for i in items] == [
        ("asthma", "treated_with_drug"),
        ("heart failure", "has_symptom"),
        ("asthma", "has_symptom"),
    ]
    # the asked fact comes first among the correct tails
    assert items[0].meta["correct_tails"][0] == "beclometasone"
    assert items[1].meta["correct_tails"][0] == "orthopnoea"
    assert items[0].meta["group"] == "respiratory"


def test_distant_distractors_come_from_other_groups_when_enough_exist() -> None:
    kb = mini_kb()
    respiratory_symptoms = {
        s for system, symptoms, _ in DISEASES.values() if system == "respiratory" for s in symptoms
    }
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    used: set[str] = set()
    for seed in range(40):
        (item,) = choice_questions(kb, [fact], seed=seed, difficulty="distant", n_options=4)
        _, others = split(item)
        used.update(others)
        assert set(item.meta["distractor_tiers"]) == {"other group"}
        assert item.meta["difficulty"] == "distant"
    # same-group, false-for-asthma symptoms exist (pneumonia's, pneumothorax's) ...
    assert respiratory_symptoms - set(DISEASES["asthma"][1])
    # ... and none is ever offered, while several cardiovascular ones are
    assert not used & respiratory_symptoms
    assert len(used) >= 4


def test_plausible_distractors_come_from_the_same_group_once_reviewed() -> None:
    respiratory_symptoms = {
        s for system, symptoms, _ in DISEASES.values() if system == "respiratory" for s in symptoms
    }
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    unreviewed = choice_questions(mini_kb(), [fact], max_correct=1, n_options=4)[0]
    assert not set(split(unreviewed)[1]) & respiratory_symptoms  # unreviewed: other systems
    reviewed = frozenset(
        ("asthma", "has_symptom", s) for s in respiratory_symptoms - set(DISEASES["asthma"][1])
    )
    assert len(reviewed) >= 3
    kb = replace(mini_kb(), reviewed_false=reviewed)
    for seed in range(40):
        (item,) = choice_questions(
            kb, [fact], seed=seed, max_correct=1, n_options=4
        )  # plausible: default
        _, others = split(item)
        # a student cannot reject an option by organ system: they are all respiratory
        assert set(others) <= respiratory_symptoms, others
        assert item.meta["distractor_tiers"] == ["same group, reviewed"] * 3


def test_same_group_distractors_only_when_other_groups_run_out() -> None:
    kb = mini_kb()
    fact = Triplet("asthma", "treated_with_drug", "salbutamol", group="respiratory")
    cardio_drugs = {
        d for system, _, drugs in DISEASES.values() if system == "cardiovascular" for d in drugs
    }
    # 9 options, 2 correct: 7 distractors needed, 6 cardiovascular drugs exist -> 1 respiratory
    (item,) = choice_questions(kb, [fact], n_options=9, difficulty="distant")
    assert_safe(kb, [item], n_options=9)
    _, others = split(item)
    assert cardio_drugs <= set(others)
    assert len(set(others) - cardio_drugs) == 1


def test_distractor_never_true_for_the_head_under_another_relation() -> None:
    # "bradycardia" is a symptom of a disease of the other group (so a preferred candidate) but is
    # true of "stable angina" under another relation, which rules it out as a false symptom.
    extra = [
        Triplet("heart block", "has_symptom", "bradycardia", group="respiratory"),
        Triplet("stable angina", "affects_site", "bradycardia", group="cardiovascular"),
    ]
    kb = mini_kb(extra)
    fact = Triplet("stable angina", "has_symptom", "exertional chest pain", group="cardiovascular")
    for seed in range(40):
        items = choice_questions(kb, [fact], seed=seed, n_options=8)
        assert items, seed
        _, others = split(items[0])
        assert "bradycardia" not in others
        assert_safe(kb, items, n_options=8)


def test_distractor_never_case_variant_of_a_true_tail_or_of_another_option() -> None:
    extra = [
        Triplet("heart block", "has_symptom", "Expiratory Wheeze", group="cardiovascular"),
        Triplet("heart block", "has_symptom", "Palpitations", group="cardiovascular"),
    ]
    kb = mini_kb(extra)
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    for seed in range(40):
        items = choice_questions(kb, [fact], seed=seed, max_correct=1, n_options=6)
        assert "Expiratory Wheeze" not in items[0].options
        assert_safe(kb, items, n_options=6)  # options distinct ignoring case


class _Oracle:
    """Calls (head, relation, tail) plausibly true for the listed triples only."""

    def __init__(self, plausible: set[tuple[str, str, str]]) -> None:
        self.plausible = plausible
        self.asked: list[tuple[str, str, str]] = []

    def plausibly_true(self, head: str, relation: str, tail: str) -> bool:
        self.asked.append((head, relation, tail))
        return (head, relation, tail) in self.plausible


def test_oracle_plausible_tails_are_never_distractors() -> None:
    cardio_symptoms = [s for sy, ss, _ in DISEASES.values() if sy == "cardiovascular" for s in ss]
    oracle = _Oracle({("asthma", "has_symptom", "orthopnoea")})
    kb = mini_kb(oracle=oracle)
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    # 9 options, 2 correct: 7 distractors from 7 cardiovascular symptoms, but one is vetoed
    assert len(cardio_symptoms) == 7
    (item,) = choice_questions(kb, [fact], n_options=9)
    assert "orthopnoea" not in item.options
    assert ("asthma", "has_symptom", "orthopnoea") in oracle.asked


def test_too_few_safe_distractors_skips_the_question() -> None:
    kb = _kb(
        [
            Triplet("disease A", "treated_with_drug", "drug a", group="g1"),
            Triplet("disease A", "treated_with_drug", "drug b", group="g1"),
            Triplet("disease B", "treated_with_drug", "drug c", group="g2"),
            Triplet("disease B", "treated_with_drug", "drug d", group="g2"),
            Triplet("disease C", "treated_with_drug", "drug a", group="g2"),
            Triplet("disease C", "treated_with_drug", "drug e", group="g2"),
        ]
    )
    fact = kb.triplets[0]
    # 4 options, 1 correct: needs 3 distractors, only c, d, e are safe
    assert len(choice_questions(kb, [fact], max_correct=1, n_options=4)) == 1
    # 5 options: 4 needed, 3 safe -> skipped, not weakened
    assert choice_questions(kb, [fact], max_correct=1, n_options=5) == []
    # with 2 correct, 3 distractors suffice again for 5 options
    (item,) = choice_questions(kb, [fact], max_correct=2, n_options=5)
    assert sorted(split(item)[1]) == ["drug c", "drug d", "drug e"]


def test_oracle_veto_can_make_a_question_skip() -> None:
    triplets = [
        Triplet("disease A", "treated_with_drug", "drug a", group="g1"),
        Triplet("disease B", "treated_with_drug", "drug b", group="g2"),
        Triplet("disease B", "treated_with_drug", "drug c", group="g2"),
        Triplet("disease B", "treated_with_drug", "drug d", group="g2"),
    ]
    assert len(choice_questions(_kb(triplets), [triplets[0]], n_options=4)) == 1
    oracle = _Oracle({("disease A", "treated_with_drug", "drug c")})
    assert choice_questions(_kb(triplets, oracle), [triplets[0]], n_options=4) == []


def test_two_correct_options_and_plural_wording() -> None:
    kb = mini_kb()
    fact = Triplet("heart failure", "has_symptom", "orthopnoea", group="cardiovascular")
    (two,) = choice_questions(kb, [fact], max_correct=2, n_options=4)
    assert len(two.answer_keys) == 2
    assert two.question == (
        "Which of the following are recognised clinical features of heart failure? "
        "Select all that apply."
    )
    correct, _ = split(two)
    assert correct[0] != correct[1]
    assert set(correct) <= set(DISEASES["heart failure"][1])
    (one,) = choice_questions(kb, [fact], max_correct=1, n_options=4)
    assert one.answer_keys and len(one.answer_keys) == 1
    assert one.question == two.question  # the wording never tells how many options are right
    assert split(one)[0] == ["orthopnoea"]


def test_single_tail_head_gets_one_correct_option_even_with_max_correct_two() -> None:
    kb = mini_kb()
    fact = Triplet(
        "pneumothorax", "treated_with_drug", "chest drain insertion", group="respiratory"
    )
    (item,) = choice_questions(kb, [fact], max_correct=2, n_options=4)
    assert len(item.answer_keys) == 1
    assert item.question == (
        "Which of the following drugs can be used to treat pneumothorax? Select all that apply."
    )


def test_max_correct_three_uses_three_when_available() -> None:
    kb = mini_kb()
    fact = Triplet("heart failure", "has_symptom", "orthopnoea", group="cardiovascular")
    (item,) = choice_questions(kb, [fact], max_correct=3, n_options=5)
    assert sorted(split(item)[0]) == sorted(DISEASES["heart failure"][1])
    assert len(item.options) == 6


def test_question_templates() -> None:
    assert question_text("affects_site", "gout") == "Which of the following sites can gout affect?"
    assert question_text("prevents", "aspirin", plural=True) == (
        "Which of the following can aspirin help to prevent? Select all that apply."
    )
    assert question_text("treated_with_procedure", "appendicitis") == (
        "Which of the following procedures can be used to manage appendicitis?"
    )
    assert question_text("associated_gene", "Marfan syndrome") == (
        "Which of the following genes is associated with Marfan syndrome?"
    )
    assert question_text("has_inheritance", "Marfan syndrome") == (
        "What is a recognised mode of inheritance of Marfan syndrome?"
    )
    assert question_text("has_inheritance", "X", plural=True).endswith("Select all that apply.")


def test_unknown_relation_gets_the_generic_question() -> None:
    extra = [
        Triplet("tetanus", "may_be_caused_by", "Clostridium tetani"),
        Triplet("cholera", "may_be_caused_by", "Vibrio cholerae"),
        Triplet("anthrax", "may_be_caused_by", "Bacillus anthracis"),
        Triplet("syphilis", "may_be_caused_by", "Treponema pallidum"),
    ]
    kb = mini_kb(extra)
    (item,) = choice_questions(kb, [extra[0]], n_options=4)
    assert item.question == (
        "Which of the following are linked to tetanus by the relation 'may be caused by'? "
        "Select all that apply."
    )
    assert item.answer_keys == (LETTERS[item.options.index("Clostridium tetani")],)
    assert_safe(kb, [item])


def test_close_neighbours_tails_are_avoided() -> None:
    # warfarin shares "ischaemic stroke" with apixaban; apixaban's other tails are poor "false"
    # options for warfarin (warfarin does prevent DVT) although the KB does not say so.
    agents = {
        "warfarin": ["ischaemic stroke"],
        "apixaban": ["ischaemic stroke", "deep vein thrombosis", "pulmonary embolism"],
        "measles vaccine": ["measles"],
        "rubella vaccine": ["rubella"],
        "tetanus vaccine": ["tetanus"],
        "folic acid": ["neural tube defects"],
    }
    kb = _kb(Triplet(a, "prevents", d) for a, ds in agents.items() for d in ds)
    fact = Triplet("warfarin", "prevents", "ischaemic stroke")
    for seed in range(40):
        (item,) = choice_questions(kb, [fact], seed=seed, n_options=4)
        assert not {"deep vein thrombosis", "pulmonary embolism"} & set(item.options)


def test_big_relation_fast_path_keeps_the_preferences() -> None:
    # > 1000 symptoms: the generator first tries random draws; they must obey the same rules.
    triplets = [
        Triplet(f"{g} disease {d}", "has_symptom", f"{g} symptom {d}.{k}", group=g)
        for g in ("g1", "g2")
        for d in range(60)
        for k in range(10)
    ]
    # g1 disease 0 shares a specific symptom with g2 disease 0: a close neighbour
    shared = Triplet("g1 disease 0", "has_symptom", "g2 symptom 0.0", group="g1")
    kb = _kb([*triplets, shared])
    neighbour_tails = {f"g2 symptom 0.{k}" for k in range(10)}
    fact = triplets[0]
    for seed in range(150):
        items = choice_questions(kb, [fact], seed=seed, difficulty="distant", n_options=4)
        assert_safe(kb, items)
        (item,) = items
        for distractor in split(item)[1]:
            assert distractor.startswith("g2 symptom "), distractor
            assert distractor not in neighbour_tails, distractor


def test_no_option_is_named_in_the_stem() -> None:
    agents = {
        "COVID-19 vaccine": ["COVID-19", "severe acute respiratory illness"],
        "measles vaccine": ["measles"],
        "rubella vaccine": ["rubella"],
        "tetanus vaccine": ["tetanus"],
        "folic acid": ["neural tube defects"],
    }
    kb = _kb(Triplet(a, "prevents", d) for a, ds in agents.items() for d in ds)
    for seed in range(20):
        (item,) = choice_questions(kb, [kb.triplets[0]], seed=seed, max_correct=2, n_options=4)
        assert "COVID-19" not in item.options  # the stem would give it away
        assert item.meta["correct_tails"] == ["severe acute respiratory illness"]
    only = _kb(Triplet(a, "prevents", d) for a, ds in agents.items() for d in ds[:1])
    assert choice_questions(only, [only.triplets[0]], n_options=4) == []  # nothing left to ask


def test_items_round_trip_through_json() -> None:
    kb = mini_kb()
    items = choice_questions(kb, facts_of(kb), n_options=4)
    again = [item_from_json(i.to_json()) for i in items]
    assert [a.id for a in again] == [i.id for i in items]


# --- determinism ------------------------------------------------------------------------------


def test_same_inputs_same_questions_byte_for_byte() -> None:
    kb = mini_kb()
    first = [i.to_json() for i in choice_questions(kb, facts_of(kb), seed=7, n_options=4)]
    second = [
        i.to_json() for i in choice_questions(mini_kb(), facts_of(mini_kb()), seed=7, n_options=4)
    ]
    assert first == second
    assert [i.to_json() for i in choice_questions(kb, facts_of(kb), seed="7", n_options=4)] == first


def test_a_question_does_not_depend_on_the_other_facts_asked() -> None:
    kb = mini_kb()
    everything = choice_questions(kb, facts_of(kb), seed=3, n_options=4)
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    (alone,) = choice_questions(kb, [fact], seed=3, n_options=4)
    assert alone.to_json() in [i.to_json() for i in everything]


def test_different_seed_changes_some_option_order() -> None:
    kb = mini_kb()
    a = choice_questions(kb, facts_of(kb), seed=1, n_options=4)
    b = choice_questions(kb, facts_of(kb), seed=2, n_options=4)
    assert len(a) == len(b)
    assert any(x.options != y.options for x, y in zip(a, b, strict=True))
    # "I do not know" is never shuffled
    assert all(x.options[-1] == I_DO_NOT_KNOW for x in a + b)


def test_correct_answer_positions_vary() -> None:
    kb = mini_kb()
    fact = Triplet("asthma", "has_symptom", "expiratory wheeze", group="respiratory")
    keys = {
        choice_questions(kb, [fact], seed=s, max_correct=1, n_options=4)[0].answer_keys
        for s in range(40)
    }
    assert keys == {("A",), ("B",), ("C",), ("D",)}


def test_bad_arguments_are_rejected() -> None:
    kb = mini_kb()
    facts = facts_of(kb)
    with pytest.raises(ValueError, match="subtypes"):
        choice_questions(kb, facts, subtypes=("semantic", "cloze"))
    with pytest.raises(ValueError, match="n_options"):
        choice_questions(kb, facts, n_options=10)
    with pytest.raises(ValueError, match="n_options"):
        choice_questions(kb, facts, n_options=1)
    with pytest.raises(ValueError, match="max_correct"):
        choice_questions(kb, facts, max_correct=4, n_options=4)
    with pytest.raises(ValueError, match="max_correct"):
        choice_questions(kb, facts, max_correct=0)


# --- frequency questions ----------------------------------------------------------------------

VERY_RARE, OCCASIONAL, FREQUENT, VERY_FREQUENT, OBLIGATE = FREQUENCY_BANDS


def pheno(head: str, tail: str, **meta: Any) -> Triplet:
    return Triplet(head, "has_phenotype", tail, meta=meta)


@pytest.mark.parametrize(
    ("meta", "band"),
    [
        ({"frequency": "HP:0040281", "frequency_label": "Very frequent"}, VERY_FREQUENT),
        ({"frequency_label": "Frequent", "frequency_band": "30-79%"}, FREQUENT),
        ({"frequency_label": "obligate"}, OBLIGATE),
        ({"frequency_band": "80–99%"}, VERY_FREQUENT),
        ({"frequency": "7/9", "frequency_fraction": 7 / 9}, FREQUENT),
        (
            {"frequency": "7/9", "frequency_fraction": 0.7778, "frequency_label": "Frequent"},
            FREQUENT,
        ),
        ({"frequency_fraction": 0.3}, FREQUENT),
        ({"frequency_fraction": 0.29999999999999993}, FREQUENT),  # float noise, not 29.99 %
        ({"frequency_fraction": 0.2999}, OCCASIONAL),
        ({"frequency": "3/10"}, FREQUENT),
        ({"frequency": "4/5"}, VERY_FREQUENT),
        ({"frequency": "9/9"}, OBLIGATE),
        ({"frequency": "45%"}, FREQUENT),
        ({"frequency": "1/25"}, VERY_RARE),
        ({"frequency": "HP:0040283"}, OCCASIONAL),
        ({"frequency": "HP:0040284"}, VERY_RARE),
        ({}, None),
        ({"frequency": "HP:0040285", "frequency_label": "Excluded"}, None),
        ({"frequency": "sometimes"}, None),
        ({"frequency": "3/0"}, None),
        ({"frequency_fraction": None, "frequency_label": None}, None),
        ({"frequency_label": "Frequent", "frequency_fraction": 0.9}, None),  # fields disagree
    ],
)
def test_frequency_band_mapping(meta: Mapping[str, Any], band: str | None) -> None:
    assert frequency_band(meta) == band


def test_frequency_questions() -> None:
    facts = [
        pheno(
            "Marfan syndrome",
            "Arachnodactyly",
            frequency="HP:0040281",
            frequency_label="Very frequent",
            frequency_band="80-99%",
        ),
        pheno("Marfan syndrome", "Ectopia lentis", frequency="7/9", frequency_fraction=0.7778),
        pheno("Marfan syndrome", "Striae distensae"),  # no frequency: no frequency question
        pheno("Marfan syndrome", "Pneumothorax", frequency="Excluded"),  # unmappable
    ]
    kb = _kb(facts, name="hpo-test")
    items = choice_questions(kb, facts, subtypes=("frequency",), n_options=4)
    assert [i.meta["tail"] for i in items] == ["Arachnodactyly", "Ectopia lentis"]
    first, second = items
    assert first.question == "How often does Marfan syndrome present with Arachnodactyly?"
    assert first.options == (*FREQUENCY_BANDS, I_DO_NOT_KNOW)
    assert first.options[-1] == I_DO_NOT_KNOW
    assert first.subtype == "frequency"
    assert first.answer_keys == ("D",)  # Very frequent (80-99%)
    assert second.answer_keys == ("C",)  # 7/9 = 0.78 -> Frequent (30-79%)
    assert second.options[LETTERS.index("C")] == "Frequent (30-79%)"
    assert second.knowledge_point_ids == (
        point_id("hpo-test", "has_phenotype", "Marfan syndrome", "Ectopia lentis"),
    )


def test_frequency_disagreeing_annotations_are_skipped() -> None:
    triplets = [
        pheno("Disease X", "Seizure", frequency_label="Frequent"),
        pheno("Disease X", "Seizure", frequency_label="Very frequent"),  # a second source
        pheno("Disease X", "Ataxia", frequency_label="Frequent"),
        pheno("Disease X", "Ataxia", frequency="4/9"),  # agrees: Frequent
    ]
    kb = _kb(triplets)
    items = choice_questions(kb, triplets, subtypes=("frequency",), n_options=4)
    assert [(i.meta["tail"], i.answer_keys) for i in items] == [("Ataxia", ("C",))]


def phenotype_kb() -> tuple[KnowledgeBaseData, list[Triplet]]:
    diseases = {
        "Disease A": ["Seizure", "Ataxia", "Myopia"],
        "Disease B": ["Eczema", "Alopecia"],
        "Disease C": ["Hepatomegaly", "Splenomegaly"],
        "Disease D": ["Short stature", "Scoliosis"],
    }
    triplets = [
        pheno(d, p, frequency_label="Very frequent" if i == 0 else "Frequent")
        for d, ps in diseases.items()
        for i, p in enumerate(ps)
    ]
    return _kb(triplets), triplets


def test_semantic_then_frequency_per_fact() -> None:
    kb, triplets = phenotype_kb()
    facts = [triplets[0], triplets[1], triplets[3]]  # A/Seizure, A/Ataxia, B/Eczema
    items = choice_questions(kb, facts, n_options=4)
    assert [(i.subtype, i.head, i.meta.get("tail")) for i in items] == [
        ("semantic", "Disease A", None),
        ("frequency", "Disease A", "Seizure"),
        ("frequency", "Disease A", "Ataxia"),
        ("semantic", "Disease B", None),
        ("frequency", "Disease B", "Eczema"),
    ]
    assert items[0].question == (
        "Which of the following are frequent features of Disease A? Select all that apply."
    )
    assert_safe(kb, semantic(items))
    assert choice_questions(kb, facts, subtypes=("semantic",), n_options=4) == semantic(items)


def test_phenotype_not_known_to_be_frequent_is_asked_as_recognised_feature() -> None:
    kb, triplets = phenotype_kb()
    rare = pheno("Disease E", "Deafness", frequency="HP:0040284")
    kb = _kb([*triplets, rare])
    items = choice_questions(kb, [rare], subtypes=("semantic",), n_options=4)
    assert [i.question for i in items] == [
        "Which of the following are recognised features of Disease E? Select all that apply."
    ]
    items = choice_questions(kb, [triplets[5]], subtypes=("semantic",), max_correct=1, n_options=4)
    assert [i.question for i in items] == [
        "Which of the following are frequent features of Disease C? Select all that apply."
    ]


def test_frequency_questions_need_enough_patients() -> None:
    facts = [
        pheno("Disease F", "Seizure", frequency="1/1"),  # "Obligate" from one patient: no
        pheno("Disease F", "Ataxia", frequency="4/4"),
        pheno("Disease F", "Myopia", frequency="5/5"),  # MIN_PATIENTS: yes
        pheno("Disease F", "Ptosis", frequency="7/9", frequency_fraction=0.7778),
        pheno("Disease F", "Eczema", frequency="45%"),  # no count at all: no
        pheno("Disease F", "Scoliosis", frequency="HP:0040281"),  # a curated term: yes
    ]
    kb = _kb(facts)
    items = choice_questions(kb, facts, subtypes=("frequency",), n_options=4)
    assert MIN_PATIENTS == 5
    assert [(i.meta["tail"], i.meta.get("patients")) for i in items] == [
        ("Myopia", "5/5 patients"),
        ("Ptosis", "7/9 patients"),
        ("Scoliosis", None),
    ]
    assert enough_patients({"frequency": "2/3"}) == (False, "2/3 patients")
    assert enough_patients({"frequency": "HP:0040282"}) == (True, None)
    assert enough_patients({"frequency_fraction": 0.5}) == (False, None)


def test_too_few_patients_is_asked_as_a_recognised_feature_not_a_frequent_one() -> None:
    kb, triplets = phenotype_kb()
    few = pheno("Disease G", "Deafness", frequency="2/2", frequency_label="Obligate")
    many = pheno("Disease H", "Deafness", frequency="8/9", frequency_label="Very frequent")
    kb = _kb([*triplets, few, many])
    items = choice_questions(kb, [few, many], subtypes=("semantic",), n_options=4)
    assert [(i.question, i.meta.get("patients")) for i in items] == [
        (
            "Which of the following are recognised features of Disease G? Select all that apply.",
            {"Deafness": "2/2 patients"},
        ),
        (
            "Which of the following are frequent features of Disease H? Select all that apply.",
            {"Deafness": "8/9 patients"},
        ),
    ]


# --- the real clinical-core KB ----------------------------------------------------------------


def test_clinical_core_hundred_facts() -> None:
    kb = load_clinical_core()
    facts = list(select(kb, "choice-test", 100, 0).points)
    assert len(facts) == 100
    items = choice_questions(kb, facts, seed=11, n_options=4)
    assert len(items) >= 90
    assert_safe(kb, items)
    assert {i.relation for i in items} == set(kb.relations)
    assert any(len(i.answer_keys) == 2 for i in items)
    # the wording never reveals how many options are right
    assert all(i.question.endswith("Select all that apply.") for i in items)
    # plausible (default): distractors from the head's own organ system, as their tiers say
    knowledge = Knowledge(kb)  # a head's groups: its own and the lexicon's (multi-system)
    tail_groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in kb.triplets:
        tail_groups[(t.relation, t.tail)] |= knowledge.groups(t.head)
    same = total = 0
    for item in items:
        if "group" in item.meta:
            tiers = item.meta["distractor_tiers"]
            groups = knowledge.groups(item.head)
            for distractor, tier in zip(item.meta["distractors"], tiers, strict=True):
                within = bool(groups & tail_groups[(item.relation, distractor)])
                total += 1
                same += within
                if not within:  # another system: only where the tier says so
                    assert tier.startswith("other group"), (item.head, distractor, tier)
    assert total > 100
    again = choice_questions(kb, facts, seed=11, n_options=4)
    assert [i.to_json() for i in again] == [i.to_json() for i in items]


def test_clinical_core_all_facts_are_safe() -> None:
    kb = load_clinical_core()
    items = choice_questions(kb, kb.triplets, n_options=4)
    pairs = {(t.head, t.relation) for t in kb.triplets}
    # 76 pairs have every right option named by a word of the stem (appendicitis -> appendix):
    # skipped, not asked with the answer in the question.
    assert len(items) >= 0.93 * len(pairs)
    assert len({(i.head, i.relation) for i in items}) == len(items)
    assert_safe(kb, items)


def test_clinical_core_recall_aspects_get_same_system_options_once_reviewed() -> None:
    """The r6 audit (docs/knowledge.md) reviewed same-system candidates of complications,
    investigations and drug classes: their questions no longer offer another organ system's
    option, which a student could reject without knowing the fact (before r6: every one did)."""
    kb = load_clinical_core()
    aspects = {"has_complication", "investigated_with", "treated_with_drug_class"}
    facts = [t for t in kb.triplets if t.relation in aspects]
    items = choice_questions(kb, facts, seed="r6", subtypes=("semantic",), n_options=4)
    assert len(items) > 500
    away = [
        i for i in items if any(t.startswith("other group") for t in i.meta["distractor_tiers"])
    ]
    assert len(away) <= 0.05 * len(items), [(i.head, i.relation) for i in away[:5]]


def test_clinical_core_recall_aspects_options_come_from_the_heads_own_system() -> None:
    """Stricter than the test above (bench/audit_choice.py --all): an option is from the head's
    own organ system only if a disease of that system (the group of its facts, not the lexicon's
    further systems of a multi-system disease) lists it. Before the generator preferred those
    within the reviewed same-group tier, 430 of the 589 questions had another (seed 5)."""
    kb = load_clinical_core()
    aspects = {"has_complication", "investigated_with", "treated_with_drug_class"}
    own: dict[str, set[str]] = defaultdict(set)
    listed_in: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in kb.triplets:
        if t.group is not None:
            own[t.head].add(t.group)
            listed_in[(t.relation, t.tail)].add(t.group)
    facts = [t for t in kb.triplets if t.relation in aspects]
    items = choice_questions(kb, facts, seed=5, subtypes=("semantic",), n_options=4)
    assert len(items) > 500
    away = [
        (i.head, i.relation, tail)
        for i in items
        for tail in i.meta["distractors"]
        if not listed_in[(i.relation, tail)] & own[i.head]
    ]
    assert len({(h, r) for h, r, _tail in away}) <= 0.02 * len(items), away[:5]


# --- no tells (issue 24) ----------------------------------------------------------------------


def test_right_option_counts_vary_and_none_is_the_usual_one() -> None:
    kb = load_clinical_core()
    facts = stratified(kb.name, candidate_points(kb), "seed\x1f3", limit=400)
    skipped: Counter[str] = Counter()
    items = choice_questions(kb, facts, seed=3, subtypes=("semantic",), skipped=skipped)
    assert len(items) >= 300
    assert_safe(kb, items, n_options=None)
    counts = Counter(len(i.answer_keys) for i in items)
    assert set(counts) == {1, 2, 3, 4}
    assert max(counts.values()) <= 0.40 * len(items), counts
    assert {len(i.options) - 1 for i in items} == set(CHOICE_OPTIONS)
    assert sum(skipped.values()) > 0  # reported, by reason
    assert set(skipped) <= {SKIP_STEM, SKIP_DISTRACTORS, SKIP_PLAUSIBLE}
    # the wording never tells the count
    assert all(i.question.endswith("Select all that apply.") for i in items)


def test_no_stem_names_a_key_or_a_word_of_it() -> None:
    kb = load_clinical_core()
    items = choice_questions(kb, candidate_points(kb), subtypes=("semantic",))
    for item in items:
        for option in item.options[:-1]:
            assert not stem_names(item.head, option), (item.question, option)
    assert stem_names("acute appendicitis", "appendix")
    assert stem_names("autosomal dominant polycystic kidney disease", "kidneys")
    assert stem_names("acute tonsillitis", "tonsillectomy")
    assert not stem_names("trisomy 21", "21-hydroxylase deficiency")  # numbers: no tell
    asked = {(i.head, i.relation) for i in items}
    assert ("acute appendicitis", "affects_site") not in asked  # only "appendix": not asked


INFECTIONS = ("diphtheria", "pertussis", "tetanus", "measles", "rubella", "mumps")


def test_a_drug_gets_a_distractor_of_its_right_options_system() -> None:
    vaccines = [Triplet(f"{d} vaccine", "prevents", d) for d in INFECTIONS]
    stroke = Triplet("warfarin", "prevents", "ischaemic stroke")
    cardiac = Triplet("bisoprolol", "prevents", "myocardial infarction")
    groups = {d: "infectious" for d in INFECTIONS}
    groups |= {"ischaemic stroke": "cardiovascular", "myocardial infarction": "cardiovascular"}
    grouped = [Triplet(d, "has_symptom", f"{d} sign", group=g) for d, g in groups.items()]
    kb = _kb([*vaccines, stroke, cardiac, *grouped])
    for seed in range(10):
        (item,) = choice_questions(kb, [stroke], seed=seed, n_options=4)
        assert "myocardial infarction" in item.options, item.options
    alone = _kb([*vaccines, stroke, *grouped])  # nothing cardiovascular to offer
    skipped: Counter[str] = Counter()
    assert choice_questions(alone, [stroke], n_options=4, skipped=skipped) == []
    assert skipped == Counter({SKIP_PLAUSIBLE: 1})
