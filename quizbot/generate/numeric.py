"""Numeric questions (EBMQA): in which range does a quantity of the knowledge base lie?

EBMQA (Avnat et al., JMIR 2025) asks numeric questions whose options are ranges cut at the
median ± one median absolute deviation (MAD) of the quantity over the whole knowledge base; for
a quantity in 0-1 (a prevalence, an association frequency) that gives three ranges plus
"I do not know". quizbot does the same where its knowledge bases hold numbers:

Quantity
    The frequency of a phenotype in a disease (HPO ``has_phenotype``), only where it rests on
    enough patients: every annotation of the (disease, phenotype) pair must be a ratio ``n/m``
    with ``m >= MIN_PATIENTS`` (:func:`quizbot.generate.choice.enough_patients`); the value is
    the pooled fraction sum(n) / sum(m). An HPO frequency term ("Frequent") or a bare percentage
    gives no number of patients and no numeric question.
Cut points
    Over every such pair of the knowledge base (not only the facts asked):
    ``low = median - MAD`` and ``high = median + MAD``, with MAD = median(|x - median|)
    (unscaled), both from :func:`statistics.median`. No numeric questions when MAD is 0.
Ranges
    below ``low`` (x < low), ``low`` to ``high`` (low <= x <= high), above ``high``
    (x > high). A range that would lie wholly outside [0, 1] (``low <= 0`` or ``high >= 1``) is
    left out rather than offered as an impossible answer, so a question may have two ranges plus
    "I do not know" (with HPO's ratios, median 0.75 and MAD 0.25 put ``high`` at 1.0). The cut
    points, median, MAD and the number of values are kept in the item's ``meta`` and written in
    its options, so they are shown with the item.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.generate.choice import MIN_PATIENTS, PHENOTYPE_RELATION
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem
from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id

__all__ = [
    "NUMERIC_SUBTYPE",
    "CutPoints",
    "Range",
    "cut_points",
    "numeric_questions",
    "phenotype_fractions",
    "ranges",
]

NUMERIC_SUBTYPE = "numeric"
_LETTERS = "ABCDEFGHIJ"
_QUESTION = "In what share of patients with {head} is {tail} present?"


@dataclass(frozen=True)
class CutPoints:
    """Median ± one MAD of a quantity over a knowledge base."""

    median: float
    mad: float
    n_values: int

    @property
    def low(self) -> float:
        """median - MAD."""
        return self.median - self.mad

    @property
    def high(self) -> float:
        """median + MAD."""
        return self.median + self.mad


@dataclass(frozen=True)
class Range:
    """One option: values from ``low`` to ``high`` (ends as :func:`ranges` says)."""

    name: str  # "below", "between" or "above"
    label: str
    low: float
    high: float

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies in this range."""
        if self.name == "below":
            return value < self.high
        if self.name == "above":
            return value > self.low
        return self.low <= value <= self.high


def _ratio(raw: Any) -> tuple[int, int] | None:
    if not isinstance(raw, str) or "/" not in raw:
        return None
    num, _, den = raw.strip().partition("/")
    if not (num.strip().isdigit() and den.strip().isdigit()):
        return None
    n, m = int(num), int(den)
    return (n, m) if m >= MIN_PATIENTS and n <= m else None


def phenotype_fractions(kb: KnowledgeBaseData) -> dict[tuple[str, str], tuple[int, int]]:
    """(disease, phenotype) -> pooled (patients with it, patients seen) for every pair whose
    annotations are all ratios on at least :data:`MIN_PATIENTS` patients."""
    metas: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for t in kb.triplets:
        if t.relation == PHENOTYPE_RELATION:
            metas[(t.head, t.tail)].append(t.meta)
    pooled: dict[tuple[str, str], tuple[int, int]] = {}
    for pair, found in metas.items():
        ratios = [_ratio(meta.get("frequency")) for meta in found]
        if ratios and all(r is not None for r in ratios):
            pooled[pair] = (sum(r[0] for r in ratios if r), sum(r[1] for r in ratios if r))
    return pooled


def cut_points(values: Iterable[float]) -> CutPoints | None:
    """Median ± one (unscaled) MAD of ``values``; None for no values or a MAD of 0."""
    data = list(values)
    if not data:
        return None
    median = float(statistics.median(data))
    mad = float(statistics.median(abs(x - median) for x in data))
    return CutPoints(median, mad, len(data)) if mad > 0 else None


def _pct(value: float) -> str:
    shown = f"{value * 100:.1f}".rstrip("0").rstrip(".")
    return f"{shown}%"


def ranges(cuts: CutPoints) -> list[Range]:
    """The ranges offered for a quantity in [0, 1], those outside it left out."""
    low, high = max(cuts.low, 0.0), min(cuts.high, 1.0)
    found: list[Range] = []
    if cuts.low > 0:
        found.append(Range("below", f"Less than {_pct(low)} of patients", 0.0, low))
    found.append(Range("between", f"{_pct(low)} to {_pct(high)} of patients", low, high))
    if cuts.high < 1:
        found.append(Range("above", f"More than {_pct(high)} of patients", high, 1.0))
    return found


def numeric_questions(kb: KnowledgeBaseData, facts: Sequence[Triplet]) -> list[ChoiceItem]:
    """Numeric questions about the ``has_phenotype`` facts among ``facts`` (others are skipped),
    with cut points computed over the whole of ``kb``; one question per (disease, phenotype)."""
    pooled = phenotype_fractions(kb)
    cuts = cut_points(n / m for n, m in pooled.values())
    if cuts is None:
        return []
    offered = ranges(cuts)
    if len(offered) < 2:
        return []
    items: list[ChoiceItem] = []
    seen: set[tuple[str, str]] = set()
    for fact in facts:
        pair = (fact.head, fact.tail)
        if fact.relation != PHENOTYPE_RELATION or pair not in pooled or pair in seen:
            continue
        seen.add(pair)
        num, den = pooled[pair]
        value = num / den
        key = next(i for i, r in enumerate(offered) if r.holds(value))
        items.append(
            ChoiceItem(
                kb=kb.name,
                kb_version=kb.version,
                relation=fact.relation,
                head=fact.head,
                question=_QUESTION.format(head=fact.head, tail=fact.tail),
                options=(*(r.label for r in offered), I_DO_NOT_KNOW),
                answer_keys=(_LETTERS[key],),
                subtype=NUMERIC_SUBTYPE,
                knowledge_point_ids=(point_id(kb.name, fact.relation, fact.head, fact.tail),),
                meta={
                    "tail": fact.tail,
                    "value": value,
                    "patients": f"{num}/{den} patients",
                    "cut_points": [cuts.low, cuts.high],
                    "median": cuts.median,
                    "mad": cuts.mad,
                    "n_values": cuts.n_values,
                    "ranges": [r.name for r in offered],
                },
            )
        )
    return items
