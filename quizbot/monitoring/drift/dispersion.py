"""Dispersion: how much more a night's answers vary than independent coin flips would.

Dispersion (``overdispersion=True``)
    The statements of one knowledge point are answered alike (a model that does not know a fact
    tends to miss several of its variants), so a night's answers are not independent coin flips
    and binomial standard errors are too small: tests would alarm too often. phi is the
    quasi-binomial dispersion of the window's rotating answers: the Pearson chi-square of the
    knowledge points' correct counts about their own night's accuracy, divided by its degrees of
    freedom (points − 1 per night). Variances of the z-tests and the CUSUM are multiplied by
    **max(1, phi)**: phi below 1 (answers more alike than chance, or too few points to tell)
    never narrows a test. Independent answers give phi near 1. Records without a knowledge point
    are their own group. A fact's generated negative is a knowledge point of its own (records
    carry no fact id), so correlation between the two sides of one fact is not captured. Anchor
    tests are paired on items and need no such correction.

Descriptive finding: ``rotating``/``dispersion`` (phi of the window, when there is a window).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quizbot.monitoring.drift.base import Context, Family, Finding
from quizbot.monitoring.drift.policy import DriftPolicy

if TYPE_CHECKING:
    from quizbot.monitoring.drift.night import Night

__all__ = ["DispersionFamily", "dispersion", "floor", "pearson"]


def pearson(points: Sequence[Sequence[int]], correct: int, n: int) -> tuple[float, int]:
    """Pearson chi-square of (correct, answered) per knowledge point about the overall accuracy.

    Returns the statistic and its degrees of freedom (points − 1); (0, 0) when all answers were
    right or all wrong, which says nothing about the spread.
    """
    if n == 0 or correct in (0, n):
        return 0.0, 0
    p = correct / n
    chi = sum((y - m * p) ** 2 / (m * p * (1 - p)) for y, m in points)
    return chi, len(points) - 1


def floor(estimate: float | None, policy: DriftPolicy) -> float:
    """The factor applied to binomial variances: max(1, phi) with ``overdispersion``, else 1."""
    return max(1.0, estimate) if policy.overdispersion and estimate is not None else 1.0


def dispersion(window: Sequence[Night], policy: DriftPolicy) -> tuple[float | None, float, int]:
    """(estimated phi or None, phi applied to variances, knowledge points behind the estimate)."""
    chi = sum(night._tally.pearson for night in window)
    df = sum(night._tally.pearson_df for night in window)
    estimate = chi / df if df else None
    return (
        estimate,
        floor(estimate, policy),
        df + sum(1 for night in window if night._tally.pearson_df),
    )


class DispersionFamily(Family):
    """The window's dispersion as a descriptive finding."""

    name = "dispersion"

    def described(self, ctx: Context) -> list[Finding]:
        """``rotating``/``dispersion`` when there is a window to estimate it from."""
        if not ctx.has_window or ctx.phi_estimate is None:
            return []
        return [
            Finding(
                scope="rotating",
                metric="dispersion",
                test=None,
                value=ctx.phi_estimate,
                baseline_value=None,
                effect=None,
                p_value=None,
                p_adjusted=None,
                n=ctx.groups,
                compared_run_ids=tuple(n.run_id for n in ctx.window),
                severity=None,
                message=(
                    f"rotating-slice dispersion {ctx.phi_estimate:.2f} over {ctx.groups} "
                    f"knowledge points of the last {len(ctx.window)} nights; variances "
                    f"multiplied by {ctx.phi:.2f}"
                ),
            )
        ]
