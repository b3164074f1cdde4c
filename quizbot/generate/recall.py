"""Open recall items (MedDisKEval): one question per disease x aspect, with the gold list.

An *aspect* is a relation whose tails form a list for a disease: every relation of a KB whose head
is a disease (``head_type`` "disease" or "rare disease"). clinical-core gives symptoms, anatomical
sites, medications, drug classes, procedures, complications, investigations and age groups; HPO
gives phenotypes, genes and modes of inheritance; an imported KB gives whatever disease relations
it has, asked with a generic wording.

Each gold entity carries what the scorer needs to be fair, taken from the KB's knowledge model
(:class:`quizbot.kb.knowledge.Knowledge`): its other names (``synonyms``) and its lineage up to
:data:`LINEAGE_LEVELS` levels each way (``broader``: wholes, kinds, drug classes; ``narrower``:
parts, subtypes, drugs of a class; at most :data:`MAX_NARROWER` names per entity). The item is
then scored without the KB (:mod:`quizbot.evaluation.recall`).

Which (disease, aspect) pairs are asked: all, or ``limit`` of them drawn by a hash of the seed, in
KB order. A disease with more than ``max_answers`` tails for an aspect is left out (a list that
long is no recall question a person could answer; the count is reported).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from quizbot.errors import InputError
from quizbot.items import RecallItem
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, point_id

__all__ = [
    "ASPECTS",
    "DISEASE_TYPES",
    "LINEAGE_LEVELS",
    "MAX_ANSWERS",
    "MAX_NARROWER",
    "Aspect",
    "RecallPlan",
    "aspects_of",
    "plan_recall",
    "recall_items",
]

DISEASE_TYPES = frozenset({"disease", "rare disease"})
LINEAGE_LEVELS = 2
MAX_NARROWER = 30
MAX_ANSWERS = 30


@dataclass(frozen=True)
class Aspect:
    """What a relation asks as an open question: a short name and the question's wording."""

    relation: str
    name: str
    template: str  # "{head}" is the disease


# The wording of the known aspects; other disease relations get a generic question.
ASPECTS: dict[str, Aspect] = {
    a.relation: a
    for a in (
        Aspect("has_symptom", "symptoms", "What are the main symptoms and signs of {head}?"),
        Aspect("affects_site", "anatomical sites", "Which anatomical sites does {head} affect?"),
        Aspect("treated_with_drug", "medications", "Which medications are used to treat {head}?"),
        Aspect(
            "treated_with_procedure",
            "procedures",
            "Which procedures or non-drug treatments are used for {head}?",
        ),
        Aspect("has_complication", "complications", "What are the main complications of {head}?"),
        Aspect(
            "investigated_with",
            "investigations",
            "Which investigations are used to diagnose or assess {head}?",
        ),
        Aspect(
            "typical_age_group",
            "age groups",
            "In which age groups does {head} typically present (infants, children, adolescents, "
            "young adults, middle-aged adults, older adults)?",
        ),
        Aspect(
            "treated_with_drug_class",
            "drug classes",
            "Which drug classes are used to treat {head}?",
        ),
        Aspect(
            "has_phenotype", "phenotypes", "Which clinical features (phenotypes) occur in {head}?"
        ),
        Aspect("associated_gene", "genes", "Which genes are associated with {head}?"),
        Aspect("has_inheritance", "inheritance", "How is {head} inherited?"),
    )
}


def aspects_of(kb: KnowledgeBaseData) -> list[Aspect]:
    """Every aspect of ``kb``: its relations whose head is a disease, in schema order."""
    found: list[Aspect] = []
    for relation in kb.relations.values():
        if relation.head_type not in DISEASE_TYPES:
            continue
        known = ASPECTS.get(relation.name)
        found.append(
            known
            or Aspect(
                relation.name,
                relation.label,
                f"List every {relation.tail_type} for this relation: {{head}} {relation.label}.",
            )
        )
    return found


@dataclass(frozen=True)
class RecallPlan:
    """The (disease, aspect) pairs chosen, and what was left out."""

    pairs: tuple[tuple[Aspect, str, tuple[str, ...]], ...]  # aspect, head, gold tails (KB order)
    too_long: int = 0
    notes: tuple[str, ...] = field(default=())


def _rank(seed: str, relation: str, head: str) -> bytes:
    return hashlib.sha256(f"recall\x1f{seed}\x1f{relation}\x1f{head}".encode()).digest()


def plan_recall(
    kb: KnowledgeBaseData,
    *,
    relations: Sequence[str] | None = None,
    limit: int | None = None,
    seed: str = "0",
    max_answers: int = MAX_ANSWERS,
    exclude_heads: frozenset[str] = frozenset(),
) -> RecallPlan:
    """Choose the (disease, aspect) pairs to ask; raises :class:`InputError` on a bad request."""
    aspects = {a.relation: a for a in aspects_of(kb)}
    if not aspects:
        raise InputError(f"knowledge base {kb.name!r} has no disease relations to recall")
    if relations:
        unknown = sorted(set(relations) - set(aspects))
        if unknown:
            raise InputError(
                f"{unknown[0]!r} is no recall aspect of {kb.name!r}",
                hint=f"its aspects: {', '.join(aspects)}",
            )
        aspects = {r: aspects[r] for r in aspects if r in set(relations)}
    tails: dict[tuple[str, str], list[str]] = {}
    for t in kb.triplets:
        if t.relation in aspects and t.head not in exclude_heads:
            listed = tails.setdefault((t.relation, t.head), [])
            if t.tail not in listed:
                listed.append(t.tail)
    keys = [k for k, v in tails.items() if len(v) <= max_answers]
    too_long = len(tails) - len(keys)
    if limit is not None:
        chosen = set(sorted(keys, key=lambda k: _rank(seed, *k))[:limit])
        keys = [k for k in keys if k in chosen]
    pairs = tuple((aspects[r], h, tuple(tails[(r, h)])) for r, h in keys)
    notes = (
        (f"left out {too_long} disease-aspect lists longer than {max_answers}",) if too_long else ()
    )
    return RecallPlan(pairs, too_long, notes)


class _Lineage:
    """Synonyms and lineage of entities by name, from a KB's knowledge model."""

    def __init__(self, kb: KnowledgeBaseData) -> None:
        self.knowledge = Knowledge(kb)
        self.names = self.knowledge.names()

    def label(self, key: str) -> str:
        known = self.names.get(key)
        return known[0] if known else key

    def synonyms(self, name: str) -> tuple[str, ...]:
        return tuple(n for n in self.names.get(self.knowledge.key(name), ()) if n != name)

    def _walk(self, name: str, step: str, cap: int) -> tuple[str, ...]:
        move = self.knowledge.parents if step == "up" else self.knowledge.children
        start = self.knowledge.key(name)
        seen = {start}
        level = [start]
        found: list[str] = []
        for _ in range(LINEAGE_LEVELS):
            nxt: list[str] = []
            for key in level:
                for other in sorted(move(key)):
                    if other not in seen:
                        seen.add(other)
                        nxt.append(other)
                        found.append(self.label(other))
            level = nxt
        return tuple(found[:cap])

    def broader(self, name: str) -> tuple[str, ...]:
        return self._walk(name, "up", 1000)

    def narrower(self, name: str) -> tuple[str, ...]:
        return self._walk(name, "down", MAX_NARROWER)


def recall_items(kb: KnowledgeBaseData, plan: RecallPlan) -> Iterator[RecallItem]:
    """One recall item per planned (disease, aspect), with synonyms and lineage of its gold."""
    lineage = _Lineage(kb)
    for aspect, head, gold in plan.pairs:
        synonyms = {g: s for g in gold if (s := lineage.synonyms(g))}
        broader = {g: b for g in gold if (b := lineage.broader(g))}
        narrower = {g: n for g in gold if (n := lineage.narrower(g))}
        yield RecallItem(
            kb=kb.name,
            kb_version=kb.version,
            relation=aspect.relation,
            aspect=aspect.name,
            head=head,
            question=aspect.template.format(head=head),
            answers=gold,
            synonyms=synonyms,
            broader=broader,
            narrower=narrower,
            knowledge_point_ids=tuple(point_id(kb.name, aspect.relation, head, g) for g in gold),
        )
