"""The built-in ``clinical-core`` KB: hand-authored textbook facts about common diseases.

Source: ``quizbot/kb/data/clinical_core.json`` (written for quizbot; see docs/knowledge.md for the
authoring rules). Every disease carries its organ system as the triplet group, which negative
sampling uses to draw false tails from *other* systems.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from quizbot.errors import InputError
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet

__all__ = ["CLINICAL_RELATIONS", "load_clinical_core"]

NAME = "clinical-core"

CLINICAL_RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in (
        Relation("has_symptom", "has symptom", "disease", "symptom"),
        Relation("affects_site", "affects site", "disease", "anatomical site"),
        Relation("treated_with_drug", "treated with drug", "disease", "drug"),
        Relation("treated_with_procedure", "treated with procedure", "disease", "procedure"),
        Relation("prevents", "prevents", "preventive agent", "disease"),
    )
}
_LISTS = {
    "symptoms": "has_symptom",
    "sites": "affects_site",
    "drugs": "treated_with_drug",
    "procedures": "treated_with_procedure",
}


def _build(data: dict[str, Any], label: str) -> KnowledgeBaseData:
    systems: dict[str, str] = data["systems"]
    triplets: list[Triplet] = []
    disease_system: dict[str, str] = {}
    for index, disease in enumerate(data["diseases"]):
        name, system = disease["name"], disease["system"]
        if system not in systems:
            raise InputError(
                f"unknown system {system!r}", path=label, field=f"diseases[{index}].system"
            )
        disease_system[name] = system
        for key, relation in _LISTS.items():
            for tail in disease.get(key, []):
                triplets.append(
                    Triplet(name, relation, tail, group=system, meta={"system": system})
                )
    for agent in data["prevention"]:
        for disease in agent["prevents"]:
            system = disease_system.get(disease)
            triplets.append(
                Triplet(
                    agent["agent"],
                    "prevents",
                    disease,
                    group=None,
                    meta={
                        "agent_type": agent["agent_type"],
                        **({"system": system} if system else {}),
                    },
                )
            )
    return KnowledgeBaseData(
        name=NAME,
        version=data["version"],
        source="builtin",
        relations=CLINICAL_RELATIONS,
        triplets=tuple(triplets),
        title="Clinical core",
        description=data["description"],
        license="Written for quizbot by its developers; free to use with quizbot.",
        meta={"systems": systems, "disease_system": disease_system},
    )


@lru_cache(maxsize=1)
def load_clinical_core() -> KnowledgeBaseData:
    """The clinical-core KB, read from the packaged JSON (cached)."""
    label = "quizbot/kb/data/clinical_core.json"
    text = resources.files("quizbot.kb").joinpath("data/clinical_core.json").read_text("utf-8")
    return _build(json.loads(text), label)
