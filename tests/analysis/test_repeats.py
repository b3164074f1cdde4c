"""Mean ± SD over a repeat group (quizbot/analysis/repeats.py), worked out by hand."""

from __future__ import annotations

import math

import pytest

from quizbot.analysis.repeats import flat_metrics, repeat_summary


def _report(run_id: int, accuracy: float | None, f1: float, exact: float) -> dict[str, object]:
    return {
        "run_id": run_id,
        "metrics": {"average_accuracy": accuracy},
        "multi_answer": {"exact_match": exact, "partial_credit": 0.5},
        "recall": {"overall": {"n": 4, "f1": {"mean": f1, "interval": None, "n": 4},
                               "tiers": {"basically correct": {"k": 1, "share": 0.25}}}},
    }  # fmt: skip


def test_every_number_of_the_reports_gets_a_mean_and_sample_sd() -> None:
    reports = [_report(1, 0.5, 0.2, 0.0), _report(2, 0.7, 0.4, 1.0), _report(3, None, 0.9, 0.5)]
    summary = repeat_summary(reports)
    assert summary["runs"] == [1, 2, 3] and summary["n_runs"] == 3
    m = summary["metrics"]
    # accuracy: 0.5 and 0.7 (run 3 has none): mean 0.6, SD sqrt(((-.1)^2 + .1^2) / 1) = 0.1414.
    assert m["average_accuracy"]["n"] == 2
    assert m["average_accuracy"]["mean"] == pytest.approx(0.6)
    assert m["average_accuracy"]["sd"] == pytest.approx(math.sqrt(0.02))
    assert m["average_accuracy"]["values"] == [0.5, 0.7, None]
    # recall F1 0.2, 0.4, 0.9: mean 0.5; deviations -.3, -.1, .4; SD sqrt(.26 / 2) = 0.3606.
    assert m["recall.f1"]["mean"] == pytest.approx(0.5)
    assert m["recall.f1"]["sd"] == pytest.approx(math.sqrt(0.13))
    # exact match 0, 1, .5: mean .5, SD sqrt((.25 + .25 + 0) / 2) = .5.
    assert m["multi_answer.exact_match"]["sd"] == pytest.approx(0.5)
    # the same value every time: SD 0.
    assert m["multi_answer.partial_credit"]["sd"] == 0.0
    assert m["recall.tier.basically correct"]["mean"] == 0.25
    assert "recall.n" not in m  # a count, not a metric


def test_one_run_has_a_mean_but_no_sd() -> None:
    one = repeat_summary([_report(1, 0.5, 0.2, 0.0)])["metrics"]["average_accuracy"]
    assert (one["mean"], one["sd"], one["n"]) == (0.5, None, 1)


def test_sdak_parts_are_named_apart() -> None:
    report = {
        "run_id": 1,
        "metrics": {},
        "sdak": {"metrics": {"pair_accuracy": 0.5}, "error_types": {"safety": 0.25}},
    }
    assert flat_metrics(report) == {"sdak.pair_accuracy": 0.5, "sdak.errors.safety": 0.25}
