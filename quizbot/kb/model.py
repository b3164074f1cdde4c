"""What a knowledge base is: relations with typed heads and tails, and true triplets.

A knowledge base (KB) is a set of triplets (head, relation, tail) that are known to be true, plus a
schema saying for each relation what kind of entity its head and tail are. Triplets may carry a
``group`` for their head (clinical-core: the organ system) used to keep negative tails away from
anything plausibly true, and free-form ``meta`` (an HPO frequency, a UMLS CUI...).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "KnowledgeBaseData",
    "Lexicon",
    "Relation",
    "Triplet",
    "TruthOracle",
    "point_id",
]


def point_id(kb: str, relation: str, head: str, tail: str) -> str:
    """A stable, versioned id for one triplet of one KB: ``kp1:<16 hex>``."""
    digest = hashlib.sha256("\x1f".join((kb, relation, head, tail)).encode()).hexdigest()
    return f"kp1:{digest[:16]}"


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation of a KB's schema: its name, a human label and the entity types it links."""

    name: str
    label: str
    head_type: str
    tail_type: str


@dataclass(frozen=True, slots=True)
class Triplet:
    """One true fact: ``head`` --relation--> ``tail``."""

    head: str
    relation: str
    tail: str
    head_ref: str | None = None
    tail_ref: str | None = None
    group: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


class TruthOracle(Protocol):
    """Knows facts beyond the KB's triplets, to keep generated negatives from being true.

    E.g. HPO: a disease annotated with "Arachnodactyly" also has "Abnormality of the fingers"
    (an ancestor term), so that must never be offered as a false statement about it.
    """

    def plausibly_true(self, head: str, relation: str, tail: str) -> bool:
        """True if (head, relation, tail) is or may be true, so it is no safe negative."""
        ...


@dataclass(frozen=True)
class Lexicon:
    """What a KB knows about its entities beyond the triplets: names, hierarchy, classes.

    Every map is keyed by an entity name as the KB writes it (lookups elsewhere fold case,
    articles and plurals; see :mod:`quizbot.kb.knowledge`).

    * ``synonyms``: other names of the same entity ("high blood pressure" for "hypertension");
    * ``parents``: broader entities, part-of for sites ("glomeruli" -> "kidneys") and is-a for
      findings and phenotypes; a statement about a part or a kind bears on the whole or the class;
    * ``classes``: drug -> its pharmacological classes; drugs sharing a class are treated as
      interchangeable when deciding whether a candidate negative may be true;
    * ``components``: a combination product -> its ingredients ("co-amoxiclav" -> "amoxicillin");
    * ``generic``: names too unspecific to be false of anything ("surgical excision");
    * ``head_groups``: every group (organ system) a head involves, for diseases that involve
      several systems or spread (SLE, sarcoidosis, metastasising cancers).
    """

    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parents: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    classes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    components: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    generic: frozenset[str] = frozenset()
    head_groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class KnowledgeBaseData:
    """A whole KB in memory, as built-in sources and importers produce it."""

    name: str
    version: str
    source: str
    relations: Mapping[str, Relation]
    triplets: tuple[Triplet, ...]
    title: str = ""
    description: str = ""
    license: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
    oracle: TruthOracle | None = field(default=None, compare=False)
    lexicon: Lexicon = field(default_factory=Lexicon, compare=False)
    # (head, relation, tail) known true in reality but not asked (not a point): never a negative
    # or a distractor. Authored with the KB, or added by an admin's override.
    extra_truths: frozenset[tuple[str, str, str]] = field(default=frozenset(), compare=False)
    # (head, relation, tail) not in the KB that a clinician reviewed and found false: the safest
    # negatives and distractors, offered first (quizbot/generate/candidates.py).
    reviewed_false: frozenset[tuple[str, str, str]] = field(default=frozenset(), compare=False)

    def __post_init__(self) -> None:
        unknown = {t.relation for t in self.triplets} - set(self.relations)
        if unknown:
            raise ValueError(f"triplets use relations missing from the schema: {sorted(unknown)}")

    def by_relation(self, relations: Iterable[str] | None = None) -> dict[str, list[Triplet]]:
        """Triplets grouped by relation (only ``relations`` if given), in KB order."""
        wanted = set(relations) if relations is not None else None
        grouped: dict[str, list[Triplet]] = {}
        for t in self.triplets:
            if wanted is None or t.relation in wanted:
                grouped.setdefault(t.relation, []).append(t)
        return grouped

    def true_pairs(self) -> set[tuple[str, str]]:
        """Every (head, tail) pair that is true under some relation: never a negative."""
        return {(t.head, t.tail) for t in self.triplets}
