"""Which knowledge points to ask: deterministic, relation-stratified selection and rotating subsets.

Every ordering here comes from hashing a key with each point's id, never from iteration order or
a process-wide random state, so the same inputs give the same points (and the same items, byte for
byte) on any machine.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date

from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id

__all__ = ["Subset", "candidate_points", "select", "stratified", "stratified_rounds"]


def _rank(key: str, t: Triplet, kb: str) -> bytes:
    """A point's place in a seeded order: sha256 of the key and the point's id."""
    return hashlib.sha256(f"{key}\x1f{point_id(kb, t.relation, t.head, t.tail)}".encode()).digest()


def _ranker(
    key: str, kb: str, point_digits: Callable[[Triplet], bytes] | None = None
) -> Callable[[Triplet], bytes]:
    """:func:`_rank` with ``key`` and ``kb`` fixed, hashing their common prefixes once.

    Equal to ``_rank(key, t, kb)`` for every triplet (tests/generate/test_points.py checks it):
    it resumes copies of the two hashes after the shared prefix instead of re-hashing it, which
    halves the cost of ordering HPO's 140,000 points. ``point_digits``, if given, returns the 16
    hex digits of a triplet's :func:`~quizbot.kb.model.point_id` (ASCII bytes) that a caller
    already knows, so only the seeded hash is computed.
    """
    outer = hashlib.sha256(f"{key}\x1fkp1:".encode())  # point_id() is "kp1:" + 16 hex digits
    if point_digits is not None:
        digits = point_digits

        def rank_known(t: Triplet) -> bytes:
            o = outer.copy()
            o.update(digits(t))
            return o.digest()

        return rank_known
    inner = hashlib.sha256(f"{kb}\x1f".encode())

    def rank(t: Triplet) -> bytes:
        h = inner.copy()
        h.update(f"{t.relation}\x1f{t.head}\x1f{t.tail}".encode())
        o = outer.copy()
        o.update(h.hexdigest()[:16].encode())
        return o.digest()

    return rank


def candidate_points(
    kb: KnowledgeBaseData, relations: Iterable[str] | None = None
) -> list[Triplet]:
    """The triplets that can be asked as knowledge points.

    Where a KB lists several gold tails for one head and relation (MedLAMA), only the primary one
    is a point (as in the PretexEval paper); the others still count as true for negative sampling.
    """
    grouped = kb.by_relation(relations)
    return [t for ts in grouped.values() for t in ts if t.meta.get("primary", True)]


def stratified(
    kb: str,
    triplets: Sequence[Triplet],
    key: str,
    limit: int | None = None,
    *,
    point_digits: Callable[[Triplet], bytes] | None = None,
) -> list[Triplet]:
    """All ``triplets`` in a seeded order that interleaves relations evenly (round robin).

    With ``limit``, only the first ``limit`` of that order: the same points, without sorting
    every relation in full when a few are asked of a big KB. ``point_digits``: see
    :func:`_ranker` (the same order, computed with point ids the caller already has).
    """
    by_relation: dict[str, list[Triplet]] = {}
    for t in triplets:
        by_relation.setdefault(t.relation, []).append(t)
    queues = []
    for relation, ts in sorted(by_relation.items()):
        rank = _ranker(f"{key}\x1f{relation}", kb, point_digits)
        if limit is not None and limit < len(ts):
            # No relation gives more than `limit` of the first `limit`; nsmallest is documented
            # as equivalent to sorted(...)[:limit].
            queues.append(heapq.nsmallest(limit, ts, key=rank))
        else:
            queues.append(sorted(ts, key=rank))
    ordered: list[Triplet] = []
    depth = max((len(q) for q in queues), default=0)
    for i in range(depth):
        ordered.extend(q[i] for q in queues if i < len(q))
    return ordered if limit is None else ordered[:limit]


def stratified_rounds(
    kb: str,
    triplets: Sequence[Triplet],
    key: str,
    *,
    point_digits: Callable[[Triplet], bytes] | None = None,
) -> Iterator[list[Triplet]]:
    """:func:`stratified`'s order round by round, computed only as far as it is read: round
    ``i`` holds the ``i``-th point of each relation (relations by name) in that relation's
    seeded order, so the rounds joined are ``stratified(kb, triplets, key)``.

    Every point is still ranked (one hash each), but a relation is put in order only as deep
    as the rounds read (a heap, not a full sort): a practice session reading its first rounds
    of a KB's 5,000 points sorts none of them (:func:`quizbot.practice.planning.start_session`).
    """
    by_relation: dict[str, list[Triplet]] = {}
    for t in triplets:
        by_relation.setdefault(t.relation, []).append(t)
    queues: list[tuple[list[tuple[bytes, int]], list[Triplet]]] = []
    for relation, ts in sorted(by_relation.items()):
        rank = _ranker(f"{key}\x1f{relation}", kb, point_digits)
        heap = [(rank(t), i) for i, t in enumerate(ts)]  # i: ties keep sorted()'s order
        heapq.heapify(heap)
        queues.append((heap, ts))
    while queues:
        yield [ts[heapq.heappop(heap)[1]] for heap, ts in queues]
        queues = [q for q in queues if q[0]]


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
