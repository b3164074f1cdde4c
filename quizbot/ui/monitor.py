"""The "Monitor" tab: an overview of every monitor x model first, then one monitor in detail.

The **overview** (:func:`~quizbot.ui.monitor_views.overview_rows`,
:func:`~quizbot.ui.monitor_views.overview_html`) lists every monitor x model with
its last night, that night's accuracy (an open recall monitor: its mean F1 with a 95% t
interval and the share basically correct), a 14-night trend (a sparkline and the change against the
7 nights before) and its active incidents (:mod:`quizbot.monitoring.incidents`). An admin gets
the incident actions under it: acknowledge, resolve, or accept the new level as the baseline
(from a chosen night); :func:`incident_action` checks the session's admin flag again on the
server, as the Admin tab's own actions do.

The **detail** of the chosen monitor opens on the model that needs attention
(:func:`default_model`: the most severe active incident, else a last night that alerted or
failed, else the first model). Its chart (:func:`chart_svg`) is an SVG drawn here, since the app
ships without a plotting library and Gradio's line plot cannot fill a band: the nightly accuracy
of the anchor set and of the rotating slice as lines, each 95% Wilson interval as a shaded band,
a marker above each night with alerts, incident spans, accepted baselines and model-id changes.
The tables list the monitor's incidents, nights, model-id changes and alerts; on a phone they
scroll sideways inside their box (the overview turns into cards). Figures come from
:func:`quizbot.monitoring.nights.history` and the stored incidents; nothing is computed here
beyond arranging them.

Monitors are those declared in the schedules file in force (``QUIZBOT_SCHEDULES_FILE`` or the
shipped ``schedules/monitors.toml``) plus any the database remembers. "Run now" runs tonight for
every model of the chosen monitor, exactly as ``quizbot monitor run NAME`` does; it is an admin
action: its row is returned by :func:`build` (hidden until an admin logs in on the Admin tab) and
:func:`run_now` checks the session's admin flag again on the server before doing anything.

This module lays the tab out and wires it (:func:`build`, in named parts); the texts and table
rows are :mod:`quizbot.ui.monitor_views`, the chart :mod:`quizbot.ui.monitor_chart`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from quizbot.errors import InputError, NotFoundError, QuizbotError
from quizbot.monitoring.incidents import accept_baseline, acknowledge, resolve
from quizbot.monitoring.nights import history, run_monitor
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor_chart import chart_svg
from quizbot.ui.monitor_incident import incident_section
from quizbot.ui.monitor_views import (
    ALERT_HEADERS,
    CHANGE_HEADERS,
    INCIDENT_HEADERS,
    NIGHT_HEADERS,
    SEVERITY_ORDER,
    alert_rows,
    change_rows,
    default_model,
    describe_monitor,
    incident_choice,
    incident_rows,
    night_rows,
    overview_html,
    overview_rows,
    run_results_text,
)
from quizbot.ui.render import md_escape, user_message
from schedules.config import MonitorSpec, find_monitor, load_monitors, schedules_path
from storage.incidents import list_incidents
from storage.monitoring import list_monitors

__all__ = [
    "NOT_ADMIN",
    "build",
    "declared_monitors",
    "incident_action",
    "monitor_names",
    "night_date",
    "run_now",
]

log = logging.getLogger(__name__)

NOT_ADMIN = "Only an admin can do this: log in on the **Admin** tab first."


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


def night_date(text: str | None) -> date | None:
    """The night typed in "Run now" (YYYY-MM-DD), None when empty; :class:`InputError` else."""
    cleaned = (text or "").strip()
    if not cleaned:
        return None
    try:
        return date.fromisoformat(cleaned)
    except ValueError:
        raise InputError(
            f"night {cleaned!r} is not a date",
            hint="write it as YYYY-MM-DD, or leave it empty for tonight",
        ) from None


@guarded(1)
def run_now(ctx: UiContext, admin: bool, name: str | None, when: date | str | None = None) -> str:
    """Run one night (``when``: a date or YYYY-MM-DD text; tonight by default) of monitor
    ``name`` from the schedules file in force, for every model, exactly as ``quizbot monitor
    run NAME --date`` does; admins only (checked here, on the server). Returns Markdown."""
    if not admin:
        return NOT_ADMIN
    if not name:
        return "Choose a monitor first."
    if isinstance(when, str) or when is None:
        when = night_date(when)
    path = schedules_path(ctx.settings)
    spec = find_monitor(load_monitors(path), name)
    results = run_monitor(ctx.db, spec, when=when, settings=ctx.settings)
    return run_results_text(results)


def _frame(headers: list[str], rows: list[list[Any]]) -> Any:
    return pd.DataFrame(rows, columns=headers)


def _histories(ctx: UiContext, name: str) -> list[dict[str, Any]]:
    try:
        return history(ctx.db, name)
    except NotFoundError:  # declared but never run or synced
        return []


OVERVIEW_CSS = """
<style>
.qb-overview { width: 100%; border-collapse: collapse; font-size: 0.92em; }
#qb-monitor-overview .qb-overview th, #qb-monitor-overview .qb-overview td {
  padding: 6px 8px; border: none; border-bottom: 1px solid #e5e5e5; text-align: left;
  vertical-align: middle; }
.qb-overview code { word-break: break-all; }
.qb-badge { display: inline-block; color: #fff; border-radius: 10px; padding: 1px 8px;
  margin: 1px 2px; font-size: 0.85em; white-space: nowrap; }
.qb-none { color: #868e96; }
.qb-change { white-space: nowrap; font-size: 0.9em; }
.qb-chart-title { font-weight: 600; margin: 4px 0; }
.qb-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85em; margin-top: 4px; }
.qb-swatch span { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -1px; border-radius: 2px; }
@media (max-width: 640px) {
  #qb-monitor-overview .qb-overview thead { display: none; }
  #qb-monitor-overview .qb-overview tr { display: block; border: 1px solid #dee2e6;
    border-radius: 8px; margin-bottom: 10px; padding: 4px 6px; }
  #qb-monitor-overview .qb-overview td { display: flex; gap: 8px; border: none;
    padding: 3px 2px; flex-wrap: wrap; align-items: center; }
  .qb-overview td::before { content: attr(data-label); font-weight: 600; min-width: 96px; }
  #qb-monitor-tables { overflow-x: auto !important; }
  #qb-monitor-incidents, #qb-monitor-changes { min-width: 760px !important; }
  #qb-monitor-nights { min-width: 1300px !important; }
  #qb-monitor-alerts { min-width: 1320px !important; }
}
</style>
"""

# Fixed widths, wide enough for each header's longest word in the bold 14 px monospace font
# (8.4 px a character, 16 px padding): Gradio otherwise sizes a column by its data, and a
# header such as "alerting nights" over one-digit counts broke inside its words at 390 px.
INCIDENT_WIDTHS: list[str | int] = ["48px", "120px", "120px", "120px", "130px", "96px",
                                    "112px", "112px", "96px", "112px", "160px"]  # fmt: skip
# Fixed widths (not shares of the screen): on a phone the table keeps them and scrolls sideways
# inside its box, so a date or a status never breaks inside a word.
NIGHT_WIDTHS: list[str | int] = ["112px", "170px", "130px", "180px", "180px", "180px", "90px",
                                 "170px", "64px"]  # fmt: skip
ALERT_WIDTHS: list[str | int] = ["112px", "170px", "96px", "420px", "170px", "120px", "80px",
                                 "130px"]  # fmt: skip
ACTIONS = ("acknowledge", "resolve", "accept")


@guarded(1)
def incident_action(
    ctx: UiContext,
    admin: bool,
    action: str,
    incident_id: int | None,
    note: str | None = None,
    from_night: str | None = None,
) -> str:
    """Acknowledge, resolve or accept (as the new baseline) an incident; admins only (checked
    here, on the server). Returns Markdown saying what changed and whether the webhook got it."""
    if not admin:
        return NOT_ADMIN
    if action not in ACTIONS:
        raise InputError(f"unknown action {action!r}", hint=f"one of {', '.join(ACTIONS)}")
    if incident_id is None:
        return "Choose an incident first."
    text = (note or "").strip() or None
    by = "admin (app)"
    if action == "acknowledge":
        done = acknowledge(ctx.db, int(incident_id), by=by, note=text, settings=ctx.settings)
    elif action == "resolve":
        done = resolve(ctx.db, int(incident_id), by=by, note=text, settings=ctx.settings)
    else:
        night = None
        if from_night and from_night.strip():
            try:
                night = date.fromisoformat(from_night.strip())
            except ValueError:
                raise InputError(
                    f"baseline night {from_night.strip()!r} is not a date",
                    hint="write it as YYYY-MM-DD, or leave it empty for the night it opened",
                ) from None
        done = accept_baseline(
            ctx.db, int(incident_id), by=by, from_night=night, note=text, settings=ctx.settings
        )
    webhook = (done.events[-1] if done.events else {}).get("webhook", "-")
    extra = f"; drift comparisons now start on {done.baseline_from}" if done.baseline_from else ""
    return (
        f"Incident #{done.id} ({md_escape(done.model)}, {done.metric}) is now "
        f"**{done.state}**{extra}. Webhook: {md_escape(str(webhook))}."
    )


def _overview(ctx: UiContext) -> tuple[str, Any, list[Any]]:
    """The overview's HTML, the action dropdown, and every incident (newest first)."""
    _path, specs, _problem = declared_monitors(ctx)
    names = monitor_names(specs, [m.name for m in list_monitors(ctx.db)])
    histories = {name: _histories(ctx, name) for name in names}
    incidents = list_incidents(ctx.db)
    rows = overview_rows(histories, incidents)
    actionable = [incident_choice(i) for i in incidents if i.state != "accepted"]
    active_first = sorted(actionable, key=lambda c: "(" not in c[0])
    dropdown = gr.Dropdown(choices=active_first, value=active_first[0][1] if active_first else None)
    return OVERVIEW_CSS + overview_html(rows), dropdown, incidents


@dataclass(frozen=True)
class _Overview:
    """The overview and the admin's incident actions under it."""

    board: gr.HTML
    actions: gr.Column  # admin only
    incident: gr.Dropdown
    note: gr.Textbox
    from_night: gr.Textbox
    ack: gr.Button
    accept: gr.Button
    close: gr.Button
    result: gr.Markdown


@dataclass(frozen=True)
class _Detail:
    """One monitor: its choice, Run now (admin only), the chart and the tables."""

    monitor: gr.Dropdown
    model: gr.Dropdown
    refresh: gr.Button
    admin_row: gr.Row
    run_date: gr.Textbox
    run: gr.Button
    run_result: gr.Markdown
    summary: gr.Markdown
    plot: gr.HTML
    incidents: gr.Dataframe
    nights: gr.Dataframe
    changes: gr.Dataframe
    alerts: gr.Dataframe


def build(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """Lay out the tab; return the admin-only components (hidden until an admin logs in)."""
    gr.Markdown(
        "Nightly knowledge monitors: every night each model answers the **anchor** set (the "
        "same statements every night, compared pairwise) and a **rotating** slice (new "
        "statements every night). Alerts of one model and metric on consecutive nights form "
        "one **incident** (open, acknowledged, resolved, or accepted as the new baseline); "
        "the webhook hears when one opens or changes state."
    )
    top = _overview_layout()
    page, incident_view, flip_sort, incident_html = incident_section(ctx)
    one = _detail_layout()

    view = _view_handler(ctx)
    outputs = [one.monitor, one.model, one.summary, one.plot, one.incidents, one.nights]
    outputs += [one.changes, one.alerts, top.board, top.incident]
    gr.on(triggers=None, fn=lambda: view(None, None), outputs=outputs, api_visibility="private")

    one.refresh.click(
        page.choices, inputs=incident_view, outputs=incident_view, api_visibility="private"
    )
    gr.on(
        [one.monitor.input, one.model.input, one.refresh.click],
        view,
        inputs=[one.monitor, one.model],
        outputs=outputs,
        api_visibility="private",
    )

    def _run(admin: bool, name: str | None, when: str | None) -> str:
        return run_now(ctx, admin, name, when)

    one.run.click(
        _run,
        inputs=[is_admin, one.monitor, one.run_date],
        outputs=one.run_result,
        api_visibility="private",
    ).then(view, inputs=[one.monitor, one.model], outputs=outputs, api_visibility="private")

    for button, action in (
        (top.ack, "acknowledge"),
        (top.close, "resolve"),
        (top.accept, "accept"),
    ):

        def _act(
            admin: bool, chosen: int | None, text: str | None, night: str | None,
            action: str = action,
        ) -> str:  # fmt: skip
            return incident_action(ctx, admin, action, chosen, text, night)

        button.click(
            _act,
            inputs=[is_admin, top.incident, top.note, top.from_night],
            outputs=top.result,
            api_visibility="private",
        ).then(
            view, inputs=[one.monitor, one.model], outputs=outputs, api_visibility="private"
        ).then(
            page.render, inputs=[incident_view, flip_sort], outputs=incident_html,
            api_visibility="private",
        )  # fmt: skip
    return [top.actions, one.admin_row]


def _overview_layout() -> _Overview:
    gr.Markdown("### Overview: every monitor and model", elem_id="qb-monitor-overview-title")
    overview = gr.HTML(elem_id="qb-monitor-overview")
    with gr.Column(visible=False, elem_id="qb-monitor-incident-actions") as actions:
        with gr.Row():
            incident = gr.Dropdown(
                label="Incident", choices=[], elem_id="qb-monitor-incident", scale=3
            )
            note = gr.Textbox(label="Note (optional)", elem_id="qb-monitor-incident-note", scale=2)
            from_night = gr.Textbox(
                label="New baseline from night (YYYY-MM-DD; empty: the night it opened)",
                elem_id="qb-monitor-from-night",
                scale=2,
            )
        with gr.Row():
            ack = gr.Button("Acknowledge", elem_id="qb-monitor-ack", scale=0)
            accept = gr.Button(
                "Accept new baseline", variant="primary", elem_id="qb-monitor-accept", scale=0
            )
            close = gr.Button("Resolve", elem_id="qb-monitor-resolve", scale=0)
        action_result = gr.Markdown(elem_id="qb-monitor-action-result")
    return _Overview(
        overview, actions, incident, note, from_night, ack, accept, close, action_result
    )


def _detail_layout() -> _Detail:
    gr.Markdown("### One monitor")
    with gr.Row():
        monitor = gr.Dropdown(label="Monitor", choices=[], elem_id="qb-monitor-name", scale=2)
        model = gr.Dropdown(label="Model (chart)", choices=[], elem_id="qb-monitor-model", scale=2)
        refresh = gr.Button("Refresh", size="sm", elem_id="qb-monitor-refresh", scale=0)
    with gr.Row(visible=False, elem_id="qb-monitor-admin") as admin_row:
        run_date = gr.Textbox(
            label="Night to run (YYYY-MM-DD; empty: tonight)",
            elem_id="qb-monitor-run-date",
            scale=1,
        )
        run = gr.Button("Run now", variant="primary", elem_id="qb-monitor-run", scale=0)
    run_result = gr.Markdown(elem_id="qb-monitor-run-result")
    summary = gr.Markdown(elem_id="qb-monitor-summary")
    plot = gr.HTML(elem_id="qb-monitor-plot")
    gr.Markdown(
        "Lines: accuracy per night; shaded bands: its 95% interval; ▼ above a night: its "
        "alerts (hover for the message); × at the bottom: a failed night; red spans: open "
        "incidents (grey once closed); green line: an accepted baseline; dashed grey lines: "
        "nights on which the provider reported a different model id.",
        elem_id="qb-monitor-plot-caption",
    )
    with gr.Column(elem_id="qb-monitor-tables"):
        incidents_table = gr.Dataframe(
            headers=INCIDENT_HEADERS,
            label="Incidents of this monitor (newest first)",
            interactive=False,
            wrap=True,
            column_widths=INCIDENT_WIDTHS,
            max_height=320,
            elem_id="qb-monitor-incidents",
        )
        nights = gr.Dataframe(
            headers=NIGHT_HEADERS,
            label="Nights (all models, newest first)",
            interactive=False,
            wrap=True,
            max_height=420,
            column_widths=NIGHT_WIDTHS,
            elem_id="qb-monitor-nights",
        )
        changes = gr.Dataframe(
            headers=CHANGE_HEADERS,
            label="Model id changes reported by the provider",
            interactive=False,
            wrap=True,
            elem_id="qb-monitor-changes",
        )
        alerts = gr.Dataframe(
            headers=ALERT_HEADERS,
            label="Alerts (newest first)",
            interactive=False,
            wrap=True,
            max_height=420,
            column_widths=ALERT_WIDTHS,
            elem_id="qb-monitor-alerts",
        )
    return _Detail(
        monitor, model, refresh, admin_row, run_date, run, run_result, summary, plot,
        incidents_table, nights, changes, alerts,
    )  # fmt: skip


def _view_handler(ctx: UiContext) -> Callable[[str | None, str | None], tuple[Any, ...]]:
    """The handler that shows one monitor (and refreshes the overview): ten outputs."""

    @guarded(10, at=2)
    def _view(name: str | None, chosen: str | None) -> tuple[Any, ...]:
        board, dropdown, every = _overview(ctx)
        path, specs, problem = declared_monitors(ctx)
        names = monitor_names(specs, [m.name for m in list_monitors(ctx.db)])
        if name not in names:  # the monitor with the most severe active incident, else the first
            active = [i for i in every if i.active and i.monitor in names]
            worst = max(active, key=lambda i: SEVERITY_ORDER.get(i.severity, 0), default=None)
            name = worst.monitor if worst else (names[0] if names else None)
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
                "",
                _frame(INCIDENT_HEADERS, []),
                _frame(NIGHT_HEADERS, []),
                _frame(CHANGE_HEADERS, []),
                _frame(ALERT_HEADERS, []),
                board,
                dropdown,
            )
        declared = {s.name: s.as_json() for s in specs}
        histories = _histories(ctx, name)
        models = [h["model"] for h in histories]
        own = [i for i in every if i.monitor == name]
        chosen = chosen if chosen in models else default_model(histories, own)
        series = next((h for h in histories if h["model"] == chosen), None)
        text = describe_monitor(name, declared.get(name), histories, ctx.db)
        if problem:
            text += f"\n\n**The schedules file could not be read:** {md_escape(problem)}"
        shown = [i.as_json() for i in own if i.model == chosen]
        return (
            gr.Dropdown(choices=names, value=name),
            gr.Dropdown(choices=models, value=chosen),
            text,
            OVERVIEW_CSS + chart_svg(series, shown),
            _frame(INCIDENT_HEADERS, incident_rows(own)),
            _frame(NIGHT_HEADERS, night_rows(histories)),
            _frame(CHANGE_HEADERS, change_rows(histories)),
            _frame(ALERT_HEADERS, alert_rows(histories)),
            board,
            dropdown,
        )

    return _view
