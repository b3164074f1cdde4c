"""What every family shares: :class:`Finding`, a test before correction (:class:`Test`), the
night's correction (:func:`finish`), severities, and the pooled two-proportion window test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizbot.analysis.metrics import benjamini_hochberg, two_proportion_z
from quizbot.domain import Severity
from quizbot.monitoring.drift.policy import DriftPolicy

if TYPE_CHECKING:
    from quizbot.monitoring.drift.night import Night

__all__ = [
    "Context",
    "Family",
    "Finding",
    "Test",
    "finish",
    "pooled_window_test",
    "severity_of",
    "two_proportion",
]

TOLERANCE = 1e-9  # an effect of exactly -critical_effect counts as critical despite rounding


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
class Test:
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


def points(effect: float) -> str:
    return f"{abs(effect) * 100:.1f} points"


def moved(effect: float) -> str:
    if effect < 0:
        return f"fell {points(effect)}"
    if effect > 0:
        return f"rose {points(effect)}"
    return "did not change"


def severity_of(p_adjusted: float, effect: float, policy: DriftPolicy) -> Severity | None:
    if p_adjusted >= policy.alpha:
        return None
    if effect > 0:
        return Severity.INFO
    if -effect >= policy.critical_effect - TOLERANCE:
        return Severity.CRITICAL
    return Severity.WARNING


def finish(tests: Sequence[Test], policy: DriftPolicy) -> list[Finding]:
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
                severity=severity_of(adjusted, t.effect, policy),
                message=(
                    f"{t.subject} {moved(t.effect)} vs {t.against} "
                    f"({t.label} p={t.p:.2g}, {how} adjusted p={adjusted:.2g})"
                ),
            )
        )
    return findings


def two_proportion(
    k_now: int, n_now: int, k_base: int, n_base: int, dispersion: float
) -> tuple[float, float]:
    """Pooled two-proportion z statistic (now − base) and its two-sided p-value; n's > 0."""
    return two_proportion_z(k_base, n_base, k_now, n_now, dispersion)


def pooled_window_test(
    scope: str,
    subject: str,
    counts: tuple[int, int, int, int],
    window: Sequence[Night],
    phi: float,
    *,
    relation: bool = False,
    metric: str = "accuracy",
) -> Test:
    """Tonight's (k, n) against the window's pooled (k, n): two-proportion z, widened by phi."""
    k_now, n_now, k_base, n_base = counts
    z, p = two_proportion(k_now, n_now, k_base, n_base, phi)
    return Test(
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


@dataclass(frozen=True)
class Context:
    """What every family sees of one night's detection."""

    history: Sequence[Night]  # earlier nights, oldest first
    current: Night
    window: Sequence[Night]  # the last ``policy.window`` nights of history
    has_window: bool  # enough window nights for window tests and the CUSUM
    policy: DriftPolicy
    phi_estimate: float | None  # the window's dispersion (None: nothing to estimate it from)
    phi: float  # the factor applied to binomial variances
    groups: int  # knowledge points behind the estimate

    @property
    def previous(self) -> Night | None:
        """The night before tonight, if any."""
        return self.history[-1] if self.history else None


class Family:
    """A metric family: override the stages it takes part in (each returns nothing by default)."""

    name = "family"

    def changes(self, ctx: Context) -> list[Finding]:
        """Stage 1: alerts that need no test."""
        return []

    def tests(self, ctx: Context) -> list[Test]:
        """Stage 2: tests before the night's correction."""
        return []

    def replayed(self, ctx: Context) -> list[Finding]:
        """Stage 3: statistics replayed over the history."""
        return []

    def described(self, ctx: Context) -> list[Finding]:
        """Stage 4: descriptive findings."""
        return []
