"""The built-in ``clinical-core`` KB against its source file and the default prototype pool."""

from __future__ import annotations

import copy
import json
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from quizbot.errors import InputError
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.recall import aspects_of
from quizbot.kb.clinical import (
    AGE_GROUPS,
    _build,
    check_drug_classes,
    load_clinical_core,
    read_lexicon,
)
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "quizbot" / "kb" / "data" / "clinical_core.json"
MEDLAMA = REPO.parent / "shared" / "data" / "medlama"

# The source file's list keys and the relation each becomes.
LIST_KEYS = {
    "symptoms": "has_symptom",
    "sites": "affects_site",
    "drugs": "treated_with_drug",
    "drug_classes": "treated_with_drug_class",
    "procedures": "treated_with_procedure",
    "complications": "has_complication",
    "investigations": "investigated_with",
    "age_groups": "typical_age_group",
}
RELATIONS = {*LIST_KEYS.values(), "prevents"}
DISEASE_RELATIONS = RELATIONS - {"prevents"}
HPO_RELATIONS = {"has_phenotype", "associated_gene", "has_inheritance"}


@pytest.fixture(scope="module")
def source() -> dict[str, Any]:
    """The packaged JSON, read directly (not through the loader)."""
    data: dict[str, Any] = json.loads(SOURCE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def kb() -> KnowledgeBaseData:
    return load_clinical_core()


def _per_head(kb: KnowledgeBaseData, relation: str) -> Counter[str]:
    return Counter(t.head for t in kb.triplets if t.relation == relation)


def test_has_at_least_150_diseases(kb: KnowledgeBaseData, source: dict[str, Any]) -> None:
    diseases = {d["name"] for d in source["diseases"]}
    assert len(diseases) >= 150
    heads = {t.head for t in kb.triplets if t.relation in DISEASE_RELATIONS}
    assert heads == diseases


def test_relation_names_are_the_disease_lists_and_prevention(kb: KnowledgeBaseData) -> None:
    assert set(kb.relations) == RELATIONS
    assert {t.relation for t in kb.triplets} == RELATIONS


def test_every_disease_triplet_has_its_organ_system_as_group(
    kb: KnowledgeBaseData, source: dict[str, Any]
) -> None:
    systems = set(source["systems"])
    system_of = {d["name"]: d["system"] for d in source["diseases"]}
    disease_triplets = [t for t in kb.triplets if t.relation in DISEASE_RELATIONS]
    assert disease_triplets
    for t in disease_triplets:
        assert t.group in systems, t
        assert t.group == system_of[t.head], t
    # Every organ system of the file is used by some disease.
    assert {t.group for t in disease_triplets} == systems


def test_every_disease_has_symptoms_sites_and_a_treatment(
    kb: KnowledgeBaseData, source: dict[str, Any]
) -> None:
    symptoms = _per_head(kb, "has_symptom")
    sites = _per_head(kb, "affects_site")
    drugs = _per_head(kb, "treated_with_drug")
    procedures = _per_head(kb, "treated_with_procedure")
    short = []
    for disease in (d["name"] for d in source["diseases"]):
        if symptoms[disease] < 3 or sites[disease] < 1 or drugs[disease] + procedures[disease] < 1:
            short.append(disease)
    assert short == []


def test_triplets_match_the_source_lists(kb: KnowledgeBaseData, source: dict[str, Any]) -> None:
    expected = {
        (relation, d["name"], tail)
        for d in source["diseases"]
        for key, relation in LIST_KEYS.items()
        for tail in d.get(key, [])
    }
    expected |= {
        ("prevents", agent["agent"], disease)
        for agent in source["prevention"]
        for disease in agent["prevents"]
    }
    assert {(t.relation, t.head, t.tail) for t in kb.triplets} == expected


def test_prevents_triplets_cover_at_least_25_agents(kb: KnowledgeBaseData) -> None:
    prevents = [t for t in kb.triplets if t.relation == "prevents"]
    assert len({t.head for t in prevents}) >= 25
    assert "measles" in {t.tail for t in prevents if t.head == "measles, mumps and rubella vaccine"}


def test_drug_names_are_generic_lowercase_not_brand_style(kb: KnowledgeBaseData) -> None:
    drugs = {t.tail for t in kb.triplets if t.relation == "treated_with_drug"}
    assert len(drugs) > 50
    capitalised = sorted(d for d in drugs if not (d[0].islower() or d[0].isdigit()))
    assert capitalised == [], f"brand-style capitalised drug names: {capitalised}"


def test_default_pool_covers_every_clinical_core_relation() -> None:
    pool = default_prototypes()
    assert pool.missing(RELATIONS) == []


def test_default_pool_covers_every_hpo_relation() -> None:
    pool = default_prototypes()
    assert pool.missing(HPO_RELATIONS) == []


def test_default_pool_covers_every_medlama_relation() -> None:
    listing = MEDLAMA / "relations.txt"
    if not listing.is_file():
        pytest.skip(f"MedLAMA data not found at {MEDLAMA} (see /work/shared/data/README.md)")
    names = {line.strip() for line in listing.read_text(encoding="utf-8").splitlines()}
    names.discard("")
    assert len(names) == 19
    assert default_prototypes().missing(names) == []


def test_pool_coverage_check_is_not_vacuous() -> None:
    """``missing`` does report a relation the pool lacks, so the coverage tests can fail."""
    assert default_prototypes().missing({"has_symptom", "no_such_relation"}) == ["no_such_relation"]


def test_disease_triplets_of_one_disease_share_one_group(kb: KnowledgeBaseData) -> None:
    groups: dict[str, set[str | None]] = defaultdict(set)
    for t in kb.triplets:
        if t.relation in DISEASE_RELATIONS:
            groups[t.head].add(t.group)
    assert all(len(g) == 1 for g in groups.values())


# --------------------------------------------------------------------------------------------
# The aspects added for open recall: complications, investigations, age groups, drug classes.

LEXICON = REPO / "quizbot" / "kb" / "data" / "clinical_lexicon.json"
NEW_KEYS = ("complications", "investigations", "age_groups", "drug_classes")


def test_at_least_eight_recall_aspects_each_asked_of_many_diseases(
    kb: KnowledgeBaseData, source: dict[str, Any]
) -> None:
    aspects = {a.relation for a in aspects_of(kb)}
    assert aspects == set(LIST_KEYS.values()) and len(aspects) >= 8
    # Counted from the source file, not through the loader.
    for key in NEW_KEYS:
        diseases = [d["name"] for d in source["diseases"] if d.get(key)]
        assert len(diseases) >= 90, (key, len(diseases))


def test_age_groups_come_from_the_closed_vocabulary(source: dict[str, Any]) -> None:
    used = {g for d in source["diseases"] for g in d.get("age_groups", [])}
    assert used == set(AGE_GROUPS)


def test_an_unknown_age_group_is_refused_with_its_field(source: dict[str, Any]) -> None:
    data = copy.deepcopy(source)
    index = next(i for i, d in enumerate(data["diseases"]) if d["name"] == "gout")
    data["diseases"][index]["age_groups"] = ["the elderly"]
    with pytest.raises(InputError) as info:
        _build(data, "clinical_core.json")
    assert info.value.field == f"diseases[{index}].age_groups"


def _classes_of_drugs(disease: dict[str, Any], lexicon: dict[str, Any]) -> set[str]:
    owned: set[str] = set()
    for drug in disease.get("drugs", []):
        owned.update(lexicon["classes"].get(drug, []))
        for part in lexicon["components"].get(drug, []):
            owned.update(lexicon["classes"].get(part, []))
    return owned


def test_every_drug_class_is_the_class_of_one_of_the_disease_drugs(
    source: dict[str, Any],
) -> None:
    lexicon = json.loads(LEXICON.read_text(encoding="utf-8"))
    for disease in source["diseases"]:
        assert set(disease.get("drug_classes", [])) <= _classes_of_drugs(disease, lexicon), disease[
            "name"
        ]
        if disease.get("drugs"):
            assert disease.get("drug_classes"), disease["name"]


def test_a_drug_class_no_listed_drug_belongs_to_is_refused(source: dict[str, Any]) -> None:
    data = copy.deepcopy(source)
    gout = next(d for d in data["diseases"] if d["name"] == "gout")
    gout["drug_classes"].append("beta-blocker")  # a class of other diseases' drugs
    kb = _build(data, "clinical_core.json")
    lexicon, _extra = read_lexicon(
        json.loads(LEXICON.read_text(encoding="utf-8")), kb, "clinical_lexicon.json"
    )
    with pytest.raises(InputError, match="'beta-blocker' of 'gout'") as info:
        check_drug_classes(replace(kb, lexicon=lexicon), "clinical_core.json")
    assert info.value.field == "drug_classes of 'gout'"


def test_a_class_of_a_listed_drug_is_never_offered_as_false(kb: KnowledgeBaseData) -> None:
    """Aspirin is listed for myocardial infarction as an antiplatelet; it is an NSAID too, and
    "NSAIDs are not a standard treatment of MI" is true, but the truth check stays on the safe
    side: a class of any listed drug is never a negative."""
    knowledge = Knowledge(kb)
    mi = "myocardial infarction"
    assert "non-steroidal anti-inflammatory drug" not in {
        t.tail for t in kb.triplets if t.head == mi and t.relation == "treated_with_drug_class"
    }
    assert knowledge.conflict(mi, "treated_with_drug_class", "NSAID") is not None
    assert knowledge.conflict("gout", "treated_with_drug_class", "beta-blocker") is None


def test_complications_are_checked_through_synonyms_and_kinds(kb: KnowledgeBaseData) -> None:
    knowledge = Knowledge(kb)
    # Stroke is a listed complication of atrial fibrillation: ischaemic stroke is a kind of it.
    assert knowledge.conflict("atrial fibrillation", "has_complication", "ischaemic stroke")
    # Obesity lists type 2 diabetes: "diabetes mellitus" is its whole.
    assert knowledge.conflict("obesity", "has_complication", "diabetes mellitus")
    # A symptom listed under another relation is never a false complication.
    assert knowledge.conflict("bronchiectasis", "has_complication", "coughing up blood")
    # Vague complications are never false of anything.
    assert knowledge.conflict("gout", "has_complication", "sepsis") == "generic"
    assert knowledge.conflict("gout", "has_complication", "toxic megacolon") is None


def _keys(lexicon: dict[str, Any]) -> Any:
    """An independent name folder: casefold and the lexicon's synonym groups (no hierarchy)."""
    group: dict[str, str] = {}
    for name, others in lexicon["synonyms"].items():
        names = [name, *others]
        root = min(group.get(n.casefold(), n.casefold()) for n in names)
        for n in names:
            old = group.get(n.casefold())
            if old is not None and old != root:
                for k, v in list(group.items()):
                    if v == old:
                        group[k] = root
            group[n.casefold()] = root
    return lambda name: group.get(name.casefold(), name.casefold())


def test_no_negative_of_a_new_aspect_names_a_fact_of_its_disease(
    kb: KnowledgeBaseData,
) -> None:
    """Every negative the sampler draws for the new relations, checked against every tail the KB
    and its lexicon's extra truths list for the disease under any relation, by name or synonym."""
    lexicon = json.loads(LEXICON.read_text(encoding="utf-8"))
    key = _keys(lexicon)
    true: dict[str, set[str]] = defaultdict(set)
    for t in kb.triplets:
        true[t.head].add(key(t.tail))
    for row in lexicon["also_true"]:
        true[row["head"]].add(key(row["tail"]))
    generic = {key(g) for g in lexicon["generic"]}
    sampler = NegativeSampler(kb, "7")
    new = set(LIST_KEYS[k] for k in NEW_KEYS)
    drawn = 0
    for fact in candidate_points(kb):
        if fact.relation not in new:
            continue
        chosen = sampler.choose(fact)
        if chosen is None:
            continue
        drawn += 1
        assert key(chosen.tail) not in true[fact.head], (fact.head, fact.relation, chosen.tail)
        assert key(chosen.tail) not in generic, chosen.tail
    assert drawn > 1500
