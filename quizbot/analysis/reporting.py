"""Reports on runs: a run's stored responses scored into the metrics, and run-vs-run comparison."""

from __future__ import annotations

from typing import Any

from quizbot.analysis.metrics import Scored, compare_runs, compute_metrics, multi_answer_summary
from quizbot.analysis.reasons import reasons, reliability
from quizbot.analysis.recall import recall_records, recall_summary, welch_by_aspect
from quizbot.analysis.repeats import repeat_summary
from quizbot.analysis.sdak import SdakAnswer, sdak_metrics
from quizbot.analysis.stability import Asked, stability_report
from quizbot.analysis.sublabels import sub_label_report
from quizbot.domain import Outcome
from quizbot.evaluation.permutations import Variant
from quizbot.generate.service import load_any_items
from quizbot.items import ChoiceItem, RecallItem, StatementItem
from storage import Database
from storage.repo import get_run, list_responses, repeat_group

__all__ = ["compare_report", "run_records", "run_report"]


def _answers(
    db: Database, run_id: int
) -> list[tuple[StatementItem | ChoiceItem, Outcome, str | None]]:
    """The run's true/false and choice answers (open recall answers are reported apart, see
    :mod:`quizbot.analysis.recall`)."""
    responses = list_responses(db, run_id=run_id)
    items = {item.id: item for item in load_any_items(db, [r.item_id for r in responses])}
    answers: list[tuple[StatementItem | ChoiceItem, Outcome, str | None]] = []
    for r in responses:
        item = items[r.item_id]
        if not isinstance(item, RecallItem):
            answers.append((item, Outcome(r.outcome), r.parsed_answer))
    return answers


def run_records(db: Database, run_id: int) -> list[Scored]:
    """Every stored true/false and choice answer of a run as a scored record."""
    return [Scored.from_item(*answer) for answer in _answers(db, run_id)]


def _stability(
    plan: dict[str, Any], answers: list[tuple[StatementItem | ChoiceItem, Outcome, str | None]]
) -> dict[str, Any]:
    """The stability part of a permutation run (:mod:`quizbot.analysis.stability`)."""
    variants = {
        item_id: Variant.from_json(variant)
        for item_id, variant in dict(plan.get("variants", {})).items()
    }
    asked = [
        Asked(variants[item.id], item, outcome, answer)
        for item, outcome, answer in answers
        if isinstance(item, ChoiceItem) and item.id in variants
    ]
    return stability_report(plan, asked)


def _sdak(db: Database, run_id: int) -> dict[str, Any]:
    """The SDAK part of a report: the paper's metrics and, once reasons were marked, accuracy
    reliability (:mod:`quizbot.analysis.sdak`, :mod:`quizbot.analysis.reasons`)."""
    responses = list_responses(db, run_id=run_id)
    items = {item.id: item for item in load_any_items(db, [r.item_id for r in responses])}
    answers = [
        SdakAnswer(item, Outcome(r.outcome), r.raw_text)
        for r in responses
        if isinstance(item := items[r.item_id], StatementItem)
    ]
    part = sdak_metrics(answers).as_json()
    part["accuracy_reliability"] = reliability(reasons(db, run_id))
    return part


def run_report(db: Database, run_id: int) -> dict[str, Any]:
    """The run's metrics as the JSON ``quizbot report --json`` prints (with ``multi_answer``
    when the run asked multi-answer questions).

    ``sub_labels``: accuracy and answer rate per sub-label with the best-to-worst gap, the
    Spearman correlation and guessing baselines (:mod:`quizbot.analysis.sublabels`). A
    permutation run (``quizbot eval --permutations K``) also has ``stability``: accuracy per
    option order, its spread, per-item consistency and the effect of offering "I do not know"
    (:mod:`quizbot.analysis.stability`).

    A run with open recall items also has a ``recall`` part: per aspect and overall, mean scores
    with intervals and tier shares (:func:`quizbot.analysis.recall.recall_summary`). A run
    asked with the SDAK prompt has an ``sdak`` part (:func:`quizbot.analysis.sdak.sdak_metrics`
    and accuracy reliability); a run of a repeat group a ``repeats`` part: every metric as mean
    ± SD over the group's completed runs (:func:`quizbot.analysis.repeats.repeat_summary`).
    """
    report = _single_report(db, run_id)
    group = repeat_group(db, run_id)
    if len(group) > 1:
        done = [run.id for run in group if run.status == "completed"]
        others = {rid: _single_report(db, rid) for rid in done if rid != run_id}
        summary = repeat_summary([report if rid == run_id else others[rid] for rid in done])
        report["repeats"] = {
            **summary,
            "group": [run.id for run in group],
            "not_completed": [run.id for run in group if run.status != "completed"],
        }
    return report


def _single_report(db: Database, run_id: int) -> dict[str, Any]:
    """One run's report, without its repeat group."""
    run = get_run(db, run_id)
    answers = _answers(db, run_id)
    report = compute_metrics([Scored.from_item(*answer) for answer in answers]).as_json()
    multi = multi_answer_summary(answers)
    if multi is not None:
        report["multi_answer"] = multi
    sub_labels = sub_label_report(answers)
    if sub_labels is not None:
        report["sub_labels"] = sub_labels
    plan = run.config.get("permutations")
    if isinstance(plan, dict):
        report["stability"] = _stability(plan, answers)
    recalled, tiers = recall_records(db, run_id)
    extra: dict[str, Any] = {"recall": recall_summary(recalled, tiers)} if recalled else {}
    if run.config.get("prompt") == "sdak":
        extra["sdak"] = _sdak(db, run_id)
    return {
        "run_id": run_id,
        "name": run.name,
        "model": run.model_requested,
        "model_reported": run.model_reported,
        "status": run.status,
        "error": run.error_text,
        "n_items": run.n_items,
        "answered": (report.get("n_items") or 0) + len(recalled),
        **{k: v for k, v in report.items() if k != "n_items"},
        **extra,
    }


def compare_report(db: Database, run_a: int, run_b: int) -> dict[str, Any]:
    """Run A vs run B: McNemar on shared items, else a two-proportion test; for open recall
    runs, Welch's t-test on F1 per aspect (``recall`` part)."""
    comparison = compare_runs(run_records(db, run_a), run_records(db, run_b)).as_json()
    a, b = get_run(db, run_a), get_run(db, run_b)
    recall_a, _ = recall_records(db, run_a)
    recall_b, _ = recall_records(db, run_b)
    extra = {"recall": welch_by_aspect(recall_a, recall_b)} if recall_a or recall_b else {}
    return {
        "run_a": {"run_id": run_a, "model": a.model_requested},
        "run_b": {"run_id": run_b, "model": b.model_requested},
        **comparison,
        **extra,
    }
