"""Reference statistics from scipy, so tests check quizbot against an independent implementation
rather than against a copy of the formula they test."""

from __future__ import annotations

from collections.abc import Sequence

from scipy import stats


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of k successes in n trials (no continuity correction)."""
    interval = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values."""
    if not p_values:
        return []
    return [float(p) for p in stats.false_discovery_control(list(p_values), method="bh")]
