"""How the command line shows runs, reports and comparisons as text (``--json`` gives the data).

Tables are drawn with rich into a string, so the same text goes to a terminal, a pipe or a test.
Every figure comes with its 95% interval where it has one; p-values are shown so that a small one
is never printed as 0.000.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from quizbot.analysis.labels import METRIC_LABELS, SDAK_LABELS, format_p

__all__ = ["compare_text", "format_p", "report_text", "runs_text"]

WIDTH = 110
_BREAKDOWN = ("average_accuracy", "answer_rate", "accuracy_answered")


def _render(*parts: Any) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, color_system=None, force_terminal=False)
    for part in parts:
        console.print(part)
    return buffer.getvalue().rstrip("\n")


def _figure(value: float | None, interval: Sequence[float | None] | None = None) -> str:
    if value is None:
        return "-"
    if interval and len(interval) == 2 and None not in interval:
        low, high = interval
        return f"{value:.3f} [{low:.3f}, {high:.3f}]"
    return f"{value:.3f}"


def _breakdown(title: str, parts: Mapping[str, Mapping[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column(title.rsplit(" ", maxsplit=1)[-1])
    table.add_column("n", justify="right")
    for name in _BREAKDOWN:
        table.add_column(f"{METRIC_LABELS[name]} [95% CI]", justify="right")
    for key, part in parts.items():
        metrics, intervals = part.get("metrics", {}), part.get("intervals", {})
        table.add_row(
            key,
            str(part.get("n", "")),
            *(_figure(metrics.get(m), intervals.get(m)) for m in _BREAKDOWN),
        )
    return table


def report_text(report: Mapping[str, Any]) -> str:
    """``quizbot report``: the run, its metrics with intervals, by relation and by transform."""
    name = f" {report['name']!r}" if report.get("name") else ""
    head = (
        f"run {report['run_id']}{name}: {report['model']} "
        f"(reported: {report.get('model_reported') or '-'}), {report['status']}, "
        f"{report.get('answered', 0)}/{report['n_items']} answered items stored"
    )
    lines = [head]
    if report.get("error"):
        lines.append(f"error: {report['error']}")
    metrics = Table(box=box.SIMPLE_HEAD)
    metrics.add_column("metric")
    metrics.add_column("value [95% CI]", justify="right")
    intervals = report.get("intervals", {})
    for key, value in report.get("metrics", {}).items():
        metrics.add_row(METRIC_LABELS.get(key, key), _figure(value, intervals.get(key)))
    only_recall = report.get("recall") and not report.get("by_relation")
    parts: list[Any] = ["\n".join(lines)] if only_recall else ["\n".join(lines), metrics]
    if report.get("by_relation"):
        parts.append(_breakdown("By relation", report["by_relation"]))
    if report.get("by_transform"):
        parts.append(_breakdown("By transform", report["by_transform"]))
    multi = report.get("multi_answer")
    if multi:
        parts.append(
            f"multi-answer questions: {multi['n_items']}, exact match "
            f"{_figure(multi['exact_match'], multi.get('exact_match_interval'))}, "
            f"fractional credit {multi['partial_credit']:.3f}"
        )
    if report.get("sub_labels"):
        parts.extend(_sub_label_tables(report["sub_labels"]))
    if report.get("stability"):
        parts.extend(_stability_tables(report["stability"]))
    if report.get("recall"):
        parts.extend(_recall_tables(report["recall"]))
    if report.get("sdak"):
        parts.append(_sdak_table(report["sdak"]))
    if report.get("repeats"):
        parts.append(_repeats_table(report["repeats"]))
    if report.get("n_errors"):
        parts.append(f"errors (left out of the metrics): {report['n_errors']}")
    return _render(*parts)


def _sdak_table(sdak: Mapping[str, Any]) -> Table:
    """SDAK: the paper's pair metrics, error types as shares of the errors, reliability."""
    table = Table(
        title=f"SDAK (paper's definitions): {sdak['n_pairs']} pairs, {sdak['n_errors']} wrong",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("metric")
    table.add_column("n", justify="right")
    table.add_column("value [95% CI]", justify="right")
    counts = sdak.get("counts", {})
    for key, value in sdak["metrics"].items():
        table.add_row(
            SDAK_LABELS.get(key, key),
            f"{counts.get(key, 0)}/{sdak['n_pairs']}",
            _figure(value, sdak["intervals"].get(key)),
        )
    for key, value in sdak["error_types"].items():
        table.add_row(
            f"error: {SDAK_LABELS.get(key, key)}",
            f"{counts.get(key, 0)}/{sdak['n_errors']}",
            _figure(value, sdak["error_type_intervals"].get(key)),
        )
    rel = sdak.get("accuracy_reliability")
    if rel:
        table.add_row(
            "accuracy reliability (sound reasons)",
            f"{rel['sound']}/{rel['reviewed']}",
            _figure(rel["value"], rel["interval"]),
        )
    return table


def _repeats_table(repeats: Mapping[str, Any]) -> Table:
    """Repeat groups: every metric as mean ± SD over the completed runs."""
    runs = ", ".join(str(r) for r in repeats["runs"])
    title = f"Repeats: mean ± SD over {repeats['n_runs']} completed runs ({runs})"
    if repeats.get("not_completed"):
        title += f"; not completed: {', '.join(str(r) for r in repeats['not_completed'])}"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("metric")
    table.add_column("mean ± SD", justify="right")
    table.add_column("n", justify="right")
    for key, figure in repeats["metrics"].items():
        name = key.removeprefix("sdak.errors.").removeprefix("sdak.")
        label = SDAK_LABELS.get(name) if key.startswith("sdak.") else METRIC_LABELS.get(key)
        shown = ("SDAK error: " if key.startswith("sdak.errors.") else "SDAK " if
                 key.startswith("sdak.") else "") + (label or name)  # fmt: skip
        mean, sd = figure["mean"], figure["sd"]
        value = "-" if mean is None else f"{mean:.3f}" + ("" if sd is None else f" ± {sd:.3f}")
        table.add_row(shown, value, str(figure["n"]))
    return table


_RECALL_METRICS = (("f1", "F1"), ("precision", "P"), ("recall", "R"),
                   ("rouge1", "ROUGE-1"), ("bleu1", "BLEU-1"), ("cosine", "cosine"))  # fmt: skip


def _recall_tables(recall: Mapping[str, Any]) -> list[Any]:
    """Open recall: mean scores per aspect and overall, then tier shares (all with 95% CIs)."""
    groups = {**recall.get("by_aspect", {}), "overall": recall.get("overall", {})}
    shown = [(k, label) for k, label in _RECALL_METRICS if any(k in g for g in groups.values())]
    scores = Table(title="Open recall: mean scores", title_justify="left", box=box.SIMPLE_HEAD)
    scores.add_column("aspect")
    scores.add_column("n", justify="right")
    for _, label in shown:
        scores.add_column(f"{label} [95% CI]", justify="right")
    tier_table = Table(title="Open recall: tiers", title_justify="left", box=box.SIMPLE_HEAD)
    tier_table.add_column("aspect")
    names = list(recall.get("overall", {}).get("tiers", {}))
    for name in names:
        tier_table.add_column(f"{name} [95% CI]", justify="right")
    for aspect, group in groups.items():
        figures = [group.get(k) or {} for k, _ in shown]
        scores.add_row(
            aspect,
            str(group.get("n", "")),
            *(_figure(f.get("mean"), f.get("interval")) for f in figures),
        )
        tiers = group.get("tiers", {})
        tier_table.add_row(
            aspect,
            *(
                _figure(tiers.get(n, {}).get("share"), tiers.get(n, {}).get("interval"))
                for n in names
            ),
        )
    entry_table = Table(
        title="Open recall: listed entries by class", title_justify="left", box=box.SIMPLE_HEAD
    )
    kinds = [
        ("matched", "matched"),
        ("extra_truth", "true, not in the list"),
        ("known_wrong", "known wrong"),
        ("unverified", "unverified"),
        ("judged_correct", "judge: correct"),
        ("judged_incorrect", "judge: incorrect"),
    ]
    entry_table.add_column("aspect")
    for _, label in kinds:
        entry_table.add_column(label, justify="right")
    for aspect, group in groups.items():
        counts = group.get("entries") or {}
        entry_table.add_row(aspect, *(str(counts.get(k, 0)) for k, _ in kinds))
    spec = recall.get("tiers", {})
    note = (
        f"tiers by {spec.get('metric')}: below {spec.get('low')} completely wrong, "
        f"from {spec.get('high')} basically correct; unverified entries count on neither side "
        "of precision"
    )
    return [scores, tier_table, entry_table, note]


def compare_text(result: Mapping[str, Any]) -> str:
    """``quizbot compare``: the two runs, their accuracies, the difference and the test (and, for
    open recall runs, Welch's t-test per aspect; only that when neither run has other items)."""
    a, b = result["run_a"], result["run_b"]
    if result.get("recall") and not result.get("n_a") and not result.get("n_b"):
        head = f"A: run {a['run_id']} ({a['model']})   B: run {b['run_id']} ({b['model']})"
        return f"{head}\n{_welch_text(result['recall'])}"
    diff = result.get("difference")
    interval = result.get("difference_interval") or [None, None]
    if diff is None:
        difference = "difference: -"
    elif None in interval:
        difference = f"difference (A - B): {diff:+.3f}"
    else:
        difference = (
            f"difference (A - B): {diff:+.3f}, 95% CI [{interval[0]:+.3f}, {interval[1]:+.3f}]"
        )
    lines = [
        f"A: run {a['run_id']} ({a['model']})   B: run {b['run_id']} ({b['model']})",
        f"accuracy: A {_figure(result.get('accuracy_a'))} of {result.get('n_a')}, "
        f"B {_figure(result.get('accuracy_b'))} of {result.get('n_b')}",
        difference,
    ]
    if result.get("test") == "mcnemar_exact":
        lines.append(
            f"McNemar's exact test on {result.get('n_shared')} shared items: "
            f"{result.get('b10')} right only in A, {result.get('b01')} right only in B, "
            f"{format_p(result.get('p_value'))}"
        )
    else:
        z = result.get("z")
        z_text = f"z = {z:.2f}, " if isinstance(z, int | float) else ""
        lines.append(
            f"two-proportion z test ({result.get('n_shared', 0)} shared items, too few to "
            f"pair): {z_text}{format_p(result.get('p_value'))}"
        )
    if result.get("recall"):
        lines.append(_welch_text(result["recall"]))
    return "\n".join(lines)


def _welch_text(recall: Mapping[str, Any]) -> str:
    """Open recall: Welch's t-test per aspect (BH-adjusted p)."""
    table = Table(
        title=f"Open recall: mean {recall.get('metric')} per aspect, Welch's t-test "
        "(p adjusted by Benjamini-Hochberg)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for column in ("aspect", "n A", "n B", "mean A", "mean B", "A - B", "t", "p", "p adjusted"):
        table.add_column(column, justify="left" if column == "aspect" else "right")
    for aspect, row in recall.get("by_aspect", {}).items():
        t = row.get("t")
        table.add_row(
            aspect,
            str(row.get("n_a")),
            str(row.get("n_b")),
            _figure(row.get("mean_a")),
            _figure(row.get("mean_b")),
            "-" if row.get("difference") is None else f"{row['difference']:+.3f}",
            "-" if t is None else f"{t:.2f}",
            format_p(row.get("p_value")).removeprefix("p = "),
            format_p(row.get("p_adjusted")).removeprefix("p = "),
        )
    return _render(table)


def runs_text(runs: Sequence[Mapping[str, Any]]) -> str:
    """``quizbot runs list``: one row per run with a header, newest first."""
    if not runs:
        return "no runs yet; start one with `quizbot eval`"
    table = Table(box=box.SIMPLE_HEAD)
    for column, justify in (
        ("run", "right"), ("name", "left"), ("model", "left"), ("status", "left"),
        ("answered", "right"), ("created (UTC)", "left"),
    ):  # fmt: skip
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in runs:
        shards = row.get("shards")
        status = row["status"]
        if shards:  # a queued run: its shard jobs still on the queue
            parts = [f"{n} {state}" for state, n in shards.items() if n]
            status = f"{status} (shards: {', '.join(parts)})" if parts else status
        table.add_row(
            str(row["run_id"]),
            row.get("name") or "-",
            row["model"],
            status,
            f"{row['responses']}/{row['n_items']}",
            str(row["created_at"])[:16].replace("T", " "),
        )
    return _render(table)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _sub_label_tables(sub: Mapping[str, Any]) -> list[Any]:
    """Sub-labels with 2+ groups: accuracy, answer rate and guessing per group; gap, Spearman."""
    overall = sub.get("overall", {})
    parts: list[Any] = [
        f"guessing (overall): random {_share(overall.get('random_guess'))}, majority "
        f"({sub.get('majority_key')}) {_share(overall.get('majority_guess'))}, "
        f"accuracy {_share(overall.get('average_accuracy'))}"
    ]
    for name, part in sub.get("by_label", {}).items():
        groups = part.get("groups", {})
        if len(groups) < 2:
            continue
        table = Table(title=f"By {name}", title_justify="left", box=box.SIMPLE_HEAD)
        for column in ("group", "n", "accuracy [95% CI]", "answer rate [95% CI]",
                       "acc. answered", "random", "majority"):  # fmt: skip
            table.add_column(column, justify="left" if column == "group" else "right")
        for value, g in groups.items():
            table.add_row(
                value,
                str(g["n"]),
                _figure(g["average_accuracy"], g.get("average_accuracy_interval")),
                _figure(g["answer_rate"], g.get("answer_rate_interval")),
                _share(g.get("accuracy_answered")),
                _share(g.get("random_guess")),
                _share(g.get("majority_guess")),
            )
        notes = []
        gap = part.get("gap")
        if gap:
            notes.append(f"gap {gap['value']:.3f} ({gap['best']} - {gap['worst']})")
        rho = part.get("spearman")
        notes.append(
            f"Spearman answer rate vs accuracy on answered: rho {rho['rho']:.3f}, "
            f"{format_p(rho['p_value'])} ({rho['n_groups']} groups)"
            if rho
            else "Spearman: - (needs 3+ groups that vary)"
        )
        # By relation the figures are already shown above: only the gap and correlation here.
        parts.extend(
            [f"by {name}: " + "; ".join(notes)] if name == "relation" else [table, "; ".join(notes)]
        )
    return parts


def _stability_tables(stability: Mapping[str, Any]) -> list[Any]:
    """Permutation runs: accuracy per order, spread, consistency, and the effect of IDK."""
    parts: list[Any] = []
    for condition, part in stability.get("conditions", {}).items():
        title = f"Option orders ({condition.replace('_', ' ')}, k = {stability.get('k')})"
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
        for column in ("order", "n", "accuracy [95% CI]", "answer rate [95% CI]"):
            table.add_column(column, justify="right")
        for row in part.get("by_order", []):
            table.add_row(
                "original" if row["index"] == 0 else str(row["index"]),
                str(row["n"]),
                _figure(row["accuracy"], row.get("accuracy_interval")),
                _figure(row["answer_rate"], row.get("answer_rate_interval")),
            )
        spread, same = part.get("spread", {}), part.get("consistency", {})
        parts.extend(
            [
                table,
                f"spread: min {_share(spread.get('min'))}, max {_share(spread.get('max'))}, "
                f"range {_share(spread.get('range'))}, SD {_share(spread.get('sd'))}; "
                f"same answer in every order: {same.get('k')}/{same.get('n')} items "
                f"{_figure(same.get('value'), same.get('interval'))}",
            ]
        )
    effect = stability.get("idk_effect")
    if effect:
        parts.append(
            "with vs without I do not know: answer rate "
            f"{_share(effect['answer_rate_with_idk'])} vs "
            f"{_share(effect['answer_rate_without_idk'])} "
            f"(change {_share(effect['answer_rate_change'])}), accuracy "
            f"{_share(effect['accuracy_with_idk'])} vs {_share(effect['accuracy_without_idk'])}"
        )
    return parts
