"""The relation catalogue agrees with the prototype pool that repeats its columns."""

from __future__ import annotations

from quizbot.generate.prototypes import default_prototypes
from quizbot.kb.relations import known_relations


def test_catalogue_matches_every_relation_of_the_pool() -> None:
    pool = dict(default_prototypes().relations)
    assert known_relations() == pool


def test_catalogue_has_the_built_in_relations_with_types() -> None:
    known = known_relations()
    assert known["has_symptom"].head_type and known["has_symptom"].tail_type
    assert {"has_symptom", "affects_site", "has_phenotype"} <= set(known)
