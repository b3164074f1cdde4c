"""Humans vs models as CSV: one row per group x scope x metric (the comparison's export).

:func:`result_csv` is what :meth:`quizbot.analysis.comparison.HumansVsModels.to_csv` returns and
what the "Humans vs models" tab's "Export CSV" writes; the columns are :data:`CSV_FIELDS`.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING, Any

from quizbot.analysis.metrics import Proportion
from quizbot.evaluation.recall import TIER_NAMES

if TYPE_CHECKING:
    from quizbot.analysis.compare_rows import HumansVsModels

__all__ = ["CSV_FIELDS", "csv_cells", "csv_row", "result_csv"]

CSV_FIELDS = (
    "group",
    "group_kind",
    "run_id",
    "scope",
    "key",
    "metric",
    "value",
    "low",
    "high",
    "k",
    "n",
)


def result_csv(result: HumansVsModels) -> str:
    """One row per group x scope x metric, columns :data:`CSV_FIELDS` (header first).

    Overall rows (scope ``overall``) carry accuracy, answer_rate and joint_accuracy for the
    pooled students, each model and each student; relation and transform rows carry
    accuracy. Open recall rows (scope ``recall`` overall, ``recall_aspect`` with the aspect
    as key) carry ``recall_f1`` (the mean with its 95% t interval; k empty, n the answers)
    and one ``tier:NAME`` row per tier (the share with its Wilson interval, k of n). Missing
    values are empty cells.
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in (*result.groups, *result.students):
        for metric, p in row.metrics().items():
            writer.writerow(csv_row(row.group, row.kind, row.run_id, "overall", "", metric, p))
    for s in result.breakdown:
        writer.writerow(csv_row(s.group, s.kind, s.run_id, s.scope, s.key, "accuracy", s.accuracy))
    for g in result.recall:
        scope = "recall" if g.scope == "overall" else "recall_aspect"
        f1 = g.f1()
        interval = f1.get("interval") or (None, None)
        writer.writerow(
            csv_cells(
                g.group, g.kind, g.run_id, scope, g.key, "recall_f1",
                (f1.get("mean"), interval[0], interval[1]), None, int(f1.get("n") or 0),
            )
        )  # fmt: skip
        for tier in TIER_NAMES:
            part = g.figures["tiers"][tier]
            low, high = part.get("interval") or (None, None)
            writer.writerow(
                csv_cells(
                    g.group, g.kind, g.run_id, scope, g.key, f"tier:{tier}",
                    (part.get("share"), low, high), part["k"], g.n,
                )
            )  # fmt: skip
    return buffer.getvalue()


def csv_row(
    group: str, kind: str, run_id: int | None, scope: str, key: str, metric: str, p: Proportion
) -> dict[str, Any]:
    """One CSV row of a proportion (its value, Wilson interval, k and n)."""
    return csv_cells(group, kind, run_id, scope, key, metric, (p.value, p.low, p.high), p.k, p.n)


def csv_cells(
    group: str,
    kind: str,
    run_id: int | None,
    scope: str,
    key: str,
    metric: str,
    figure: tuple[float | None, float | None, float | None],
    k: int | None,
    n: int,
) -> dict[str, Any]:
    """One CSV row of any figure (value, low, high); missing or non-finite values are empty."""

    def cell(x: float | None) -> str:
        return "" if x is None or not math.isfinite(x) else repr(float(x))

    value, low, high = figure
    return {
        "group": group,
        "group_kind": kind,
        "run_id": "" if run_id is None else run_id,
        "scope": scope,
        "key": key,
        "metric": metric,
        "value": cell(value),
        "low": cell(low),
        "high": cell(high),
        "k": "" if k is None else k,
        "n": n,
    }
