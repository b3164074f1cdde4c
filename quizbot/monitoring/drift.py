"""Drift statistics for nightly monitoring: pure functions over scored answers, no database.

A monitor asks a model the same **anchor set** every night (for paired comparisons) plus a
**rotating slice** of fresh items. :class:`Night` holds one night's
:class:`~quizbot.analysis.metrics.Scored`
records; :func:`night_summary` describes a night; :func:`detect` compares tonight with the nights
before it and returns one :class:`Finding` per statistic (each maps onto a
``storage.models.DriftResult`` row; the ones with a severity are alerts).

Answers whose outcome is ``error`` (the question never reached the model) are left out of every
count and test below, as in :mod:`quizbot.analysis.metrics`. "Correct" means outcome ``correct``;
abstained and unparsed answers count as not correct. Effects are tonight − baseline, as fractions
(messages say percentage points).

Baseline window
    The previous ``window`` nights of ``history`` (oldest first, completed nights only; the caller
    decides what counts as completed). With fewer than ``min(min_window, window)`` such nights,
    no window test and no CUSUM is run: only the previous-night test and the model-id check.

Tests (all two-sided)
    ``mcnemar_exact_vs_previous`` (scope ``anchor``)
        McNemar's exact test on the anchor items answered both tonight and the previous night,
        delegated to :func:`quizbot.analysis.metrics.compare_runs` (skipped below
        :data:`~quizbot.analysis.metrics.MIN_SHARED_FOR_MCNEMAR` shared items).
    ``mcnemar_exact_vs_window`` (scope ``anchor``)
        McNemar's exact test generalised from one earlier night to W window nights. A majority
        vote over the window would be biased: for an item answered right with probability 0.8,
        tonight's answer disagrees with the window's majority far more often in the "now wrong"
        direction, so a perfectly stable but non-deterministic model would look like it declines.
        Instead the test conditions on each item's total: for item i answered tonight and on
        w_i window nights, let t_i be its number of correct answers over those w_i + 1 nights.
        If the model has not changed, the nights are exchangeable, so tonight's answer is correct
        with probability t_i / (w_i + 1), independently across items. The statistic is tonight's
        number of correct answers over the items that were not right (or wrong) every time; its
        exact null distribution is the Poisson-binomial of those probabilities, and the p-value is
        twice the smaller tail (capped at 1). With a one-night window every informative item has
        probability 1/2 and this is exactly McNemar's exact test. Its effect is tonight's accuracy
        minus the items' mean window accuracy, over the same items.
    ``two_proportion_vs_window`` (scope ``rotating``)
        Pooled two-proportion z-test: tonight's rotating slice against all the window nights'
        rotating answers pooled, z = (p_now − p_window) / sqrt(phi · p(1 − p)(1/n_now + 1/n_window))
        with p the proportion over both samples and phi the dispersion below.
    ``two_proportion_vs_window`` (scopes ``relation:NAME``)
        The same test per relation, on tonight's anchor and rotating answers against the window's,
        for relations with at least ``min_relation_n`` answers on both sides. The anchor items
        are the same on both sides, which makes the test conservative for them.

Dispersion (``overdispersion=True``)
    The statements of one knowledge point are answered alike (a model that does not know a fact
    tends to miss several of its variants), so a night's answers are not independent coin flips
    and binomial standard errors are too small: tests would alarm too often. phi is the
    quasi-binomial dispersion of the window's rotating answers: the Pearson chi-square of the
    knowledge points' correct counts about their own night's accuracy, divided by its degrees of
    freedom (points − 1 per night). Variances of the z-tests and the CUSUM are multiplied by
    max(1, phi); independent answers give phi near 1. Records without a knowledge point are
    their own group. A fact's generated negative is a knowledge point of its own (records carry
    no fact id), so correlation between the two sides of one fact is not captured. Anchor tests
    are paired on items and need no such correction.

Correction (one family per night)
    The night's primary tests are the anchor-vs-previous, anchor-vs-window and rotating-vs-window
    tests and the per-relation family. Relation p-values are first adjusted with
    Benjamini–Hochberg among themselves (their minimum is Simes' test of "no relation moved");
    then every primary p-value, and each relation's BH value, is multiplied by m, the number of
    primary tests run that night (the relation family counting once), and capped at 1: a
    Bonferroni correction, so the chance of any false alarm on a stable night stays below
    ``alpha``. ``p_adjusted`` holds the corrected value.

CUSUM (test ``cusum``, scope ``rotating``)
    A two-sided tabular CUSUM on the rotating slice's nightly accuracy for slow drift that no
    single night shows. Each night t is standardised by its baseline window exactly as in the
    rotating test (z_t, the night's two-proportion statistic against the pooled window, with
    phi), and S⁺ = max(0, S⁺ + z_t − k), S⁻ = max(0, S⁻ − z_t − k), k = ``cusum_k``. A signal is
    S⁺ > h or S⁻ > h (h = ``cusum_h``). The statistic is replayed over the history passed in on
    each call, so :func:`detect` stays a pure function of its arguments; pass the window plus a few
    weeks of nights (with k = 0.5 the sums forget old nights within days on a stable model). It
    starts at zero on the first night that has enough baseline nights. Restart: after a signal on
    night s both sums go back to zero and the CUSUM's baseline may only use nights after s, so it
    sleeps until ``min_window`` new nights exist (the old level must not make the new one signal
    again).
    With the defaults (k = 0.5, h = 5) the in-control average run length of a two-sided CUSUM of
    standard normal values is about 470 nights. The finding's ``value`` is the larger arm,
    signed (−S⁻ or +S⁺, in standard errors); ``effect`` is the mean deviation of accuracy from
    baseline over the nights since that arm last left zero.

Severity
    A primary or relation test with ``p_adjusted < alpha`` is an alert: CRITICAL when accuracy
    fell by at least ``critical_effect`` (10 points by default), WARNING when it fell by less,
    INFO when it rose (a model that suddenly does better has changed too). A CUSUM signal is a
    WARNING when downward and INFO when upward (a drift, not a cliff). A change of the
    provider-reported model id against the previous night (both known) is a WARNING on its own,
    without a p-value. Everything else has severity None.

Default alpha = 0.01
    A monitor runs every night; at 0.05 a stable model could raise an alert about every three
    weeks and people would learn to ignore them. At 0.01 the corrected tests allow fewer than
    four a year (the tests' simulated stable monitor sees about one, CUSUM included), while a
    10-point fall on 25 points a night still gives adjusted p-values far below 0.01.

Open recall nights (a monitor of ``format = "recall"``)
    Their answers are :class:`~quizbot.analysis.recall.RecallRecord` (``Night.recall_anchor``,
    ``Night.recall_rotating``), scored by the one scorer with the run's tiers; they have no
    true/false accuracy, so the tests above find nothing to test. Instead, with a baseline
    window (as above), two primary tests join the night's family (same Bonferroni correction,
    same severities, effects as fractions):

    ``welch_vs_window`` (scope ``recall``, metric ``recall_f1``)
        Welch's unequal-variance t-test of tonight's F1 values (anchor and rotating answers)
        against the window nights' F1 values pooled (:func:`quizbot.analysis.recall.welch`,
        i.e. ``scipy.stats.ttest_ind(equal_var=False)``). Effect: tonight's mean F1 minus the
        window's. Both samples constant and equal: no test; constant and different: p = 0. The
        anchor questions recur in the window, which makes the test conservative for them.
    ``chi_square_vs_window`` (scope ``recall``, metric ``recall_tiers``)
        Pearson's chi-square test of homogeneity of the tier counts (completely wrong /
        partially correct / basically correct), tonight against the pooled window
        (``scipy.stats.chi2_contingency``; tiers nobody reached are dropped; with two tiers
        left it is the 2x2 test with Yates' correction). It catches a shift the mean hides.
        Its ``value`` and ``baseline_value`` are the mean grade (0, 1/2, 1 for the three tiers)
        tonight and in the window, and its effect their difference, so a shift towards
        "completely wrong" is a fall.

    No CUSUM and no per-aspect tests run on recall nights. Descriptive finding:
    ``overall``/``recall_f1`` (tonight's mean F1 against the window's).

SDAK nights (a monitor of ``prompt = "sdak"``)
    Their statements are also read the SDAK way (``Night.sdak``; the paper's pair metrics of
    :func:`quizbot.analysis.sdak.sdak_metrics` go into the summary's ``sdak``). The accuracy
    tests above run on their scored answers as on any night. With a baseline window whose nights
    were asked the SDAK way too, one more primary test joins the night's family (same
    Bonferroni correction, same severities):

    ``two_proportion_vs_window`` (scope ``sdak``, metric ``sdak_instruction_following``)
        The pooled two-proportion z-test above, on the share of factual/counterfactual pairs
        whose two replies both give the verdict at their start: tonight's pairs (anchor and
        rotating) against the window nights' pairs pooled, widened by phi, the quasi-binomial
        dispersion of the window's pairs grouped by knowledge point (computed as for accuracy,
        max(1, phi) when ``overdispersion``). The anchor pairs recur in the window, which makes
        the test conservative for them.

Descriptive findings (test None, never alerts)
    ``overall``/``accuracy`` (tonight against the pooled window), ``rotating``/``dispersion``
    (phi of the window, when there is a window).
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from scipy import stats

from quizbot.analysis.metrics import (
    MIN_SHARED_FOR_MCNEMAR,
    Proportion,
    Scored,
    benjamini_hochberg,
    compare_runs,
    compute_metrics,
    two_proportion_z,
)
from quizbot.analysis.recall import RecallRecord, mean_interval, recall_summary, welch
from quizbot.analysis.sdak import SdakAnswer, sdak_metrics
from quizbot.domain import Outcome, Severity
from quizbot.errors import ConfigError, InputError
from quizbot.evaluation.recall import TIER_NAMES

__all__ = [
    "DEFAULT_POLICY",
    "DriftPolicy",
    "Finding",
    "Night",
    "detect",
    "night_summary",
    "without_items",
]

_TOLERANCE = 1e-9  # an effect of exactly -critical_effect counts as critical despite rounding


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class _Tally:
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
    def of(cls, night: Night) -> _Tally:
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
        pearson, df = _pearson(
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
            pearson=pearson,
            pearson_df=df,
            relations={name: (relation_k[name], n) for name, n in relation_n.items()},
        )


def _pearson(points: Sequence[Sequence[int]], correct: int, n: int) -> tuple[float, int]:
    """Pearson chi-square of (correct, answered) per knowledge point about the overall accuracy.

    Returns the statistic and its degrees of freedom (points − 1); (0, 0) when all answers were
    right or all wrong, which says nothing about the spread.
    """
    if n == 0 or correct in (0, n):
        return 0.0, 0
    p = correct / n
    chi = sum((y - m * p) ** 2 / (m * p * (1 - p)) for y, m in points)
    return chi, len(points) - 1


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
    def _tally(self) -> _Tally:
        """Counts used by :func:`detect`, computed on first use (the night is immutable)."""
        return _Tally.of(self)

    @cached_property
    def _following(self) -> _Following:
        """SDAK instruction following per knowledge point, computed on first use."""
        return _Following.of(self.sdak)


@dataclass(frozen=True)
class _Following:
    """SDAK instruction following of one night: pairs following (k) of pairs counted (n), and
    the Pearson chi-square of its knowledge points about the night's share (for phi)."""

    k: int
    n: int
    pearson: float
    pearson_df: int

    @classmethod
    def of(cls, answers: Sequence[SdakAnswer]) -> _Following:
        """Count ``answers`` by knowledge point with the one SDAK reader (a pair never spans
        two knowledge points)."""
        by_point: dict[str, list[SdakAnswer]] = defaultdict(list)
        for answer in answers:
            by_point[answer.item.knowledge_point_id].append(answer)
        points = []
        for group in by_point.values():
            share = sdak_metrics(group).metrics["instruction_following"]
            if share.n:
                points.append((share.k, share.n))
        k, n = sum(p[0] for p in points), sum(p[1] for p in points)
        pearson, df = _pearson(points, k, n)
        return cls(k=k, n=n, pearson=pearson, pearson_df=df)


@dataclass(frozen=True)
class DriftPolicy:
    """Levels and thresholds of :func:`detect` (see the module docstring for their use)."""

    alpha: float = 0.01  # family-wise false-alarm level per night, after correction
    window: int = 7  # baseline: the previous `window` nights
    min_window: int = 3  # fewer baseline nights than min(min_window, window): no window tests
    cusum_k: float = 0.5  # CUSUM reference value, in standard errors
    cusum_h: float = 5.0  # CUSUM decision threshold, in standard errors
    critical_effect: float = 0.10  # a significant fall at least this large is CRITICAL
    min_relation_n: int = 30  # answers needed tonight and in the window to test a relation
    overdispersion: bool = True  # inflate binomial variances by the window's dispersion

    def __post_init__(self) -> None:
        """Reject values that would make the tests meaningless (ConfigError)."""
        checks: list[tuple[str, bool, str]] = [
            ("alpha", _number(self.alpha) and 0 < self.alpha < 1, "a number in (0, 1), e.g. 0.01"),
            ("window", _integer(self.window) and self.window >= 1, "a whole number >= 1"),
            ("min_window", _integer(self.min_window) and self.min_window >= 1, "an integer >= 1"),
            ("cusum_k", _number(self.cusum_k) and self.cusum_k >= 0, "a number >= 0, e.g. 0.5"),
            ("cusum_h", _number(self.cusum_h) and self.cusum_h > 0, "a number > 0, e.g. 5"),
            (
                "critical_effect",
                _number(self.critical_effect) and 0 < self.critical_effect <= 1,
                "a fraction in (0, 1], e.g. 0.10 for 10 points",
            ),
            (
                "min_relation_n",
                _integer(self.min_relation_n) and self.min_relation_n >= 0,
                "a whole number, e.g. 30",
            ),
            ("overdispersion", isinstance(self.overdispersion, bool), "true or false"),
        ]
        for name, ok, wanted in checks:
            if not ok:
                raise ConfigError(
                    f"drift policy {name} = {getattr(self, name)!r} is invalid",
                    hint=f"set {name} to {wanted}",
                )

    @property
    def needed_nights(self) -> int:
        """Baseline nights needed before window tests and the CUSUM run."""
        return min(self.min_window, self.window)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


DEFAULT_POLICY = DriftPolicy()


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


# --------------------------------------------------------------------------------------------
# Summary


def _proportion_json(p: Proportion) -> dict[str, Any]:
    return {"value": p.value, "k": p.k, "n": p.n, "interval": p.interval}


def _scope_json(records: Sequence[Scored]) -> dict[str, Any]:
    report = compute_metrics(records)
    return {
        "n_items": report.n_items,
        "n_errors": report.n_errors,
        "accuracy": _proportion_json(report.average_accuracy),
        "joint_accuracy": _proportion_json(report.joint_accuracy),
        "answer_rate": _proportion_json(report.answer_rate),
    }


def night_summary(night: Night) -> dict[str, Any]:
    """JSON-ready metrics of one night, overall, per part and per relation.

    ``{"date", "run_id", "provider_model", "overall", "anchor", "rotating", "by_relation":
    {name: ...}}``; each scope is ``{"n_items", "n_errors", "accuracy", "joint_accuracy",
    "answer_rate"}`` and each metric ``{"value", "k", "n", "interval": [lo, hi] | None}`` (Wilson
    95%, from :func:`quizbot.analysis.metrics.compute_metrics`; errors excluded). Relations pool
    the anchor
    and rotating answers. A night asked the SDAK way adds ``"sdak"``: the paper's pair metrics
    (instruction following, factual, counterfactual and pair accuracy, error types) as
    :meth:`quizbot.analysis.sdak.SdakReport.as_json` gives them.
    """
    records = [*night.anchor, *night.rotating]
    by_relation: dict[str, list[Scored]] = defaultdict(list)
    for r in records:
        by_relation[r.relation].append(r)
    summary = {
        "date": night.date.isoformat(),
        "run_id": night.run_id,
        "provider_model": night.provider_model,
        "overall": _scope_json(records),
        "anchor": _scope_json(night.anchor),
        "rotating": _scope_json(night.rotating),
        "by_relation": {name: _scope_json(by_relation[name]) for name in sorted(by_relation)},
    }
    if night.recall:
        recall = recall_summary(night.recall, night.recall_tiers or {})
        recall["anchor"] = {"f1": mean_interval([r.score.f1 for r in night.recall_anchor])}
        recall["rotating"] = {"f1": mean_interval([r.score.f1 for r in night.recall_rotating])}
        summary["recall"] = recall
    if night.sdak:
        summary["sdak"] = sdak_metrics(night.sdak).as_json()
    return summary


# --------------------------------------------------------------------------------------------
# Findings


@dataclass(frozen=True)
class Finding:
    """One statistic or test of one night (a ``DriftResult`` row; an alert when severity is set).

    ``effect`` is tonight − baseline as a fraction (for ``cusum`` see the module docstring);
    ``p_adjusted`` is the p-value after the night's correction.
    """

    scope: str  # "anchor", "rotating", "overall", "relation:NAME", "model_id"
    metric: str  # "accuracy", "dispersion", "provider_model"
    test: str | None
    value: float | None
    baseline_value: float | None
    effect: float | None
    p_value: float | None
    p_adjusted: float | None
    n: int | None
    compared_run_ids: tuple[int, ...]
    severity: Severity | None
    message: str

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict with the ``DriftResult`` column names plus severity and message."""
        return {
            "scope": self.scope,
            "metric": self.metric,
            "test": self.test,
            "value": self.value,
            "baseline_value": self.baseline_value,
            "effect": self.effect,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "n": self.n,
            "compared_run_ids": list(self.compared_run_ids),
            "severity": None if self.severity is None else self.severity.value,
            "message": self.message,
        }


@dataclass(frozen=True)
class _Test:
    """A test before the night's correction: enough to write its finding afterwards."""

    scope: str
    test: str
    subject: str  # "anchor accuracy"
    against: str  # "the previous night"
    label: str  # "McNemar exact"
    value: float
    baseline: float
    effect: float
    p: float
    n: int
    run_ids: tuple[int, ...]
    relation: bool = False
    metric: str = (
        "accuracy"  # "accuracy", "recall_f1", "recall_tiers", "sdak_instruction_following"
    )


def _points(effect: float) -> str:
    return f"{abs(effect) * 100:.1f} points"


def _moved(effect: float) -> str:
    if effect < 0:
        return f"fell {_points(effect)}"
    if effect > 0:
        return f"rose {_points(effect)}"
    return "did not change"


def _severity(p_adjusted: float, effect: float, policy: DriftPolicy) -> Severity | None:
    if p_adjusted >= policy.alpha:
        return None
    if effect > 0:
        return Severity.INFO
    if -effect >= policy.critical_effect - _TOLERANCE:
        return Severity.CRITICAL
    return Severity.WARNING


def _finish(tests: Sequence[_Test], policy: DriftPolicy) -> list[Finding]:
    """Correct the night's tests as one family and write their findings."""
    primary = [t for t in tests if not t.relation]
    relations = [t for t in tests if t.relation]
    m = len(primary) + (1 if relations else 0)
    bh = iter(benjamini_hochberg([t.p for t in relations]))
    findings = []
    for t in (*primary, *relations):
        adjusted = min(1.0, (next(bh) if t.relation else t.p) * m)
        how = "BH then Bonferroni" if t.relation else "Bonferroni"
        findings.append(
            Finding(
                scope=t.scope,
                metric=t.metric,
                test=t.test,
                value=t.value,
                baseline_value=t.baseline,
                effect=t.effect,
                p_value=t.p,
                p_adjusted=adjusted,
                n=t.n,
                compared_run_ids=t.run_ids,
                severity=_severity(adjusted, t.effect, policy),
                message=(
                    f"{t.subject} {_moved(t.effect)} vs {t.against} "
                    f"({t.label} p={t.p:.2g}, {how} adjusted p={adjusted:.2g})"
                ),
            )
        )
    return findings


# --------------------------------------------------------------------------------------------
# Tests


def _two_proportion(
    k_now: int, n_now: int, k_base: int, n_base: int, dispersion: float
) -> tuple[float, float]:
    """Pooled two-proportion z statistic (now − base) and its two-sided p-value; n's > 0."""
    return two_proportion_z(k_base, n_base, k_now, n_now, dispersion)


def _dispersion(window: Sequence[Night], policy: DriftPolicy) -> tuple[float | None, float, int]:
    """(estimated phi or None, phi applied to variances, knowledge points behind the estimate)."""
    chi = sum(night._tally.pearson for night in window)
    df = sum(night._tally.pearson_df for night in window)
    estimate = chi / df if df else None
    applied = max(1.0, estimate) if policy.overdispersion and estimate is not None else 1.0
    return estimate, applied, df + sum(1 for night in window if night._tally.pearson_df)


def _poisson_binomial_p(probabilities: Sequence[float], observed: int) -> float:
    """Two-sided p-value (twice the smaller tail) of a sum of independent Bernoulli variables."""
    pmf = [1.0]
    for q in probabilities:
        nxt = [0.0] * (len(pmf) + 1)
        for j, mass in enumerate(pmf):
            nxt[j] += mass * (1 - q)
            nxt[j + 1] += mass * q
        pmf = nxt
    lower = sum(pmf[: observed + 1])
    upper = sum(pmf[observed:])
    return min(1.0, 2 * min(lower, upper))


def _anchor_vs_previous(previous: Night, current: Night) -> _Test | None:
    comparison = compare_runs(previous.anchor, current.anchor)
    if (
        comparison.test != "mcnemar_exact"  # too few shared anchors for a paired test
        or comparison.p_value is None
        or comparison.accuracy_a is None
        or comparison.accuracy_b is None
        or comparison.difference is None
    ):
        return None
    return _Test(
        scope="anchor",
        test="mcnemar_exact_vs_previous",
        subject="anchor accuracy",
        against="the previous night",
        label="McNemar exact",
        value=comparison.accuracy_b,
        baseline=comparison.accuracy_a,
        effect=comparison.difference,
        p=comparison.p_value,
        n=comparison.n_shared,
        run_ids=(previous.run_id,),
    )


def _anchor_vs_window(window: Sequence[Night], current: Night) -> _Test | None:
    tonight = current._tally.anchor
    asked: Counter[str] = Counter()  # window nights on which each item was answered
    right: Counter[str] = Counter()  # ... and answered correctly
    for night in window:
        asked.update(night._tally.anchor.keys())
        right.update(night._tally.anchor_right)
    items = [item for item in tonight if asked[item]]
    if len(items) < MIN_SHARED_FOR_MCNEMAR:
        return None
    probabilities = []
    observed = value = 0
    baseline = 0.0
    for item in items:
        now, before, nights = tonight[item], right[item], asked[item]
        value += now
        baseline += before / nights
        if 0 < now + before < nights + 1:  # not right (or wrong) on every night
            probabilities.append((now + before) / (nights + 1))
            observed += now
    value_share, baseline_share = value / len(items), baseline / len(items)
    return _Test(
        scope="anchor",
        test="mcnemar_exact_vs_window",
        subject="anchor accuracy",
        against=f"the last {len(window)} nights",
        label="exact paired (McNemar generalised)",
        value=value_share,
        baseline=baseline_share,
        effect=value_share - baseline_share,
        p=_poisson_binomial_p(probabilities, observed),
        n=len(items),
        run_ids=tuple(night.run_id for night in window),
    )


def _rotating_vs_window(window: Sequence[Night], current: Night, phi: float) -> _Test | None:
    k_base = sum(night._tally.rotating_k for night in window)
    n_base = sum(night._tally.rotating_n for night in window)
    k_now, n_now = current._tally.rotating_k, current._tally.rotating_n
    if not n_now or not n_base:
        return None
    counts = (k_now, n_now, k_base, n_base)
    return _pooled_window_test("rotating", "rotating-slice accuracy", counts, window, phi)


def _pooled_window_test(
    scope: str,
    subject: str,
    counts: tuple[int, int, int, int],
    window: Sequence[Night],
    phi: float,
    *,
    relation: bool = False,
    metric: str = "accuracy",
) -> _Test:
    """Tonight's (k, n) against the window's pooled (k, n): two-proportion z, widened by phi."""
    k_now, n_now, k_base, n_base = counts
    z, p = _two_proportion(k_now, n_now, k_base, n_base, phi)
    return _Test(
        scope=scope,
        test="two_proportion_vs_window",
        subject=subject,
        against=f"the pooled last {len(window)} nights",
        label=f"two-proportion z={z:.2f}",
        value=k_now / n_now,
        baseline=k_base / n_base,
        effect=k_now / n_now - k_base / n_base,
        p=p,
        n=n_now,
        run_ids=tuple(night.run_id for night in window),
        relation=relation,
        metric=metric,
    )


def _relations_vs_window(
    window: Sequence[Night], current: Night, phi: float, policy: DriftPolicy
) -> list[_Test]:
    base: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for night in window:
        for name, (k, n) in night._tally.relations.items():
            base[name][0] += k
            base[name][1] += n
    tests = []
    for name, (k_now, n_now) in sorted(current._tally.relations.items()):
        k_base, n_base = base.get(name, (0, 0))
        if n_now < policy.min_relation_n or n_base < policy.min_relation_n:
            continue
        tests.append(
            _pooled_window_test(
                f"relation:{name}",
                f"accuracy on relation {name!r}",
                (k_now, n_now, k_base, n_base),
                window,
                phi,
                relation=True,
            )
        )
    return tests


def _following_vs_window(
    window: Sequence[Night], current: Night, policy: DriftPolicy
) -> _Test | None:
    """SDAK instruction following, tonight's pairs against the window's pooled (module doc)."""
    k_base = sum(night._following.k for night in window)
    n_base = sum(night._following.n for night in window)
    k_now, n_now = current._following.k, current._following.n
    if not n_now or not n_base:
        return None
    chi = sum(night._following.pearson for night in window)
    df = sum(night._following.pearson_df for night in window)
    phi = max(1.0, chi / df) if policy.overdispersion and df else 1.0
    return _pooled_window_test(
        "sdak",
        "SDAK instruction following",
        (k_now, n_now, k_base, n_base),
        window,
        phi,
        metric="sdak_instruction_following",
    )


_GRADES = {tier: i / (len(TIER_NAMES) - 1) for i, tier in enumerate(TIER_NAMES)}


def _recall_window(window: Sequence[Night]) -> list[RecallRecord]:
    return [r for night in window for r in night.recall]


def _recall_f1_vs_window(window: Sequence[Night], current: Night) -> _Test | None:
    now = [r.score.f1 for r in current.recall]
    base = [r.score.f1 for r in _recall_window(window)]
    t, p = welch(now, base)
    if t is None or p is None:
        return None
    value, baseline = sum(now) / len(now), sum(base) / len(base)
    return _Test(
        scope="recall",
        test="welch_vs_window",
        subject="open recall mean F1",
        against=f"the pooled last {len(window)} nights",
        label=f"Welch t={t:.2f}",
        value=value,
        baseline=baseline,
        effect=value - baseline,
        p=p,
        n=len(now),
        run_ids=tuple(night.run_id for night in window),
        metric="recall_f1",
    )


def _recall_tiers_vs_window(window: Sequence[Night], current: Night) -> _Test | None:
    now = Counter(r.score.tier for r in current.recall)
    base = Counter(r.score.tier for r in _recall_window(window))
    tiers = [t for t in TIER_NAMES if now[t] + base[t] > 0]
    if len(tiers) < 2 or not now.total() or not base.total():
        return None
    table = [[now[t] for t in tiers], [base[t] for t in tiers]]
    chi2, p, _, _ = stats.chi2_contingency(table)
    value = sum(_GRADES[t] * k for t, k in now.items()) / now.total()
    baseline = sum(_GRADES[t] * k for t, k in base.items()) / base.total()
    return _Test(
        scope="recall",
        test="chi_square_vs_window",
        subject="open recall tiers (mean grade)",
        against=f"the pooled last {len(window)} nights",
        label=f"chi-square={float(chi2):.2f}",
        value=value,
        baseline=baseline,
        effect=value - baseline,
        p=float(p),
        n=now.total(),
        run_ids=tuple(night.run_id for night in window),
        metric="recall_tiers",
    )


def _recall_overall(window: Sequence[Night], current: Night, has_window: bool) -> Finding:
    now = [r.score.f1 for r in current.recall]
    base = [r.score.f1 for r in _recall_window(window)] if has_window else []
    value = sum(now) / len(now)
    baseline = sum(base) / len(base) if base else None
    against = "" if baseline is None else f" (last {len(window)} nights {baseline:.3f})"
    return Finding(
        scope="overall",
        metric="recall_f1",
        test=None,
        value=value,
        baseline_value=baseline,
        effect=None if baseline is None else value - baseline,
        p_value=None,
        p_adjusted=None,
        n=len(now),
        compared_run_ids=tuple(n.run_id for n in window) if baseline is not None else (),
        severity=None,
        message=f"open recall mean F1 {value:.3f}{against}",
    )


@dataclass
class _Arm:
    """One side of the CUSUM: its sum and the deviations since it last left zero."""

    total: float = 0.0
    deviation: float = 0.0
    nights: int = 0

    def update(self, step: float, deviation: float) -> None:
        self.total = max(0.0, self.total + step)
        if self.total == 0.0:
            self.deviation, self.nights = 0.0, 0
        else:
            self.deviation += deviation
            self.nights += 1


def _cusum(nights: Sequence[Night], policy: DriftPolicy) -> Finding | None:
    """Replay the CUSUM over ``nights`` (the last is tonight) and report tonight's state."""
    upper, lower = _Arm(), _Arm()
    start = 0  # first night the baseline may use (moves past a signal: the restart)
    finding = None
    for t, night in enumerate(nights):
        window = nights[max(start, t - policy.window) : t]
        finding = None
        if len(window) < policy.needed_nights:
            continue
        k_base = sum(n._tally.rotating_k for n in window)
        n_base = sum(n._tally.rotating_n for n in window)
        k_now, n_now = night._tally.rotating_k, night._tally.rotating_n
        if not n_now or not n_base:
            continue
        z, _ = _two_proportion(k_now, n_now, k_base, n_base, _dispersion(window, policy)[1])
        deviation = k_now / n_now - k_base / n_base
        upper.update(z - policy.cusum_k, deviation)
        lower.update(-z - policy.cusum_k, deviation)
        arm, sign = (lower, -1.0) if lower.total >= upper.total else (upper, 1.0)
        signal = arm.total > policy.cusum_h
        if t == len(nights) - 1:
            mean = arm.deviation / arm.nights if arm.nights else 0.0
            direction = "down" if sign < 0 else "up"
            message = (
                f"rotating-slice accuracy CUSUM {arm.total:.2f} standard errors {direction} "
                f"over {arm.nights} nights (threshold {policy.cusum_h:g}; "
                f"mean deviation {mean * 100:+.1f} points)"
                if arm.nights
                else "rotating-slice accuracy CUSUM at zero: no drift accumulated"
            )
            if signal:
                message = f"slow drift {direction}: {message}; restarted"
            finding = Finding(
                scope="rotating",
                metric="accuracy",
                test="cusum",
                value=sign * arm.total,
                baseline_value=k_base / n_base,
                effect=mean,
                p_value=None,
                p_adjusted=None,
                n=n_now,
                compared_run_ids=tuple(n.run_id for n in window),
                severity=(Severity.WARNING if sign < 0 else Severity.INFO) if signal else None,
                message=message,
            )
        if signal:
            upper, lower, start = _Arm(), _Arm(), t + 1
    return finding


def _model_change(previous: Night, current: Night) -> Finding | None:
    before, now = previous.provider_model, current.provider_model
    if before is None or now is None or before == now:
        return None
    return Finding(
        scope="model_id",
        metric="provider_model",
        test="model_id_change",
        value=None,
        baseline_value=None,
        effect=None,
        p_value=None,
        p_adjusted=None,
        n=None,
        compared_run_ids=(previous.run_id,),
        severity=Severity.WARNING,
        message=(
            f"the provider reported model {now!r} tonight and {before!r} the previous night; "
            "changes in accuracy may come from the new model"
        ),
    )


def _check_order(history: Sequence[Night], current: Night) -> None:
    dates = [night.date for night in history] + [current.date]
    for earlier, later in itertools.pairwise(dates):
        if earlier >= later:
            raise InputError(
                f"monitor nights out of order: {earlier} is not before {later}",
                hint="pass earlier nights oldest first, each on its own date, all before tonight",
            )


def detect(
    history: Sequence[Night], current: Night, policy: DriftPolicy = DEFAULT_POLICY
) -> list[Finding]:
    """Every drift statistic of ``current`` against ``history`` (earlier nights, oldest first).

    Order: model-id change, the corrected tests (anchor vs previous, anchor vs window, rotating
    vs window, open recall, SDAK instruction following, relations), CUSUM, then descriptive
    findings. Alerts are the findings with a
    severity. InputError when the nights are not in date order.
    """
    _check_order(history, current)
    findings: list[Finding] = []
    tests: list[_Test | None] = []
    if history:
        previous = history[-1]
        change = _model_change(previous, current)
        if change is not None:
            findings.append(change)
        tests.append(_anchor_vs_previous(previous, current))
    window = list(history[-policy.window :])
    has_window = len(window) >= policy.needed_nights
    phi_estimate, phi, groups = _dispersion(window, policy)
    if has_window:
        tests.append(_anchor_vs_window(window, current))
        tests.append(_rotating_vs_window(window, current, phi))
        tests.extend(_relations_vs_window(window, current, phi, policy))
        if current.recall and _recall_window(window):
            tests.append(_recall_f1_vs_window(window, current))
            tests.append(_recall_tiers_vs_window(window, current))
        if current.sdak:
            tests.append(_following_vs_window(window, current, policy))
    findings.extend(_finish([t for t in tests if t is not None], policy))
    cusum = _cusum([*history, current], policy)
    if cusum is not None:
        findings.append(cusum)

    tally = current._tally
    k_base = sum(night._tally.overall_k for night in window) if has_window else 0
    n_base = sum(night._tally.overall_n for night in window) if has_window else 0
    if tally.overall_n:
        value = tally.overall_k / tally.overall_n
        baseline = k_base / n_base if n_base else None
        against = "" if baseline is None else f" (last {len(window)} nights {baseline:.1%})"
        findings.append(
            Finding(
                scope="overall",
                metric="accuracy",
                test=None,
                value=value,
                baseline_value=baseline,
                effect=None if baseline is None else value - baseline,
                p_value=None,
                p_adjusted=None,
                n=tally.overall_n,
                compared_run_ids=tuple(n.run_id for n in window) if baseline is not None else (),
                severity=None,
                message=f"overall accuracy {value:.1%}{against}",
            )
        )
    if current.recall:
        findings.append(_recall_overall(window, current, has_window))
    if has_window and phi_estimate is not None:
        findings.append(
            Finding(
                scope="rotating",
                metric="dispersion",
                test=None,
                value=phi_estimate,
                baseline_value=None,
                effect=None,
                p_value=None,
                p_adjusted=None,
                n=groups,
                compared_run_ids=tuple(n.run_id for n in window),
                severity=None,
                message=(
                    f"rotating-slice dispersion {phi_estimate:.2f} over {groups} knowledge points "
                    f"of the last {len(window)} nights; variances multiplied by {phi:.2f}"
                ),
            )
        )
    return findings
