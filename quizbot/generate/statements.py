"""From knowledge points to true/false statements: 8 transforms x (positive, negative) = 16 each."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

from quizbot.generate.candidates import DEFAULT_DIFFICULTY, Difficulty
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.prototypes import PrototypeSet
from quizbot.items import StatementItem, StatementSide
from quizbot.kb.model import KnowledgeBaseData, Triplet
from quizbot.transforms import TRANSFORMS, Polarity, label_for

__all__ = ["PointPlan", "plan_for", "plan_generation", "plan_points", "statements"]


@dataclass(frozen=True, slots=True)
class PointPlan:
    """A knowledge point to ask, with the negative tail that pairs with it (if any)."""

    fact: Triplet
    negative_tail: str | None
    # How the negative was chosen: a tier of quizbot.generate.candidates ("same group", ...) or
    # "given" (a points file named it). Recorded in the negative statements' meta.
    negative_tier: str | None = None


def plan_for(sampler: NegativeSampler, fact: Triplet, exclude: Collection[str] = ()) -> PointPlan:
    """The plan of one fact: its negative tail drawn by ``sampler`` (none of ``exclude``), with
    the tier it came from."""
    chosen = sampler.choose(fact, exclude)
    if chosen is None:
        return PointPlan(fact, None)
    return PointPlan(fact, chosen.tail, chosen.tier)


def plan_generation(sampler: NegativeSampler, facts: Iterable[Triplet]) -> list[PointPlan]:
    """Plans for a generation, no false fact stated twice: when a fact's negative was already
    drawn for another fact of the same head and relation, another safe negative is drawn (the
    next in the same seeded order) rather than the duplicate being dropped, so every point keeps
    its false side and true and false statements stay equal in number for every transform."""
    used: dict[tuple[str, str], set[str]] = {}
    plans: list[PointPlan] = []
    for fact in facts:
        taken = used.setdefault((fact.relation, fact.head), set())
        plan = plan_for(sampler, fact, taken)
        if plan.negative_tail is not None:
            taken.add(plan.negative_tail)
        plans.append(plan)
    return plans


def plan_points(
    kb: KnowledgeBaseData,
    facts: Iterable[Triplet],
    seed: int | str = 0,
    difficulty: Difficulty = DEFAULT_DIFFICULTY,
) -> list[PointPlan]:
    """Attach a deterministic negative tail to every fact."""
    sampler = NegativeSampler(kb, seed, difficulty=difficulty)
    return [plan_for(sampler, f) for f in facts]


_POSITIVE_LABELS = tuple(label_for(Polarity.POSITIVE, t) for t in TRANSFORMS)
_NEGATIVE_LABELS = tuple(label_for(Polarity.NEGATIVE, t) for t in TRANSFORMS)


def statements(
    kb: KnowledgeBaseData,
    plans: Iterable[PointPlan],
    prototypes: PrototypeSet,
    *,
    balanced: bool = False,
) -> Iterator[StatementItem]:
    """Every statement for every planned point: 8 for the fact, 8 for its negative. Streams.

    A negative shared by two facts of one head is stated once (its statements are identical).
    ``balanced`` (a generation's setting) states a point only with its false side: a point with
    no safe negative, or whose negative was already stated, is left out whole, so every transform
    has as many true statements as false ones (plan with :func:`plan_generation` so that few are).

    The hot path of bulk generation (all of MedLAMA is 300,000 statements), hence the
    precomputed per-relation tables, the direct tuple construction, and batches of eight
    flattened in C by ``chain.from_iterable`` (one generator resume per batch, not per item);
    see bench/bench_generate.py.
    """
    return chain.from_iterable(_batches(kb, plans, prototypes, balanced))


def _batches(
    kb: KnowledgeBaseData, plans: Iterable[PointPlan], prototypes: PrototypeSet, balanced: bool
) -> Iterator[list[StatementItem]]:
    proto_name = f"{prototypes.name}@{prototypes.digest}"
    name, version = kb.name, kb.version
    positive, negative = Polarity.POSITIVE, Polarity.NEGATIVE
    new = tuple.__new__  # skips the NamedTuple constructor's Python frame
    cls, Side = StatementItem, StatementSide  # noqa: N806 - class aliases for the hot loop
    tables: dict[
        str, tuple[Callable[[str, str], tuple[str, ...]], tuple[Any, ...], tuple[Any, ...]]
    ]
    tables = {}
    # Two facts of one head may be given the same false tail (the reviewed candidates of a head
    # are few): its eight statements are then one negative point, asked once.
    negatives_seen: set[tuple[str, str, str]] = set()
    for plan in plans:
        fact = plan.fact
        relation, head, tail = fact.relation, fact.head, fact.tail
        neg = plan.negative_tail
        if balanced and (neg is None or (relation, head, neg) in negatives_seen):
            continue  # its true side alone would tip the balance
        table = tables.get(relation)
        if table is None:
            templates = [prototypes.prototypes[(relation, t)].template for t in TRANSFORMS]
            table = tables[relation] = (
                prototypes.renderer(relation),
                tuple(zip(TRANSFORMS, _POSITIVE_LABELS, templates, strict=True)),
                tuple(zip(TRANSFORMS, _NEGATIVE_LABELS, templates, strict=True)),
            )
        render8, pos_spec, neg_spec = table
        meta = fact.meta
        side = new(
            Side, (name, version, relation, head, tail, positive, proto_name, None, meta)
        )  # fmt: skip
        yield [
            new(cls, (side, tr, label, text, proto, None))
            for (tr, label, proto), text in zip(pos_spec, render8(head, tail), strict=True)
        ]
        if neg is not None and (relation, head, neg) not in negatives_seen:
            negatives_seen.add((relation, head, neg))
            if plan.negative_tier is not None:
                meta = {**meta, "negative_tier": plan.negative_tier}
            side = new(Side, (name, version, relation, head, neg, negative, proto_name, tail, meta))
            yield [
                new(cls, (side, tr, label, text, proto, None))
                for (tr, label, proto), text in zip(neg_spec, render8(head, neg), strict=True)
            ]
