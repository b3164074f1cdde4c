"""Sub-label breakdowns (EBMQA): accuracy and answer rate per sub-label, the best-to-worst gap,
the Spearman correlation between answer rate and accuracy, and random and majority guessing.

Sub-labels of an item (an item without a label is left out of that label's breakdown):

``relation``
    The item's relation (KB items) or its imported relation (e.g. ``ebmqa-numeric``, ``mcq``).
``question_type``
    ``numeric`` / ``semantic`` / ``frequency`` for choice items (an imported EBMQA item's
    ``type``, else the generated subtype), ``statement`` for true/false statements.
``organ_system``
    The organ system of a clinical-core fact (``meta["group"]`` of a choice item,
    ``meta["system"]`` of a statement).
``tier``
    Frequency or prevalence tier: a numeric HPO question's right range (``below`` /
    ``between`` / ``above``), a frequency question's band.
``length``
    Question length tertiles in words (the text as shown: statement, or question and options):
    cut at the 1/3 and 2/3 quantiles of the run's distinct items' lengths
    (:func:`statistics.quantiles`, inclusive method); ``short`` <= the first, ``long`` > the
    second, ``medium`` between. Only with at least three distinct items.
imported labels
    Every key of an imported item's ``labels`` (EBMQA-style files, e.g. ``discipline``,
    ``tier``, ``organ_system``), by its own name; it overrides a KB label of the same name.

Per sub-label group, over its answers (failed calls left out, as in every metric): ``n``,
``average_accuracy`` (correct / answers) and ``answer_rate`` (not abstained / answers) with
Wilson 95% intervals, ``accuracy_answered`` (correct / answered) and two guessing baselines:

``random_guess``
    The mean over the group's answers of the chance of a uniform random guess: 1/2 for a
    statement, 1/n for a single-answer question with n options ("I do not know" not counted),
    1/(2^n − 1) for a multi-answer question (a random non-empty set of options, exact match).
``majority_guess``
    Share of the group's answers whose key is the run's most frequent key (over the run's
    distinct items: "True"/"False" or the letters, as :func:`majority_answer` picks for the
    ``baseline/majority`` model): always answering that key, the strategy fixed for the whole
    item set.

Per sub-label: ``gap`` = the best group's ``average_accuracy`` − the worst's (with their names;
needs two groups), and ``spearman`` = Spearman's rank correlation between the groups'
``answer_rate`` and ``accuracy_answered`` (:func:`scipy.stats.spearmanr`, two-sided p-value),
None with fewer than three groups or when either is constant. ``overall`` holds the run's
accuracy next to both guessing baselines.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from quizbot.analysis.metrics import Proportion, is_multi_answer
from quizbot.domain import Outcome
from quizbot.evaluation.runner import majority_answer
from quizbot.items import ChoiceItem, StatementItem, is_idk_option

__all__ = ["Answer", "item_labels", "random_chance", "sub_label_report"]

Answer = tuple[StatementItem | ChoiceItem, Outcome, str | None]
_LETTERS = "ABCDEFGHIJ"
MIN_GROUPS_FOR_SPEARMAN = 3


def random_chance(item: StatementItem | ChoiceItem) -> float:
    """The chance that a uniform random guess is exactly right (see the module docstring)."""
    if isinstance(item, StatementItem):
        return 0.5
    keys = set(item.answer_keys)
    n = sum(
        1
        for i, option in enumerate(item.options)
        if _LETTERS[i] in keys or not is_idk_option(option)
    )
    if is_multi_answer(item):
        return 1 / float(2**n - 1)
    return 1 / n


def _key(item: StatementItem | ChoiceItem) -> str:
    if isinstance(item, StatementItem):
        return "True" if item.label else "False"
    return ",".join(item.answer_keys)


def _tier(item: ChoiceItem) -> str | None:
    if item.subtype == "frequency":
        band = item.meta.get("band")
        return str(band) if band is not None else None
    ranges = item.meta.get("ranges")
    if item.subtype == "numeric" and isinstance(ranges, list) and len(item.answer_keys) == 1:
        index = _LETTERS.index(item.answer_keys[0])
        return str(ranges[index]) if index < len(ranges) else None
    return None


def item_labels(item: StatementItem | ChoiceItem) -> dict[str, str]:
    """The sub-labels of one item (except ``length``, which depends on the run's items)."""
    meta = item.meta
    labels = {"relation": item.relation}
    if isinstance(item, StatementItem):
        labels["question_type"] = "statement"
        if meta.get("system"):
            labels["organ_system"] = str(meta["system"])
    else:
        labels["question_type"] = str(meta.get("type") or item.subtype)
        if meta.get("group"):
            labels["organ_system"] = str(meta["group"])
        tier = _tier(item)
        if tier is not None:
            labels["tier"] = tier
    imported = meta.get("labels")
    if isinstance(imported, Mapping):
        labels.update({str(k): str(v) for k, v in imported.items()})
    return labels


def _length_labels(items: Sequence[StatementItem | ChoiceItem]) -> dict[str, str]:
    """Question length tertile per item id ({} with fewer than three distinct items)."""
    words = {item.id: len(item.text.split()) for item in items}
    if len(words) < MIN_GROUPS_FOR_SPEARMAN:
        return {}
    first, second = statistics.quantiles(words.values(), n=3, method="inclusive")
    out = {}
    for item_id, n in words.items():
        if n <= first:
            out[item_id] = f"short (<= {first:g} words)"
        elif n <= second:
            out[item_id] = f"medium (> {first:g}, <= {second:g} words)"
        else:
            out[item_id] = f"long (> {second:g} words)"
    return out


def _group(answers: Sequence[Answer], majority: str) -> dict[str, Any]:
    n = len(answers)
    correct = sum(outcome is Outcome.CORRECT for _, outcome, _ in answers)
    answered = sum(outcome is not Outcome.ABSTAINED for _, outcome, _ in answers)
    accuracy, rate = Proportion.of(correct, n), Proportion.of(answered, n)
    return {
        "n": n,
        "average_accuracy": accuracy.value,
        "average_accuracy_interval": accuracy.interval,
        "answer_rate": rate.value,
        "answer_rate_interval": rate.interval,
        "accuracy_answered": Proportion.of(correct, answered).value,
        "random_guess": sum(random_chance(item) for item, _, _ in answers) / n,
        "majority_guess": sum(_key(item) == majority for item, _, _ in answers) / n,
    }


def _spearman(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    pairs = [
        (g["answer_rate"], g["accuracy_answered"])
        for g in groups.values()
        if g["accuracy_answered"] is not None
    ]
    if len(pairs) < MIN_GROUPS_FOR_SPEARMAN:
        return None
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    if len(set(xs)) == 1 or len(set(ys)) == 1:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.spearmanr(xs, ys)
    rho, p = float(result.statistic), float(result.pvalue)
    if math.isnan(rho) or math.isnan(p):
        return None
    return {"rho": rho, "p_value": p, "n_groups": len(pairs)}


def sub_label_report(answers: Sequence[Answer]) -> dict[str, Any] | None:
    """Per sub-label breakdowns with gap, correlation and guessing baselines; None when the run
    has no true/false or choice answers. See the module docstring."""
    scored = [a for a in answers if a[1] is not Outcome.ERROR]
    if not scored:
        return None
    distinct = list({item.id: item for item, _, _ in answers}.values())
    majority = majority_answer(distinct)
    lengths = _length_labels(distinct)
    grouped: dict[str, dict[str, list[Answer]]] = defaultdict(lambda: defaultdict(list))
    for answer in scored:
        item = answer[0]
        labels = item_labels(item)
        if item.id in lengths:
            labels["length"] = lengths[item.id]
        for name, value in labels.items():
            grouped[name][value].append(answer)
    by_label: dict[str, Any] = {}
    for name in sorted(grouped):
        groups = {value: _group(grouped[name][value], majority) for value in sorted(grouped[name])}
        ranked = sorted(groups.items(), key=lambda kv: (-kv[1]["average_accuracy"], kv[0]))
        gap = (
            {
                "best": ranked[0][0],
                "worst": ranked[-1][0],
                "value": ranked[0][1]["average_accuracy"] - ranked[-1][1]["average_accuracy"],
            }
            if len(ranked) > 1
            else None
        )
        by_label[name] = {"groups": groups, "gap": gap, "spearman": _spearman(groups)}
    return {"majority_key": majority, "overall": _group(scored, majority), "by_label": by_label}
