"""Model runs in a humans-vs-models comparison: which runs, and the tests between models.

Which run stands for a model (:func:`select_runs`: explicit runs, else each model's most complete
finished run on the items), each run's answers on the item set (:func:`model_runs`), and the
model-vs-model family (:func:`model_vs_model`: compare_runs on every pair, McNemar's exact test on
shared items or its two-proportion fallback), adjusted with Benjamini–Hochberg
(:func:`adjusted`, shared with the model-vs-students family). Definitions:
:mod:`quizbot.analysis.comparison`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from quizbot.analysis.compare_rows import STUDENTS, ComparisonRow
from quizbot.analysis.metrics import (
    Comparison,
    Report,
    Scored,
    benjamini_hochberg,
    compare_runs,
    compute_metrics,
)
from quizbot.domain import Run, RunStatus
from quizbot.errors import InputError
from storage import Database
from storage.cohorts import completed_runs, models_with_completed_runs, scored_item_ids
from storage.repo import get_run

__all__ = [
    "MAX_RUNS_SEARCHED",
    "ModelRun",
    "RawTest",
    "adjusted",
    "comparable_models",
    "model_runs",
    "model_vs_model",
    "no_models_note",
    "run_choices",
    "select_runs",
]


RUNS_OFFERED = 10  # per model, in the run picker: its most recent completed runs


def run_choices(db: Database, models: Sequence[str] = ()) -> list[tuple[str, int]]:
    """(label, run id) of each model's most recent completed runs, for a run picker: "model ·
    run 12 'name' · 80 items · finished 2026-11-20". ``models`` empty: every comparable model."""
    out: list[tuple[str, int]] = []
    for model in list(dict.fromkeys(models)) or comparable_models(db):
        for run in completed_runs(db, model)[:RUNS_OFFERED]:
            assert run.id is not None
            named = f" {run.name!r}" if run.name else ""
            when = run.finished_at or run.created_at
            out.append(
                (f"{model} · run {run.id}{named} · {run.n_items} items · {when:%Y-%m-%d}", run.id)
            )
    return out


def comparable_models(db: Database) -> list[str]:
    """Models (as requested in runs) with at least one completed run, sorted."""
    return models_with_completed_runs(db)


@dataclass
class ModelRun:
    """One model run in the comparison: its label, the run, its answers on the item set."""

    label: str
    run: Run
    records: list[Scored]
    report: Report

    @property
    def run_id(self) -> int | None:
        """The run's id."""
        return self.run.id


MAX_RUNS_SEARCHED = 100  # per model, newest first: enough for months of nightly runs


def select_runs(
    db: Database,
    models: Sequence[str],
    run_ids: Sequence[int],
    candidates: set[str],
    notes: list[str],
) -> list[Run]:
    """Explicit runs, then for each other model its most complete finished run on the items.

    A model's default is the completed run that answered most of ``candidates`` (the newest of
    equals), never a failed or partial one, so one small later batch or one monitor night cannot
    replace a full evaluation. Every choice is written to ``notes``, so it is shown.
    """
    selected: list[Run] = []
    for run_id in dict.fromkeys(run_ids):
        run = get_run(db, run_id)  # NotFoundError for an unknown id
        if run.status == RunStatus.FAILED.value:
            raise InputError(
                f"run {run_id} ({run.model_requested}) failed; a failed run is never compared",
                hint="pick a completed run (`quizbot runs list`)",
            )
        if run.status != RunStatus.COMPLETED.value:
            notes.append(
                f"run {run_id} ({run.model_requested}) is {run.status}, not completed; "
                "its answers so far are used"
            )
        selected.append(run)
    if not candidates:
        return selected
    covered = {run.model_requested for run in selected}
    wanted = list(dict.fromkeys(models)) if models or run_ids else comparable_models(db)
    for model in wanted:
        if model in covered:
            continue
        best: tuple[int, Run] | None = None
        for run in completed_runs(db, model)[:MAX_RUNS_SEARCHED]:  # newest first
            overlap = len(scored_item_ids(db, run.id) & candidates)
            if overlap and (best is None or overlap > best[0]):
                best = (overlap, run)
        if best is None:
            notes.append(f"{model}: no completed run answered any of these items")
            continue
        overlap, run = best
        named = f" {run.name!r}" if run.name else ""
        notes.append(
            f"{model}: run {run.id}{named}, the most complete finished run on these items "
            f"({overlap} of {len(candidates)})"
        )
        selected.append(run)
    return selected


def model_runs(
    runs: Sequence[Run], records: Mapping[int, list[Scored]], in_set: set[str]
) -> list[ModelRun]:
    """Each run with its answers on the item set, labelled by its model (with the run id when a
    model has several runs, or is called like the students' group)."""
    counts = Counter(run.model_requested for run in runs)
    out = []
    for run in runs:
        assert run.id is not None
        label = run.model_requested
        if counts[label] > 1 or label == STUDENTS:
            label = f"{label} (run {run.id})"
        mine = [r for r in records[run.id] if r.item_id in in_set]
        out.append(ModelRun(label, run, mine, compute_metrics(mine)))
    return out


def no_models_note(db: Database, models: Sequence[str], run_ids: Sequence[int]) -> str:
    """Why no model run takes part."""
    if not models and not run_ids and not comparable_models(db):
        return "no model has a completed run yet (`quizbot eval` makes one)"
    return "no model run answered these items"


RawTest = tuple[str, str, str, str, Comparison]  # a, b, scope, key, test


def adjusted(family: str, raw: Sequence[RawTest]) -> list[ComparisonRow]:
    """The family's rows with Benjamini–Hochberg p-values; tests without a p-value are dropped."""
    kept: list[RawTest] = []
    p_values: list[float] = []
    for row in raw:
        if row[4].p_value is not None:
            kept.append(row)
            p_values.append(row[4].p_value)
    p_adjusted = benjamini_hochberg(p_values)
    return [
        ComparisonRow(family, a, b, scope, key, c, p)
        for (a, b, scope, key, c), p in zip(kept, p_adjusted, strict=True)
    ]


def model_vs_model(runs: Sequence[ModelRun]) -> list[ComparisonRow]:
    """Every pair of runs compared (compare_runs), one Benjamini–Hochberg family."""
    raw = [
        (a.label, b.label, "overall", "", compare_runs(a.records, b.records))
        for a, b in combinations(runs, 2)
        if a.records and b.records
    ]
    return adjusted("model_vs_model", raw)
