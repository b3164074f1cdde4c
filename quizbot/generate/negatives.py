"""Negative triplets: for each true (head, relation, tail), a tail that makes it false.

The candidates and their safety rules live in :mod:`quizbot.generate.candidates` (shared with
multiple-choice distractors): a tail of the same relation that is not true of the head by any
name, at any level of the hierarchy, by drug class, as a generic name, or by the KB's extra truths
and oracle; a close neighbour's tail last; by default a plausible one (same organ system) first.

The choice is seeded by (seed, KB, relation, head, tail) alone, so a point gets the same negative
whatever else is being generated: subsets and full runs agree. A generation asks for another
negative when a point's would repeat a false fact already stated for its head
(:func:`quizbot.generate.statements.plan_generation`): the next one in the same order.

Residual risk: a KB is incomplete, so a tail it lists for no related disease can still be true
in reality; docs/knowledge.md says how that risk was measured and how a wrong item is corrected
without a release.
"""

from __future__ import annotations

from collections.abc import Collection

from quizbot.generate.candidates import (
    DEFAULT_DIFFICULTY,
    Candidate,
    CandidatePool,
    Difficulty,
)
from quizbot.kb.model import KnowledgeBaseData, Triplet

__all__ = ["NegativeSampler"]


class NegativeSampler:
    """Draws one deterministic negative tail per triplet of a KB."""

    def __init__(
        self,
        kb: KnowledgeBaseData,
        seed: int | str = 0,
        *,
        difficulty: Difficulty = DEFAULT_DIFFICULTY,
        pool: CandidatePool | None = None,
    ) -> None:
        self.kb = kb
        self.seed = str(seed)
        self.difficulty = difficulty
        self.pool = pool if pool is not None else CandidatePool(kb)

    def _key(self, t: Triplet) -> bytes:
        return "\x1f".join((self.seed, self.kb.name, t.relation, t.head, t.tail)).encode()

    def choose(self, t: Triplet, exclude: Collection[str] = ()) -> Candidate | None:
        """A false tail for ``t`` with the tier it came from, or ``None`` if none is safe.

        ``exclude`` holds tails not to draw (already stated for another fact of the same head and
        relation): the next safe candidate in the same seeded order is drawn instead.
        """
        knowledge = self.pool.knowledge
        groups = knowledge.groups(t.head)
        if t.group is not None and t.group not in groups:
            groups = groups | {t.group}
        ranked = self.pool.ranked(
            t.head,
            t.relation,
            self._key(t),
            difficulty=self.difficulty,
            groups=groups,
            accept=lambda tail: tail not in exclude and not knowledge.same(tail, t.tail),
        )
        return next(ranked, None)

    def negative(self, t: Triplet) -> str | None:
        """A false tail for ``t``, or ``None`` if the relation offers no safe one."""
        chosen = self.choose(t)
        return chosen.tail if chosen is not None else None
