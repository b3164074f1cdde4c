"""The built-in ``clinical-core`` KB: hand-authored textbook facts about common diseases.

Source: ``quizbot/kb/data/clinical_core.json`` (written for quizbot; see docs/knowledge.md for the
authoring rules). Every disease carries its organ system as the triplet group.

``quizbot/kb/data/clinical_lexicon.json`` is its knowledge model (a :class:`Lexicon`):
synonyms, part-of parents of sites, drug classes, combination products, generic names, every organ
system of a multi-system disease, and ``also_true``: facts true in reality that clinical-core does
not ask, so they are never offered as false. Every name in it must be a clinical-core entity where
it refers to one; :func:`read_lexicon` checks that and names the field of any mistake.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from typing import Any

from quizbot.errors import InputError
from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

__all__ = [
    "AGE_GROUPS",
    "CLINICAL_RELATIONS",
    "check_drug_classes",
    "load_clinical_core",
    "read_lexicon",
    "read_review",
]

NAME = "clinical-core"

CLINICAL_RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in (
        Relation("has_symptom", "has symptom", "disease", "symptom"),
        Relation("affects_site", "affects site", "disease", "anatomical site"),
        Relation("treated_with_drug", "treated with drug", "disease", "drug"),
        Relation("treated_with_procedure", "treated with procedure", "disease", "procedure"),
        Relation("has_complication", "has complication", "disease", "complication"),
        Relation("investigated_with", "investigated with", "disease", "investigation"),
        Relation("typical_age_group", "typically presents in age group", "disease", "age group"),
        Relation("treated_with_drug_class", "treated with drug class", "disease", "drug class"),
        Relation("prevents", "prevents", "preventive agent", "disease"),
    )
}
_LISTS = {
    "symptoms": "has_symptom",
    "sites": "affects_site",
    "drugs": "treated_with_drug",
    "drug_classes": "treated_with_drug_class",
    "procedures": "treated_with_procedure",
    "complications": "has_complication",
    "investigations": "investigated_with",
    "age_groups": "typical_age_group",
}
# Age groups a disease may be listed under: a closed vocabulary, so that every other group is a
# safe negative for a disease whose list names every group it typically presents in.
AGE_GROUPS = (
    "infants",
    "children",
    "adolescents",
    "young adults",
    "middle-aged adults",
    "older adults",
)


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
        for group in disease.get("age_groups", []):
            if group not in AGE_GROUPS:
                raise InputError(
                    f"unknown age group {group!r} (one of: {', '.join(AGE_GROUPS)})",
                    path=label,
                    field=f"diseases[{index}].age_groups",
                )
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


_LEXICON_KEYS = frozenset(
    {
        "version",
        "synonyms",
        "parents",
        "classes",
        "components",
        "generic",
        "disease_systems",
        "also_true",
    }
)


def _names(value: Any, label: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError("must be a list of non-empty names", path=label, field=where)
    return tuple(v.strip() for v in value)


def _name_map(data: dict[str, Any], key: str, label: str) -> dict[str, tuple[str, ...]]:
    section = data.get(key, {})
    if not isinstance(section, dict):
        raise InputError("must be an object of name -> list of names", path=label, field=key)
    return {name: _names(values, label, f"{key}[{name!r}]") for name, values in section.items()}


def check_drug_classes(kb: KnowledgeBaseData, label: str) -> None:
    """Every drug class listed for a disease is a class (in ``kb.lexicon``) of one of its drugs.

    ``drug_classes`` in clinical_core.json is chosen by hand among the classes of the disease's
    drugs (aspirin is an antiplatelet in angina, an NSAID in pericarditis); this catches a class
    that no listed drug of the disease belongs to (a typo, or a drug removed). Raises
    :class:`InputError` naming the disease.
    """
    classes, components = kb.lexicon.classes, kb.lexicon.components
    drugs: dict[str, set[str]] = {}
    for t in kb.triplets:
        if t.relation == "treated_with_drug":
            owned = drugs.setdefault(t.head, set())
            owned.update(classes.get(t.tail, ()))
            for part in components.get(t.tail, ()):
                owned.update(classes.get(part, ()))
    for t in kb.triplets:
        if t.relation == "treated_with_drug_class" and t.tail not in drugs.get(t.head, set()):
            raise InputError(
                f"drug class {t.tail!r} of {t.head!r} is the class of none of its drugs "
                "(see the lexicon's classes)",
                path=label,
                field=f"drug_classes of {t.head!r}",
            )


def read_lexicon(
    data: dict[str, Any], kb: KnowledgeBaseData, label: str
) -> tuple[Lexicon, frozenset[tuple[str, str, str]]]:
    """The lexicon and extra truths of ``kb`` from a parsed lexicon file; raises on mistakes.

    Checks what can go wrong silently: a key that names no entity of the KB (a typo would make a
    synonym or a class that never applies), a system that does not exist, an ``also_true`` row
    whose relation, head or tail is unknown, or which the KB already lists.
    """
    unknown = sorted(set(data) - _LEXICON_KEYS)
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}", path=label, field=unknown[0])
    heads = {t.head for t in kb.triplets}
    tails_by_relation: dict[str, set[str]] = {}
    for t in kb.triplets:
        tails_by_relation.setdefault(t.relation, set()).add(t.tail)
    entities = heads | {t.tail for t in kb.triplets}
    drugs = tails_by_relation.get("treated_with_drug", set())
    synonyms = _name_map(data, "synonyms", label)
    parents = _name_map(data, "parents", label)
    classes = _name_map(data, "classes", label)
    components = _name_map(data, "components", label)
    systems = _name_map(data, "disease_systems", label)
    # Names the lexicon itself brings in: a drug's classes, an entity's broader entities (a class
    # of classes: "azole antifungal"). A synonym may name one; a new narrower name may hang
    # under any known name ("sleeve gastrectomy", a kind of bariatric surgery).
    named = entities | {c for values in classes.values() for c in values}
    for _ in range(4):  # up to four levels of new names above or below known ones
        named |= {p for child, values in parents.items() if child in named for p in values}
        named |= {child for child, values in parents.items() if set(values) & named}
    for section, names, known in (
        ("synonyms", synonyms, named),
        ("parents", parents, named),
        ("classes", classes, drugs),
        ("components", components, entities),  # products are drugs or preventive agents
        ("disease_systems", systems, heads),
    ):
        for name in names:
            if name not in known:
                raise InputError(
                    "names nothing in clinical-core (spell it as the KB does)",
                    path=label,
                    field=f"{section}[{name!r}]",
                )
    known_systems = set(kb.meta.get("systems", {}))
    for disease, values in systems.items():
        for system in values:
            if system not in known_systems:
                raise InputError(
                    f"unknown system {system!r}", path=label, field=f"disease_systems[{disease!r}]"
                )
    generic = _names(data.get("generic", []), label, "generic")
    for name in generic:
        if name not in entities:
            raise InputError(
                f"{name!r} names nothing in clinical-core", path=label, field="generic"
            )
    listed = {(t.head, t.relation, t.tail) for t in kb.triplets}
    extra: set[tuple[str, str, str]] = set()
    rows = data.get("also_true", [])
    if not isinstance(rows, list):
        raise InputError("must be a list", path=label, field="also_true")
    for index, row in enumerate(rows):
        where = f"also_true[{index}]"
        if not isinstance(row, dict) or not all(
            isinstance(row.get(k), str) for k in ("head", "relation", "tail")
        ):
            raise InputError("needs head, relation and tail", path=label, field=where)
        fact = (row["head"], row["relation"], row["tail"])
        if fact[1] not in kb.relations:
            raise InputError(f"unknown relation {fact[1]!r}", path=label, field=where)
        if fact[0] not in heads or fact[2] not in tails_by_relation.get(fact[1], set()):
            raise InputError(
                "head and tail must be clinical-core entities of that relation",
                path=label,
                field=where,
            )
        if fact in listed:
            raise InputError("clinical-core already lists this fact", path=label, field=where)
        extra.add(fact)
    lexicon = Lexicon(
        synonyms=synonyms,
        parents=parents,
        classes=classes,
        components=components,
        generic=frozenset(generic),
        head_groups=systems,
    )
    return lexicon, frozenset(extra)


def read_review(
    data: dict[str, Any], kb: KnowledgeBaseData, label: str
) -> tuple[frozenset[tuple[str, str, str]], frozenset[tuple[str, str, str]]]:
    """(reviewed false, found true) from a parsed clinical review file; raises on mistakes.

    The file records clinical audits of generated negatives (``bench/audit_negatives.py``):
    ``false`` lists [head, relation, tail] a reviewer found false; ``true`` lists those found true
    or debatable (verdict ``true`` or ``unsure``, with the reason). Debatable counts as true: such
    a statement is never offered as false. A fact found true in any audit is never "reviewed
    false", whatever another audit said.
    """
    heads = {t.head for t in kb.triplets}
    tails: dict[str, set[str]] = {}
    for t in kb.triplets:
        tails.setdefault(t.relation, set()).add(t.tail)

    def fact(value: Any, where: str) -> tuple[str, str, str]:
        if (
            not isinstance(value, list | tuple)
            or len(value) != 3
            or not all(isinstance(v, str) for v in value)
        ):
            raise InputError("must be [head, relation, tail]", path=label, field=where)
        head, relation, tail = value
        if head not in heads or tail not in tails.get(relation, set()):
            raise InputError(
                f"({head!r}, {relation!r}, {tail!r}) names no clinical-core head and tail of "
                "that relation",
                path=label,
                field=where,
            )
        return (head, relation, tail)

    found_true: set[tuple[str, str, str]] = set()
    for index, row in enumerate(data.get("true", [])):
        where = f"true[{index}]"
        if not isinstance(row, dict) or row.get("verdict") not in {"true", "unsure"}:
            raise InputError("needs a verdict 'true' or 'unsure'", path=label, field=where)
        found_true.add(fact([row.get("head"), row.get("relation"), row.get("tail")], where))
    found_false = {fact(value, f"false[{i}]") for i, value in enumerate(data.get("false", []))}
    listed = {(t.head, t.relation, t.tail) for t in kb.triplets}
    return frozenset(found_false - found_true - listed), frozenset(found_true - listed)


@lru_cache(maxsize=1)
def load_clinical_core() -> KnowledgeBaseData:
    """The clinical-core KB with its lexicon, read from the packaged JSON files (cached)."""
    files = resources.files("quizbot.kb").joinpath("data")
    label = "quizbot/kb/data/clinical_core.json"
    kb = _build(json.loads(files.joinpath("clinical_core.json").read_text("utf-8")), label)
    lexicon_file = files.joinpath("clinical_lexicon.json")
    if lexicon_file.is_file():
        lexicon, extra = read_lexicon(
            json.loads(lexicon_file.read_text("utf-8")),
            kb,
            "quizbot/kb/data/clinical_lexicon.json",
        )
        kb = replace(kb, lexicon=lexicon, extra_truths=extra)
        check_drug_classes(kb, label)
    review_file = files.joinpath("clinical_review.json")
    if review_file.is_file():
        reviewed_false, found_true = read_review(
            json.loads(review_file.read_text("utf-8")), kb, "quizbot/kb/data/clinical_review.json"
        )
        truths = kb.extra_truths | found_true
        kb = replace(kb, extra_truths=truths, reviewed_false=reviewed_false - truths)
    return kb
