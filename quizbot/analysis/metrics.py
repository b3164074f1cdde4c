"""Metrics over scored answers, the same for models and for people.

A run is a sequence of :class:`Scored` records, one per item asked (an item id appears at most
once; pool respondents by computing one report each). :func:`compute_metrics` summarises a run
and :func:`compare_runs` tests whether two runs differ.

Errors
    A record whose outcome is ``error`` is a provider failure: the question never reached the
    respondent. It is counted in ``n_errors`` and EXCLUDED from the denominator of every metric
    below (a run that failed to reach the model is not scored as wrong). Only
    ``average_accuracy_with_errors`` counts errors, as wrong answers. An errored variant therefore
    makes its knowledge point incomplete for joint accuracy and its pair incomplete for SDAK.

Definitions (every value a fraction in [0, 1], not a percentage, or None when its denominator is
zero; "all" means all non-error records)
    average_accuracy (PretexEval)
        correct / all. Abstained and unparsed answers count as not correct.
    average_accuracy_with_errors
        correct / all records including errors.
    joint_accuracy (PretexEval)
        Statements are grouped by ``knowledge_point_id`` (a positive triplet and its generated
        negative are two points). Only points with all eight transform variants present count
        (``n_points_complete``); a point is correct when ALL its statements are correct.
    joint_curve
        For k = 1..8, the share of complete points whose statements under the first k transforms
        of the canonical order (none, inv, ins, inv+ins, dn, inv+dn, ins+dn, inv+ins+dn) are all
        correct. Same denominator for every k, so the curve never rises and its last value is
        joint_accuracy.
    gain_over_random
        accuracy on true/false statements − 0.5 (chance on a two-way question); None when there
        are no statements. It lies in [−0.5, 0.5]; its interval is the Wilson interval of the
        statement accuracy shifted by −0.5.
    answer_rate (EBMQA)
        answered / all, where answered = not abstained (an unparsed answer counts as answered).
    accuracy_answered (EBMQA)
        correct / answered.
    instruction_following_rate
        (parsed or abstained) / all = 1 − unparsed / all.
    multi_answer (:func:`multi_answer_summary`, in run reports)
        Over multi-answer questions (imported MultifacetEval MAQ and EBMQA semantic items, and
        any question with more than one right option), errors excluded: ``exact_match`` =
        answers choosing exactly the right options / all, and ``partial_credit`` = the mean of
        :func:`quizbot.evaluation.parse.partial_credit` ((right chosen − wrong chosen) / right
        options, floored at 0; 0 for no answer or "I do not know").
    pair_accuracy (SDAK)
        Statements are grouped by ``pair_id``: a transform t and its double-negated partner t+dn
        of the same point (a factual statement and its counterfactual). A pair counts when both
        members are present; it is correct when all its statements are correct.
    sycophancy_rate (SDAK)
        Share of counted pairs where every statement was answered "true": the respondent agreed
        with a statement and with its negation.
    by_relation, by_transform
        average_accuracy, answer_rate and accuracy_answered per relation / per transform, with n
        (non-error records). Choice items have no transform and are left out of by_transform.

Intervals
    Every proportion carries a Wilson score 95% interval (z from ``scipy.stats.norm``); it stays
    inside [0, 1], is exactly 0 at the lower end when k = 0 and exactly 1 at the upper end when
    k = n, and is None when n = 0.

Comparison (:func:`compare_runs`, difference = run b − run a)
    With at least :data:`MIN_SHARED_FOR_MCNEMAR` shared items (same item id in both runs, error in
    neither), McNemar's exact test: a two-sided binomial test (p = 0.5) on the discordant pairs
    b01 (a not correct, b correct) and b10 (a correct, b not correct); abstained and unparsed
    count as not correct. The difference of accuracies on the shared items gets Newcombe's
    hybrid score interval for paired proportions (Newcombe 1998, Stat Med 17:2635, method 10:
    Wilson limits combined with the continuity-adjusted phi correlation).
    With fewer shared items, a pooled two-proportion z-test on each run's full average_accuracy,
    with Newcombe's hybrid score interval for independent proportions (Newcombe 1998, Stat Med
    17:873, method 10). If the runs overlap partly, their samples are not independent and this
    test is only approximate. ``test`` always names the test used.
    :func:`benjamini_hochberg` adjusts a family of p-values (e.g. one per relation) for the
    false discovery rate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from quizbot.domain import Outcome
from quizbot.evaluation.parse import partial_credit
from quizbot.items import ChoiceItem, StatementItem
from quizbot.transforms import TRANSFORMS, Transform

__all__ = [
    "MIN_SHARED_FOR_MCNEMAR",
    "Breakdown",
    "Comparison",
    "Proportion",
    "Report",
    "Scored",
    "benjamini_hochberg",
    "compare_proportions",
    "compare_runs",
    "compute_metrics",
    "is_multi_answer",
    "multi_answer_summary",
    "two_proportion_z",
    "wilson_interval",
]

CONFIDENCE = 0.95
# z of the two-sided 95% interval, scipy.stats.norm.ppf(0.975) (tests/analysis/test_metrics.py
# checks it against scipy): a literal, so importing the metrics does not import scipy.
Z = 1.959963984540054
MIN_SHARED_FOR_MCNEMAR = 10
CHANCE = 0.5  # accuracy of guessing on a true/false statement

_KINDS = frozenset({"statement", "choice"})


@dataclass(frozen=True)
class Scored:
    """One scored answer: what the item was and how the answer was classed."""

    item_id: str
    kind: str  # "statement" or "choice"
    relation: str
    transform: str | None
    polarity: str | None
    label: bool | None
    knowledge_point_id: str | None
    pair_id: str | None
    outcome: Outcome
    answer: str | None  # "true"/"false", option letters, or None

    def __post_init__(self) -> None:
        """Reject records the metrics could not group (ValueError)."""
        if self.kind not in _KINDS:
            raise ValueError(f"unknown item kind {self.kind!r} for item {self.item_id}")
        if self.kind == "statement":
            if self.transform is None:
                raise ValueError(f"statement {self.item_id} has no transform")
            Transform(self.transform)  # ValueError on an unknown transform
        if not isinstance(self.outcome, Outcome):
            raise ValueError(f"outcome of {self.item_id} is not an Outcome: {self.outcome!r}")

    @classmethod
    def from_item(
        cls, item: StatementItem | ChoiceItem, outcome: Outcome, answer: str | None
    ) -> Scored:
        """Build the record for ``item`` answered with ``answer`` and classed ``outcome``."""
        if isinstance(item, ChoiceItem):
            points = item.knowledge_point_ids
            return cls(
                item_id=item.id,
                kind="choice",
                relation=item.relation,
                transform=None,
                polarity=None,
                label=None,
                knowledge_point_id=points[0] if len(points) == 1 else None,
                pair_id=None,
                outcome=outcome,
                answer=answer,
            )
        return cls(
            item_id=item.id,
            kind="statement",
            relation=item.relation,
            transform=item.transform.value,
            polarity=item.polarity.value,
            label=item.label,
            knowledge_point_id=item.knowledge_point_id,
            pair_id=item.pair_id,
            outcome=outcome,
            answer=answer,
        )

    @property
    def correct(self) -> bool:
        """The answer was right."""
        return self.outcome is Outcome.CORRECT

    @property
    def said_true(self) -> bool:
        """The answer was "true" (used for sycophancy)."""
        return self.answer is not None and self.answer.strip().lower() == "true"


def wilson_interval(k: int, n: int, z: float = Z) -> tuple[float, float] | None:
    """Wilson score interval for k successes out of n (None when n = 0).

    ``(p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)`` with p = k/n; the ends are exact
    (0 and 1) at k = 0 and k = n, where rounding would otherwise leave a hair off.
    """
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return None
    p = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Proportion:
    """k out of n, its value and Wilson 95% interval (value and ends None when n = 0)."""

    k: int
    n: int
    value: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, k: int, n: int) -> Proportion:
        """The proportion k/n with its Wilson interval."""
        interval = wilson_interval(k, n)
        if interval is None:
            return cls(k, n, None, None, None)
        return cls(k, n, k / n, interval[0], interval[1])

    @property
    def interval(self) -> list[float] | None:
        """``[low, high]``, or None when n = 0."""
        if self.low is None or self.high is None:
            return None
        return [self.low, self.high]

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"k": self.k, "n": self.n, "value": self.value, "low": self.low, "high": self.high}


def _metric_json(metrics: Mapping[str, Proportion]) -> dict[str, Any]:
    """Values and the parallel intervals of some named proportions."""
    return {
        "metrics": {name: p.value for name, p in metrics.items()},
        "intervals": {name: p.interval for name, p in metrics.items()},
    }


@dataclass(frozen=True)
class Breakdown:
    """The answer metrics of one slice of a run (one relation or one transform)."""

    n: int
    average_accuracy: Proportion
    answer_rate: Proportion
    accuracy_answered: Proportion

    @classmethod
    def of(cls, records: Sequence[Scored]) -> Breakdown:
        """Metrics of ``records`` (errors already removed)."""
        n = len(records)
        correct = sum(r.correct for r in records)
        answered = sum(r.outcome is not Outcome.ABSTAINED for r in records)
        return cls(
            n=n,
            average_accuracy=Proportion.of(correct, n),
            answer_rate=Proportion.of(answered, n),
            accuracy_answered=Proportion.of(correct, answered),
        )

    def as_json(self) -> dict[str, Any]:
        """``{"n", "metrics": {name: value}, "intervals": {name: [low, high] | None}}``."""
        out = _metric_json(
            {
                "average_accuracy": self.average_accuracy,
                "answer_rate": self.answer_rate,
                "accuracy_answered": self.accuracy_answered,
            }
        )
        return {"n": self.n, **out}


@dataclass(frozen=True)
class Report:
    """The metrics of one run (see the module docstring for definitions)."""

    n_items: int  # all records, errors included
    n_errors: int
    n_points_complete: int
    average_accuracy: Proportion
    average_accuracy_with_errors: Proportion
    statement_accuracy: Proportion
    joint_accuracy: Proportion
    joint_curve: tuple[Proportion, ...]
    answer_rate: Proportion
    accuracy_answered: Proportion
    instruction_following_rate: Proportion
    pair_accuracy: Proportion
    sycophancy_rate: Proportion
    by_relation: Mapping[str, Breakdown] = field(default_factory=dict)
    by_transform: Mapping[str, Breakdown] = field(default_factory=dict)

    @property
    def gain_over_random(self) -> float | None:
        """Statement accuracy − 0.5, or None without statements."""
        value = self.statement_accuracy.value
        return None if value is None else value - CHANCE

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict: metric values are fractions (or None), intervals in parallel."""
        out = _metric_json(
            {
                "average_accuracy": self.average_accuracy,
                "average_accuracy_with_errors": self.average_accuracy_with_errors,
                "joint_accuracy": self.joint_accuracy,
                "answer_rate": self.answer_rate,
                "accuracy_answered": self.accuracy_answered,
                "instruction_following_rate": self.instruction_following_rate,
                "pair_accuracy": self.pair_accuracy,
                "sycophancy_rate": self.sycophancy_rate,
            }
        )
        acc = self.statement_accuracy
        out["metrics"]["gain_over_random"] = self.gain_over_random
        out["intervals"]["gain_over_random"] = (
            None if acc.low is None or acc.high is None else [acc.low - CHANCE, acc.high - CHANCE]
        )
        return {
            "n_items": self.n_items,
            "n_errors": self.n_errors,
            "n_points_complete": self.n_points_complete,
            **out,
            "joint_curve": [p.value for p in self.joint_curve],
            "joint_curve_intervals": [p.interval for p in self.joint_curve],
            "by_relation": {name: b.as_json() for name, b in self.by_relation.items()},
            "by_transform": {name: b.as_json() for name, b in self.by_transform.items()},
        }


def _check_unique(records: Iterable[Scored], run: str) -> None:
    seen: set[str] = set()
    for r in records:
        if r.item_id in seen:
            raise ValueError(f"item {r.item_id} appears twice in {run}; one record per item")
        seen.add(r.item_id)


def _joint(statements: Sequence[Scored]) -> tuple[Proportion, tuple[Proportion, ...]]:
    """Joint accuracy and joint curve over complete knowledge points."""
    points: dict[str, list[Scored]] = defaultdict(list)
    for r in statements:
        if r.knowledge_point_id is not None:
            points[r.knowledge_point_id].append(r)
    everything = frozenset(t.value for t in TRANSFORMS)
    complete = [rs for rs in points.values() if {r.transform for r in rs} >= everything]
    curve = []
    for k in range(1, len(TRANSFORMS) + 1):
        first = frozenset(t.value for t in TRANSFORMS[:k])
        good = sum(all(r.correct for r in rs if r.transform in first) for rs in complete)
        curve.append(Proportion.of(good, len(complete)))
    joint = Proportion.of(sum(all(r.correct for r in rs) for rs in complete), len(complete))
    return joint, tuple(curve)


def _negated(record: Scored) -> bool:
    """The statement is the double-negated member of its pair."""
    return record.transform is not None and Transform(record.transform).negated


def _pairs(statements: Sequence[Scored]) -> tuple[Proportion, Proportion]:
    """Pair accuracy and sycophancy rate over pairs with both members present."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for r in statements:
        if r.pair_id is not None:
            groups[r.pair_id].append(r)
    both_sides = {True, False}
    counted = [rs for rs in groups.values() if {_negated(r) for r in rs} == both_sides]
    correct = sum(all(r.correct for r in rs) for rs in counted)
    sycophantic = sum(all(r.said_true for r in rs) for rs in counted)
    return Proportion.of(correct, len(counted)), Proportion.of(sycophantic, len(counted))


def compute_metrics(records: Sequence[Scored]) -> Report:
    """All metrics of one run (ValueError if an item id appears twice)."""
    _check_unique(records, "the run")
    valid = [r for r in records if r.outcome is not Outcome.ERROR]
    n_errors = len(records) - len(valid)
    n = len(valid)
    correct = sum(r.correct for r in valid)
    answered = sum(r.outcome is not Outcome.ABSTAINED for r in valid)
    unparsed = sum(r.outcome is Outcome.UNPARSED for r in valid)
    statements = [r for r in valid if r.kind == "statement"]
    joint, curve = _joint(statements)
    pair_accuracy, sycophancy = _pairs(statements)

    relations: dict[str, list[Scored]] = defaultdict(list)
    transforms: dict[str, list[Scored]] = defaultdict(list)
    for r in valid:
        relations[r.relation].append(r)
        if r.transform is not None:
            transforms[r.transform].append(r)
    by_transform = {t.value: Breakdown.of(transforms[t.value]) for t in TRANSFORMS}
    return Report(
        n_items=len(records),
        n_errors=n_errors,
        n_points_complete=joint.n,
        average_accuracy=Proportion.of(correct, n),
        average_accuracy_with_errors=Proportion.of(correct, len(records)),
        statement_accuracy=Proportion.of(sum(r.correct for r in statements), len(statements)),
        joint_accuracy=joint,
        joint_curve=curve,
        answer_rate=Proportion.of(answered, n),
        accuracy_answered=Proportion.of(correct, answered),
        instruction_following_rate=Proportion.of(n - unparsed, n),
        pair_accuracy=pair_accuracy,
        sycophancy_rate=sycophancy,
        by_relation=MappingProxyType(
            {name: Breakdown.of(relations[name]) for name in sorted(relations)}
        ),
        by_transform=MappingProxyType({k: b for k, b in by_transform.items() if b.n}),
    )


@dataclass(frozen=True)
class Comparison:
    """Whether run b differs from run a (difference = b − a); see the module docstring."""

    test: str  # "mcnemar_exact" or "two_proportion_z"
    ci_method: str
    n_shared: int
    b01: int  # shared items a got wrong and b got right
    b10: int  # shared items a got right and b got wrong
    n_a: int  # items behind accuracy_a (the shared items for McNemar)
    n_b: int
    accuracy_a: float | None
    accuracy_b: float | None
    difference: float | None
    difference_low: float | None
    difference_high: float | None
    z: float | None  # z statistic of the two-proportion test, else None
    p_value: float | None

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        interval = (
            None
            if self.difference_low is None or self.difference_high is None
            else [self.difference_low, self.difference_high]
        )
        return {
            "test": self.test,
            "ci_method": self.ci_method,
            "n_shared": self.n_shared,
            "b01": self.b01,
            "b10": self.b10,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "difference": self.difference,
            "difference_interval": interval,
            "z": self.z,
            "p_value": self.p_value,
        }


def _ends(k: int, n: int) -> tuple[float, float]:
    """Wilson interval of k/n for n > 0."""
    interval = wilson_interval(k, n)
    if interval is None:
        raise ValueError("an interval needs n > 0")
    return interval


def _paired_newcombe(both: int, b01: int, b10: int, neither: int) -> tuple[float, float]:
    """Newcombe (1998) method 10 interval for p_b − p_a from a paired 2x2 table."""
    n = both + b01 + b10 + neither
    k_b, k_a = both + b01, both + b10
    p_b, p_a = k_b / n, k_a / n
    (l_b, u_b), (l_a, u_a) = _ends(k_b, n), _ends(k_a, n)
    phi = 0.0
    margins = k_b * (n - k_b) * k_a * (n - k_a)
    if margins > 0:
        cross = both * neither - b01 * b10
        if cross > n / 2:
            phi = (cross - n / 2) / math.sqrt(margins)
        elif cross < 0:
            phi = cross / math.sqrt(margins)
    d = p_b - p_a
    lower = d - math.sqrt((p_b - l_b) ** 2 - 2 * phi * (p_b - l_b) * (u_a - p_a) + (u_a - p_a) ** 2)
    upper = d + math.sqrt((p_a - l_a) ** 2 - 2 * phi * (p_a - l_a) * (u_b - p_b) + (u_b - p_b) ** 2)
    return max(-1.0, lower), min(1.0, upper)


def _independent_newcombe(k_a: int, n_a: int, k_b: int, n_b: int) -> tuple[float, float]:
    """Newcombe (1998) method 10 interval for p_b − p_a from two independent samples."""
    (l_a, u_a), (l_b, u_b) = _ends(k_a, n_a), _ends(k_b, n_b)
    p_a, p_b = k_a / n_a, k_b / n_b
    d = p_b - p_a
    lower = d - math.sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2)
    upper = d + math.sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)
    return max(-1.0, lower), min(1.0, upper)


def compare_runs(a: Sequence[Scored], b: Sequence[Scored]) -> Comparison:
    """Test whether run b's accuracy differs from run a's (ValueError on a repeated item id)."""
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    _check_unique(a, "run a")
    _check_unique(b, "run b")
    valid_a = {r.item_id: r for r in a if r.outcome is not Outcome.ERROR}
    valid_b = {r.item_id: r for r in b if r.outcome is not Outcome.ERROR}
    shared = [(valid_a[i], valid_b[i]) for i in valid_a.keys() & valid_b.keys()]
    both = sum(ra.correct and rb.correct for ra, rb in shared)
    b01 = sum(not ra.correct and rb.correct for ra, rb in shared)
    b10 = sum(ra.correct and not rb.correct for ra, rb in shared)
    n_shared = len(shared)

    if n_shared >= MIN_SHARED_FOR_MCNEMAR:
        discordant = b01 + b10
        p_value = (
            float(stats.binomtest(b01, discordant, 0.5, alternative="two-sided").pvalue)
            if discordant
            else 1.0
        )
        low, high = _paired_newcombe(both, b01, b10, n_shared - both - b01 - b10)
        return Comparison(
            test="mcnemar_exact",
            ci_method="newcombe_paired_hybrid_score",
            n_shared=n_shared,
            b01=b01,
            b10=b10,
            n_a=n_shared,
            n_b=n_shared,
            accuracy_a=(both + b10) / n_shared,
            accuracy_b=(both + b01) / n_shared,
            difference=(b01 - b10) / n_shared,
            difference_low=low,
            difference_high=high,
            z=None,
            p_value=min(1.0, p_value),
        )

    comparison = compare_proportions(
        sum(r.correct for r in valid_a.values()),
        len(valid_a),
        sum(r.correct for r in valid_b.values()),
        len(valid_b),
    )
    return replace(comparison, n_shared=n_shared, b01=b01, b10=b10)


def two_proportion_z(
    k_a: int, n_a: int, k_b: int, n_b: int, dispersion: float = 1.0
) -> tuple[float, float]:
    """Pooled two-proportion z statistic of b − a and its two-sided p-value (n_a, n_b > 0).

    ``dispersion`` (quasi-binomial phi >= 1) widens the variance when answers cluster. Both
    samples all right or all wrong give z = 0, p = 1.
    """
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    pooled = (k_a + k_b) / (n_a + n_b)
    se = math.sqrt(dispersion * pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = 0.0 if se == 0 else (k_b / n_b - k_a / n_a) / se
    return z, float(2 * stats.norm.sf(abs(z)))


def compare_proportions(k_a: int, n_a: int, k_b: int, n_b: int) -> Comparison:
    """Accuracy b vs a from independent samples: z-test and Newcombe's interval of b − a."""
    z: float | None = None
    p: float | None = None
    difference = low_d = high_d = None
    if n_a and n_b:
        difference = k_b / n_b - k_a / n_a
        z, p = two_proportion_z(k_a, n_a, k_b, n_b)
        low_d, high_d = _independent_newcombe(k_a, n_a, k_b, n_b)
    return Comparison(
        test="two_proportion_z",
        ci_method="newcombe_independent_hybrid_score",
        n_shared=0,
        b01=0,
        b10=0,
        n_a=n_a,
        n_b=n_b,
        accuracy_a=k_a / n_a if n_a else None,
        accuracy_b=k_b / n_b if n_b else None,
        difference=difference,
        difference_low=low_d,
        difference_high=high_d,
        z=z,
        p_value=p,
    )


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values, in input order: monotone in p and capped at 1.

    adjusted p_(i) = min over j >= i of m·p_(j)/j, for p sorted ascending. ValueError on a
    p-value outside [0, 1] (or NaN).
    """
    m = len(p_values)
    for p in p_values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-value out of [0, 1]: {p!r}")
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = running
    return adjusted


def is_multi_answer(item: StatementItem | ChoiceItem) -> bool:
    """A question that may have several right options (its format says so, or its key does)."""
    return isinstance(item, ChoiceItem) and (
        bool(item.meta.get("multi_answer")) or len(item.answer_keys) > 1
    )


def multi_answer_summary(
    answers: Iterable[tuple[StatementItem | ChoiceItem, Outcome, str | None]],
) -> dict[str, Any] | None:
    """Exact match and fractional credit over the multi-answer questions among ``answers``
    ((item, outcome, parsed answer) triples; errors left out); None when there are none."""
    n = exact = 0
    credit = 0.0
    for item, outcome, answer in answers:
        if not isinstance(item, ChoiceItem) or not is_multi_answer(item):
            continue
        if outcome is Outcome.ERROR:
            continue
        n += 1
        exact += outcome is Outcome.CORRECT
        credit += partial_credit(item, answer)
    if n == 0:
        return None
    return {
        "n_items": n,
        "exact_match": exact / n,
        "exact_match_interval": Proportion.of(exact, n).interval,
        "partial_credit": credit / n,
    }
