"""Negative triplets: for each true (head, relation, tail), a tail that makes it false.

Rules, in order of strength:
1. same relation, so the tail has the right type (a drug for a drug, a site for a site);
2. never a tail known true for that head under *any* relation, nor one the KB's oracle calls
   plausibly true (HPO: ancestors and descendants of annotated phenotypes);
3. preferably from a different group (clinical-core: organ system), so a "negative" symptom of a
   respiratory disease comes from, say, a dermatological one and is not secretly true.

The choice is seeded by (seed, KB, relation, head, tail) alone, so a point gets the same negative
whatever else is being generated: subsets and full runs agree. Residual risk: a tail listed for no
disease of the head's system can still be true in reality if the KB is incomplete (e.g. a
symptom shared by two diseases but listed for one); docs/knowledge.md discusses it.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterator

from quizbot.kb.model import KnowledgeBaseData, Triplet

__all__ = ["NegativeSampler"]

_PREFERRED_TRIES = 64


class NegativeSampler:
    """Draws one deterministic negative tail per triplet of a KB."""

    def __init__(self, kb: KnowledgeBaseData, seed: int | str = 0) -> None:
        self.kb = kb
        self.seed = str(seed)
        self._true: dict[str, set[str]] = defaultdict(set)
        tails: dict[str, dict[str, set[str | None]]] = defaultdict(dict)
        for t in kb.triplets:
            self._true[t.head].add(t.tail)
            tails[t.relation].setdefault(t.tail, set()).add(t.group)
        self._tails: dict[str, list[str]] = {r: sorted(ts) for r, ts in tails.items()}
        # For each relation and group: the tails never seen with that group.
        self._away: dict[tuple[str, str], list[str]] = {}
        for relation, by_tail in tails.items():
            groups = {g for gs in by_tail.values() for g in gs if g is not None}
            for group in groups:
                self._away[(relation, group)] = sorted(
                    tail for tail, gs in by_tail.items() if group not in gs
                )

    def _key(self, t: Triplet) -> bytes:
        return "\x1f".join((self.seed, self.kb.name, t.relation, t.head, t.tail)).encode()

    @staticmethod
    def _indices(key: bytes, n: int) -> Iterator[int]:
        """Seeded indices into a list of ``n``: sha256 of (key, counter), 4 bytes at a time.

        Seeding a ``random.Random`` per triplet costs ~100x more than this and gains nothing.
        """
        counter = 0
        while True:
            digest = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(digest[offset : offset + 4], "big") % n
            counter += 1

    def _ok(self, t: Triplet, candidate: str) -> bool:
        if candidate == t.tail or candidate in self._true.get(t.head, ()):
            return False
        oracle = self.kb.oracle
        return not (oracle is not None and oracle.plausibly_true(t.head, t.relation, candidate))

    def negative(self, t: Triplet) -> str | None:
        """A false tail for ``t``, or ``None`` if the relation offers no safe one."""
        key = self._key(t)
        if t.group is not None:
            away = self._away.get((t.relation, t.group), [])
            if away:
                picks = self._indices(key + b"\x1eaway", len(away))
                for _ in range(min(_PREFERRED_TRIES, len(away))):
                    candidate = away[next(picks)]
                    if self._ok(t, candidate):
                        return candidate
        pool = self._tails.get(t.relation, [])
        if not pool:
            return None
        picks = self._indices(key + b"\x1eany", len(pool))
        for _ in range(min(_PREFERRED_TRIES, len(pool))):
            candidate = pool[next(picks)]
            if self._ok(t, candidate):
                return candidate
        order = list(range(len(pool)))  # exhaustive, still seeded, for crowded relations
        random.Random(key).shuffle(order)
        for index in order:
            if self._ok(t, pool[index]):
                return pool[index]
        return None
