"""Statistics for clustered answers, checked against scipy and statsmodels on raw tables."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from quizbot.analysis.clustered import MIN_ANSWERS_PER_SIDE, cluster_difference, versus_cohort


def _table(seed: int = 7, students: int = 12, items: int = 20) -> list[tuple[str, str, bool, bool]]:
    """Students of varying ability on items of varying difficulty, and one model."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1, students)
    easiness = rng.normal(0, 1, items)
    rows = []
    for s in range(students):
        for i in range(items):
            right = rng.random() < 1 / (1 + np.exp(-(ability[s] + easiness[i])))
            rows.append((f"s{s}", f"i{i}", bool(right), False))
    for i in range(items):
        right = rng.random() < 1 / (1 + np.exp(-(1.0 + easiness[i])))
        rows.append(("model", f"i{i}", bool(right), True))
    return rows


def _ols(rows: list[tuple[str, str, bool, bool]]) -> tuple[Any, Any, Any]:
    """The regression of right on group b, built directly with statsmodels, and each answer's
    respondent and item index (the cluster groups)."""
    y = np.array([float(r[2]) for r in rows])
    x = sm.add_constant(np.array([float(r[3]) for r in rows]))
    names = sorted({r[0] for r in rows})
    who = np.array([names.index(r[0]) for r in rows])
    what = np.array([int(r[1][1:]) for r in rows])
    return sm.OLS(y, x), who, what


@pytest.mark.parametrize(
    ("seed", "students", "items", "widest"),
    [(4, 5, 25, "respondent"), (7, 12, 20, "item")],  # data where each clustering is the widest
)
def test_the_widest_of_the_clustered_variances_is_used_as_statsmodels_gives_it(
    seed: int, students: int, items: int, widest: str
) -> None:
    rows = _table(seed, students, items)
    ols, who, what = _ols(rows)
    fits = {
        name: ols.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
        for name, g in (("both", np.column_stack([who, what])), ("respondent", who), ("item", what))
    }
    with np.errstate(invalid="ignore"):  # a negative two-way variance: a NaN error, left out
        usable = {k: f for k, f in fits.items() if np.isfinite(f.bse[1]) and f.bse[1] > 0}
    chosen = max(usable, key=lambda k: usable[k].bse[1])
    assert chosen == widest  # the example exercises the rule
    fit = usable[chosen]
    found = cluster_difference(rows, min_per_side=1)
    assert found.difference == pytest.approx(fit.params[1])
    assert found.p_value == pytest.approx(fit.pvalues[1])
    assert found.df == int(fit.df_resid_inference)
    assert list(found.interval or ()) == pytest.approx(list(fit.conf_int(alpha=0.05)[1]))


@pytest.mark.parametrize(("seed", "students", "items"), [(0, 3, 12), (1, 8, 10)])
def test_a_negative_two_way_variance_falls_back_to_the_wider_one_way_fit_without_a_warning(
    seed: int, students: int, items: int
) -> None:
    rows = _table(seed, students, items)
    ols, who, what = _ols(rows)
    with np.errstate(invalid="ignore"):
        both = ols.fit(cov_type="cluster", cov_kwds={"groups": np.column_stack([who, what])})
        assert not np.isfinite(both.bse[1])  # the example exercises the fallback
    one_way = [ols.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True) for g in (who, what)]
    fit = max(one_way, key=lambda f: f.bse[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NaN standard error is expected here, not warned of
        found = cluster_difference(rows, min_per_side=1)
    assert found.p_value == pytest.approx(fit.pvalues[1])
    assert found.df == int(fit.df_resid_inference)
    assert list(found.interval or ()) == pytest.approx(list(fit.conf_int(alpha=0.05)[1]))


def test_a_sub_group_below_the_minimum_gets_figures_and_a_reason_but_no_p() -> None:
    rows = [r for r in _table() if r[1] in {f"i{i}" for i in range(MIN_ANSWERS_PER_SIDE - 1)}]
    found = cluster_difference(rows)
    assert found.p_value is None and found.difference is not None
    assert found.reason is not None and "fewer than 10 answers" in found.reason


def test_standing_among_students_counts_ties_half_and_tests_per_student_differences() -> None:
    differences = [0.25, 0.0, -0.125, 0.0, 0.5, -0.25, 0.125]  # student − model
    standing = versus_cohort(differences)
    below, tied = 2, 2
    assert (standing.below, standing.tied, standing.above) == (below, tied, 3)
    assert standing.percentile == pytest.approx(100 * (below + tied / 2) / 7)
    low, high = proportion_confint(below + tied / 2, 7, method="wilson")
    assert standing.percentile_interval == pytest.approx((100 * low, 100 * high))
    t = stats.ttest_1samp(differences, 0.0)
    assert standing.t == pytest.approx(t.statistic)
    assert standing.t_p == pytest.approx(t.pvalue)
    interval = t.confidence_interval(0.95)
    assert standing.mean_difference_interval == pytest.approx((interval.low, interval.high))
    assert standing.wilcoxon_p == pytest.approx(stats.wilcoxon(differences).pvalue)
    few = versus_cohort([0.1, -0.2])
    assert few.t is None and few.reason is not None and "at least 3" in few.reason
