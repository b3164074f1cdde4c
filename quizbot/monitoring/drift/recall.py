"""The open recall family: nights of a monitor of ``format = "recall"``.

Their answers are :class:`~quizbot.analysis.recall.RecallRecord` (``Night.recall_anchor``,
``Night.recall_rotating``), scored by the one scorer with the run's tiers; they have no
true/false accuracy, so the accuracy family finds nothing to test. Instead, with a baseline
window, two primary tests join the night's family (same Bonferroni correction,
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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from quizbot.analysis.recall import RecallRecord, welch
from quizbot.evaluation.recall import TIER_NAMES
from quizbot.monitoring.drift.base import Context, Family, Finding, Test
from quizbot.monitoring.drift.night import Night

__all__ = ["RecallFamily"]


_GRADES = {tier: i / (len(TIER_NAMES) - 1) for i, tier in enumerate(TIER_NAMES)}


def _recall_window(window: Sequence[Night]) -> list[RecallRecord]:
    return [r for night in window for r in night.recall]


def _recall_f1_vs_window(window: Sequence[Night], current: Night) -> Test | None:
    now = [r.score.f1 for r in current.recall]
    base = [r.score.f1 for r in _recall_window(window)]
    t, p = welch(now, base)
    if t is None or p is None:
        return None
    value, baseline = sum(now) / len(now), sum(base) / len(base)
    return Test(
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


def _recall_tiers_vs_window(window: Sequence[Night], current: Night) -> Test | None:
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    now = Counter(r.score.tier for r in current.recall)
    base = Counter(r.score.tier for r in _recall_window(window))
    tiers = [t for t in TIER_NAMES if now[t] + base[t] > 0]
    if len(tiers) < 2 or not now.total() or not base.total():
        return None
    table = [[now[t] for t in tiers], [base[t] for t in tiers]]
    chi2, p, _, _ = stats.chi2_contingency(table)
    value = sum(_GRADES[t] * k for t, k in now.items()) / now.total()
    baseline = sum(_GRADES[t] * k for t, k in base.items()) / base.total()
    return Test(
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


class RecallFamily(Family):
    """Welch on mean F1 and chi-square on tiers against the window; mean F1 described."""

    name = "recall"

    def tests(self, ctx: Context) -> list[Test]:
        """Both tests, on a recall night with a window that holds recall answers."""
        if not (ctx.has_window and ctx.current.recall and _recall_window(ctx.window)):
            return []
        found = [
            _recall_f1_vs_window(ctx.window, ctx.current),
            _recall_tiers_vs_window(ctx.window, ctx.current),
        ]
        return [t for t in found if t is not None]

    def described(self, ctx: Context) -> list[Finding]:
        """``overall``/``recall_f1`` on a recall night."""
        if not ctx.current.recall:
            return []
        return [_recall_overall(ctx.window, ctx.current, ctx.has_window)]
