"""Reports on runs: a run's stored responses scored into the metrics, and run-vs-run comparison."""

from __future__ import annotations

from typing import Any

from quizbot.analysis.metrics import Scored, compare_runs, compute_metrics, multi_answer_summary
from quizbot.domain import Outcome
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from storage import Database
from storage.repo import get_run, list_responses

__all__ = ["compare_report", "run_records", "run_report"]


def _answers(
    db: Database, run_id: int
) -> list[tuple[StatementItem | ChoiceItem, Outcome, str | None]]:
    responses = list_responses(db, run_id=run_id)
    items = {item.id: item for item in load_items(db, [r.item_id for r in responses])}
    return [(items[r.item_id], Outcome(r.outcome), r.parsed_answer) for r in responses]


def run_records(db: Database, run_id: int) -> list[Scored]:
    """Every stored answer of a run as a scored record."""
    return [Scored.from_item(*answer) for answer in _answers(db, run_id)]


def run_report(db: Database, run_id: int) -> dict[str, Any]:
    """The run's metrics as the JSON ``quizbot report --json`` prints (with ``multi_answer``
    when the run asked multi-answer questions)."""
    run = get_run(db, run_id)
    answers = _answers(db, run_id)
    report = compute_metrics([Scored.from_item(*answer) for answer in answers]).as_json()
    multi = multi_answer_summary(answers)
    if multi is not None:
        report["multi_answer"] = multi
    return {
        "run_id": run_id,
        "name": run.name,
        "model": run.model_requested,
        "model_reported": run.model_reported,
        "status": run.status,
        "error": run.error_text,
        "n_items": run.n_items,
        "answered": report.get("n_items"),
        **{k: v for k, v in report.items() if k != "n_items"},
    }


def compare_report(db: Database, run_a: int, run_b: int) -> dict[str, Any]:
    """Run A vs run B: McNemar on shared items, else a two-proportion test."""
    comparison = compare_runs(run_records(db, run_a), run_records(db, run_b)).as_json()
    a, b = get_run(db, run_a), get_run(db, run_b)
    return {
        "run_a": {"run_id": run_a, "model": a.model_requested},
        "run_b": {"run_id": run_b, "model": b.model_requested},
        **comparison,
    }
