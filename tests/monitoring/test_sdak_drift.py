"""Drift on SDAK instruction following, as pure functions over built nights: the pooled
two-proportion test of :mod:`quizbot.monitoring.drift`, widened by the window's dispersion of
knowledge points, checked against scipy; retired items leave it; no window, no test."""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence

import pytest
from scipy import stats

from quizbot.analysis.metrics import Scored
from quizbot.analysis.sdak import SdakAnswer
from quizbot.domain import Outcome, Severity
from quizbot.items import StatementItem, StatementSide
from quizbot.monitoring.drift import (
    DriftPolicy,
    Finding,
    Night,
    detect,
    night_summary,
    without_items,
)
from quizbot.transforms import PAIRS, Polarity

START = datetime.date(2026, 2, 1)
FOLLOW = {True: "Correct. Because it is so.", False: "Incorrect. Because it is not so."}
ASIDE = "The claim seems fine to me."  # no verdict at the start: not following


def _point(name: str, following: int) -> list[tuple[StatementItem, str]]:
    """The four pairs of one knowledge point, the first ``following`` answered the SDAK way
    (right verdicts), the others with no verdict at the start of the factual reply."""
    side = StatementSide("kb", "1", "treats", name, f"{name}-tail", Polarity.POSITIVE, "p")
    out = []
    for i, (factual, counter) in enumerate(PAIRS):
        for transform, label in ((factual, True), (counter, False)):
            item = StatementItem(side, transform, label, f"{name} {transform.value}", "p")
            reply = FOLLOW[label] if i < following or not label else ASIDE
            out.append((item, reply))
    return out


def _night(day: int, points: Sequence[int]) -> Night:
    """Night ``day``: one knowledge point per entry, that many of its 4 pairs following."""
    answered = [a for i, k in enumerate(points) for a in _point(f"d{day}p{i}", k)]
    records = [
        Scored(item.id, "statement", "treats", item.transform.value, "positive", item.label,
               item.knowledge_point_id, None, Outcome.CORRECT, "true" if item.label else "false")
        for item, _ in answered
    ]  # fmt: skip
    sdak = [SdakAnswer(item, Outcome.CORRECT, reply) for item, reply in answered]
    return Night(START + datetime.timedelta(days=day), day, "m", (), records, sdak=sdak,
                 prompt="sdak")  # fmt: skip


def _pearson(points: Sequence[int]) -> tuple[float, int]:
    """scipy's chi-square of homogeneity of one night's points (following vs not), and its df."""
    table = [[k for k in points], [4 - k for k in points]]
    return float(stats.chi2_contingency(table, correction=False)[0]), len(points) - 1


def _finding(findings: Sequence[Finding]) -> Finding:
    (found,) = [f for f in findings if f.metric == "sdak_instruction_following"]
    return found


def test_a_fall_in_instruction_following_is_tested_with_the_windows_dispersion() -> None:
    window_points = [[4, 4, 0, 4, 1, 4], [4, 0, 4, 4, 4, 3], [4, 4, 4, 0, 4, 4]]
    tonight_points = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]
    window = [_night(d, p) for d, p in enumerate(window_points, start=1)]
    current = _night(4, tonight_points)
    findings = detect(window, current, DriftPolicy(window=3))
    found = _finding(findings)

    k_now, n_now = sum(tonight_points), 4 * len(tonight_points)
    k_base = sum(sum(p) for p in window_points)
    n_base = 4 * sum(len(p) for p in window_points)
    chis = [_pearson(p) for p in window_points]
    phi = sum(c for c, _ in chis) / sum(df for _, df in chis)
    assert phi > 1  # the points differ: the binomial variance is too small
    pooled = (k_now + k_base) / (n_now + n_base)
    z = (k_now / n_now - k_base / n_base) / math.sqrt(
        phi * pooled * (1 - pooled) * (1 / n_now + 1 / n_base)
    )
    expected_p = float(2 * stats.norm.sf(abs(z)))
    assert found.scope == "sdak" and found.test == "two_proportion_vs_window"
    assert found.value == pytest.approx(k_now / n_now)
    assert found.baseline_value == pytest.approx(k_base / n_base)
    assert found.p_value == pytest.approx(expected_p)
    assert found.severity is Severity.CRITICAL

    summary = night_summary(current)["sdak"]
    assert (summary["n_pairs"], summary["counts"]["instruction_following"]) == (n_now, k_now)


def test_stable_following_raises_nothing_and_no_window_means_no_test() -> None:
    window = [_night(d, [4, 3, 4, 4, 2, 4]) for d in range(1, 4)]
    steady = _night(4, [4, 4, 3, 4, 4, 2])
    found = _finding(detect(window, steady, DriftPolicy(window=3)))
    assert found.severity is None
    assert not [f for f in detect(window[:1], steady) if f.metric == "sdak_instruction_following"]


def test_retired_items_leave_the_sdak_answers_too() -> None:
    night = _night(1, [4, 0])
    retired = {a.item.id for a in night.sdak[:2]}  # one whole pair of the first point
    (kept,), n = without_items([night], retired)
    assert n == 2
    assert len(kept.sdak) == len(night.sdak) - 2
    assert night_summary(kept)["sdak"]["n_pairs"] == night_summary(night)["sdak"]["n_pairs"] - 1
