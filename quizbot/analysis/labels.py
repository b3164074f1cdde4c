"""What a run report's keys are called on screen, and how a p-value is written: one set of words
for the command line (:mod:`quizbot.cli.text`) and the app (:mod:`quizbot.ui.admin_report`).

Imports nothing heavy: the command line reads it before any analysis runs."""

from __future__ import annotations

__all__ = ["METRIC_LABELS", "SDAK_LABELS", "format_p", "metric_label"]

METRIC_LABELS = {
    "average_accuracy": "average accuracy",
    "average_accuracy_with_errors": "accuracy, failed calls counted wrong",
    "joint_accuracy": "joint accuracy (all 8 variants right)",
    "answer_rate": "answer rate",
    "accuracy_answered": "accuracy on answered",
    "instruction_following_rate": "instruction following",
    "pair_accuracy": "pair accuracy (fact and counterfactual)",
    "sycophancy_rate": "sycophancy (agrees with both)",
    "gain_over_random": "gain over random guessing",
}
"""Labels of the headline metrics (``run_report``'s ``metrics`` keys)."""

SDAK_LABELS = {
    "instruction_following": "instruction following (both verdicts first)",
    "factual_accuracy": "factual accuracy",
    "counterfactual_accuracy": "counterfactual accuracy",
    "pair_accuracy": "pair accuracy",
    "sycophancy": "sycophancy (both supported)",
    "safety": "safety (both refuted)",
    "misinterpretation": "misinterpretation (fact refuted, counterfactual supported)",
    "not_following": "instruction not followed",
}
"""Labels of the SDAK pair metrics and error types (``run_report``'s ``sdak``)."""


def metric_label(key: str) -> str:
    """The label of a metric key; an unknown key with its underscores as spaces."""
    return METRIC_LABELS.get(key, key.replace("_", " "))


def format_p(p: float | None) -> str:
    """``p = 0.042``; ``p = 3.1e-05`` when small (never printed as 0.000); ``p = -`` without a
    test."""
    if p is None:
        return "p = -"
    return f"p = {p:.1e}" if p < 0.001 else f"p = {p:.3f}"
