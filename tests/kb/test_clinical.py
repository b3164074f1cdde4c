"""The built-in ``clinical-core`` KB against its source file and the default prototype pool."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from quizbot.generate.prototypes import default_prototypes
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.model import KnowledgeBaseData

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "quizbot" / "kb" / "data" / "clinical_core.json"
MEDLAMA = REPO.parent / "shared" / "data" / "medlama"

RELATIONS = {
    "has_symptom",
    "affects_site",
    "treated_with_drug",
    "treated_with_procedure",
    "prevents",
}
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


def test_relation_names_are_exactly_the_five(kb: KnowledgeBaseData) -> None:
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
    keys = {
        "symptoms": "has_symptom",
        "sites": "affects_site",
        "drugs": "treated_with_drug",
        "procedures": "treated_with_procedure",
    }
    expected = {
        (relation, d["name"], tail)
        for d in source["diseases"]
        for key, relation in keys.items()
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
