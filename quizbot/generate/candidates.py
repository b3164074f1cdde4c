"""False tails for a fact, safest and most plausible first: what negatives and distractors share.

A candidate for (head, relation) is a tail of the *same* relation (so of the right type: a drug for
a drug). Two things decide whether and how early it is offered:

**Safety (a filter).** The candidate is never the head itself, under its name or a synonym of it
("ischaemic stroke" is no complication of ischaemic stroke, true or false: the r6 audit found the
generator offering 21 diseases as their own complication). And
:meth:`quizbot.kb.knowledge.Knowledge.conflict` must find nothing: the candidate, a synonym, a
part or whole, a kind or class of it, a drug of the same class, is not known true of the head
under any relation; it is not a generic name; the KB's oracle does not call it plausibly true.

**Preference (tiers).** Three kinds of safe candidate, by how far they can be trusted:

* *reviewed*: a clinician reviewed (head, relation, tail) and found it false
  (``KnowledgeBaseData.reviewed_false``; clinical-core ships its audits);
* *plain*: nothing known against it;
* *risky*: a *close neighbour's* tail (a tail of another head that shares a specific tail with
  this one: warfarin and apixaban both prevent ischaemic stroke) or a *common* tail (listed for
  many heads, such as fever or prednisolone: "cannot present with fever" is rarely safe).

and by group (clinical-core: organ system; a multi-system disease has several). A same-system
candidate makes a student know the fact rather than reject an option by organ system, but the
clinical audit found 7% of unreviewed same-system symptoms to be true of the disease after all
(complications, shared signs), against about 1% from other systems. So:

* ``plausible`` (the default): reviewed same group, reviewed other group, plain other group,
  plain same group, then the risky ones;
* ``distant``: reviewed other group, plain other group, reviewed same group, plain same group,
  then the risky ones.

A KB without groups (HPO, MedLAMA) goes reviewed, plain, risky.

A head's groups include the further systems the lexicon gives a multi-system disease (Addison's
disease is also rheumatological and dermatological), and a tail is "same group" if any disease of
any of those groups lists it: eclampsia is then "same group" for Alzheimer's disease. So the
reviewed same-group tier is drawn in two steps: first the tails listed (for the relation) by a
disease of the head's *own* group, the group of its own facts (``Triplet.group``), then the rest
of the tier. Both steps keep the tier's name; no unreviewed tail comes before a reviewed one.

The tier a candidate came from is recorded with every item (``negative_tier`` of a statement,
``distractor_tiers`` of a multiple-choice question). Everything random is seeded by the caller's
key alone, so a fact gets the same candidates whatever else is generated alongside it.
"""

from __future__ import annotations

import hashlib
import random
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData

__all__ = [
    "DEFAULT_DIFFICULTY",
    "DIFFICULTIES",
    "Candidate",
    "CandidatePool",
    "Difficulty",
]

Difficulty = Literal["plausible", "distant"]
DIFFICULTIES: tuple[Difficulty, ...] = ("plausible", "distant")
DEFAULT_DIFFICULTY: Difficulty = "plausible"

# A shared tail held by at most this many heads marks the heads as close neighbours; hub tails
# such as "fever" are shared too widely to say anything.
NEIGHBOUR_MAX_FANOUT = 10
# A tail listed for at least this many heads of a relation is common: a risky negative.
COMMON_MIN_FANOUT = 6
# Seeded random draws tried in a tier before its tails are walked exhaustively.
_DRAWS = 64
_CACHE = 4096

# Tier names, as recorded on items.
SAME_GROUP, OTHER_GROUP, ANY = "same group", "other group", "no group"
# Categories within a group: reviewed false by a clinician, plain, risky (close neighbour/common).
REVIEWED, PLAIN, RISKY = "reviewed", "plain", "close neighbour or common"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A safe false tail and the tier it was drawn from (e.g. ``same group``)."""

    tail: str
    tier: str


def _indices(key: bytes, n: int) -> Iterator[int]:
    """Seeded indices into a list of ``n``: sha256 of (key, counter), 4 bytes at a time.

    Seeding a ``random.Random`` per fact costs ~100x more than this and gains nothing.
    """
    counter = 0
    while True:
        digest = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(digest[offset : offset + 4], "big") % n
        counter += 1


class CandidatePool:
    """The tails of each relation of a KB, sorted into tiers per fact. Build once per KB."""

    def __init__(self, kb: KnowledgeBaseData, knowledge: Knowledge | None = None) -> None:
        self.kb = kb
        self.knowledge = knowledge if knowledge is not None else Knowledge(kb)
        by_relation: dict[str, dict[str, None]] = defaultdict(dict)
        tails_of: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
        heads_of: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t in kb.triplets:
            by_relation[t.relation][t.tail] = None
            tails_of[(t.head, t.relation)][t.tail] = None
            heads_of[(t.relation, t.tail)].add(t.head)
        self._pool = {r: sorted(ts) for r, ts in by_relation.items()}
        common: dict[str, set[str]] = defaultdict(set)
        for (relation, tail), heads in heads_of.items():
            if len(heads) >= COMMON_MIN_FANOUT:
                common[relation].add(tail)
        self._common = {r: frozenset(ts) for r, ts in common.items()}
        self._tails_of = {k: list(v) for k, v in tails_of.items()}
        self._heads_of = dict(heads_of)
        # (relation, group) -> tails seen under the relation with a head of that group
        seen: dict[tuple[str, str], set[str]] = defaultdict(set)
        # Each distinct head's groups, asked once (not once per triplet); none at all for a KB
        # without groups (HPO, MedLAMA), whose 140,000 triplets then need no pass here.
        grouped = {
            head: groups
            for head in {head for head, _relation in tails_of}
            if (groups := self.knowledge.groups(head))
        }
        if grouped:
            for (relation, tail), heads in self._heads_of.items():
                for head in heads:
                    for group in grouped.get(head, ()):
                        seen[(relation, group)].add(tail)
        self._seen_with = dict(seen)
        # A head's own groups (of its facts, without the lexicon's further systems), and
        # (relation, group) -> the tails listed by a fact of that group.
        own: dict[str, set[str]] = defaultdict(set)
        listed: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t in kb.triplets:
            if t.group is not None:
                own[t.head].add(t.group)
                listed[(t.relation, t.group)].add(t.tail)
        self._own_groups = {head: frozenset(groups) for head, groups in own.items()}
        self._listed_in = dict(listed)
        reviewed: dict[tuple[str, str], set[str]] = defaultdict(set)
        for head, relation, tail in kb.reviewed_false:
            reviewed[(head, relation)].add(tail)
        self._reviewed = {k: sorted(v) for k, v in reviewed.items()}
        self._split_cache: OrderedDict[tuple[str, frozenset[str]], tuple[list[str], list[str]]] = (
            OrderedDict()
        )
        self._near_cache: OrderedDict[tuple[str, str], frozenset[str]] = OrderedDict()

    def tails(self, head: str, relation: str) -> list[str]:
        """The tails the KB lists for (head, relation), in KB order."""
        return self._tails_of.get((head, relation), [])

    def pool(self, relation: str) -> list[str]:
        """Every tail of ``relation``, sorted."""
        return self._pool.get(relation, [])

    def _split(self, relation: str, groups: frozenset[str]) -> tuple[list[str], list[str]]:
        """(tails seen with one of ``groups``, the other tails) of ``relation``, sorted, cached."""
        key = (relation, groups)
        cached = self._split_cache.get(key)
        if cached is None:
            within: set[str] = set()
            for group in groups:
                within |= self._seen_with.get((relation, group), set())
            pool = self.pool(relation)
            cached = ([t for t in pool if t in within], [t for t in pool if t not in within])
            self._split_cache[key] = cached
            if len(self._split_cache) > _CACHE:
                self._split_cache.popitem(last=False)
        return cached

    def own_groups(self, head: str) -> frozenset[str]:
        """The groups of ``head``'s own facts (``Triplet.group``), without the lexicon's further
        systems of a multi-system disease."""
        return self._own_groups.get(head, frozenset())

    def listed_by_group(self, relation: str, groups: frozenset[str], tail: str) -> bool:
        """Whether a fact of one of ``groups`` lists ``tail`` under ``relation``."""
        return any(tail in self._listed_in.get((relation, g), ()) for g in groups)

    def neighbour_tails(self, head: str, relation: str) -> frozenset[str]:
        """Tails of heads sharing a specific tail with ``head`` under ``relation``, and the
        relation's common tails: the risky candidates, offered last (cached)."""
        key = (head, relation)
        cached = self._near_cache.get(key)
        if cached is None:
            near: set[str] = set()
            for tail in self.tails(head, relation):
                heads = self._heads_of.get((relation, tail), set())
                if len(heads) <= NEIGHBOUR_MAX_FANOUT:
                    near.update(heads)
            near.discard(head)
            risky = {t for other in near for t in self.tails(other, relation)}
            risky.update(self._common.get(relation, ()))
            cached = frozenset(risky)
            self._near_cache[key] = cached
            if len(self._near_cache) > _CACHE:
                self._near_cache.popitem(last=False)
        return cached

    def _within(self, relation: str, groups: frozenset[str], tail: str) -> bool:
        return any(tail in self._seen_with.get((relation, g), ()) for g in groups)

    def ranked(
        self,
        head: str,
        relation: str,
        key: bytes,
        *,
        difficulty: Difficulty = DEFAULT_DIFFICULTY,
        groups: frozenset[str] | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> Iterator[Candidate]:
        """Safe false tails for (head, relation), best tier first, each tier in a seeded order.

        ``groups`` defaults to every group the head involves. ``accept`` filters further (e.g.
        "not already an option"). Within a tier, up to ``_DRAWS`` seeded draws come first (cheap
        on big KBs), then the tier's remaining tails in a seeded shuffle, so a tier is exhausted
        before the next one is used. The reviewed same-group tier is drawn so in two steps: the
        tails a fact of the head's own group (among ``groups``) lists, then the others. A tail
        is yielded at most once, and never the head itself (by name or synonym).
        """
        if difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be one of {DIFFICULTIES}, not {difficulty!r}")
        knowledge = self.knowledge
        if groups is None:
            groups = knowledge.groups(head)
        near = self.neighbour_tails(head, relation)
        within, away = self._split(relation, groups)
        reviewed = self._reviewed.get((head, relation), [])
        reviewed_within = [t for t in reviewed if self._within(relation, groups, t)]
        reviewed_away = [t for t in reviewed if not self._within(relation, groups, t)]
        own = self.own_groups(head) & groups
        reviewed_own = [t for t in reviewed_within if self.listed_by_group(relation, own, t)]
        taken = set(reviewed_own)
        reviewed_further = [t for t in reviewed_within if t not in taken]
        # (tier name, its tails, category, the step's seed suffix): a tier drawn in two steps
        # keeps one name, and its second step a seed of its own.
        order: list[tuple[str, Sequence[str], str, str]]
        if not groups:
            order = [(ANY, reviewed, REVIEWED, ""), (ANY, away, PLAIN, ""), (ANY, away, RISKY, "")]
        else:
            same_reviewed = [
                (SAME_GROUP, reviewed_own, REVIEWED, ""),
                (SAME_GROUP, reviewed_further, REVIEWED, "\x1ffurther"),
            ]
            same_plain = (SAME_GROUP, within, PLAIN, "")
            same_risky = (SAME_GROUP, within, RISKY, "")
            other_reviewed = (OTHER_GROUP, reviewed_away, REVIEWED, "")
            other_plain = (OTHER_GROUP, away, PLAIN, "")
            other_risky = (OTHER_GROUP, away, RISKY, "")
            if difficulty == "plausible":
                # Same-system candidates first only once a clinician has reviewed them: unreviewed,
                # they are the likeliest to be true but unlisted (audit in docs/knowledge.md).
                order = [*same_reviewed, other_reviewed, other_plain, same_plain]
            else:
                order = [other_reviewed, other_plain, *same_reviewed, same_plain]
            order += [other_risky, same_risky]
        reviewed_set = frozenset(reviewed)
        head_key = knowledge.key(head)
        tried: set[str] = set()

        def fits(tail: str, category: str) -> bool:
            if tail in tried:
                return False
            if category != REVIEWED and (
                tail in reviewed_set or (tail in near) != (category == RISKY)
            ):
                return False
            tried.add(tail)
            if knowledge.key(tail) == head_key:  # the head itself is no candidate, for any relation
                return False
            if accept is not None and not accept(tail):
                return False
            return knowledge.safe(head, relation, tail)

        for name, tails, category, step in order:
            if not tails:
                continue
            tier = name if category == PLAIN else f"{name}, {category}"
            seed = key + tier.encode() + step.encode()
            picks = _indices(seed, len(tails))
            for _ in range(min(_DRAWS, len(tails))):
                tail = tails[next(picks)]
                if fits(tail, category):
                    yield Candidate(tail, tier)
            rest = [t for t in tails if t not in tried]
            random.Random(seed).shuffle(rest)
            for tail in rest:
                if fits(tail, category):
                    yield Candidate(tail, tier)
