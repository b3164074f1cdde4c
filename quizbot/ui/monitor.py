"""The "Monitor" tab: every monitor's nights, per model, as a chart and three tables.

What is shown comes from :func:`quizbot.monitoring.nights.history` (the nights' stored summaries
and the
alerts); nothing is computed here beyond arranging it. The chart draws, for the chosen model, the
nightly accuracy of the anchor set (the same statements every night, compared pairwise) and of the
rotating slice (new statements every night), each with its 95% Wilson interval. The app ships
without matplotlib, so the chart is Gradio's own :class:`gr.LinePlot`: it cannot fill a band, so
each interval is drawn as a pair of light lines (its lower and upper bounds) around the
accuracy line, and every night on which the provider reported a different model id is drawn as a
grey vertical line from 0 to 1, named after the new id. The tables list every model of the
monitor: the nights (newest first), the model-id changes and the alerts.

Monitors are those declared in the schedules file in force (``QUIZBOT_SCHEDULES_FILE`` or the
shipped ``schedules/monitors.toml``) plus any the database remembers. "Run now" runs tonight for
every model of the chosen monitor, exactly as ``quizbot monitor run NAME`` does; it is an admin
action: its row is returned by :func:`build` (hidden until an admin logs in on the Admin tab) and
:func:`run_now` checks the session's admin flag again on the server before doing anything.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from quizbot.errors import NotFoundError, QuizbotError
from quizbot.monitoring.nights import NightResult, history, run_monitor
from quizbot.monitoring.scheduler import schedules_path
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.render import md_escape, user_message
from schedules.config import MonitorSpec, find_monitor, load_monitors
from storage.monitoring import list_monitors

__all__ = [
    "ALERT_HEADERS",
    "CHANGE_HEADERS",
    "NIGHT_HEADERS",
    "NOT_ADMIN",
    "accuracy_text",
    "alert_rows",
    "build",
    "change_rows",
    "declared_monitors",
    "describe_monitor",
    "monitor_names",
    "night_rows",
    "plot_colors",
    "plot_rows",
    "provider_changes",
    "run_now",
    "run_results_text",
]

log = logging.getLogger(__name__)

NOT_ADMIN = "Only an admin can do this: log in on the **Admin** tab first."

NIGHT_HEADERS = [
    "night",
    "model",
    "status",
    "accuracy (all)",
    "anchor",
    "rotating",
    "n",
    "provider model id",
    "run",
]
CHANGE_HEADERS = ["night", "model", "previous model id", "new model id"]
ALERT_HEADERS = ["night", "model", "severity", "message", "metric", "effect", "p", "webhook"]

ANCHOR, ROTATING = "anchor", "rotating"
LOW, HIGH = "95% low", "95% high"
_COLORS = {
    ANCHOR: "#1f5fbf",
    f"{ANCHOR} {LOW}": "#a9c6f0",
    f"{ANCHOR} {HIGH}": "#a9c6f0",
    ROTATING: "#d9480f",
    f"{ROTATING} {LOW}": "#f7c1a1",
    f"{ROTATING} {HIGH}": "#f7c1a1",
}
_CHANGE_COLOR = "#6c757d"
_CHANGE_PREFIX = "id → "


def declared_monitors(ctx: UiContext) -> tuple[Path, list[MonitorSpec], str | None]:
    """The schedules file in force, its monitors, and why it could not be read (or None)."""
    path = schedules_path(ctx.settings)
    try:
        return path, load_monitors(path), None
    except QuizbotError as exc:
        return path, [], user_message(exc)


def monitor_names(specs: Sequence[MonitorSpec], stored: Sequence[str]) -> list[str]:
    """Monitors to offer: those of the schedules file in its order, then others the database has."""
    names = [s.name for s in specs]
    return names + sorted(set(stored) - set(names))


def accuracy_text(scope: Mapping[str, Any]) -> str:
    """``0.500 [0.38–0.62]`` for a scope's accuracy figure, ``-`` when there is none."""
    figure = scope.get("accuracy") or {}
    value = figure.get("value")
    if value is None:
        return "-"
    interval = figure.get("interval")
    band = f" [{interval[0]:.2f}–{interval[1]:.2f}]" if interval else ""
    return f"{value:.3f}{band}"


def provider_changes(series: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(night, previous id, new id) for each completed night whose reported model id differs
    from the last one reported before it."""
    changes: list[tuple[str, str, str]] = []
    previous: str | None = None
    for night in series["nights"]:
        current = night.get("provider_model")
        if night.get("status") != "completed" or not current:
            continue
        if previous is not None and current != previous:
            changes.append((night["date"], previous, current))
        previous = current
    return changes


def plot_rows(series: Mapping[str, Any]) -> list[tuple[str, float, str]]:
    """The chart's points for one model: (night, accuracy, series name).

    Series: ``anchor`` and ``rotating`` accuracy, their ``95% low``/``95% high`` bounds, and one
    two-point vertical series (0 to 1) per model-id change, named ``id → NEW`` (with `` (NIGHT)``
    added when the same id comes back later, so that no series holds two changes).
    """
    rows: list[tuple[str, float, str]] = []
    for night in series["nights"]:
        if night.get("status") != "completed":
            continue
        for part in (ANCHOR, ROTATING):
            figure = (night.get(part) or {}).get("accuracy") or {}
            if figure.get("value") is None:
                continue
            rows.append((night["date"], float(figure["value"]), part))
            interval = figure.get("interval")
            if interval:
                rows.append((night["date"], float(interval[0]), f"{part} {LOW}"))
                rows.append((night["date"], float(interval[1]), f"{part} {HIGH}"))
    seen: set[str] = set()
    for when, _previous, new in provider_changes(series):
        name = f"{_CHANGE_PREFIX}{new}"
        name = f"{name} ({when})" if name in seen else name
        seen.add(name)
        rows.extend([(when, 0.0, name), (when, 1.0, name)])
    return rows


def plot_colors(rows: Sequence[tuple[str, float, str]]) -> tuple[dict[str, str], list[str]]:
    """Colours of the chart's series, and the series named in its legend (not the bounds)."""
    names = list(dict.fromkeys(name for _when, _value, name in rows))
    colors = {name: _COLORS.get(name, _CHANGE_COLOR) for name in names}
    legend = [n for n in names if n in (ANCHOR, ROTATING) or n.startswith(_CHANGE_PREFIX)]
    return colors, legend


def _statements(night: Mapping[str, Any]) -> str:
    metrics = night.get("metrics") or {}
    n = metrics.get("n_items")
    if n is None:
        return "-"
    errors = metrics.get("n_errors") or 0
    return f"{n}" + (f" ({errors} errors)" if errors else "")


def night_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """The nights of every model, newest first (``NIGHT_HEADERS``)."""
    rows: list[list[Any]] = []
    for series in histories:
        for night in series["nights"]:
            rows.append(
                [
                    night["date"],
                    series["model"],
                    night["status"] + (f": {night['error'][:200]}" if night.get("error") else ""),
                    accuracy_text(night.get("metrics") or {}),
                    accuracy_text(night.get(ANCHOR) or {}),
                    accuracy_text(night.get(ROTATING) or {}),
                    _statements(night),
                    night.get("provider_model") or "-",
                    night.get("run_id") or "-",
                ]
            )
    rows.sort(key=lambda row: (row[0], row[1]))
    rows.sort(key=lambda row: row[0], reverse=True)
    return rows


def change_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Model-id changes of every model, newest first (``CHANGE_HEADERS``)."""
    rows = [
        [when, series["model"], previous, new]
        for series in histories
        for when, previous, new in provider_changes(series)
    ]
    rows.sort(key=lambda row: (row[0], row[1]))
    rows.sort(key=lambda row: row[0], reverse=True)
    return rows


def _delivery(alert: Mapping[str, Any]) -> str:
    if alert.get("delivered"):
        return "delivered"
    if alert.get("delivery_error"):
        return f"failed: {alert['delivery_error']}"[:200]
    return "-"


def alert_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Alerts of every model, newest night first (``ALERT_HEADERS``)."""
    rows: list[list[Any]] = []
    for series in histories:
        for alert in series["alerts"]:
            effect, p_value = alert.get("effect"), alert.get("p_value")
            rows.append(
                [
                    alert["date"],
                    series["model"],
                    alert["severity"],
                    alert["message"],
                    alert["metric"],
                    "-" if effect is None else f"{effect * 100:+.1f} points",
                    "-" if p_value is None else f"{p_value:.2g}",
                    _delivery(alert),
                ]
            )
    rows.sort(key=lambda row: row[0], reverse=True)  # stable: a night's alerts keep their order
    return rows


def _no_nights(name: str) -> str:
    return (
        f"No nights yet — run `quizbot monitor run {name}` or press **Run now** "
        "(shown here once an admin has logged in on the Admin tab)."
    )


def describe_monitor(
    name: str, definition: Mapping[str, Any] | None, histories: Sequence[Mapping[str, Any]]
) -> str:
    """A Markdown paragraph: what the monitor asks, of whom, when, and how many nights it has."""
    lines = [f"### {name}"]
    if definition:
        models = ", ".join(f"`{m}`" for m in definition.get("models", []))
        points, anchors = definition.get("points"), definition.get("anchor_points")
        lines.append(
            f"Models {models}; {points} knowledge points a night ({anchors} of them the fixed "
            f"anchor set) from `{definition.get('kb')}`, at cron `{definition.get('cron')}` "
            f"({definition.get('timezone')})."
            + ("" if definition.get("enabled", True) else " **Disabled** in the schedules file.")
        )
    else:
        lines.append("Not in the schedules file in force; its stored history is shown.")
    nights = [n for series in histories for n in series["nights"]]
    if not nights:
        lines.append(_no_nights(name))
        return "\n\n".join(lines)
    dates = sorted(n["date"] for n in nights)
    alerts = sum(len(series["alerts"]) for series in histories)
    failed = sum(n["status"] == "failed" for n in nights)
    lines.append(
        f"{len({n['date'] for n in nights})} night(s) from {dates[0]} to {dates[-1]}; "
        f"{alerts} alert(s)" + (f"; {failed} failed model-night(s)" if failed else "") + "."
    )
    return "\n\n".join(lines)


def run_results_text(results: Sequence[NightResult]) -> str:
    """What "Run now" did, one line per model (Markdown)."""
    if not results:
        return "The monitor has no models."
    lines = []
    for r in results:
        run = f" (run {r.run_id})" if r.run_id else ""
        detail = "already claimed or done tonight" if r.status == "skipped" else r.message
        lines.append(f"- `{r.model}`, night {r.date}: **{r.status}**{run}: {md_escape(detail)}")
        lines.extend(f"  - {a['severity']}: {md_escape(a['message'])}" for a in r.alerts)
    return "\n".join(lines)


@guarded(1)
def run_now(ctx: UiContext, admin: bool, name: str | None, when: date | None = None) -> str:
    """Run one night (tonight by default) of monitor ``name`` from the schedules file in force,
    for every model; admins only (checked here, on the server). Returns Markdown."""
    if not admin:
        return NOT_ADMIN
    if not name:
        return "Choose a monitor first."
    path = schedules_path(ctx.settings)
    spec = find_monitor(load_monitors(path), name)
    results = run_monitor(ctx.db, spec, when=when, settings=ctx.settings)
    return run_results_text(results)


def _frame(headers: list[str], rows: list[list[Any]]) -> Any:
    return pd.DataFrame(rows, columns=headers)


def _plot(name: str, series: Mapping[str, Any] | None) -> Any:
    rows = plot_rows(series) if series else []
    if not rows:
        return gr.LinePlot(value=None, title=None)
    colors, legend = plot_colors(rows)
    frame = pd.DataFrame(rows, columns=["night", "accuracy", "series"])
    frame["night"] = pd.to_datetime(frame["night"])
    return gr.LinePlot(
        value=frame,
        title=f"{name} · {series['model'] if series else ''}",
        color_map=colors,
        colors_in_legend=legend,
    )


def _histories(ctx: UiContext, name: str) -> list[dict[str, Any]]:
    try:
        return history(ctx.db, name)
    except NotFoundError:  # declared but never run or synced
        return []


def build(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """Lay out the tab; return the admin-only components (hidden until an admin logs in)."""
    gr.Markdown(
        "Nightly knowledge monitors: every night each model answers the **anchor** set (the "
        "same statements every night, compared pairwise) and a **rotating** slice (new "
        "statements every night). Drops, and changes of the model id the provider reports, "
        "raise alerts."
    )
    with gr.Row():
        monitor = gr.Dropdown(label="Monitor", choices=[], elem_id="qb-monitor-name", scale=2)
        model = gr.Dropdown(label="Model (chart)", choices=[], elem_id="qb-monitor-model", scale=2)
        refresh = gr.Button("Refresh", size="sm", elem_id="qb-monitor-refresh", scale=0)
    with gr.Row(visible=False, elem_id="qb-monitor-admin") as admin_row:
        run = gr.Button("Run now", variant="primary", elem_id="qb-monitor-run", scale=0)
        run_result = gr.Markdown(elem_id="qb-monitor-run-result")
    summary = gr.Markdown(elem_id="qb-monitor-summary")
    plot = gr.LinePlot(
        x="night",
        y="accuracy",
        color="series",
        y_lim=[0, 1],
        x_title="night",
        y_title="accuracy",
        color_title="series",
        height=360,
        elem_id="qb-monitor-plot",
    )
    gr.Markdown(
        "Dark lines: accuracy per night; light lines: the bounds of its 95% interval; grey "
        "vertical lines: nights on which the provider reported a different model id.",
        elem_id="qb-monitor-plot-caption",
    )
    nights = gr.Dataframe(
        headers=NIGHT_HEADERS,
        label="Nights (all models, newest first)",
        interactive=False,
        max_height=420,
        column_widths=["9%", "16%", "9%", "14%", "14%", "14%", "5%", "14%", "5%"],
        elem_id="qb-monitor-nights",
    )
    changes = gr.Dataframe(
        headers=CHANGE_HEADERS,
        label="Model id changes reported by the provider",
        interactive=False,
        elem_id="qb-monitor-changes",
    )
    alerts = gr.Dataframe(
        headers=ALERT_HEADERS,
        label="Alerts (newest first)",
        interactive=False,
        wrap=True,
        max_height=420,
        column_widths=["9%", "14%", "7%", "38%", "12%", "7%", "5%", "8%"],
        elem_id="qb-monitor-alerts",
    )

    @guarded(7, at=2)
    def _view(name: str | None, chosen: str | None) -> tuple[Any, ...]:
        path, specs, problem = declared_monitors(ctx)
        names = monitor_names(specs, [m.name for m in list_monitors(ctx.db)])
        name = name if name in names else (names[0] if names else None)
        if name is None:
            text = (
                f"No monitors are declared in `{path}`. Add a `[[monitor]]` table "
                "(see the shipped `schedules/monitors.toml`)."
            )
            if problem:
                text = f"The schedules file could not be read: {md_escape(problem)}"
            return (
                gr.Dropdown(choices=[], value=None),
                gr.Dropdown(choices=[], value=None),
                text,
                _plot("", None),
                _frame(NIGHT_HEADERS, []),
                _frame(CHANGE_HEADERS, []),
                _frame(ALERT_HEADERS, []),
            )
        declared = {s.name: s.as_json() for s in specs}
        histories = _histories(ctx, name)
        models = [h["model"] for h in histories]
        chosen = chosen if chosen in models else (models[0] if models else None)
        series = next((h for h in histories if h["model"] == chosen), None)
        text = describe_monitor(name, declared.get(name), histories)
        if problem:
            text += f"\n\n**The schedules file could not be read:** {md_escape(problem)}"
        return (
            gr.Dropdown(choices=names, value=name),
            gr.Dropdown(choices=models, value=chosen),
            text,
            _plot(name, series),
            _frame(NIGHT_HEADERS, night_rows(histories)),
            _frame(CHANGE_HEADERS, change_rows(histories)),
            _frame(ALERT_HEADERS, alert_rows(histories)),
        )

    outputs = [monitor, model, summary, plot, nights, changes, alerts]
    gr.on(triggers=None, fn=lambda: _view(None, None), outputs=outputs, api_visibility="private")
    gr.on(
        [monitor.input, model.input, refresh.click],
        _view,
        inputs=[monitor, model],
        outputs=outputs,
        api_visibility="private",
    )

    def _run(admin: bool, name: str | None) -> str:
        return run_now(ctx, admin, name)

    run.click(_run, inputs=[is_admin, monitor], outputs=run_result, api_visibility="private").then(
        _view, inputs=[monitor, model], outputs=outputs, api_visibility="private"
    )
    return [admin_row]
