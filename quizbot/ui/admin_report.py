"""The Admin tab's run report: :func:`quizbot.analysis.reporting.run_report` as Markdown.

:func:`render_report` shows the figures ``quizbot runs report`` prints, with their 95% intervals,
one titled table per section the run has (sub-labels, a permutation run's stability, open recall,
SDAK, its repeat group). Nothing is computed here; every figure is read from the report.
:data:`REPORT_CSS` keeps its tables readable on a phone. Wired by :mod:`quizbot.ui.admin`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizbot.analysis.labels import SDAK_LABELS, format_p, metric_label
from quizbot.ui.render import format_estimate, format_mean_sd, md_escape, md_table

__all__ = ["REPORT_CSS", "render_report"]

# The report's tables scroll sideways inside the report on a phone, and their words never
# break inside (Gradio squeezed the sub-label tables to a letter or two a line at 390 px);
# figures stay on one line, labels wrap between words.
REPORT_CSS = """<style>
#qb-admin-report table {
  display: block; overflow-x: auto; max-width: 100%; border: none; padding: 0;
}
#qb-admin-report th, #qb-admin-report td { word-break: normal; overflow-wrap: normal; }
#qb-admin-report td:not(:first-child) { white-space: nowrap; }
</style>"""

_BREAKDOWN = ("average_accuracy", "answer_rate", "accuracy_answered")
_RECALL_METRICS = (("f1", "F1"), ("precision", "P"), ("recall", "R"),
                   ("rouge1", "ROUGE-1"), ("bleu1", "BLEU-1"), ("cosine", "cosine"))  # fmt: skip
_CI = "[95% CI]"


def _value(value: float | None) -> str:
    return format_estimate(value, None)


def _section(title: str, *body: str) -> list[str]:
    """A report section: a heading, then its lines (tables, notes), blank lines around."""
    return ["", f"#### {title}", "", *body]


def _head(report: Mapping[str, Any]) -> list[str]:
    name = f": {md_escape(report['name'])}" if report.get("name") else ""
    lines = [
        f"### Run {report['run_id']}{name}",
        f"Model `{report['model']}` (reported: `{report.get('model_reported') or '-'}`), "
        f"{report['status']}, {report.get('answered') or 0} of {report['n_items']} items "
        "answered and stored"
        + (
            f"; {report['n_errors']} failed calls, left out of the metrics"
            if report.get("n_errors")
            else ""
        )
        + ".",
    ]
    if report.get("error"):
        lines += ["", f"**Error:** {md_escape(str(report['error']))}"]
    return lines


def _metrics(report: Mapping[str, Any]) -> list[str]:
    intervals = report.get("intervals", {})
    rows = [
        [metric_label(key), format_estimate(value, intervals.get(key))]
        for key, value in report.get("metrics", {}).items()
    ]
    return _section("Metrics", *md_table(["metric", f"value {_CI}"], rows))


def _breakdown(title: str, parts: Mapping[str, Any], notes: str | None = None) -> list[str]:
    if not parts:
        return []
    rows = [
        [
            name,
            part.get("n", ""),
            *(
                format_estimate(part["metrics"].get(m), part["intervals"].get(m))
                for m in _BREAKDOWN
            ),
        ]
        for name, part in parts.items()
    ]
    headers = [title, "n", *(f"{metric_label(m)} {_CI}" for m in _BREAKDOWN)]
    return _section(f"By {title}", *md_table(headers, rows), *([notes] if notes else []))


def _gap_and_spearman(part: Mapping[str, Any]) -> str:
    """A sub-label's best-to-worst gap and Spearman correlation, as one Markdown line."""
    notes = []
    gap = part.get("gap")
    if gap:
        notes.append(
            f"best-to-worst gap in accuracy {_value(gap['value'])} "
            f"({md_escape(str(gap['best']))} − {md_escape(str(gap['worst']))})"
        )
    rho = part.get("spearman")
    notes.append(
        "Spearman correlation of answer rate and accuracy on answered: "
        f"ρ = {_value(rho['rho'])}, {format_p(rho['p_value'])} ({rho['n_groups']} groups)"
        if rho
        else "Spearman correlation: - (needs 3 or more groups that vary)"
    )
    return "; ".join(notes) + "."


def _multi(multi: Mapping[str, Any]) -> list[str]:
    row = [
        multi["n_items"],
        format_estimate(multi["exact_match"], multi.get("exact_match_interval")),
        _value(multi["partial_credit"]),
    ]
    headers = ["questions", f"exact match {_CI}", "fractional credit"]
    return _section("Multi-answer questions", *md_table(headers, [row]))


def _sub_labels(sub: Mapping[str, Any]) -> list[str]:
    """Sub-labels with two or more groups: per group accuracy, answer rate and guessing
    baselines, then the gap and Spearman; by relation only the gap and Spearman (its figures
    are in "By relation"), as the command line shows them."""
    overall = sub.get("overall", {})
    guessing = md_table(
        [
            "",
            "accuracy",
            "random guessing",
            f"majority guessing (always {sub.get('majority_key')})",
        ],
        [
            [
                "whole run",
                _value(overall.get("average_accuracy")),
                _value(overall.get("random_guess")),
                _value(overall.get("majority_guess")),
            ]
        ],
    )
    lines = _section("Sub-labels: guessing baselines", *guessing)
    headers = ["group", "n", f"accuracy {_CI}", f"answer rate {_CI}", "accuracy on answered",
               "random guess", "majority guess"]  # fmt: skip
    for name, part in sub.get("by_label", {}).items():
        groups = part.get("groups", {})
        if len(groups) < 2:
            continue
        title = f"Sub-label: {md_escape(str(name).replace('_', ' '))}"
        if name == "relation":
            lines += _section(title, _gap_and_spearman(part) + " Figures: see *By relation*.")
            continue
        rows = [
            [
                value,
                g["n"],
                format_estimate(g["average_accuracy"], g.get("average_accuracy_interval")),
                format_estimate(g["answer_rate"], g.get("answer_rate_interval")),
                _value(g.get("accuracy_answered")),
                _value(g.get("random_guess")),
                _value(g.get("majority_guess")),
            ]
            for value, g in groups.items()
        ]
        lines += _section(title, *md_table(headers, rows), "", _gap_and_spearman(part))
    return lines


_CONDITIONS = {"with_idk": 'with "I do not know"', "without_idk": 'without "I do not know"'}


def _stability(stability: Mapping[str, Any]) -> list[str]:
    """A permutation run: per condition, accuracy per option order, its spread and the items
    answered alike in every order; with ``--idk-both``, what offering "I do not know" changed."""
    k = stability.get("k")
    lines = _section(
        f"Stability over option orders (k = {k})",
        "Every multiple-choice item asked in k option orders (order 0: the original)"
        + (', each with and without "I do not know".' if stability.get("idk_both") else "."),
    )
    for condition, part in stability.get("conditions", {}).items():
        rows = [
            [
                "0 (original)" if row["index"] == 0 else row["index"],
                row["n"],
                format_estimate(row["accuracy"], row.get("accuracy_interval")),
                format_estimate(row["answer_rate"], row.get("answer_rate_interval")),
            ]
            for row in part.get("by_order", [])
        ]
        spread, same = part.get("spread", {}), part.get("consistency", {})
        summary = [
            ["accuracy, all orders", _value(part.get("accuracy"))],
            ["lowest order's accuracy", _value(spread.get("min"))],
            ["highest order's accuracy", _value(spread.get("max"))],
            ["range (highest − lowest)", _value(spread.get("range"))],
            ["SD over orders", _value(spread.get("sd"))],
            [
                f"same answer in every order ({same.get('k')} of {same.get('n')} items)",
                format_estimate(same.get("value"), same.get("interval")),
            ],
        ]
        name = _CONDITIONS.get(condition, condition.replace("_", " "))
        lines += _section(
            f"Option orders, {name}: {part.get('n_items')} items, {part.get('n_answers')} answers",
            *md_table(["order", "n", f"accuracy {_CI}", f"answer rate {_CI}"], rows),
            "",
            *md_table(["over the orders", f"value {_CI}"], summary),
        )
    effect = stability.get("idk_effect")
    if effect:
        rows = [
            [
                label,
                _value(effect[f"{key}_with_idk"]),
                _value(effect[f"{key}_without_idk"]),
                _value(effect[f"{key}_change"]),
            ]
            for key, label in (("answer_rate", "answer rate"), ("accuracy", "accuracy"))
        ]
        headers = ["", 'with "I do not know"', "without", "change (with − without)"]
        lines += _section('Effect of offering "I do not know"', *md_table(headers, rows))
    return lines


def _recall(recall: Mapping[str, Any]) -> list[str]:
    """Open recall: mean scores per aspect and overall, then tier shares (with 95% CIs)."""
    groups = {**recall.get("by_aspect", {}), "overall": recall.get("overall", {})}
    shown = [(k, label) for k, label in _RECALL_METRICS if any(k in g for g in groups.values())]
    names = list(recall.get("overall", {}).get("tiers", {}))
    scores, tiers = [], []
    for aspect, group in groups.items():
        figures = [group.get(k) or {} for k, _ in shown]
        scores.append(
            [aspect, group.get("n", ""),
             *(format_estimate(f.get("mean"), f.get("interval")) for f in figures)]
        )  # fmt: skip
        own = group.get("tiers", {})
        tiers.append(
            [aspect, *(format_estimate(own.get(n, {}).get("share"), own.get(n, {}).get("interval"))
                       for n in names)]
        )  # fmt: skip
    kinds = [
        ("matched", "matched"),
        ("extra_truth", "true, not in the list"),
        ("known_wrong", "known wrong"),
        ("unverified", "unverified"),
        ("judged_correct", "judge: correct"),
        ("judged_incorrect", "judge: incorrect"),
    ]
    entries = [
        [aspect, *(str((group.get("entries") or {}).get(k, 0)) for k, _ in kinds)]
        for aspect, group in groups.items()
    ]
    spec = recall.get("tiers", {})
    note = (
        f"Tiers by {md_escape(str(spec.get('metric')))}: below {spec.get('low')} completely "
        f"wrong, from {spec.get('high')} basically correct."
    )
    return [
        *_section(
            "Open recall: mean scores",
            *md_table(["aspect", "n", *(f"{label} {_CI}" for _, label in shown)], scores),
        ),
        *_section(
            "Open recall: tiers",
            *md_table(["aspect", *(f"{n} {_CI}" for n in names)], tiers),
            "",
            note,
        ),
        *_section(
            "Open recall: listed entries by class",
            *md_table(["aspect", *(label for _, label in kinds)], entries),
            "",
            "Unverified entries (nothing known of them) count on neither side of precision.",
        ),
    ]


def _sdak(sdak: Mapping[str, Any]) -> list[str]:
    """SDAK: the paper's pair metrics, error types as shares of the errors, reliability."""
    counts = sdak.get("counts", {})
    rows = [
        [SDAK_LABELS.get(key, key), f"{counts.get(key, 0)}/{sdak['n_pairs']}",
         format_estimate(value, sdak["intervals"].get(key))]
        for key, value in sdak["metrics"].items()
    ]  # fmt: skip
    rows += [
        [f"error: {SDAK_LABELS.get(key, key)}", f"{counts.get(key, 0)}/{sdak['n_errors']}",
         format_estimate(value, sdak["error_type_intervals"].get(key))]
        for key, value in sdak["error_types"].items()
    ]  # fmt: skip
    rel = sdak.get("accuracy_reliability")
    if rel:
        rows.append(
            ["accuracy reliability (sound reasons)", f"{rel['sound']}/{rel['reviewed']}",
             format_estimate(rel["value"], rel["interval"])]
        )  # fmt: skip
    return _section(
        f"SDAK (paper's definitions): {sdak['n_pairs']} pairs, {sdak['n_errors']} wrong",
        *md_table(["metric", "n", f"value {_CI}"], rows),
        "",
        "Error types are shares of the wrong pairs.",
    )


def _repeat_label(key: str) -> str:
    """A repeat summary's metric name (:func:`quizbot.analysis.repeats.flat_metrics`)."""
    if key.startswith("sdak.errors."):
        name = key.removeprefix("sdak.errors.")
        return f"SDAK error: {SDAK_LABELS.get(name, name)}"
    if key.startswith("sdak."):
        name = key.removeprefix("sdak.")
        return f"SDAK {SDAK_LABELS.get(name, name)}"
    if key.startswith("multi_answer."):
        return "multi-answer " + key.removeprefix("multi_answer.").replace("_", " ")
    if key.startswith("recall.tier."):
        return f"open recall tier: {key.removeprefix('recall.tier.')}"
    if key.startswith("recall."):
        name = key.removeprefix("recall.")
        return "open recall " + dict(_RECALL_METRICS).get(name, name)
    return metric_label(key)


def _repeats(repeats: Mapping[str, Any]) -> list[str]:
    """A repeat group: every metric as mean ± SD (sample SD) over its completed runs."""
    runs = ", ".join(str(r) for r in repeats["runs"])
    n_runs = repeats.get("n_runs", len(repeats["runs"]))
    title = f"Repeats: mean ± SD over {n_runs} completed runs ({runs})"
    if repeats.get("not_completed"):
        title += f"; not completed: {', '.join(str(r) for r in repeats['not_completed'])}"
    rows = [
        [
            _repeat_label(key),
            format_mean_sd(figure["mean"], figure["sd"]),
            figure.get("n", ""),
            ", ".join(_value(v) for v in figure.get("values", [])),
        ]
        for key, figure in repeats["metrics"].items()
    ]
    headers = ["metric", "mean ± SD", "runs with a value", "value in each run"]
    return _section(title, *md_table(headers, rows))


def render_report(report: Mapping[str, Any]) -> str:
    """A run's report (:func:`quizbot.analysis.reporting.run_report`) as Markdown: the figures
    ``quizbot runs report`` shows, with their 95% intervals, one titled table per section, and
    only the sections the run has (sub-labels, stability of a permutation run, open recall,
    SDAK, its repeat group). Nothing is computed here; every figure is read from ``report``."""
    lines = _head(report)
    if not (report.get("recall") and not report.get("by_relation")):  # not only open recall
        lines += _metrics(report)
    sub = report.get("sub_labels") or {}
    lines += _breakdown("relation", report.get("by_relation", {}))
    lines += _breakdown("transform", report.get("by_transform", {}))
    if report.get("multi_answer"):
        lines += _multi(report["multi_answer"])
    if sub:
        lines += _sub_labels(sub)
    if report.get("stability"):
        lines += _stability(report["stability"])
    if report.get("recall"):
        lines += _recall(report["recall"])
    if report.get("sdak"):
        lines += _sdak(report["sdak"])
    if report.get("repeats"):
        lines += _repeats(report["repeats"])
    return "\n".join(lines)
