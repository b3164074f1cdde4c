"""The "Humans vs models" tab: students and models on the same items, side by side.

All figures come from :func:`quizbot.analysis.comparison.compare` (its docstring defines who is
compared,
on which items, and every figure and test); this module only collects the filters and renders
the :class:`~quizbot.analysis.comparison.HumansVsModels` it returns:

* the groups table: pooled students, each model run and each student, with accuracy, answer
  rate and joint accuracy and their Wilson 95% intervals;
* a bar chart of those three figures per group with the intervals as whiskers, and a heat map
  of accuracy per relation (the topics) and per transform. Both are drawn here as inline SVG /
  HTML: matplotlib is not a dependency, and gradio's native bar plot cannot draw intervals;
* the breakdown tables (accuracy by relation and by transform, one column per group);
* the tests (model vs students and model vs model, raw and Benjamini–Hochberg-adjusted p);
* each model's percentile within the student cohort;
* open recall items, when the comparison has any: mean F1 [95% t interval] and tier shares per
  group, overall and per aspect (:func:`recall_table`), and Welch's t-tests of each model's F1
  against the pooled students' with the difference's 95% Welch interval, raw and
  Benjamini–Hochberg-adjusted p (:func:`recall_test_table`);
* the service's notes, and "Export CSV"
(:meth:`~quizbot.analysis.comparison.HumansVsModels.to_csv`).

Filters: knowledge base, cohort, a date range of whole UTC days (students only), models (empty:
every model with a completed run), the runs that stand for them (the run picker: empty takes
each model's most complete finished run on the items, and the notes say which) and the minimum
number of shared items for a student to count in a percentile. Lists of cohorts, knowledge bases
and models are read when the page loads and on "Refresh lists".
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import gradio as gr

from quizbot.analysis.comparison import (
    DEFAULT_MIN_ITEMS,
    GroupRow,
    HumansVsModels,
    Scope,
    cohorts,
    comparable_models,
    compare,
    run_choices,
)
from quizbot.analysis.metrics import Proportion
from quizbot.errors import InputError
from quizbot.kb.registry import kb_listing
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.render import format_estimate, html_text

__all__ = [
    "ALL",
    "BAR_METRICS",
    "CSV_NAME",
    "GROUP_HEADERS",
    "PERCENTILE_HEADERS",
    "RECALL_HEADERS",
    "RECALL_TEST_HEADERS",
    "TEST_HEADERS",
    "bar_chart_svg",
    "breakdown_table",
    "build",
    "group_table",
    "heatmap_html",
    "notes_markdown",
    "parse_day",
    "percentile_table",
    "recall_table",
    "recall_test_table",
    "significance_table",
    "write_csv",
]

log = logging.getLogger(__name__)

ALL = ""  # the value of "all" in the knowledge base and cohort dropdowns
CSV_NAME = "humans-vs-models.csv"
GROUP_HEADERS = [
    "group",
    "kind",
    "run",
    "respondents",
    "items",
    "answers",
    "accuracy",
    "answer rate",
    "joint accuracy",
]
TEST_HEADERS = [
    "family",
    "a",
    "b",
    "scope",
    "test",
    "n (a / b)",
    "accuracy (a / b)",
    "difference b − a [95% CI]",
    "p",
    "p (BH)",
]
PERCENTILE_HEADERS = [
    "model",
    "run",
    "students counted",
    "below the model",
    "tied",
    "above the model",
    "percentile (matched)",
    "model accuracy",
    "percentile (pooled)",
]
RECALL_HEADERS = [
    "group",
    "kind",
    "run",
    "aspect",
    "items",
    "answers",
    "mean F1 [95% t]",
    "basically correct",
    "partially correct",
    "completely wrong",
]
RECALL_TEST_HEADERS = [
    "a",
    "b",
    "aspect",
    "n (a / b)",
    "mean F1 (a / b)",
    "difference b − a [95% Welch]",
    "Welch t",
    "p",
    "p (BH)",
]
# (attribute of GroupRow, legend label, colour)
BAR_METRICS = (
    ("accuracy", "accuracy", "#4c72b0"),
    ("answer_rate", "answer rate", "#55a868"),
    ("joint_accuracy", "joint accuracy", "#c44e52"),
)
MIN_CHART_WIDTH = 560  # room for the legend
_KINDS = {"students": "students (pooled)", "student": "student", "model": "model"}


# --------------------------------------------------------------------------------------------
# Rendering (pure)


def parse_day(text: str | None, what: str) -> date | None:
    """A day typed or picked as ``YYYY-MM-DD`` (a time part is ignored); None when empty."""
    value = (text or "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        raise InputError(
            f"the {what} date {value!r} is not a date", hint="write it as YYYY-MM-DD"
        ) from None


def _p(p: Proportion) -> str:
    return format_estimate(p.value, p.interval)


def _number(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _p_value(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def group_table(result: HumansVsModels) -> dict[str, Any]:
    """Pooled students, each model run, then each student (``{"headers", "data"}``)."""
    rows = [
        [
            g.group,
            _KINDS.get(g.kind, g.kind),
            "" if g.run_id is None else str(g.run_id),
            str(g.n_respondents),
            str(g.n_items),
            str(g.n),
            _p(g.accuracy),
            _p(g.answer_rate),
            _p(g.joint_accuracy),
        ]
        for g in (*result.groups, *result.students)
    ]
    return {"headers": GROUP_HEADERS, "data": rows}


def breakdown_table(result: HumansVsModels, scope: Scope) -> dict[str, Any]:
    """Accuracy [95% CI] (n) per relation or transform: one row per name, a column per group."""
    names, keys, _ = result.heatmap(scope)
    cells = {(s.group, s.key): s.accuracy for s in result.breakdown if s.scope == scope}
    rows = []
    for key in keys:
        row = [key]
        for name in names:
            p = cells.get((name, key))
            row.append("-" if p is None else f"{_p(p)} (n={p.n})")
        rows.append(row)
    return {"headers": [scope, *names], "data": rows}


def significance_table(result: HumansVsModels) -> dict[str, Any]:
    """Every test with its difference, interval, raw and Benjamini–Hochberg-adjusted p."""
    rows = []
    for t in result.tests:
        c = t.comparison
        diff = "-"
        if c.difference is not None:
            diff = f"{c.difference:+.3f}"
            if c.difference_low is not None and c.difference_high is not None:
                diff += f" [{c.difference_low:+.3f}, {c.difference_high:+.3f}]"
        scope = t.scope.replace("_", " ") + (f": {t.key}" if t.key else "")
        rows.append(
            [
                t.family.replace("_", " "),
                t.a,
                t.b,
                scope,
                c.test.replace("_", " "),
                f"{c.n_a} / {c.n_b}",
                f"{_number(c.accuracy_a)} / {_number(c.accuracy_b)}",
                diff,
                _p_value(c.p_value),
                _p_value(t.p_adjusted),
            ]
        )
    return {"headers": TEST_HEADERS, "data": rows}


def percentile_table(result: HumansVsModels) -> dict[str, Any]:
    """Each model's place among the students who answered enough of its items."""
    rows = [
        [
            p.model,
            "" if p.run_id is None else str(p.run_id),
            str(p.n_students),
            str(p.below),
            str(p.tied),
            str(p.above),
            _number(p.percentile, 1),
            _number(p.model_accuracy),
            _number(p.percentile_pooled, 1),
        ]
        for p in result.percentiles
    ]
    return {"headers": PERCENTILE_HEADERS, "data": rows}


def _mean(figure: Any) -> str:
    figure = figure or {}
    return format_estimate(figure.get("mean"), figure.get("interval"))


def _share(part: Any) -> str:
    if not part or part.get("share") is None:
        return "-"
    interval = part.get("interval")
    return f"{format_estimate(part['share'], interval)} ({part['k']})"


def recall_table(result: HumansVsModels) -> dict[str, Any]:
    """Open recall per group: mean F1 [95% t interval] and tier shares [Wilson 95%] (k)."""
    rows = [
        [
            g.group,
            _KINDS.get(g.kind, g.kind),
            "" if g.run_id is None else str(g.run_id),
            g.key or "(all)",
            str(g.n_items),
            str(g.n),
            _mean(g.figures.get("f1")),
            _share(g.figures["tiers"].get("basically correct")),
            _share(g.figures["tiers"].get("partially correct")),
            _share(g.figures["tiers"].get("completely wrong")),
        ]
        for g in result.recall
    ]
    return {"headers": RECALL_HEADERS, "data": rows}


def recall_test_table(result: HumansVsModels) -> dict[str, Any]:
    """Welch's t-tests of open recall F1, each model against the pooled students."""
    rows = []
    for t in result.recall_tests:
        diff = "-"
        if t.difference is not None:
            diff = f"{t.difference:+.3f}"
            if t.difference_interval is not None:
                low, high = t.difference_interval
                diff += f" [{low:+.3f}, {high:+.3f}]"
        rows.append(
            [
                t.a,
                t.b,
                t.key or "(all)",
                f"{t.n_a} / {t.n_b}",
                f"{_number(t.mean_a)} / {_number(t.mean_b)}",
                diff,
                "-" if t.t is None else f"{t.t:.2f}",
                _p_value(t.p_value),
                _p_value(t.p_adjusted),
            ]
        )
    return {"headers": RECALL_TEST_HEADERS, "data": rows}


def notes_markdown(result: HumansVsModels) -> str:
    """The items compared and the service's notes, as Markdown."""
    lines = [
        f"**{len(result.item_ids)} item(s) compared.** Students count in a percentile with at "
        f"least {result.min_items} of the model's items."
    ]
    lines += [f"- {note}" for note in result.notes]
    return "\n".join(lines)


def _short(text: str, limit: int = 16) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bar_chart_svg(groups: Sequence[GroupRow]) -> str:
    """Grouped bars (accuracy, answer rate, joint accuracy) per group, 95% intervals as whiskers.

    An empty string when there are no groups. Each bar carries a ``<title>`` with its k/n and
    interval, shown when the pointer rests on it.
    """
    if not groups:
        return ""
    left, top, plot_h, bottom = 46, 34, 220, 46
    bar, gap, pad = 22, 4, 40
    group_w = len(BAR_METRICS) * bar + (len(BAR_METRICS) - 1) * gap
    width = max(MIN_CHART_WIDTH, left + len(groups) * (group_w + pad) + 10)
    height = top + plot_h + bottom

    def y(v: float) -> float:
        return top + plot_h * (1 - v)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="qb-bars" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="accuracy, answer rate and joint accuracy by group, with 95% intervals" '
        'font-family="sans-serif" font-size="11">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        ty = y(tick)
        parts.append(
            f'<line x1="{left}" x2="{width - 10}" y1="{ty:.1f}" y2="{ty:.1f}" '
            'stroke="#ddd" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" fill="#555">{tick:.2f}</text>'
        )
    legend_x = left
    for _, label, colour in BAR_METRICS:
        parts.append(
            f'<rect x="{legend_x}" y="8" width="10" height="10" fill="{colour}"/>'
            f'<text x="{legend_x + 14}" y="17" fill="#333">{label}</text>'
        )
        legend_x += 14 + 7 * len(label) + 16
    parts.append(f'<text x="{legend_x}" y="17" fill="#777">whiskers: 95% interval</text>')
    for i, g in enumerate(groups):
        x0 = left + pad / 2 + i * (group_w + pad)
        for j, (attr, label, colour) in enumerate(BAR_METRICS):
            p: Proportion = getattr(g, attr)
            bx = x0 + j * (bar + gap)
            cx = bx + bar / 2
            if p.value is None:
                parts.append(
                    f'<text x="{cx:.1f}" y="{y(0) - 4:.1f}" text-anchor="middle" '
                    'fill="#999">–</text>'
                )
                continue
            tip = (
                f"{html_text(g.group)}: {label} {format_estimate(p.value, p.interval)}, {p.k}/{p.n}"
            )
            parts.append(
                f'<rect x="{bx:.1f}" y="{y(p.value):.1f}" width="{bar}" '
                f'height="{plot_h * p.value:.1f}" fill="{colour}"><title>{tip}</title></rect>'
            )
            if p.low is not None and p.high is not None:
                lo, hi = y(p.low), y(p.high)
                parts.append(
                    f'<path d="M{cx:.1f},{lo:.1f}V{hi:.1f}M{cx - 4:.1f},{lo:.1f}H{cx + 4:.1f}'
                    f'M{cx - 4:.1f},{hi:.1f}H{cx + 4:.1f}" stroke="#222" stroke-width="1.2" '
                    'fill="none"/>'
                )
        centre = x0 + group_w / 2
        parts.append(
            f'<text x="{centre:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#222">'
            f"<title>{html_text(g.group)}</title>{html_text(_short(g.group))}</text>"
            f'<text x="{centre:.1f}" y="{top + plot_h + 30}" text-anchor="middle" fill="#777">'
            f"n={g.n}</text>"
        )
    parts.append(
        f'<line x1="{left}" x2="{width - 10}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#888"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _cell_style(value: float) -> str:
    """A blue that darkens with accuracy; white text on the darker half."""
    lightness = 96 - 52 * max(0.0, min(1.0, value))
    text = "#fff" if lightness < 62 else "#111"
    return f"background:hsl(212,65%,{lightness:.0f}%);color:{text}"


def heatmap_html(result: HumansVsModels, scope: Scope) -> str:
    """Accuracy per group (rows) and relation or transform (columns) as a coloured table."""
    names, keys, grid = result.heatmap(scope)
    if not names or not keys:
        return f"<p class='qb-heatmap-empty'>No accuracy by {scope} to show.</p>"
    counts = {(s.group, s.key): s.accuracy for s in result.breakdown if s.scope == scope}
    # Let long relation names break after their underscores instead of widening the table.
    head = "".join(
        f"<th title='{html_text(k)}'>{html_text(_short(k, 22)).replace('_', '_<wbr/>')}</th>"
        for k in keys
    )
    rows = []
    for name, values in zip(names, grid, strict=True):
        cells = []
        for key, value in zip(keys, values, strict=True):
            if value is None:
                cells.append("<td style='background:#eee;color:#999'>–</td>")
                continue
            p = counts[(name, key)]
            tip = f"{name}, {key}: {format_estimate(p.value, p.interval)}, {p.k}/{p.n}"
            cells.append(
                f"<td style='{_cell_style(value)}' title='{html_text(tip)}'>{value:.2f}</td>"
            )
        rows.append(f"<tr><th>{html_text(name)}</th>{''.join(cells)}</tr>")
    return (
        "<div style='overflow-x:auto;max-width:100%'>"
        f"<table class='qb-heatmap' data-scope='{scope}' "
        "style='border-collapse:collapse;font-size:12px;text-align:center'>"
        f"<caption style='text-align:left;padding:4px 0'>Accuracy by {scope} "
        "(darker is more accurate; hover a cell for its interval and n)</caption>"
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def write_csv(text: str, directory: Path | None = None) -> Path:
    """Write the comparison's CSV into a fresh temporary folder (or ``directory``)."""
    folder = directory or Path(tempfile.mkdtemp(prefix="quizbot-compare-"))
    path = folder / CSV_NAME
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Layout


def _table(
    headers: Sequence[str], label: str, elem_id: str, widths: Sequence[str] | None = None
) -> Any:
    return gr.Dataframe(
        headers=list(headers),
        label=label,
        interactive=False,
        wrap=True,
        column_widths=list(widths) if widths else None,
        elem_id=elem_id,
    )


@dataclass(frozen=True)
class _Filters:
    """The filter row's components and its two buttons."""

    kb: Any
    cohort: Any
    since: Any
    until: Any
    models: Any
    picked_runs: Any
    min_items: Any
    run: Any
    refresh: Any


@dataclass(frozen=True)
class _Results:
    """Where a comparison is shown: the message, tables, plots, notes and the CSV export."""

    message: Any
    groups: Any
    chart: Any
    heatmap: Any
    by_relation: Any
    by_transform: Any
    tests: Any
    percentiles: Any
    recall: Any
    recall_tests: Any
    notes: Any
    export: Any
    download: Any
    csv_text: Any

    def compared(self) -> list[Any]:
        """The outputs of "Compare", in the order :func:`_wire_compare`'s handler returns."""
        return [
            self.message,
            self.groups,
            self.chart,
            self.heatmap,
            self.by_relation,
            self.by_transform,
            self.tests,
            self.percentiles,
            self.recall,
            self.recall_tests,
            self.notes,
            self.csv_text,
        ]


def build(ctx: UiContext) -> None:
    """Lay out the tab inside the enclosing gr.Tab."""
    gr.Markdown(
        "Students' practice answers and models' evaluation runs on the same items. Students "
        "count with their first answer to each item; intervals are Wilson 95% (open recall: "
        "mean F1 with a 95% Student-t interval, tier shares Wilson 95%)."
    )
    filters = _filters_layout()
    results = _results_layout()
    _wire_lists(ctx, filters, results.message)
    _wire_compare(ctx, filters, results)
    _wire_export(results)


def _filters_layout() -> _Filters:
    """The filters: knowledge base, cohort, days; models, runs, items for a percentile."""
    with gr.Row():
        kb = gr.Dropdown(
            label="Knowledge base (item set)",
            choices=[("All knowledge bases", ALL)],
            value=ALL,
            elem_id="qb-compare-kb",
        )
        cohort = gr.Dropdown(
            label="Cohort",
            choices=[("All students", ALL)],
            value=ALL,
            elem_id="qb-compare-cohort",
        )
        since = gr.DateTime(
            label="From (UTC day)", include_time=False, type="string", elem_id="qb-compare-since"
        )
        until = gr.DateTime(
            label="Until (UTC day)", include_time=False, type="string", elem_id="qb-compare-until"
        )
    with gr.Row():
        models = gr.Dropdown(
            label="Models (empty: every model with a completed run)",
            choices=[],
            value=[],
            multiselect=True,
            scale=4,
            elem_id="qb-compare-models",
        )
        picked_runs = gr.Dropdown(
            label="Runs (empty: each model's most complete finished run on these items)",
            choices=[],
            value=[],
            multiselect=True,
            scale=4,
            elem_id="qb-compare-runs",
        )
        min_items = gr.Number(
            label="Items a student needs for a percentile",
            value=DEFAULT_MIN_ITEMS,
            minimum=1,
            precision=0,
            elem_id="qb-compare-min-items",
        )
    with gr.Row():
        run = gr.Button("Compare", variant="primary", scale=3, elem_id="qb-compare-run")
        refresh = gr.Button("Refresh lists", scale=1, elem_id="qb-compare-refresh")
    return _Filters(kb, cohort, since, until, models, picked_runs, min_items, run, refresh)


def _results_layout() -> _Results:
    """The message, the groups table, chart and heat map, the other tables, notes and export."""
    message = gr.Markdown(elem_id="qb-compare-message")
    groups = _table(GROUP_HEADERS, "Groups (95% intervals)", "qb-compare-groups")
    with gr.Row(elem_id="qb-compare-plots"):  # side by side when wide, stacked on a phone (CSS)
        chart = gr.HTML(elem_id="qb-compare-chart", min_width=580)
        heatmap = gr.HTML(elem_id="qb-compare-heatmap")
    by_relation = _table(["relation"], "Accuracy by relation", "qb-compare-relation")
    by_transform = _table(["transform"], "Accuracy by transform", "qb-compare-transform")
    tests = _table(
        TEST_HEADERS,
        "Tests (difference b − a; p adjusted with Benjamini–Hochberg within each family)",
        "qb-compare-tests",
        ["12%", "11%", "13%", "12%", "9%", "7%", "9%", "15%", "6%", "6%"],
    )
    percentiles = _table(PERCENTILE_HEADERS, "Percentile within the cohort", "qb-compare-pct")
    recall = _table(
        RECALL_HEADERS,
        "Open recall: mean F1 [95% t interval] and tier shares [Wilson 95%] (k), one set of tiers "
        "for everyone",
        "qb-compare-recall",
    )
    recall_tests = _table(
        RECALL_TEST_HEADERS,
        "Open recall tests: Welch's t on F1, model vs pooled students (difference b − a; p "
        "adjusted with Benjamini–Hochberg over these tests)",
        "qb-compare-recall-tests",
    )
    notes = gr.Markdown(elem_id="qb-compare-notes")
    with gr.Row():
        export = gr.Button("Export CSV", elem_id="qb-compare-export")
        download = gr.File(label="CSV", visible=False, elem_id="qb-compare-file")
    csv_text = gr.State(None)
    return _Results(
        message,
        groups,
        chart,
        heatmap,
        by_relation,
        by_transform,
        tests,
        percentiles,
        recall,
        recall_tests,
        notes,
        export,
        download,
        csv_text,
    )


def _wire_lists(ctx: UiContext, filters: _Filters, message: Any) -> None:
    """The lists of knowledge bases, cohorts, models and runs: on page load, on "Refresh
    lists", and the runs again whenever the models change."""
    models, picked_runs = filters.models, filters.picked_runs

    @guarded(5, title="Could not compare.")
    def lists(current: list[str] | None, request: gr.Request) -> tuple[Any, ...]:
        kbs = [e.name for e in kb_listing(ctx.db) if e.installed]
        offered = comparable_models(ctx.db)
        own = identity.scoped_cohort(ctx, request, None)  # an instructor's own cohort only
        groups = [("All students", ALL), *((c, c) for c in cohorts(ctx.db))]
        if own == identity.NO_COHORT:  # an instructor without a cohort: no students at all
            groups = [("No cohort (your account has none)", identity.NO_COHORT)]
            own = None
            shown = gr.update(choices=groups, value=identity.NO_COHORT)
        else:
            shown = gr.update(choices=[(own, own)], value=own) if own else gr.update(choices=groups)
        return (
            "",
            gr.update(choices=[("All knowledge bases", ALL), *((n, n) for n in kbs)]),
            shown,
            gr.update(choices=offered, value=[m for m in (current or []) if m in offered]),
            gr.update(choices=run_choices(ctx.db, [m for m in (current or []) if m in offered])),
        )

    def initial_lists(request: gr.Request) -> tuple[Any, ...]:
        return lists(None, request)

    list_outputs = [message, filters.kb, filters.cohort, models, picked_runs]
    gr.on(None, initial_lists, outputs=list_outputs, api_visibility="private")
    filters.refresh.click(lists, inputs=models, outputs=list_outputs, api_visibility="private")

    @guarded(1, title="Could not list runs.")
    def on_models(chosen: list[str] | None, picked: list[int] | None) -> Any:
        offered = run_choices(ctx.db, list(chosen or []))
        ids = {run_id for _, run_id in offered}
        return gr.update(choices=offered, value=[r for r in (picked or []) if r in ids])

    models.change(on_models, [models, picked_runs], [picked_runs], api_visibility="private")


def _wire_compare(ctx: UiContext, filters: _Filters, results: _Results) -> None:
    """The "Compare" button: every table, plot and note from one :func:`compare`; a new
    comparison hides the previous CSV file."""

    @guarded(12, title="Could not compare.")
    def on_compare(
        kb_name: str | None,
        cohort_name: str | None,
        since_text: str | None,
        until_text: str | None,
        chosen: list[str] | None,
        picked: list[int] | None,
        least: float | None,
        request: gr.Request,
    ) -> tuple[Any, ...]:
        result = compare(
            ctx.db,
            kb=kb_name or None,
            cohort=identity.scoped_cohort(ctx, request, cohort_name or None),
            since=parse_day(since_text, "start"),
            until=parse_day(until_text, "end"),
            models=list(chosen or []),
            run_ids=[int(r) for r in (picked or [])],
            min_items=int(least if least is not None else DEFAULT_MIN_ITEMS),
            recall_tiers=ctx.settings.recall_tiers,
        )
        return (
            "",
            group_table(result),
            bar_chart_svg(result.groups),
            heatmap_html(result, "relation") + heatmap_html(result, "transform"),
            breakdown_table(result, "relation"),
            breakdown_table(result, "transform"),
            significance_table(result),
            percentile_table(result),
            recall_table(result),
            recall_test_table(result),
            notes_markdown(result),
            result.to_csv(),
        )

    f = filters
    f.run.click(
        on_compare,
        inputs=[f.kb, f.cohort, f.since, f.until, f.models, f.picked_runs, f.min_items],
        outputs=results.compared(),
        api_visibility="private",
    ).then(
        lambda: gr.update(value=None, visible=False),
        outputs=results.download,
        api_visibility="private",
    )


def _wire_export(results: _Results) -> None:
    """The "Export CSV" button: the last comparison's CSV offered as a file."""
    message, download = results.message, results.download

    @guarded(2, title="Could not compare.")
    def on_export(text: str | None) -> tuple[Any, ...]:
        if not text:
            raise InputError("nothing to export yet", hint='press "Compare" first')
        path = write_csv(text)
        return "", gr.update(value=str(path), visible=True)

    results.export.click(
        on_export, inputs=results.csv_text, outputs=[message, download], api_visibility="private"
    )
