"""Rules of the drift tests that a refactor could silently lose, each with a test that fails
without it: a fall of exactly ``critical_effect`` is CRITICAL, the dispersion floor max(1, phi)
never narrows a test, and the registry runs every metric family once, in order."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from quizbot.analysis.metrics import Scored
from quizbot.domain import Severity
from quizbot.monitoring.drift import FAMILIES, DriftPolicy, Night, detect
from quizbot.monitoring.drift.base import severity_of
from quizbot.monitoring.drift.dispersion import dispersion, floor
from tests.monitoring.test_drift import C, X, by_test, counted, hand_two_proportion, night, rec


def test_a_fall_of_exactly_the_critical_effect_is_critical() -> None:
    # 0.8 - 0.9 is -0.09999999999999998 in floating point: still a 10-point fall.
    window = [night(d + 1, rotating=counted(f"n{d}.", 900, 1000)) for d in range(3)]
    now = night(4, rotating=counted("t.", 800, 1000))
    f = by_test(detect(window, now))[("rotating", "two_proportion_vs_window")]
    assert f.effect is not None and f.effect > -0.1  # the rounding the rule must absorb
    assert f.severity is Severity.CRITICAL
    policy = DriftPolicy()
    assert severity_of(0.001, 0.8 - 0.9, policy) is Severity.CRITICAL
    assert severity_of(0.001, -0.0999, policy) is Severity.WARNING
    assert severity_of(0.001, -0.15, policy) is Severity.CRITICAL
    assert severity_of(0.02, -0.5, policy) is None


def _even_points(day: int, right: int, points: int = 10, size: int = 10) -> list[Scored]:
    """``points`` knowledge points of ``size`` statements, each with exactly ``right`` right:
    answers more alike than coin flips, so the Pearson chi-square is 0 and phi 0."""
    return [
        rec(f"d{day}.p{g}.{i}", C if i < right else X, point=f"d{day}.p{g}")
        for g in range(points)
        for i in range(size)
    ]


def test_the_dispersion_floor_never_narrows_a_test() -> None:
    window = [night(d, rotating=_even_points(d, 7)) for d in (1, 2, 3)]
    now = night(4, rotating=_even_points(4, 6))
    estimate, applied, _groups = dispersion(window, DriftPolicy())
    assert estimate == pytest.approx(0.0)  # under-dispersed: phi below 1 ...
    assert applied == 1.0  # ... is floored at 1
    f = by_test(detect(window, now))[("rotating", "two_proportion_vs_window")]
    # the plain binomial test (phi = 1), not a narrower one
    assert f.p_value == pytest.approx(hand_two_proportion(60, 100, 210, 300))
    assert floor(0.4, DriftPolicy()) == 1.0 and floor(2.5, DriftPolicy()) == 2.5
    assert floor(2.5, DriftPolicy(overdispersion=False)) == 1.0
    assert floor(None, DriftPolicy()) == 1.0


def test_every_family_is_registered_once_in_order() -> None:
    names = [family.name for family in FAMILIES]
    assert names == ["model_id", "accuracy", "recall", "sdak", "cusum", "dispersion"]


def test_findings_keep_their_order_across_families() -> None:
    def nights(models: Sequence[str]) -> list[Night]:
        return [
            night(d + 1, anchor=counted("a.", 40, 50), rotating=counted(f"n{d}.", 80, 100), model=m)
            for d, m in enumerate(models)
        ]

    *window, now = nights(["v1", "v1", "v1", "v2"])
    order = [(f.scope, f.test) for f in detect(window, now)]
    assert order[0] == ("model_id", "model_id_change")
    assert order.index(("anchor", "mcnemar_exact_vs_window")) < order.index(
        ("rotating", "two_proportion_vs_window")
    )
    assert order[-3:] == [("rotating", "cusum"), ("overall", None), ("rotating", None)]
