"""An assignment's results: every student who answered it and every model run made for it.

Students are the people with answers in sessions on the assignment (their first answer per item);
models are, per model, the latest finished run made for the assignment that did not fail
(:func:`storage.assignments.latest_runs`) — never an unrelated run or monitor night, so a later
run made for something else does not change the results. The figures and tests come from
:func:`quizbot.analysis.comparison.compare` on the assignment's items: accuracy, answer rate and
joint accuracy (all variants of a fact right; meaningful only when the assignment holds every
variant, ``--all-variants``) with Wilson 95% intervals, each model's percentile among the
students, and the model-vs-students tests comparison.py offers.
"""

from __future__ import annotations

from typing import Any

from quizbot.analysis.comparison import compare
from storage import Database
from storage.assignments import get_assignment, latest_runs

__all__ = ["assignment_results"]


def _metrics(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in ("accuracy", "answer_rate", "joint_accuracy")}


def assignment_results(db: Database, name: str) -> dict[str, Any]:
    """The results of assignment ``name`` as JSON-ready data.

    ``respondents`` holds one entry per student and per model: ``name``, ``kind`` (``student``
    or ``model``), ``n_items`` (distinct items answered), ``metrics`` (each figure
    ``{"k", "n", "value", "low", "high"}``); a model's entry adds ``run_id``, ``percentile``
    (matched, among the students; None without students) and ``tests`` (model vs the pooled
    students). :class:`~quizbot.errors.NotFoundError` for an unknown assignment.
    """
    assignment = get_assignment(db, name)
    runs = latest_runs(db, assignment.id)
    result = compare(
        db,
        item_ids=list(assignment.item_ids),
        run_ids=[run.id for run in runs],
        min_items=1,
        assignment_id=assignment.id,
    )
    percentiles = {p.model: p.as_json() for p in result.percentiles}
    tests: dict[str, list[dict[str, Any]]] = {}
    for test in result.tests:
        if test.family == "model_vs_students":
            tests.setdefault(test.b, []).append(test.as_json())
    respondents: list[dict[str, Any]] = []
    for row in result.students:
        data = row.as_json()
        respondents.append(
            {
                "name": row.group,
                "kind": "student",
                "n_items": row.n_items,
                "metrics": _metrics(data),
            }
        )
    for row in result.groups:
        if row.kind != "model":
            continue
        data = row.as_json()
        percentile = percentiles.get(row.group)
        respondents.append(
            {
                "name": row.group,
                "kind": "model",
                "n_items": row.n_items,
                "metrics": _metrics(data),
                "run_id": row.run_id,
                "percentile": None if percentile is None else percentile["percentile"],
                "percentile_detail": percentile,
                "tests": tests.get(row.group, []),
            }
        )
    students = [g.as_json() for g in result.groups if g.kind == "students"]
    return {
        "assignment": assignment.name,
        "kb": assignment.kb_name,
        "mode": assignment.mode,
        "n_items": len(assignment.item_ids),
        "all_variants": bool(assignment.config.get("all_variants", False)),
        "respondents": respondents,
        "students_pooled": students[0] if students else None,
        "notes": list(result.notes),
    }
