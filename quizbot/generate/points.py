"""Which knowledge points to ask: deterministic, relation-stratified selection and rotating subsets.

Every ordering here comes from hashing a key with each point's id, never from iteration order or
a process-wide random state, so the same inputs give the same points (and the same items, byte for
byte) on any machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id

__all__ = ["Subset", "candidate_points", "select", "stratified"]


def _rank(key: str, t: Triplet, kb: str) -> bytes:
    return hashlib.sha256(f"{key}\x1f{point_id(kb, t.relation, t.head, t.tail)}".encode()).digest()


def candidate_points(
    kb: KnowledgeBaseData, relations: Iterable[str] | None = None
) -> list[Triplet]:
    """The triplets that can be asked as knowledge points.

    Where a KB lists several gold tails for one head and relation (MedLAMA), only the primary one
    is a point (as in the PretexEval paper); the others still count as true for negative sampling.
    """
    grouped = kb.by_relation(relations)
    return [t for ts in grouped.values() for t in ts if t.meta.get("primary", True)]


def stratified(kb: str, triplets: Sequence[Triplet], key: str) -> list[Triplet]:
    """All ``triplets`` in a seeded order that interleaves relations evenly (round robin)."""
    by_relation: dict[str, list[Triplet]] = {}
    for t in triplets:
        by_relation.setdefault(t.relation, []).append(t)
    queues = [
        sorted(ts, key=lambda t: _rank(f"{key}\x1f{relation}", t, kb))
        for relation, ts in sorted(by_relation.items())
    ]
    ordered: list[Triplet] = []
    depth = max((len(q) for q in queues), default=0)
    for i in range(depth):
        ordered.extend(q[i] for q in queues if i < len(q))
    return ordered


@dataclass(frozen=True)
class Subset:
    """A night's points: the fixed anchors and the rotating slice."""

    anchors: tuple[Triplet, ...]
    rotating: tuple[Triplet, ...]

    @property
    def points(self) -> tuple[Triplet, ...]:
        """Anchors first, then the rotating slice."""
        return self.anchors + self.rotating


def select(
    kb: KnowledgeBaseData,
    when: date | str | int,
    size: int,
    anchor_size: int,
    relations: Iterable[str] | None = None,
) -> Subset:
    """A deterministic subset of ``size`` points of which ``anchor_size`` are fixed anchors.

    Anchors depend only on the KB and relations (every night shares them, for paired comparison);
    the rotating slice is drawn from the other points by ``when`` (a date or a seed), so each night
    asks fresh items. Both are stratified by relation. Same inputs, same subset.
    """
    if not 0 <= anchor_size <= size:
        raise ValueError("need 0 <= anchor_size <= size")
    pool = candidate_points(kb, relations)
    anchors = stratified(kb.name, pool, "anchor")[:anchor_size]
    chosen = set(anchors)
    rest = [t for t in pool if t not in chosen]
    key = when.isoformat() if isinstance(when, date) else str(when)
    rotating = stratified(kb.name, rest, f"rotate\x1f{key}")[: size - len(anchors)]
    return Subset(tuple(anchors), tuple(rotating))
