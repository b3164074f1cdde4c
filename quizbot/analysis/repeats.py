"""Mean ± SD over the runs of a repeat group (``quizbot eval --repeats N``).

Every metric a run report gives as a number (its ``metrics``; for an SDAK run also the SDAK
metrics and error types, named ``sdak.NAME`` and ``sdak.errors.NAME``; for multi-answer
questions ``multi_answer.exact_match`` and ``multi_answer.partial_credit``; for open recall the
overall means, ``recall.NAME``, and tier shares, ``recall.tier.NAME``) is summarised over the
group's completed runs: ``mean`` is the arithmetic mean, ``sd`` the sample standard deviation
(n − 1 in the denominator, as is usual for repeated runs; None with fewer than two values),
``n`` how many runs had a value (a metric with no denominator in a run, None there, is left out
of that run's count) and ``values`` the values run by run, in run order.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["flat_metrics", "repeat_summary"]


def flat_metrics(report: Mapping[str, Any]) -> dict[str, float | None]:
    """The numeric metrics of one run report, by name (see the module docstring)."""
    out: dict[str, float | None] = dict(report.get("metrics") or {})
    sdak = report.get("sdak")
    if sdak:
        out.update({f"sdak.{k}": v for k, v in sdak["metrics"].items()})
        out.update({f"sdak.errors.{k}": v for k, v in sdak["error_types"].items()})
    multi = report.get("multi_answer")
    if multi:
        out["multi_answer.exact_match"] = multi["exact_match"]
        out["multi_answer.partial_credit"] = multi["partial_credit"]
    overall = (report.get("recall") or {}).get("overall") or {}
    for name, figure in overall.items():
        if isinstance(figure, Mapping) and "mean" in figure:
            out[f"recall.{name}"] = figure["mean"]
    for name, tier in (overall.get("tiers") or {}).items():
        out[f"recall.tier.{name}"] = tier.get("share")
    return out


def repeat_summary(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"runs": [ids], "n_runs", "metrics": {name: {"mean", "sd", "n", "values"}}}`` over
    ``reports`` (one per completed run of the group, in run order)."""
    flats = [flat_metrics(report) for report in reports]
    names = list(dict.fromkeys(name for flat in flats for name in flat))  # report order
    metrics: dict[str, dict[str, Any]] = {}
    for name in names:
        values = [flat.get(name) for flat in flats]
        present = [float(v) for v in values if v is not None]
        metrics[name] = {
            "mean": statistics.fmean(present) if present else None,
            "sd": statistics.stdev(present) if len(present) >= 2 else None,
            "n": len(present),
            "values": values,
        }
    return {
        "runs": [report["run_id"] for report in reports],
        "n_runs": len(reports),
        "metrics": metrics,
    }
