"""The accuracy family: true/false accuracy of the anchor set, the rotating slice and relations.

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
        with p the proportion over both samples and phi the window's dispersion.
    ``two_proportion_vs_window`` (scopes ``relation:NAME``)
        The same test per relation, on tonight's anchor and rotating answers against the window's,
        for relations with at least ``min_relation_n`` answers on both sides. The anchor items
        are the same on both sides, which makes the test conservative for them.

The z-tests are widened by phi (:mod:`quizbot.monitoring.drift.dispersion`).
Descriptive finding: ``overall``/``accuracy`` (tonight against the pooled window).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from quizbot.analysis.metrics import MIN_SHARED_FOR_MCNEMAR, compare_runs
from quizbot.monitoring.drift.base import Context, Family, Finding, Test, pooled_window_test
from quizbot.monitoring.drift.night import Night
from quizbot.monitoring.drift.policy import DriftPolicy

__all__ = ["AccuracyFamily"]


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


def _anchor_vs_previous(previous: Night, current: Night) -> Test | None:
    comparison = compare_runs(previous.anchor, current.anchor)
    if (
        comparison.test != "mcnemar_exact"  # too few shared anchors for a paired test
        or comparison.p_value is None
        or comparison.accuracy_a is None
        or comparison.accuracy_b is None
        or comparison.difference is None
    ):
        return None
    return Test(
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


def _anchor_vs_window(window: Sequence[Night], current: Night) -> Test | None:
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
    return Test(
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


def _rotating_vs_window(window: Sequence[Night], current: Night, phi: float) -> Test | None:
    k_base = sum(night._tally.rotating_k for night in window)
    n_base = sum(night._tally.rotating_n for night in window)
    k_now, n_now = current._tally.rotating_k, current._tally.rotating_n
    if not n_now or not n_base:
        return None
    counts = (k_now, n_now, k_base, n_base)
    return pooled_window_test("rotating", "rotating-slice accuracy", counts, window, phi)


def _relations_vs_window(
    window: Sequence[Night], current: Night, phi: float, policy: DriftPolicy
) -> list[Test]:
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
            pooled_window_test(
                f"relation:{name}",
                f"accuracy on relation {name!r}",
                (k_now, n_now, k_base, n_base),
                window,
                phi,
                relation=True,
            )
        )
    return tests


def _overall(ctx: Context) -> Finding | None:
    tally = ctx.current._tally
    if not tally.overall_n:
        return None
    window = ctx.window
    k_base = sum(night._tally.overall_k for night in window) if ctx.has_window else 0
    n_base = sum(night._tally.overall_n for night in window) if ctx.has_window else 0
    value = tally.overall_k / tally.overall_n
    baseline = k_base / n_base if n_base else None
    against = "" if baseline is None else f" (last {len(window)} nights {baseline:.1%})"
    return Finding(
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


class AccuracyFamily(Family):
    """Anchor vs the previous night and vs the window, rotating vs the window, per relation."""

    name = "accuracy"

    def tests(self, ctx: Context) -> list[Test]:
        """The previous-night test whenever there is a previous night; the rest with a window."""
        found: list[Test | None] = []
        if ctx.previous is not None:
            found.append(_anchor_vs_previous(ctx.previous, ctx.current))
        if ctx.has_window:
            found.append(_anchor_vs_window(ctx.window, ctx.current))
            found.append(_rotating_vs_window(ctx.window, ctx.current, ctx.phi))
            found.extend(_relations_vs_window(ctx.window, ctx.current, ctx.phi, ctx.policy))
        return [t for t in found if t is not None]

    def described(self, ctx: Context) -> list[Finding]:
        """``overall``/``accuracy`` when tonight has answers."""
        overall = _overall(ctx)
        return [] if overall is None else [overall]
