"""What one night measured, as stored with it (:func:`night_summary`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from quizbot.analysis.metrics import Proportion, Scored, compute_metrics
from quizbot.analysis.recall import mean_interval, recall_summary
from quizbot.analysis.sdak import sdak_metrics
from quizbot.monitoring.drift.night import Night

__all__ = ["night_summary"]


def _proportion_json(p: Proportion) -> dict[str, Any]:
    return {"value": p.value, "k": p.k, "n": p.n, "interval": p.interval}


def _scope_json(records: Sequence[Scored]) -> dict[str, Any]:
    report = compute_metrics(records)
    return {
        "n_items": report.n_items,
        "n_errors": report.n_errors,
        "accuracy": _proportion_json(report.average_accuracy),
        "joint_accuracy": _proportion_json(report.joint_accuracy),
        "answer_rate": _proportion_json(report.answer_rate),
        "instruction_following": _proportion_json(report.instruction_following_rate),
    }


def night_summary(night: Night) -> dict[str, Any]:
    """JSON-ready metrics of one night, overall, per part and per relation.

    ``{"date", "run_id", "provider_model", "overall", "anchor", "rotating", "by_relation":
    {name: ...}}``; each scope is ``{"n_items", "n_errors", "accuracy", "joint_accuracy",
    "answer_rate", "instruction_following"}`` and each metric ``{"value", "k", "n",
    "interval": [lo, hi] | None}`` (Wilson
    95%, from :func:`quizbot.analysis.metrics.compute_metrics`; errors excluded). Relations pool
    the anchor
    and rotating answers. A night asked the SDAK way adds ``"sdak"``: the paper's pair metrics
    (instruction following, factual, counterfactual and pair accuracy, error types) as
    :meth:`quizbot.analysis.sdak.SdakReport.as_json` gives them.
    """
    records = [*night.anchor, *night.rotating]
    by_relation: dict[str, list[Scored]] = defaultdict(list)
    for r in records:
        by_relation[r.relation].append(r)
    summary = {
        "date": night.date.isoformat(),
        "run_id": night.run_id,
        "provider_model": night.provider_model,
        "overall": _scope_json(records),
        "anchor": _scope_json(night.anchor),
        "rotating": _scope_json(night.rotating),
        "by_relation": {name: _scope_json(by_relation[name]) for name in sorted(by_relation)},
    }
    if night.recall:
        recall = recall_summary(night.recall, night.recall_tiers or {})
        recall["anchor"] = {"f1": mean_interval([r.score.f1 for r in night.recall_anchor])}
        recall["rotating"] = {"f1": mean_interval([r.score.f1 for r in night.recall_rotating])}
        summary["recall"] = recall
    if night.sdak:
        summary["sdak"] = sdak_metrics(night.sdak).as_json()
    return summary
