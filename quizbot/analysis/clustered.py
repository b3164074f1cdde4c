"""Statistics for clustered answers: a student's answers are not independent of each other.

Two questions, two methods:

* **A model against the cohort** (:func:`versus_cohort`): the unit is the student. Each student's
  accuracy on the items they answered is set against the model's accuracy on exactly those items
  (the matched difference ``d = student − model``). The model's percentile is the share of
  students it beats, ties counting half, with a Wilson 95% interval on that share (the cohort as a
  sample of students). One-sample tests on the per-student differences: Student's t-test
  (``scipy.stats.ttest_1samp``, mean difference with its t interval) and the Wilcoxon signed-rank
  test (``scipy.stats.wilcoxon``, zero differences dropped), which does not assume normal
  differences. With fewer than :data:`MIN_STUDENTS_FOR_TESTS` students no test is run.
* **One group against another** (:func:`cluster_difference`): every answer is a row
  ``correct ~ group`` of a linear probability model, fitted by least squares, whose difference in
  accuracy (b − a) gets a two-way cluster-robust variance, clustered by respondent AND by item
  (Cameron, Gelbach and Miller; statsmodels ``cov_type="cluster"`` with both groupings and its
  small-sample correction), and a t reference with ``G − 1`` degrees of freedom, ``G`` the smaller
  number of clusters. The largest of three variances is used: the two-way one and the one-way
  ones by respondent and by item (each with its own ``G − 1``). A model is a single respondent,
  and the dummy that separates it fits its mean exactly, so the two-way formula (by respondent
  plus by item minus by answer) subtracts the model's own item-level variance without adding it
  back: it can come out far below the by-item variance, or negative. Taking the largest keeps
  the test from claiming more certainty than either clustering allows. Answers of one student
  share that student's ability and answers to one item share its difficulty; these variances let
  both be correlated, so three students' 24 answers no longer count as 24 independent trials. It
  is run only when each side has at least :data:`MIN_ANSWERS_PER_SIDE` answers and there are at
  least :data:`MIN_CLUSTERS` items; otherwise the figures are shown without a p-value
  (:attr:`ClusteredTest.reason`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MIN_ANSWERS_PER_SIDE",
    "MIN_CLUSTERS",
    "MIN_STUDENTS_FOR_TESTS",
    "ClusteredTest",
    "CohortStanding",
    "cluster_difference",
    "versus_cohort",
    "wilson",
]

# A sub-group (a relation, a transform) is tested only with this many answers on each side: the
# model answers each item once, so 10 answers are 10 items, the fewest clusters with which a
# cluster-robust variance is not badly biased, and one answer then moves accuracy by 10 points.
MIN_ANSWERS_PER_SIDE = 10
MIN_CLUSTERS = 5  # items (and respondents): below this the sandwich variance is not estimable
MIN_STUDENTS_FOR_TESTS = 3  # a one-sample t-test on fewer per-student scores has no spread
Z95 = 1.959963984540054


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of ``k`` successes in ``n`` (k may be fractional: ties count half)."""
    if n <= 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _finite(x: Any) -> float | None:
    value = float(x)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class CohortStanding:
    """Where a model stands among the students, by the students' own scores."""

    n_students: int
    below: int  # students with fewer right than the model on their items
    tied: int
    above: int
    percentile: float | None  # 0..100, ties half
    percentile_interval: tuple[float, float] | None  # Wilson 95%, 0..100
    mean_difference: float | None  # mean of student − model (accuracy)
    mean_difference_interval: tuple[float, float] | None  # t 95%
    t: float | None
    t_p: float | None
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    reason: str | None  # why no test, when none

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "n_students": self.n_students,
            "below": self.below,
            "tied": self.tied,
            "above": self.above,
            "percentile": self.percentile,
            "percentile_interval": _pair(self.percentile_interval),
            "mean_difference": self.mean_difference,
            "mean_difference_interval": _pair(self.mean_difference_interval),
            "t_test": {"t": self.t, "p_value": self.t_p, "df": max(self.n_students - 1, 0)},
            "wilcoxon": {"statistic": self.wilcoxon_statistic, "p_value": self.wilcoxon_p},
            "reason": self.reason,
        }


def _pair(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [pair[0], pair[1]]


def versus_cohort(differences: Sequence[float]) -> CohortStanding:
    """The model's standing from each student's matched difference ``student − model``
    (accuracies on the student's items; see the module docstring)."""
    from scipy import stats  # noqa: PLC0415 - scipy is heavy; only results need it

    n = len(differences)
    below = sum(d < 0 for d in differences)
    tied = sum(d == 0 for d in differences)
    above = n - below - tied
    if n == 0:
        return CohortStanding(0, 0, 0, 0, None, None, None, None, None, None, None, None,
                              "no student answered enough of the model's items")  # fmt: skip
    beaten = below + tied / 2
    interval = wilson(beaten, n)
    percentile_interval = None if interval is None else (100 * interval[0], 100 * interval[1])
    mean = sum(differences) / n
    if n < MIN_STUDENTS_FOR_TESTS:
        return CohortStanding(
            n, below, tied, above, 100 * beaten / n, percentile_interval, mean, None,
            None, None, None, None,
            f"{n} student(s): the tests need at least {MIN_STUDENTS_FOR_TESTS}",
        )  # fmt: skip
    t_result = stats.ttest_1samp(list(differences), 0.0)
    t_value, t_p = _finite(t_result.statistic), _finite(t_result.pvalue)
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    w_stat = w_p = None
    reason = None
    if any(d != 0 for d in differences):
        w = stats.wilcoxon(list(differences))
        w_stat, w_p = _finite(w.statistic), _finite(w.pvalue)
    else:
        reason = "every student scored exactly as the model: no difference to test"
    return CohortStanding(
        n, below, tied, above, 100 * beaten / n, percentile_interval, mean,
        (mean - half, mean + half), t_value, t_p, w_stat, w_p, reason,
    )  # fmt: skip


@dataclass(frozen=True)
class ClusteredTest:
    """Accuracy of group b against group a with a two-way cluster-robust variance."""

    n_a: int
    n_b: int
    accuracy_a: float | None
    accuracy_b: float | None
    difference: float | None  # b − a
    interval: tuple[float, float] | None  # 95%, t with df
    t: float | None
    df: int | None
    p_value: float | None
    n_respondents: int
    n_items: int
    reason: str | None  # why there is no p-value, when there is none

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "test": "cluster_robust_t",
            "n_a": self.n_a,
            "n_b": self.n_b,
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "difference": self.difference,
            "difference_interval": _pair(self.interval),
            "t": self.t,
            "df": self.df,
            "p_value": self.p_value,
            "n_respondents": self.n_respondents,
            "n_items": self.n_items,
            "reason": self.reason,
        }


Answer = tuple[str, str, bool, bool]  # respondent, item, right, in group b


def cluster_difference(
    answers: Sequence[Answer], *, min_per_side: int = MIN_ANSWERS_PER_SIDE
) -> ClusteredTest:
    """Group b's accuracy minus group a's, clustered by respondent and item (module docstring).

    ``min_per_side`` is the sub-group minimum; the overall comparison passes 1 (every item is a
    cluster there, and :data:`MIN_CLUSTERS` items are still needed)."""
    a = [x for x in answers if not x[3]]
    b = [x for x in answers if x[3]]
    acc_a = sum(x[2] for x in a) / len(a) if a else None
    acc_b = sum(x[2] for x in b) / len(b) if b else None
    difference = None if acc_a is None or acc_b is None else acc_b - acc_a
    respondents = sorted({x[0] for x in answers})
    items = sorted({x[1] for x in answers})

    def _untested(reason: str) -> ClusteredTest:
        return ClusteredTest(len(a), len(b), acc_a, acc_b, difference, None, None, None, None,
                             len(respondents), len(items), reason)  # fmt: skip

    if min(len(a), len(b)) < max(min_per_side, 1):
        return _untested(
            f"fewer than {min_per_side} answers on a side ({len(a)} / {len(b)}): figures only"
        )
    if len(items) < MIN_CLUSTERS:
        return _untested(f"fewer than {MIN_CLUSTERS} items: the clustered variance needs more")
    import numpy as np  # noqa: PLC0415 - heavy; only results need it
    import statsmodels.api as sm  # noqa: PLC0415

    y = np.array([float(x[2]) for x in answers])
    design = sm.add_constant(np.array([float(x[3]) for x in answers]), has_constant="add")
    r_index = {r: i for i, r in enumerate(respondents)}
    i_index = {i: j for j, i in enumerate(items)}
    groups = np.array([[r_index[x[0]], i_index[x[1]]] for x in answers])
    if float(np.var(y)) == 0.0:
        return _untested("every answer is alike (all right or all wrong): nothing to test")
    model = sm.OLS(y, design)
    fits = [
        model.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
        for g in (groups, groups[:, 0], groups[:, 1])  # both; by respondent; by item
    ]
    # The two-way variance (respondent + item - both) can come out negative with few clusters:
    # its standard error is then NaN, and such a fit is left out here, not an error to warn of.
    with np.errstate(invalid="ignore"):
        usable = [f for f in fits if math.isfinite(float(f.bse[1])) and float(f.bse[1]) > 0]
    if not usable:
        return _untested("the clustered variance is not positive with so few clusters")
    fit = max(usable, key=lambda f: float(f.bse[1]))
    df = int(fit.df_resid_inference)
    low, high = (float(v) for v in fit.conf_int(alpha=0.05)[1])
    return ClusteredTest(
        len(a), len(b), acc_a, acc_b, float(fit.params[1]), (low, high), float(fit.tvalues[1]),
        df, float(fit.pvalues[1]), len(respondents), len(items), None,
    )  # fmt: skip
