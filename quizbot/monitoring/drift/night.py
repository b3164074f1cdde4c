"""One monitor night as the drift tests see it: :class:`Night`, its counts, and leaving items out.

:class:`Night` holds a night's scored answers (anchor set and rotating slice; open recall
answers; SDAK replies). The counts every accuracy test needs are computed once per night
(``Night._tally``); a family that needs counts of its own caches them with :meth:`Night.memo`
(a night is immutable, so a cached value never goes stale).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from quizbot.analysis.metrics import Scored
from quizbot.analysis.recall import RecallRecord
from quizbot.analysis.sdak import SdakAnswer
from quizbot.domain import Outcome
from quizbot.errors import InputError
from quizbot.monitoring.drift.dispersion import pearson

__all__ = ["Night", "Tally", "without_items"]

T = TypeVar("T")


@dataclass(frozen=True)
class Tally:
    """The counts of one night that the tests need (errors left out), computed once per night."""

    anchor: dict[str, bool]  # anchor item id -> answered correctly
    anchor_right: frozenset[str]  # the anchor items answered correctly
    anchor_k: int
    rotating_k: int
    rotating_n: int
    overall_k: int
    overall_n: int
    pearson: float  # rotating: Pearson chi-square of knowledge points about the night's accuracy
    pearson_df: int
    relations: dict[str, tuple[int, int]]  # relation -> (correct, answered), anchor + rotating

    @classmethod
    def of(cls, night: Night) -> Tally:
        """Count ``night``'s records (detect() may see a night many times: this runs once)."""
        error, right = Outcome.ERROR, Outcome.CORRECT
        anchor = {r.item_id: r.outcome is right for r in night.anchor if r.outcome is not error}
        rotating = [r for r in night.rotating if r.outcome is not error]
        answered = [r for r in night.anchor if r.outcome is not error] + rotating
        relation_n = Counter(r.relation for r in answered)
        relation_k = Counter(r.relation for r in answered if r.outcome is right)
        point_n = Counter(r.knowledge_point_id or r.item_id for r in rotating)
        point_k = Counter(r.knowledge_point_id or r.item_id for r in rotating if r.outcome is right)
        anchor_k = sum(anchor.values())
        rotating_k = point_k.total()
        chi, df = pearson(
            [(point_k[name], n) for name, n in point_n.items()], rotating_k, len(rotating)
        )
        return cls(
            anchor=anchor,
            anchor_right=frozenset(item for item, correct in anchor.items() if correct),
            anchor_k=anchor_k,
            rotating_k=rotating_k,
            rotating_n=len(rotating),
            overall_k=anchor_k + rotating_k,
            overall_n=len(anchor) + len(rotating),
            pearson=chi,
            pearson_df=df,
            relations={name: (relation_k[name], n) for name, n in relation_n.items()},
        )


@dataclass(frozen=True)
class Night:
    """One completed monitor night: its run, the model id the provider reported, its answers.

    The record sequences are stored as tuples; an item id may appear only once in the night
    (anchor and rotating together), else :class:`~quizbot.errors.InputError`.
    """

    date: datetime.date
    run_id: int
    provider_model: str | None
    anchor: Sequence[Scored]
    rotating: Sequence[Scored]
    # The item generator that made the night's questions (quizbot.items.GENERATOR_VERSION):
    # nights of different generators ask differently worded items and are not compared.
    generator: str = "g1"
    # Open recall answers (a recall monitor), rescored; and the tiers they were graded by.
    recall_anchor: Sequence[RecallRecord] = ()
    recall_rotating: Sequence[RecallRecord] = ()
    recall_tiers: dict[str, Any] | None = None
    # A night asked with the SDAK prompt: its statement replies (the same items as ``anchor``
    # and ``rotating``), read again by :func:`quizbot.analysis.sdak.sdak_metrics`. ``prompt`` is
    # how the night was asked; nights asked otherwise are not compared.
    sdak: Sequence[SdakAnswer] = ()
    prompt: str = "standard"

    def __post_init__(self) -> None:
        """Freeze the records and reject a repeated item id."""
        for name in ("anchor", "rotating", "recall_anchor", "recall_rotating", "sdak"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        ids = [r.item_id for r in (*self.anchor, *self.rotating)]
        ids += [r.item_id for r in (*self.recall_anchor, *self.recall_rotating)]
        if len(set(ids)) < len(ids):
            repeated = next(item for item, times in Counter(ids).items() if times > 1)
            raise InputError(
                f"item {repeated} appears twice in the night of {self.date} (run {self.run_id})",
                hint="pass each item once, in either the anchor set or the rotating slice",
            )

    @property
    def recall(self) -> tuple[RecallRecord, ...]:
        """Every open recall answer of the night, anchors first."""
        return (*self.recall_anchor, *self.recall_rotating)

    @cached_property
    def _tally(self) -> Tally:
        """Counts used by the accuracy tests, computed on first use (the night is immutable)."""
        return Tally.of(self)

    def memo(self, key: str, make: Callable[[Night], T]) -> T:
        """``make(self)``, computed once per night and kept under ``key`` (a family's own counts,
        e.g. SDAK instruction following)."""
        cache: dict[str, Any] = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = make(self)
        value: T = cache[key]
        return value


def without_items(nights: Sequence[Night], item_ids: Collection[str]) -> tuple[list[Night], int]:
    """``nights`` with every answer to ``item_ids`` left out, and how many of them had answers.

    For items a reviewer retired (a wrong key, a wrong fact): their answers measure the item, not
    the model, so they are left out of every comparison, tonight's and the past nights' alike.
    The nights given are not changed (they may be cached).
    """
    if not item_ids:
        return list(nights), 0
    dropped: set[str] = set()
    kept: list[Night] = []
    for night in nights:
        hit = {r.item_id for r in (*night.anchor, *night.rotating) if r.item_id in item_ids}
        hit |= {r.item_id for r in night.recall if r.item_id in item_ids}
        if not hit:
            kept.append(night)
            continue
        dropped |= hit
        kept.append(
            dataclasses.replace(
                night,
                anchor=[r for r in night.anchor if r.item_id not in hit],
                rotating=[r for r in night.rotating if r.item_id not in hit],
                recall_anchor=[r for r in night.recall_anchor if r.item_id not in hit],
                recall_rotating=[r for r in night.recall_rotating if r.item_id not in hit],
                sdak=[a for a in night.sdak if a.item.id not in hit],
            )
        )
    return kept, len(dropped)
