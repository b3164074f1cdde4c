"""The thresholds of the drift tests (:class:`DriftPolicy`), checked when made."""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizbot.errors import ConfigError

__all__ = ["DEFAULT_POLICY", "DriftPolicy"]


@dataclass(frozen=True)
class DriftPolicy:
    """Levels and thresholds of :func:`~quizbot.monitoring.drift.detect` (their use: the
    docstrings of :mod:`quizbot.monitoring.drift` and of each family's module)."""

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
