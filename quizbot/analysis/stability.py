"""Stability of a permutation run (EBMQA): does the answer depend on the order of the options?

A permutation run (``quizbot eval --permutations K [--idk-both]``, see
:mod:`quizbot.evaluation.permutations`) asks every multiple-choice item in K option orders, and
with ``--idk-both`` each order with and without "I do not know". Its config maps every asked
variant to the original item, the order number and whether IDK was offered. Reported per
condition (``with_idk`` / ``without_idk``; one condition when the run did not ask both):

by_order
    For each order number k: accuracy (correct / answers) and answer rate (not abstained /
    answers) with Wilson 95% intervals, over the variants asked in order k. Failed calls
    (``error``) are left out, as in every metric.
spread
    Over the orders' accuracies: ``min``, ``max``, ``range`` (max − min) and ``sd`` (the sample
    standard deviation, n − 1; None with a single order).
consistency
    Share of original items answered identically in content in every order: the answer is read
    as the set of option *texts* chosen (letters mapped through the order asked), "I do not
    know" counts as one answer of its own. An unreadable answer never matches anything (its
    content is unknown), so an item with one is not consistent. Only items answered in every
    order of the condition (no failed call) count (``n``); Wilson 95% interval.
idk_effect (``--idk-both`` only)
    Answer rate and accuracy with IDK offered, without it, and the change (with − without),
    each over all answers of the condition. Unreadable answers count as answered, as in every
    answer rate; without IDK the answer rate is below 1 only when the model abstains unasked.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from quizbot.analysis.metrics import Proportion
from quizbot.domain import Outcome
from quizbot.evaluation.permutations import Variant
from quizbot.items import ChoiceItem

__all__ = ["Asked", "stability_report"]

_LETTERS = "ABCDEFGHIJ"
_UNREADABLE = object()


@dataclass(frozen=True)
class Asked:
    """One answer of a permutation run: the variant asked, its item, outcome and parsed answer."""

    variant: Variant
    item: ChoiceItem
    outcome: Outcome
    answer: str | None  # letters "A,C", "idk", or None


def _content(asked: Asked) -> object:
    """What was answered, independent of the order: option texts, "idk", or unreadable."""
    if asked.outcome is Outcome.ABSTAINED or asked.answer == "idk":
        return "idk"
    if asked.outcome is Outcome.UNPARSED or not asked.answer:
        return _UNREADABLE
    letters = {part.strip().upper() for part in asked.answer.split(",") if part.strip()}
    options = asked.item.options
    if not all(len(x) == 1 and x in _LETTERS[: len(options)] for x in letters):
        return _UNREADABLE
    return frozenset(options[_LETTERS.index(x)] for x in letters)


def _condition(answers: list[Asked]) -> dict[str, Any]:
    by_order: dict[int, list[Asked]] = defaultdict(list)
    by_item: dict[str, dict[int, Asked]] = defaultdict(dict)
    orders_of: dict[str, set[int]] = defaultdict(set)
    for asked in answers:
        orders_of[asked.variant.of].add(asked.variant.index)
        if asked.outcome is Outcome.ERROR:
            continue
        by_order[asked.variant.index].append(asked)
        by_item[asked.variant.of][asked.variant.index] = asked
    rows = []
    accuracies: list[float] = []
    for index in sorted(by_order):
        group = by_order[index]
        n = len(group)
        correct = Proportion.of(sum(a.outcome is Outcome.CORRECT for a in group), n)
        answered = Proportion.of(sum(a.outcome is not Outcome.ABSTAINED for a in group), n)
        assert correct.value is not None
        accuracies.append(correct.value)
        rows.append(
            {
                "index": index,
                "n": n,
                "accuracy": correct.value,
                "accuracy_interval": correct.interval,
                "answer_rate": answered.value,
                "answer_rate_interval": answered.interval,
            }
        )
    complete = [
        by_item[of] for of, orders in orders_of.items() if set(by_item.get(of, {})) == orders
    ]
    same = 0
    for answered_orders in complete:
        contents = [_content(a) for a in answered_orders.values()]
        first = contents[0]
        same += first is not _UNREADABLE and all(c == first for c in contents)
    consistency = Proportion.of(same, len(complete))
    n_all = sum(len(group) for group in by_order.values())
    return {
        "n_items": len(orders_of),
        "n_answers": n_all,
        "accuracy": Proportion.of(
            sum(a.outcome is Outcome.CORRECT for g in by_order.values() for a in g), n_all
        ).value,
        "answer_rate": Proportion.of(
            sum(a.outcome is not Outcome.ABSTAINED for g in by_order.values() for a in g), n_all
        ).value,
        "by_order": rows,
        "spread": {
            "min": min(accuracies) if accuracies else None,
            "max": max(accuracies) if accuracies else None,
            "range": max(accuracies) - min(accuracies) if accuracies else None,
            "sd": statistics.stdev(accuracies) if len(accuracies) > 1 else None,
        },
        "consistency": {
            "k": consistency.k,
            "n": consistency.n,
            "value": consistency.value,
            "interval": consistency.interval,
        },
    }


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def stability_report(plan: Mapping[str, Any], answers: Iterable[Asked]) -> dict[str, Any]:
    """The stability part of a permutation run's report (see the module docstring).

    ``plan`` is the run's stored ``"permutations"`` config; ``answers`` its choice answers that
    are variants in the plan.
    """
    conditions: dict[bool, list[Asked]] = defaultdict(list)
    for asked in answers:
        conditions[asked.variant.idk].append(asked)
    parts = {
        ("with_idk" if idk else "without_idk"): _condition(group)
        for idk, group in sorted(conditions.items(), reverse=True)
    }
    out: dict[str, Any] = {
        "k": int(plan.get("k", 1)),
        "idk_both": bool(plan.get("idk_both", False)),
        "conditions": parts,
    }
    if out["idk_both"] and "with_idk" in parts and "without_idk" in parts:
        with_idk, without = parts["with_idk"], parts["without_idk"]
        out["idk_effect"] = {
            "answer_rate_with_idk": with_idk["answer_rate"],
            "answer_rate_without_idk": without["answer_rate"],
            "answer_rate_change": _difference(with_idk["answer_rate"], without["answer_rate"]),
            "accuracy_with_idk": with_idk["accuracy"],
            "accuracy_without_idk": without["accuracy"],
            "accuracy_change": _difference(with_idk["accuracy"], without["accuracy"]),
        }
    return out
