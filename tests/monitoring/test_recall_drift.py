"""Drift on open recall nights (pure: no database): Welch's t on F1 and chi-square on tier counts
against the pooled window, checked against scipy on the same numbers."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from scipy import stats

from quizbot.analysis.recall import RecallRecord
from quizbot.domain import Severity
from quizbot.evaluation.recall import score_recall
from quizbot.items import RecallItem
from quizbot.monitoring.drift import Finding, Night, detect, night_summary

GOLD = ("fever", "cough", "rash", "headache")
DAY = date(2026, 6, 1)


def _item(k: int) -> RecallItem:
    return RecallItem(
        kb="t", kb_version="1", relation="has_symptom", aspect="symptoms", head=f"disease {k}",
        question=f"What are the main symptoms of disease {k}?", answers=GOLD,
    )  # fmt: skip


def _records(named: list[int]) -> list[RecallRecord]:
    """One answer per item naming the first ``named[k]`` gold entities (0: a wrong one)."""
    out = []
    for k, n in enumerate(named):
        item = _item(k)
        text = ", ".join(GOLD[:n]) if n else "unrelated finding"
        out.append(RecallRecord(item.id, item.aspect, score_recall(item, text)))
    return out


def _night(offset: int, named: list[int]) -> Night:
    return Night(
        date=DAY + timedelta(days=offset), run_id=offset + 1, provider_model="m",
        anchor=(), rotating=(), recall_rotating=_records(named),
    )  # fmt: skip


def _f1(n: int) -> float:
    return 0.0 if n == 0 else 2 * (n / 4) / (1 + n / 4)


def _by(findings: list[Finding], metric: str, test: str | None) -> Finding:
    return next(f for f in findings if f.metric == metric and f.test == test)


def test_a_fall_in_f1_is_welch_against_the_window() -> None:
    window = [[4, 3, 4, 2, 4, 4, 3, 4, 4, 2] for _ in range(3)]
    tonight = [1, 2, 0, 1, 2, 1, 0, 2, 1, 1]
    history = [_night(k, named) for k, named in enumerate(window)]
    findings = detect(history, _night(3, tonight))
    welch = _by(findings, "recall_f1", "welch_vs_window")
    xs = [_f1(n) for n in tonight]
    ys = [_f1(n) for named in window for n in named]
    expected = stats.ttest_ind(xs, ys, equal_var=False)
    assert welch.p_value == pytest.approx(float(expected.pvalue))
    assert welch.p_adjusted == pytest.approx(min(1.0, 2 * float(expected.pvalue)))  # 2 tests
    assert welch.effect == pytest.approx(sum(xs) / len(xs) - sum(ys) / len(ys))
    assert welch.severity is Severity.CRITICAL and welch.scope == "recall"
    overall = _by(findings, "recall_f1", None)
    assert overall.value == pytest.approx(sum(xs) / len(xs)) and overall.severity is None
    assert not [f for f in findings if f.metric == "accuracy"]  # no true/false answers


def test_tier_shares_move_while_the_mean_f1_does_not() -> None:
    # Window: every answer names 2 of 4 (F1 2/3, partially correct). Tonight: 8 name all four
    # (basically correct), 4 name a wrong entity (completely wrong): mean F1 2/3 again.
    history = [_night(k, [2] * 12) for k in range(3)]
    findings = detect(history, _night(3, [4] * 8 + [0] * 4))
    welch = _by(findings, "recall_f1", "welch_vs_window")
    assert welch.effect == pytest.approx(0.0, abs=1e-12) and welch.severity is None
    tiers = _by(findings, "recall_tiers", "chi_square_vs_window")
    table = [[4, 0, 8], [0, 36, 0]]  # completely wrong, partially correct, basically correct
    assert tiers.p_value == pytest.approx(float(stats.chi2_contingency(table)[1]))
    assert tiers.value == pytest.approx(8 / 12) and tiers.baseline_value == pytest.approx(0.5)
    assert tiers.severity is Severity.INFO  # mean grade rose: a change, not a fall


def test_stable_perfect_nights_test_nothing_and_a_summary_has_the_recall_part() -> None:
    history = [_night(k, [4] * 6) for k in range(3)]
    current = _night(3, [4] * 6)
    findings = detect(history, current)
    assert [f.test for f in findings if f.metric.startswith("recall")] == [None]
    summary = night_summary(current)["recall"]
    assert summary["overall"]["f1"]["mean"] == 1.0
    assert summary["rotating"]["f1"]["n"] == 6 and summary["anchor"]["f1"]["n"] == 0
    assert summary["overall"]["tiers"]["basically correct"]["k"] == 6
